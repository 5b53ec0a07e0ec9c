"""Fennec beyond judging: correcting weak responses, judge training data, and bridging datasets.

``correct`` rewrites the responses a fennec judgment scored under a threshold (and can re-judge
the rewrite against the original); ``build_sft`` / ``export_sft`` turn fennec judgments and
corrections into chat-format training sets (criteria, scoring guidelines, judgments,
corrections); ``bridge`` recovers criteria and guidelines for judge datasets that have only
verdicts, keeping the behaviourally consistent records. The method itself is
`faceteval.methods.Fennec`.
"""

from faceteval.fennec._bridge import BridgeRecord, bridge, bridge_async
from faceteval.fennec._bridge_files import BridgeSummary, save_bridge, summarize
from faceteval.fennec._bridge_sources import BRIDGEABLE, BridgeSource, load_sources
from faceteval.fennec._correct import (
    DEFAULT_THRESHOLD,
    Correction,
    CorrectOptions,
    Improvement,
    correct,
    correct_async,
    improvement,
    load_correctable,
    response_score,
)
from faceteval.fennec._sft import SftData, SftStats, build_sft, export_sft, read_corrections, write_sft

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
