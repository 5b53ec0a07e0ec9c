"""Provider factories for worker-process tests: module-level, so that a worker can unpickle them.

Each builds a `ScriptedProvider` (or a small provider of its own) inside the worker process.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import anyio

from faceteval.errors import ConfigError, ProviderError, ProviderServerError, RateLimitError
from faceteval.llm import (
    Completion,
    CompletionRequest,
    ModelSpec,
    Provider,
    ScriptedProvider,
    create_provider,
)


def echo() -> ScriptedProvider:
    """Replies ``<pid>: <last message>``: which process answered, and to what."""
    return ScriptedProvider(lambda request: f"{os.getpid()}: {request.messages[-1].content}")


def heap_settings() -> ScriptedProvider:
    """Replies ``<objects frozen> <young-generation threshold>`` of the worker's garbage collector."""
    return ScriptedProvider(lambda request: f"{gc.get_freeze_count()} {gc.get_threshold()[0]}")


def failing() -> ScriptedProvider:
    """Raises the error the message names: ``429``, ``503`` or ``bug`` (an exception of no known kind)."""

    def script(request: CompletionRequest) -> str | ProviderError:
        text = request.messages[-1].content
        if text == "429":
            return RateLimitError("slow down", retry_after=2.5)
        if text == "503":
            return ProviderServerError("server down", status=503, retry_after=None)
        if text == "bug":
            raise ValueError("a bug in the provider")
        return "fine"

    return ScriptedProvider(script)


def broken_elsewhere(home: int) -> ScriptedProvider:
    """Fails, as a factory with a bad setting would, in any process but ``home``."""
    if os.getpid() != home:
        raise ConfigError("no model named 'nope' at this endpoint")
    return echo()


class Sleeper:
    """Sleeps as many seconds as the message says; a cancelled call leaves a file in ``marks``."""

    name = "sleeper"
    identity = "sleeper"

    def __init__(self, marks: str) -> None:
        self._marks = Path(marks)

    async def complete(self, request: CompletionRequest) -> Completion:
        text = request.messages[-1].content
        try:
            await anyio.sleep(float(text))
        except anyio.get_cancelled_exc_class():
            (self._marks / f"cancelled-{text}").write_text(str(os.getpid()))
            raise
        return Completion(f"{os.getpid()}: slept {text}")

    async def aclose(self) -> None:
        """Nothing to release."""


def sleeper(marks: str) -> Sleeper:
    return Sleeper(marks)


def create_openai(spec: str, *, base_url: str) -> Provider:
    """The provider a spec names, at ``base_url``, with a test key and no environment."""
    return create_provider(ModelSpec.parse(spec), base_url=base_url, api_key="test", env={})
