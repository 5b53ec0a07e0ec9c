"""What the command says when stopped: exit 130 before a run too, and no cache promised without one."""

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from faceteval._cli._app import handle_errors
from faceteval._cli._display import interrupted_note
from faceteval._runner import JobOutputs, JudgeJob, JudgeSpec
from faceteval.methods.baselines import Direct


def test_ctrl_c_before_a_run_begins_exits_130_not_aborted() -> None:
    @click.command()
    @handle_errors
    def starting() -> None:
        raise KeyboardInterrupt  # as Ctrl-C while the model opens

    result = CliRunner().invoke(starting)
    assert result.exit_code == 130 and "Interrupted." in result.output and "Aborted" not in result.output


def test_an_interrupted_run_promises_the_cache_only_when_there_is_one() -> None:
    def job(cache: Path | None) -> JudgeJob:
        return JudgeJob([], Direct(), JudgeSpec("openai:m"), outputs=JobOutputs(cache=cache))

    cached = interrupted_note(job(Path("c.sqlite")))
    uncached = interrupted_note(job(None))
    assert "Every reply received so far is in the cache" in cached
    assert "cache" not in uncached.replace("--no-cache", "") and "asks everything again" in uncached


def test_a_warning_with_stderr_closed_never_ends_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import logging
    import sys

    from faceteval._cli import _show_warnings

    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    logger = logging.getLogger("faceteval")
    handlers = list(logger.handlers)
    try:
        _show_warnings()
        logging.getLogger("faceteval.llm").warning("attempt 1 failed; retrying in 30.0 s")  # no raise
    finally:
        logger.handlers[:] = handlers
        logger.propagate = True
