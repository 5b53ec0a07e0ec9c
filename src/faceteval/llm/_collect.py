"""Collecting mode: a pass that gathers its cache misses for a batch instead of calling the provider."""

from __future__ import annotations

from collections.abc import Mapping

import anyio

from faceteval.errors import BatchUnanswered
from faceteval.llm._types import CompletionRequest

NOT_COLLECTED = (
    "no batch round asked this request (the collecting passes did not make it), and a batch run makes no "
    "call one by one: run the same command again to collect it"
)
"""Why a miss fails once the rounds are over, when no round gave it up (the run proper asking what its
collecting passes did not)."""


class Collector:
    """The requests a collecting pass missed in the cache, by cache key (each once).

    With one set on an `faceteval.llm.LLM` (``collector=``), a cache hit answers as usual and a miss is
    recorded here, then waits until the pass is cut (cancelled): the instance that asked goes no further
    in this pass, and its other concurrent calls are collected too. ``waiting`` counts the calls waiting.

    A request the rounds gave up on (``unanswered``: no batch answered it) fails at once instead, with
    `faceteval.errors.BatchUnanswered` and the batch's reason, as does every miss once the collector is
    ``closed`` (the run proper, after the rounds, which is answered by the cache and calls nothing).

    Examples:
        >>> Collector().requests
        {}
        >>> Collector.after({"k": "refused"}).closed
        True
    """

    def __init__(self) -> None:
        self.requests: dict[str, CompletionRequest] = {}
        self.waiting = 0
        self.unanswered: dict[str, str] = {}
        """Requests the rounds gave up on, by cache key: the message each fails with."""
        self.closed = False
        """The rounds are over: every miss fails, none is collected."""

    @classmethod
    def after(cls, unanswered: Mapping[str, str]) -> Collector:
        """A closed collector for the run proper after the rounds: ``unanswered`` fail with their
        messages, any other miss with `NOT_COLLECTED`."""
        collector = cls()
        collector.unanswered.update(unanswered)
        collector.closed = True
        return collector

    async def defer(self, key: str, request: CompletionRequest) -> None:
        """Record ``request`` under ``key`` and wait until cancelled (it never returns otherwise).

        Raises:
            BatchUnanswered: The rounds gave ``key`` up, or they are over (``closed``).
        """
        if (message := self.unanswered.get(key)) is not None:
            raise BatchUnanswered(message)
        if self.closed:
            raise BatchUnanswered(NOT_COLLECTED)
        self.requests.setdefault(key, request)
        self.waiting += 1
        try:
            await anyio.sleep_forever()
        finally:
            self.waiting -= 1
