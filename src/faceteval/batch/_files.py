"""``--batch files``: each round's requests written as OpenAI batch-format request files for a cluster
(``vllm run-batch``, Ray Data LLM) to answer; the command stops saying what to run, and goes on to the
next round when run again once ``faceteval batch import`` has put the replies into the cache."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

import anyio

from faceteval._util.text import plural
from faceteval.batch._passes import Stall
from faceteval.batch._results import ImportTally
from faceteval.batch._shards import OPENAI_LIMITS, Limits, in_prefix_order, shards
from faceteval.errors import BatchPending
from faceteval.llm import CompletionRequest
from faceteval.llm.internal import openai_batch_line
from faceteval.store import BatchRow, SQLiteCache
from faceteval.store.internal import write_atomic

logger = logging.getLogger(__name__)

PROVIDER = "files"
"""The ledger's provider of request files written for a cluster (the file's path is its input_file_id)."""
CLUSTERS_DOC = "docs/batch-clusters.md"


class FileRounds:
    """Writes each round's requests as OpenAI batch-format JSONL files in ``batch_dir`` for a cluster.

    A round is cut at OpenAI's limits (50,000 requests / 200 MB a file; `faceteval.batch.shards`), its
    requests sorted by their messages so that those sharing a prefix (an instance's prompts) are adjacent
    for the server's prefix cache. Each file is written whole, named by its round and content, and
    recorded in the cache's ledger (provider ``files``, its path as ``input_file_id``) before the run
    stops with `faceteval.errors.BatchPending`, whose message says what to run.
    `import_outputs` (``faceteval batch import``) puts the replies into the cache and marks each file
    imported once every request of it is answered or refused; the same command then goes on.

    Args:
        cache: The response cache: the ledger of the files, and where their replies go.
        batch_dir: Where the request files are written (made if missing).
        identity: The cache identity of the synchronous path's provider (`faceteval.llm.LLM.identity`).
        model: The model asked (given to ``vllm run-batch --model``).
        limits: The most requests and bytes of one file.
    """

    def __init__(
        self,
        cache: SQLiteCache,
        batch_dir: str | Path,
        *,
        identity: str,
        model: str,
        limits: Limits = OPENAI_LIMITS,
    ) -> None:
        self.cache = cache
        self.batch_dir = Path(batch_dir)
        self.identity = identity
        self.model = model
        self.limits = limits
        self._cache_path = os.path.abspath(cache.path)  # the import's --cache, from any directory

    def last_round(self) -> int:
        """The highest round of request files recorded in the cache's ledger (0 if none)."""
        return max((row.round for row in self.cache.batches.all() if row.provider == PROVIDER), default=0)

    def stalled(self) -> Stall:
        """The rounds in a row, up to the last recorded, whose imports answered none of their requests:
        each of their requests has a refusal in the ledger (an error line of the cluster's output), and a
        run had not given them up yet. Counted when a run starts: each run sends one round."""
        rows = [row for row in self.cache.batches.all() if row.provider == PROVIDER]
        stall = Stall(carried=True)
        for number in sorted({row.round for row in rows}, reverse=True):
            batch = [row for row in rows if row.round == number]
            refusals = self.cache.batches.refusals(row.row for row in batch)
            if len(refusals) < sum(row.requests for row in batch) or any(r.given_up for r in refusals):
                break  # some were answered (or the file was gone), or a run gave them up already
            if not stall.rounds:
                reasons = {refusal.custom_id: refusal.reason for refusal in refusals}
                stall = Stall(1, reasons, carried=True, rows=tuple(row.row for row in batch))
            else:
                stall = replace(stall, rounds=stall.rounds + 1)
        return stall

    def gave_up(self, stall: Stall) -> None:
        """Record that a run gave up the requests of ``stall``'s last round: the next run counts anew."""
        self.cache.batches.give_up(stall.rows)

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Write ``requests`` (cache key, request) as request files of round ``round``; their ledger rows.

        A file is named by its content, so a run killed before recording it writes the same file again.
        """
        lines = (openai_batch_line(key, request) for key, request in in_prefix_order(requests))
        rows = []
        for number, shard in enumerate(shards(lines, self.limits), start=1):
            data = "".join(f"{line}\n" for line in shard)
            digest = hashlib.sha256(data.encode("utf-8")).hexdigest()[:12]
            path = (self.batch_dir / f"round-{round}-{number:03d}-{digest}.jsonl").absolute()
            await anyio.to_thread.run_sync(write_atomic, path, data)
            rows.append(
                self.cache.batches.uploaded(
                    provider=PROVIDER,
                    identity=self.identity,
                    model=self.model,
                    round=round,
                    input_file_id=str(path),
                    requests=len(shard),
                )
            )
        return rows

    async def finish(self) -> ImportTally:
        """Nothing, when every request file is imported; a file that is gone is given up (its requests are
        asked again by the next pass).

        Raises:
            BatchPending: Some files wait for their replies: the message says what to run.
        """
        waiting = present(self.cache)
        if waiting:
            raise BatchPending(pending_message(waiting, self._cache_path))
        return ImportTally()


def present(cache: SQLiteCache) -> list[BatchRow]:
    """The request files not yet imported; one whose file is gone is marked done with a warning (the
    requests it held are missing from the cache, so the next pass asks them again)."""
    waiting = []
    for row in cache.batches.pending(PROVIDER):
        if Path(row.input_file_id).is_file():
            waiting.append(row)
        else:
            logger.warning(
                "the request file %s (round %d, %d requests) is gone; its requests are written again",
                row.input_file_id,
                row.round,
                row.requests,
            )
            cache.batches.imported(row.row)
    return waiting


def output_path(row: BatchRow) -> Path:
    """Where ``vllm run-batch`` is told to write the replies to a request file (beside it, ``.out``)."""
    path = Path(row.input_file_id)
    return path.with_name(f"{path.stem}.out.jsonl")


def pending_message(rows: list[BatchRow], cache_path: str) -> str:
    """What to run for the request files ``rows`` to be answered, imported, and the run to go on."""
    requests = sum(row.requests for row in rows)
    rounds = ", ".join(str(r) for r in sorted({row.round for row in rows}))
    runs = "\n".join(
        f"  vllm run-batch -i {_quote(row.input_file_id)} -o {_quote(output_path(row))} "
        f"--model {shlex.quote(row.model)}"
        for row in rows
    )
    outs = " ".join(_quote(output_path(row)) for row in rows)
    return (
        f"round {rounds}: {plural(len(rows), 'request file')} ({plural(requests, 'request')}) "
        f"{'waits' if len(rows) == 1 else 'wait'} for a cluster to answer "
        f"{'it' if len(rows) == 1 else 'them'}.\n"
        f"1. Answer each with vLLM (or, on many nodes, with Ray Data LLM: see {CLUSTERS_DOC}):\n"
        f"{runs}\n"
        "2. Import the replies into the response cache:\n"
        f"  faceteval batch import {outs} --cache {_quote(cache_path)}\n"
        "3. Run this command again: it goes on from the cache to the next round (exit status "
        f"{BatchPending.exit_code} until the last round is in)."
    )


def shard_ids(row: BatchRow) -> Iterator[str]:
    """The custom ids (cache keys) of a request file's lines."""
    with Path(row.input_file_id).open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield str(json.loads(line).get("custom_id"))


def _quote(path: str | Path) -> str:
    return shlex.quote(str(path))
