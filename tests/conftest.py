"""Fixtures shared by every test: a clean environment and a local LLM server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.support.llm_server import LLMServer

_STRIPPED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")
_KEPT = frozenset({"FACETEVAL_DATA_DIR", "FACETEVAL_MODELS"})


@pytest.fixture(autouse=True)
def _clean_environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Remove credentials, endpoints and faceteval settings the developer's shell may carry.

    The default response cache goes to the test's own directory, never the developer's.
    """
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    for name in _STRIPPED:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("FACETEVAL_") and name not in _KEPT:
            monkeypatch.delenv(name, raising=False)


@pytest.fixture
def anyio_backend() -> str:
    """Run `@pytest.mark.anyio` tests on asyncio only."""
    return "asyncio"


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A started local LLM server (OpenAI and Anthropic formats), stopped after the test."""
    from tests.support.llm_server import LLMServer

    with LLMServer() as server:
        yield server
