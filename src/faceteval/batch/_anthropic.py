"""Anthropic's Message Batches: submit a round's requests, poll the batches, import their results."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

import anyio

from faceteval.batch._api import ApiRounds
from faceteval.batch._results import ImportTally
from faceteval.batch._shards import ANTHROPIC_LIMITS, shards
from faceteval.errors import BadResponseError
from faceteval.llm import CompletionRequest
from faceteval.llm.internal import anthropic_batch_completion, anthropic_batch_request
from faceteval.store import BatchRow, SQLiteCache

logger = logging.getLogger(__name__)

PROVIDER = "anthropic"

CLOCK_SLACK = timedelta(minutes=10)
"""How much earlier than its ledger row a batch may be stamped by the provider and still be the row's."""


def requests_digest(custom_ids: Iterable[str]) -> str:
    """What the ledger keeps of a batch's requests (there is no file id): the digest of its custom ids.

    A custom id is the request's cache key, so the set of ids names the requests; sorted, because a
    batch's results need not come in the order of its requests.
    """
    return "sha256:" + hashlib.sha256("\n".join(sorted(custom_ids)).encode("utf-8")).hexdigest()


class AnthropicBatchRunner(ApiRounds):
    """Sends rounds of requests through Anthropic's Message Batches API, every batch kept in the ledger.

    The batch's requests go in the create call itself (there is no file): the ledger's ``input_file_id``
    holds the digest of their custom ids (`requests_digest`). A run killed during the create call leaves
    a row without a batch id: the next run matches it to the provider's batch made then, if there is one
    (listed, created after the row, of its request count, and its results' custom ids of its digest), so
    it is never paid twice. Arguments as `faceteval.batch.ApiRounds`'s, with ``client`` an
    ``anthropic.AsyncAnthropic``.
    """

    provider = PROVIDER
    default_limits = ANTHROPIC_LIMITS

    def __init__(self, client: Any, cache: SQLiteCache, **settings: Any) -> None:
        super().__init__(client, cache, **settings)
        self._not_ours: set[str] = set()

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Create a batch of ``requests`` (cache key, request) per shard; their rows.

        Each batch is recorded just before the create call and its id the moment it answers.
        """
        unique = dict(requests)
        lines = (json.dumps(anthropic_batch_request(k, r), ensure_ascii=False) for k, r in unique.items())
        rows = []
        for shard in shards(lines, self.limits):
            batch_requests = [json.loads(line) for line in shard]
            digest = requests_digest(r["custom_id"] for r in batch_requests)
            row = self.cache.batches.uploaded(
                provider=PROVIDER,
                identity=self.identity,
                model=self.model,
                round=round,
                input_file_id=digest,
                requests=len(shard),
            )
            batch = await self.client.messages.batches.create(requests=batch_requests)
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
        """Match a row left without a batch id (a run killed during the create call) to the batch made
        then; whether it is matched or may still be (a candidate not yet ended, whose results are not
        readable yet). A row no batch matches is dropped: its requests are asked again by the next pass."""
        known = {r.batch_id for r in self.cache.batches.all() if r.batch_id is not None}
        since = datetime.fromisoformat(row.created_at) - CLOCK_SLACK
        waiting = False
        async for batch in self.client.messages.batches.list(limit=100):  # newest first
            if batch.created_at < since:
                break
            if batch.id in known or batch.id in self._not_ours or _total(batch) != row.requests:
                continue
            if batch.processing_status != "ended":
                batch = await self.client.messages.batches.retrieve(batch.id)
            if batch.processing_status != "ended":
                waiting = True
            elif await self._digest_of(batch.id) == row.input_file_id:
                logger.info(
                    "batch %s matched to the round %d batch a stopped run was creating", batch.id, row.round
                )
                self.cache.batches.created(row.row, batch.id, batch.processing_status)
                return True
            else:
                self._not_ours.add(batch.id)
        if waiting:
            return True
        logger.warning(
            "a batch of %d requests (round %d) was being created when a run stopped and the provider has "
            "none made of them; its requests are asked again",
            row.requests,
            row.round,
        )
        self.cache.batches.imported(row.row)
        return False

    async def _digest_of(self, batch_id: str) -> str:
        return requests_digest(
            [item.custom_id async for item in await self.client.messages.batches.results(batch_id)]
        )

    async def _import(self, row: BatchRow) -> ImportTally:
        self.cache.batches.status(row.row, "ended")
        tally = ImportTally()
        async for item in await self.client.messages.batches.results(row.batch_id):
            result = item.result
            if result.type != "succeeded":
                tally.reasons[item.custom_id] = _reason(result)
                continue
            where = f"batch {row.batch_id} result {item.custom_id}"
            try:
                completion = anthropic_batch_completion(result.message, model=self.model, where=where)
            except BadResponseError as exc:
                logger.warning("%s cannot be read (%s); the next pass asks it again", where, exc)
                tally.reasons[item.custom_id] = f"its reply cannot be read: {exc}"
                continue
            self.cache.put(item.custom_id, completion, identity=self.identity, model=self.model)
            tally.count(completion, self.price)
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


def _reason(result: Any) -> str:
    """Why a batch result is not a reply: an errored request's error, or its type (expired, canceled)."""
    if result.type == "errored":
        error = getattr(result.error, "error", None)
        kind, message = getattr(error, "type", None), getattr(error, "message", None)
        return f"errored: {kind}: {message}" if message else "errored"
    return str(result.type)


def _total(batch: Any) -> int:
    counts = batch.request_counts
    return int(counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired)
