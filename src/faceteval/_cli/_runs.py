"""The run a path given to ``report`` or ``cost`` is, told by its files as the viewer tells it
(`faceteval.viewer.internal.run_at`), and where and how its report is written."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faceteval.errors import FacetevalError
from faceteval.metaeval.internal import SUMMARY
from faceteval.methods import RunReport, method_specs
from faceteval.report import judge_report_paths
from faceteval.report.internal import HTML_FILE, MARKDOWN_FILE
from faceteval.viewer import Run
from faceteval.viewer.internal import run_at

RECORD_SUFFIX = ".run.json"
EXPECTED = (
    "give a judge output (its JSONL, or its .run.json record), a meta-eval run directory, an HD-Eval "
    "evaluator directory, or a correct or bridge output"
)
"""What a path given to ``report`` or ``cost`` may be."""


def find_run(path: Path) -> Run:
    """The run ``path`` is.

    A directory with a ``summary.json`` that is no evaluator is a meta-evaluation (however old).

    Raises:
        FacetevalError: It is none, naming what it is and what was expected.
    """
    if not os.path.lexists(path):
        raise FacetevalError(f"{path}: no such file or directory; {EXPECTED}")
    run = run_at(path)
    if run is not None:
        return run
    if path.is_dir():
        if (path / SUMMARY).is_file():
            return Run("meta-eval", Path(os.path.abspath(path)), path / SUMMARY)
        raise FacetevalError(
            f"{path}: not a meta-evaluation run (no {SUMMARY}), nor an HD-Eval evaluator (no "
            f"evaluator.json); {EXPECTED}"
        )
    if path.name.endswith(RECORD_SUFFIX):
        output = path.with_name(path.name.removesuffix(RECORD_SUFFIX) + ".jsonl")
        raise FacetevalError(
            f"{path}: not the record of a run whose output is beside it ({output.name}); {EXPECTED}"
        )
    raise FacetevalError(f"{path}: not a run (no judgments, corrections or bridged records); {EXPECTED}")


def report_paths(run: Run, out: Path | None) -> tuple[Path, Path]:
    """Where ``run``'s report goes: ``OUT.md`` and ``OUT.html`` (a ``.md`` or ``.html`` suffix of
    ``out`` dropped first); else ``report.md`` and ``report.html`` in a run directory, and
    ``X.report.md`` and ``X.report.html`` beside a run's ``X.jsonl``.

    Examples:
        >>> paths = report_paths(Run("judge", Path("r/j.jsonl")), Path("out/dna.md"))
        >>> [path.as_posix() for path in paths]
        ['out/dna.md', 'out/dna.html']
    """
    if out is not None:
        stem = out.with_suffix("") if out.suffix in (".md", ".html") else out
        return stem.with_name(stem.name + ".md"), stem.with_name(stem.name + ".html")
    if run.path.is_dir():
        return run.path / MARKDOWN_FILE, run.path / HTML_FILE
    return judge_report_paths(run.path)


def run_files(run: Run) -> list[Path]:
    """The files of ``run`` a report must never overwrite."""
    return [path for path in (run.record, run.lines) if path is not None]


def family_report(command: str) -> Callable[..., Any]:
    """The function a method family names to report its ``command``'s runs (`RunReport`).

    Raises:
        FacetevalError: No family reports them, or its function cannot be imported.
    """
    found: RunReport | None = next(
        (report for spec in method_specs() for report in spec.reports if report.command == command), None
    )
    if found is None:
        raise FacetevalError(f"no installed method family reports the runs of {command!r}")
    module, _, name = found.target.partition(":")
    try:
        writer = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise FacetevalError(
            f"the report of {command!r} runs ({found.target}) cannot be loaded: {exc}"
        ) from exc
    if not callable(writer):
        raise FacetevalError(f"the report of {command!r} runs ({found.target}) is not a function")
    return writer  # type: ignore[no-any-return]
