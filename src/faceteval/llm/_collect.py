"""Collecting mode: a pass that gathers its cache misses for a batch instead of calling the provider."""

from __future__ import annotations

import anyio

from faceteval.llm._types import CompletionRequest


class Collector:
    """The requests a collecting pass missed in the cache, by cache key (each once).

    With one set on an `faceteval.llm.LLM` (``collector=``), a cache hit answers as usual and a miss is
    recorded here, then waits until the pass is cut (cancelled): the instance that asked goes no further
    in this pass, and its other concurrent calls are collected too. ``waiting`` counts the calls waiting.

    Examples:
        >>> Collector().requests
        {}
    """

    def __init__(self) -> None:
        self.requests: dict[str, CompletionRequest] = {}
        self.waiting = 0

    async def defer(self, key: str, request: CompletionRequest) -> None:
        """Record ``request`` under ``key`` and wait until cancelled (it never returns otherwise)."""
        self.requests.setdefault(key, request)
        self.waiting += 1
        try:
            await anyio.sleep_forever()
        finally:
            self.waiting -= 1
