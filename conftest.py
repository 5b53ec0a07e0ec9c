"""Set for every pytest run of this checkout, before anything is collected: DeepEval offline and out of it.

The doctests of ``src`` and ``tests`` are listed from their modules' source, each module imported when
one of its doctests runs (`pytest_collect_file`); `faceteval.integrations.deepeval`'s doctests and
tests import DeepEval, which reads a ``.env`` of the working directory and makes a ``.deepeval``
folder there; once it has evaluated, it sends telemetry, at the latest when the process exits. So before
collection its telemetry is turned off, its ``.env`` reading too, its folder goes to a temporary
directory (removed at the end), and Confident AI's key and a results folder a developer's shell may
carry are dropped. The variables stay set until the process ends (DeepEval's last telemetry flush
runs at exit); only DeepEval reads them.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest
from _pytest.doctest import DoctestModule

from tests.support.doctests import LazyDoctestModule

_DEEPEVAL_FOLDER = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    folder = Path(tempfile.mkdtemp(prefix="faceteval-deepeval-"))
    config.stash[_DEEPEVAL_FOLDER] = folder
    environment = pytest.MonkeyPatch()  # never undone: see above
    environment.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    environment.setenv("DEEPEVAL_DISABLE_DOTENV", "1")
    environment.setenv("DEEPEVAL_CACHE_FOLDER", str(folder / ".deepeval"))
    for name in ("CONFIDENT_API_KEY", "CONFIDENT_BASE_URL", "CONFIDENT_OTEL_URL", "DEEPEVAL_RESULTS_FOLDER"):
        environment.delenv(name, raising=False)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(config.stash[_DEEPEVAL_FOLDER], ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(
    file_path: Path, parent: pytest.Collector
) -> Generator[None, list[object], list[object]]:
    """Each module's doctests as a `LazyDoctestModule` (tests/support/doctests.py), conftest files aside."""
    collected = yield
    if file_path.name == "conftest.py":
        return collected
    return [
        LazyDoctestModule.from_parent(parent, path=file_path) if type(node) is DoctestModule else node
        for node in collected
    ]
