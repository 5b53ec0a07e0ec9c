"""What a method family's commands build on: the only module of the CLI a family imports.

A family's commands (``faceteval.workflows.<family>._cli``) parse their flags with the shared options
here, run through the same engine, show their results with the same consoles, and print errors the
same way as the CLI's own commands.
"""

import os

from faceteval._cli._app import handle_errors
from faceteval._cli._batch import batch_first
from faceteval._cli._choices import NamedChoice
from faceteval._cli._console import Console, err_console, escape
from faceteval._cli._display import (
    calls_line,
    interrupted_note,
    judge_named,
    show_failures,
    show_invalid,
    usage_rows,
)
from faceteval._cli._inputs import (
    as_usage_error,
    group_by_option,
    input_options,
    input_reading,
    input_source,
)
from faceteval._cli._numbers import FiniteFloat
from faceteval._cli._options import (
    build_job,
    cache_of,
    data_dir_option,
    engine_options,
    force_flag,
    force_option,
    given_flags,
)
from faceteval._cli._projects import PROJECT as review_project
from faceteval._cli._projects import made_for
from faceteval._cli._run import (
    open_llm,
    progress_bar,
    run_judge,
    run_until_stopped,
)
from faceteval._runner import JudgeJob


def hub_offline() -> None:
    """Load Hugging Face models offline (``HF_HUB_OFFLINE=1``, unless set): for a model an extra bundles."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


__all__ = [
    "Console",
    "FiniteFloat",
    "JudgeJob",
    "NamedChoice",
    "as_usage_error",
    "batch_first",
    "build_job",
    "cache_of",
    "calls_line",
    "data_dir_option",
    "engine_options",
    "err_console",
    "escape",
    "force_flag",
    "force_option",
    "given_flags",
    "group_by_option",
    "handle_errors",
    "hub_offline",
    "input_options",
    "input_reading",
    "input_source",
    "interrupted_note",
    "judge_named",
    "made_for",
    "open_llm",
    "progress_bar",
    "review_project",
    "run_judge",
    "run_until_stopped",
    "show_failures",
    "show_invalid",
    "usage_rows",
]
