"""Fennec's workflows: correction, SFT data and bridging, with their commands, run records and reports.

``correct`` rewrites the responses a fennec judgment scored under a threshold (and can re-judge the
rewrite against the original); ``build_sft`` / ``export_sft`` turn fennec judgments and corrections
into chat-format training sets (criteria, scoring guidelines, judgments, corrections); ``bridge``
recovers criteria and guidelines for judge datasets that have only verdicts, keeping the
behaviourally consistent records. The method itself (`faceteval.methods.fennec`) is below the engine;
these use it. Imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faceteval._util.lazy import lazy_attributes

if TYPE_CHECKING:
    from faceteval.workflows.fennec._bridge import BridgeRecord, bridge, bridge_async
    from faceteval.workflows.fennec._bridge_files import BridgeSummary, save_bridge, summarize
    from faceteval.workflows.fennec._bridge_sources import BRIDGEABLE, BridgeSource, load_sources
    from faceteval.workflows.fennec._correct import (
        DEFAULT_THRESHOLD,
        Correction,
        CorrectOptions,
        correct,
        correct_async,
    )
    from faceteval.workflows.fennec._correctable import load_correctable, response_score
    from faceteval.workflows.fennec._rejudge import Improvement, improvement
    from faceteval.workflows.fennec._sft import build_sft, export_sft, read_corrections, write_sft
    from faceteval.workflows.fennec._sft_model import SftData, SftStats


_LAZY = {
    "_bridge": ("BridgeRecord", "bridge", "bridge_async"),
    "_bridge_files": ("BridgeSummary", "save_bridge", "summarize"),
    "_bridge_sources": ("BRIDGEABLE", "BridgeSource", "load_sources"),
    "_correct": ("DEFAULT_THRESHOLD", "CorrectOptions", "Correction", "correct", "correct_async"),
    "_correctable": ("load_correctable", "response_score"),
    "_rejudge": ("Improvement", "improvement"),
    "_sft": ("build_sft", "export_sft", "read_corrections", "write_sft"),
    "_sft_model": ("SftData", "SftStats"),
}
__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "BRIDGEABLE",
    "DEFAULT_THRESHOLD",
    "BridgeRecord",
    "BridgeSource",
    "BridgeSummary",
    "CorrectOptions",
    "Correction",
    "Improvement",
    "SftData",
    "SftStats",
    "bridge",
    "bridge_async",
    "build_sft",
    "correct",
    "correct_async",
    "export_sft",
    "improvement",
    "load_correctable",
    "load_sources",
    "read_corrections",
    "response_score",
    "save_bridge",
    "summarize",
    "write_sft",
]
