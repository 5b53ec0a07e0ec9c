"""One run of each kind, made once by the real commands, for the viewer's unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.viewer import Run
from faceteval.viewer.internal import run_at
from tests.support.view_runs import Runs, data_dir, judge_run, make_runs


@pytest.fixture(scope="session")
def made_runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return make_runs(tmp_path_factory.mktemp("runs"), data_dir())


@pytest.fixture
def judged(tmp_path: Path) -> Run:
    """A judge run of the test's own (its judgments, record and input), for the test to change."""
    run = run_at(judge_run(tmp_path))
    assert run is not None
    return run


@pytest.fixture
def judge_run_made(made_runs: Runs) -> Run:
    """The judge run all tests share: to read, never to change."""
    run = run_at(made_runs.judge)
    assert run is not None
    return run
