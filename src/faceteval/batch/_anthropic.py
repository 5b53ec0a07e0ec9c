"""Anthropic's Message Batches: submit a round's requests, poll the batches, import their results."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

import anyio

from faceteval.batch._openai import ImportTally, Watch
from faceteval.batch._shards import ANTHROPIC_LIMITS, Limits, shards
from faceteval.errors import BadResponseError
from faceteval.llm import CompletionRequest, Price, anthropic_batch_completion, anthropic_batch_request
from faceteval.store import BatchRow, SQLiteCache

logger = logging.getLogger(__name__)

PROVIDER = "anthropic"
CLOCK_SKEW = timedelta(minutes=1)
"""How far the provider's clock may be behind ours, when a batch made during a killed create call is
looked for by its time."""


class AnthropicBatchRunner:
    """Sends rounds of requests through Anthropic's Message Batches API, every batch kept in the ledger.

    The batch's requests go in the create call itself (there is no file): the ledger's ``input_file_id``
    holds their digest. Arguments as `faceteval.batch.OpenAIBatchRunner`'s, with ``client`` an
    ``anthropic.AsyncAnthropic``.
    """

    provider = PROVIDER

    def __init__(
        self,
        client: Any,
        cache: SQLiteCache,
        *,
        identity: str,
        model: str,
        price: Price | None,
        limits: Limits = ANTHROPIC_LIMITS,
        poll_interval: float = 30.0,
        watch: Watch | None = None,
    ) -> None:
        self.client = client
        self.watch = watch
        self.cache = cache
        self.identity = identity
        self.model = model
        self.price = None if price is None else price.at_batch_rate()
        self.limits = limits
        self.poll_interval = poll_interval

    async def aclose(self) -> None:
        """Close the SDK's client."""
        await self.client.close()

    def _pending(self) -> list[BatchRow]:
        """The batches not yet imported of this endpoint (a shared cache may hold other endpoints' too,
        which this client cannot ask about)."""
        return [row for row in self.cache.batches.pending(PROVIDER) if row.identity == self.identity]

    def last_round(self) -> int:
        """The highest round of this provider recorded in the cache's ledger (0 if none)."""
        return max((row.round for row in self.cache.batches.all() if row.provider == PROVIDER), default=0)

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Create a batch of ``requests`` (cache key, request) per shard; their rows.

        Each batch is recorded just before the create call and its id the moment it answers.
        """
        unique = dict(requests)
        lines = (json.dumps(anthropic_batch_request(k, r), ensure_ascii=False) for k, r in unique.items())
        rows = []
        for shard in shards(lines, self.limits):
            digest = "sha256:" + hashlib.sha256("\n".join(shard).encode("utf-8")).hexdigest()
            row = self.cache.batches.uploaded(
                provider=PROVIDER,
                identity=self.identity,
                model=self.model,
                round=round,
                input_file_id=digest,
                requests=len(shard),
            )
            batch = await self.client.messages.batches.create(requests=[json.loads(line) for line in shard])
            self.cache.batches.created(row, batch.id, batch.processing_status)
            rows.append(row)
        return rows

    async def finish(self) -> ImportTally:
        """Wait for every batch not yet imported (this run's and a killed run's), importing each as it
        ends."""
        tally = ImportTally()
        while pending := self._pending():
            running = 0
            for row in pending:
                if row.batch_id is None:
                    if await self._adopt(row):
                        running += 1
                    else:
                        self._lost(row)
                    continue
                batch = await self.client.messages.batches.retrieve(row.batch_id)
                if self.watch is not None:
                    counts = batch.request_counts
                    done = row.requests - counts.processing
                    self.watch(row, batch.processing_status, done, row.requests)
                if batch.processing_status != "ended":
                    running += 1
                    continue
                tally.add(await self._import(row))
            if running:
                await anyio.sleep(self.poll_interval)
        return tally

    async def _adopt(self, row: BatchRow) -> bool:
        """Match a batch recorded without its id (a run killed during the create call) to the provider's
        batch made then, if there is one: the newest not in the ledger, created since the row was
        recorded (less a minute for clocks that differ), with as many requests. A wrong match costs
        no wrong reply (results are cached under their own keys), only this row's requests asked again.
        """
        known = {r.batch_id for r in self.cache.batches.all() if r.batch_id is not None}
        since = datetime.fromisoformat(row.created_at) - CLOCK_SKEW
        async for batch in self.client.messages.batches.list(limit=100):
            if batch.created_at < since:
                break  # newest first: the rest were made before the row
            counts = batch.request_counts
            total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
            if batch.id not in known and total == row.requests:
                self.cache.batches.created(row.row, batch.id, batch.processing_status)
                return True
        return False

    def _lost(self, row: BatchRow) -> None:
        """A run killed during the create call, whose batch was not found (or not made): its requests are
        asked again by the next pass."""
        logger.warning(
            "a batch of %d requests (round %d) was being created when a run stopped; its requests are "
            "asked again (a batch made then, if any, is listed at the provider)",
            row.requests,
            row.round,
        )
        self.cache.batches.imported(row.row)

    async def _import(self, row: BatchRow) -> ImportTally:
        self.cache.batches.status(row.row, "ended")
        tally = ImportTally()
        async for item in await self.client.messages.batches.results(row.batch_id):
            result = item.result
            if result.type != "succeeded":
                continue
            where = f"batch {row.batch_id} result {item.custom_id}"
            try:
                completion = anthropic_batch_completion(result.message, model=self.model, where=where)
            except BadResponseError as exc:
                logger.warning("%s cannot be read (%s); the next pass asks it again", where, exc)
                continue
            self.cache.put(item.custom_id, completion, identity=self.identity, model=self.model)
            tally.imported += 1
            tally.input_tokens += completion.input_tokens
            tally.output_tokens += completion.output_tokens
            if self.price is None:
                tally.cost_usd = None
            elif tally.cost_usd is not None:
                tally.cost_usd += self.price.cost(completion.input_tokens, completion.output_tokens)
        tally.failed = row.requests - tally.imported
        if tally.failed:
            logger.warning(
                "batch %s: %d of %d requests not answered; the next pass asks them again",
                row.batch_id,
                tally.failed,
                row.requests,
            )
        self.cache.batches.imported(row.row)
        return tally
