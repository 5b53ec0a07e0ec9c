"""Set for every pytest run of this checkout, before anything is collected: DeepEval offline and out of it.

``--doctest-modules`` imports every module under ``src``, `faceteval.integrations.deepeval` too, and
importing DeepEval reads a ``.env`` of the working directory and makes a ``.deepeval`` folder there;
once it has evaluated, it sends telemetry, at the latest when the process exits. So before
collection its telemetry is turned off, its ``.env`` reading too, its folder goes to a temporary
directory (removed at the end), and Confident AI's key and a results folder a developer's shell may
carry are dropped. The variables stay set until the process ends (DeepEval's last telemetry flush
runs at exit); only DeepEval reads them.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

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
