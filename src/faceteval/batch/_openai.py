"""OpenAI's Batch API: submit a round's requests, poll the batches, import their results into the cache."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

import anyio

from faceteval.batch._api import ApiRounds
from faceteval.batch._results import ImportTally, read_result, store_result
from faceteval.batch._shards import OPENAI_LIMITS, shards
from faceteval.errors import BadResponseError
from faceteval.llm import CompletionRequest
from faceteval.llm.internal import openai_batch_line
from faceteval.store import BatchRow

if TYPE_CHECKING:
    pass

logger = logging.getLogger(__name__)

PROVIDER = "openai"
ENDPOINT: Final = "/v1/chat/completions"
FINAL = frozenset({"completed", "expired", "failed", "cancelled"})
"""The statuses after which a batch changes no more."""


class OpenAIBatchRunner(ApiRounds):
    """Sends rounds of requests through OpenAI's Batch API, with every batch kept in the cache's ledger.

    Arguments as `faceteval.batch.ApiRounds`'s, with ``client`` an ``openai.AsyncOpenAI``.
    """

    provider = PROVIDER
    default_limits = OPENAI_LIMITS

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Upload ``requests`` (cache key, request) as batch files and create a batch of each; their rows.

        Each file is recorded in the ledger once uploaded, and its batch id the moment it is created.
        """
        unique = dict(requests)  # one request per key, whoever asked it
        keys = list(unique)
        rows = []
        for shard in shards((openai_batch_line(k, r) for k, r in unique.items()), self.limits):
            shard_keys, keys = keys[: len(shard)], keys[len(shard) :]  # a shard's lines are the next keys'
            data = "".join(f"{line}\n" for line in shard).encode("utf-8")
            uploaded = await self.client.files.create(file=(f"round-{round}.jsonl", data), purpose="batch")
            row = self.cache.batches.uploaded(
                provider=PROVIDER,
                identity=self.identity,
                model=self.model,
                round=round,
                input_file_id=uploaded.id,
                requests=len(shard),
            )
            self._keys[row] = shard_keys
            await self._create(row, uploaded.id)
            rows.append(row)
        return rows

    async def _create(self, row: int, input_file_id: str) -> None:
        batch = await self.client.batches.create(
            input_file_id=input_file_id, endpoint=ENDPOINT, completion_window="24h"
        )
        self.cache.batches.created(row, batch.id, batch.status)

    async def finish(self) -> ImportTally:
        """Wait for every batch not yet imported (this run's and a killed run's), importing each as it ends.

        A file uploaded by a run killed before its batch was made is matched to the provider's batch of
        that file if there is one, else its batch is made now: no request is sent twice.
        """
        tally = ImportTally()
        while pending := self._pending():
            running = 0
            for row in pending:
                if row.batch_id is None:
                    await self._adopt(row)
                    running += 1
                    continue
                batch = await self.client.batches.retrieve(row.batch_id)
                if self.watch is not None:
                    counts = batch.request_counts
                    done = 0 if counts is None else counts.completed + counts.failed
                    self.watch(row, batch.status, done, row.requests)
                if batch.status not in FINAL:
                    if batch.status != row.status:
                        self.cache.batches.status(row.row, batch.status)
                    running += 1
                    continue
                tally.add(await self._import(row, batch))
            if running:
                await anyio.sleep(self.poll_interval)
        return tally

    async def _adopt(self, row: BatchRow) -> None:
        async for batch in self.client.batches.list(limit=100):
            if batch.input_file_id == row.input_file_id:
                self.cache.batches.created(row.row, batch.id, batch.status)
                return
        await self._create(row.row, row.input_file_id)

    async def _import(self, row: BatchRow, batch: Any) -> ImportTally:
        """Put a finished batch's replies into the cache; errored and expired requests are left out (the
        next pass asks them again), with why each was not answered: its line of the error file, or the
        batch's status (and errors, when it failed)."""
        self.cache.batches.status(row.row, batch.status)
        why = f"the batch {batch.status}"
        if batch.status == "failed":
            problems = [
                f"line {e.line}: {e.message}" for e in (batch.errors.data if batch.errors else None) or ()
            ]
            why = f"the batch failed: {'; '.join(problems) or 'no reason given'}"
            logger.warning("batch %s failed: %s", row.batch_id, "; ".join(problems) or "no reason given")
        tally = ImportTally()
        for kind, file_id in (("output", batch.output_file_id), ("error", batch.error_file_id)):
            if file_id is not None:
                content = await self.client.files.content(file_id)
                for number, line in enumerate(content.text.splitlines(), start=1):
                    if line.strip():
                        self._import_line(line, f"batch {row.batch_id} {kind} line {number}", tally)
        tally.failed = row.requests - tally.imported  # the error file's lines, and any output line unread
        self._unsaid(row, tally, why)
        if tally.failed:
            logger.warning(
                "batch %s (%s): %d of %d requests not answered; the next pass asks them again",
                row.batch_id,
                batch.status,
                tally.failed,
                row.requests,
            )
        self.cache.batches.imported(row.row)
        return tally

    def _import_line(self, line: str, where: str, tally: ImportTally) -> None:
        try:
            result = read_result(line, where)
        except BadResponseError as exc:
            logger.warning("%s cannot be read (%s); the next pass asks it again", where, exc)
            return
        if result.body is None:
            tally.reasons[result.custom_id] = result.problem or "no reason given"
            return
        try:
            store_result(
                self.cache,
                result,
                identity=self.identity,
                model=self.model,
                price=self.price,
                tally=tally,
                where=where,
            )
        except BadResponseError as exc:
            logger.warning("%s cannot be read (%s); the next pass asks it again", where, exc)
            tally.reasons[result.custom_id] = f"its reply cannot be read: {exc}"
