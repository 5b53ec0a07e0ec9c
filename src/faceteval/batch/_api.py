"""What the batch APIs' runners share: their settings, the ledger rows they own, closing their client."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from faceteval.batch._results import ImportTally
from faceteval.batch._shards import Limits
from faceteval.llm import Price
from faceteval.store import BatchRow, SQLiteCache

Watch = Callable[[BatchRow, str, int, int], None]
"""Told of each batch as it is polled: its row, the provider's status, requests done (answered or
failed) and its requests in all."""


class ApiRounds:
    """A provider batch API's rounds (`faceteval.batch.OpenAIBatchRunner`,
    `faceteval.batch.AnthropicBatchRunner`): the settings and ledger rows both keep alike.

    Args:
        client: The SDK's client (its ``base_url`` and key name the account the batches run on).
        cache: The response cache: the results go in it, and its ``batches`` table records each batch.
        identity: The cache identity of the synchronous path's provider (`faceteval.llm.LLM.identity`).
        model: The model asked.
        price: The model's synchronous price (batch results are priced at its batch rate), or None.
        limits: The most requests and bytes of one batch (default: the provider's).
        poll_interval: Seconds between two looks at the batches still running.
        watch: Told of each batch at each look (`Watch`), for progress.
    """

    provider: ClassVar[str]
    """The provider's name in the ledger."""
    default_limits: ClassVar[Limits]

    def __init__(
        self,
        client: Any,
        cache: SQLiteCache,
        *,
        identity: str,
        model: str,
        price: Price | None,
        limits: Limits | None = None,
        poll_interval: float = 30.0,
        watch: Watch | None = None,
    ) -> None:
        self.client = client
        self.cache = cache
        self.identity = identity
        self.model = model
        self.price = None if price is None else price.at_batch_rate()
        self.limits = self.default_limits if limits is None else limits
        self.poll_interval = poll_interval
        self.watch = watch
        self._keys: dict[int, list[str]] = {}
        """The cache keys of the batches this runner submitted, by ledger row."""

    async def aclose(self) -> None:
        """Close the SDK's client."""
        await self.client.close()

    def last_round(self) -> int:
        """The highest round of this provider recorded in the cache's ledger (0 if none)."""
        rows = self.cache.batches.all()
        return max((row.round for row in rows if row.provider == self.provider), default=0)

    def _pending(self) -> list[BatchRow]:
        """The batches not yet imported of this endpoint (a shared cache may hold other endpoints' too,
        which this client cannot ask about)."""
        return [row for row in self.cache.batches.pending(self.provider) if row.identity == self.identity]

    def _unsaid(self, row: BatchRow, tally: ImportTally, why: str) -> None:
        """Give ``why`` (the batch's status) as the reason of each request of ``row`` that is neither
        answered nor has a reason of its own in ``tally`` (a batch that failed as a whole: none has)."""
        keys = self._keys.pop(row.row, [])  # imported once
        if tally.failed <= len(tally.reasons):
            return
        for key in keys:
            if key not in tally.reasons and self.cache.get(key) is None:
                tally.reasons[key] = why
