"""``--batch ray``: each round's requests run as a Ray Data job through ``ray.data.llm`` against one or more
OpenAI-compatible endpoints (a fleet of vLLM servers), on a local Ray or the cluster at ``RAY_ADDRESS``;
the replies go into the cache by ``custom_id`` as the job streams them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio

from faceteval.batch._results import ImportTally, ResultLine, refusal, store_result
from faceteval.batch._shards import in_prefix_order
from faceteval.errors import BadResponseError, MissingDependencyError, ProviderError
from faceteval.llm import CompletionRequest, Price
from faceteval.llm.internal import openai_batch_line
from faceteval.store import BatchRow, SQLiteCache

logger = logging.getLogger(__name__)

PROVIDER = "ray"
"""The ledger's provider of Ray jobs (``input_file_id`` holds ``sha256:`` and the digest of the requests)."""


class RayRounds:
    """Runs each round's requests as a Ray Data job (``ray.data.llm``'s HTTP request processor).

    The round's requests, sorted by their messages (an instance's prompts adjacent, for the servers'
    prefix caches), are cut into one contiguous part per endpoint; each part goes through an
    ``HttpRequestProcessorConfig`` processor, with the body the synchronous path sends. The job is recorded
    in the cache's ledger before it starts, and each reply is put into the cache under its ``custom_id``
    (the cache key, with the synchronous path's identity) as the job streams it: a killed driver keeps
    every reply the job gave, and the next run asks only the rest. Ray is imported when a job runs
    (``pip install 'faceteval[ray]'``) and started (``ray.init(**init)``, which joins the cluster at
    ``RAY_ADDRESS`` when it is set) unless it already is.

    Args:
        cache: The response cache: its ledger records each job, and the replies go in it.
        identity: The cache identity of the synchronous path's provider (`faceteval.llm.LLM.identity`).
        model: The model asked.
        urls: The base URLs (``.../v1``) of the OpenAI-compatible endpoints that answer.
        api_key: Sent as ``Authorization: Bearer`` when given.
        price: A price per token (None: a self-hosted endpoint has no provider price; tokens are counted).
        concurrency: Ray workers per endpoint; each sends its batch of requests at once.
        batch_size: Requests a worker sends at once.
        qps: The most requests a worker sends a second (None: no limit).
        max_retries: Retries of a request answered 429, 408, 502, 503 or 504, or not answered.
        num_cpus: CPUs Ray reserves for each worker (its work is waiting on the endpoints).
        timeout: Seconds a request may take.
        init: Keyword arguments of ``ray.init`` when Ray is not started yet.

    Raises:
        MissingDependencyError: Ray is not installed (``pip install 'faceteval[ray]'``).
    """

    def __init__(
        self,
        cache: SQLiteCache,
        *,
        identity: str,
        model: str,
        urls: Sequence[str],
        api_key: str | None = None,
        price: Price | None = None,
        concurrency: int = 1,
        batch_size: int = 64,
        qps: int | None = None,
        max_retries: int = 3,
        num_cpus: float = 0.25,
        timeout: float = 600.0,
        init: Mapping[str, Any] | None = None,
    ) -> None:
        if importlib.util.find_spec("ray") is None:  # before any pass: not once a round is recorded
            raise MissingDependencyError("--batch ray", extra="ray")
        self.cache = cache
        self.identity = identity
        self.model = model
        self.urls = [url.rstrip("/") for url in urls]
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.price = price
        self.concurrency = concurrency
        self.batch_size = batch_size
        self.qps = qps
        self.max_retries = max_retries
        self.num_cpus = num_cpus
        self.timeout = timeout
        self.init = dict(init or {})
        self._queued: dict[int, list[tuple[str, str]]] = {}

    def last_round(self) -> int:
        """The highest round of Ray jobs recorded in the cache's ledger (0 if none)."""
        return max((row.round for row in self.cache.batches.all() if row.provider == PROVIDER), default=0)

    async def submit(self, round: int, requests: Iterable[tuple[str, CompletionRequest]]) -> list[int]:
        """Record the job of ``requests`` (cache key, request) for round ``round``; `finish` runs it."""
        lines = [(key, _body(openai_batch_line(key, request))) for key, request in in_prefix_order(requests)]
        digest = hashlib.sha256("".join(f"{k}\n{b}\n" for k, b in lines).encode("utf-8")).hexdigest()
        row = self.cache.batches.uploaded(
            provider=PROVIDER,
            identity=self.identity,
            model=self.model,
            round=round,
            input_file_id=f"sha256:{digest}",
            requests=len(lines),
        )
        self._queued[row] = lines
        return [row]

    async def finish(self) -> ImportTally:
        """Run every recorded job, putting each reply into the cache as it comes; a job a killed driver
        left is given up (its replies are in the cache, the next pass asks the rest).

        Raises:
            ProviderError: A job stopped (a request still refused after the retries, an endpoint down):
                the replies it gave are kept.
            MissingDependencyError: Ray Data is not installed.
        """
        tally = ImportTally()
        for row in self.cache.batches.pending(PROVIDER):
            lines = self._queued.pop(row.row, None)
            if lines is None:
                logger.warning(
                    "a Ray job of round %d (%d requests) was running when its driver stopped: its replies "
                    "are in the cache, the rest is asked again",
                    row.round,
                    row.requests,
                )
            else:
                self._start()
                self.cache.batches.status(row.row, "running")
                tally.add(await anyio.to_thread.run_sync(self._run, row, lines, abandon_on_cancel=True))
            self.cache.batches.imported(row.row)
        return tally

    def _start(self) -> None:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(**self.init)

    def _run(self, row: BatchRow, lines: list[tuple[str, str]]) -> ImportTally:
        tally = ImportTally()
        try:
            for reply in self._job(lines).iter_rows():
                self._store(row, reply, tally)
        except Exception as exc:  # Ray's errors (a worker's, the job's) are no faceteval error
            raise ProviderError(
                f"the Ray job of round {row.round} stopped after {tally.imported:,} of {row.requests:,} "
                f"replies (they are in the cache; run again for the rest): {exc}"
            ) from exc
        if tally.failed:
            logger.warning(
                "Ray job of round %d: %d of %d requests not answered; the next pass asks them again",
                row.round,
                tally.failed,
                row.requests,
            )
        return tally

    def _job(self, lines: list[tuple[str, str]]) -> Any:
        """The Ray dataset of the replies: one contiguous part of ``lines`` per endpoint."""
        import ray.data
        from ray.data.llm import HttpRequestProcessorConfig, build_processor

        parts = len(self.urls)
        size = -(-len(lines) // parts)
        jobs = []
        for number, url in enumerate(self.urls):
            part = lines[number * size : (number + 1) * size]
            if not part:
                continue
            config = HttpRequestProcessorConfig(
                url=f"{url}/chat/completions",
                headers=self.headers,
                qps=self.qps,
                max_retries=self.max_retries,
                concurrency=self.concurrency,
                batch_size=self.batch_size,
                session_factory=raw_sessions(self.timeout),
                http_request_stage={"num_cpus": self.num_cpus},
            )
            cpus = {"num_cpus": self.num_cpus}
            processor = build_processor(config, postprocess=_reply_of(), postprocess_map_kwargs=cpus)
            items = [{"custom_id": key, "payload": {"body": body}} for key, body in part]
            jobs.append(processor(ray.data.from_items(items)))
        return jobs[0].union(*jobs[1:]) if len(jobs) > 1 else jobs[0]

    def _store(self, row: BatchRow, reply: Mapping[str, Any], tally: ImportTally) -> None:
        custom_id = str(reply["custom_id"])
        where = f"Ray job of round {row.round}, request {custom_id}"
        if reply["status_code"] != 200:
            logger.info("%s: answered %s", where, reply["status_code"])
            tally.failed += 1
            tally.reasons[custom_id] = _refusal(reply["status_code"], reply["text"])
            return
        try:
            body = json.loads(reply["text"])
            store_result(
                self.cache,
                ResultLine(custom_id, body, None),
                identity=self.identity,
                model=self.model,
                price=self.price,
                tally=tally,
                where=where,
            )
        except (ValueError, BadResponseError) as exc:
            logger.warning("%s cannot be read (%s); the next pass asks it again", where, exc)
            tally.failed += 1
            tally.reasons[custom_id] = f"its reply cannot be read: {exc}"


def _refusal(status: object, text: object) -> str:
    """Why an endpoint did not answer a request, from its reply's status and text."""
    try:
        body = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        body = None
    return refusal(status, body)


def _body(line: str) -> str:
    """The request body of a batch request line, as JSON."""
    return json.dumps(json.loads(line)["body"], ensure_ascii=False, separators=(",", ":"))


def _ray() -> Any:
    try:
        import ray
        import ray.data.llm  # the extra: ray[data] with its LLM processors
    except ImportError as exc:
        raise MissingDependencyError("--batch ray", extra="ray") from exc
    return ray


def _reply_of() -> Any:
    """The processor's postprocess: a row's ``custom_id``, status and raw reply text (defined here so that
    Ray ships it by value: a worker needs no faceteval)."""

    def reply(row: dict[str, Any]) -> dict[str, Any]:
        response = row["http_response"]
        return {
            "custom_id": row["custom_id"],
            "status_code": response["status_code"],
            "text": response["text"],
        }

    return reply


def raw_sessions(timeout: float) -> Any:
    """A session factory for ``ray.data.llm``'s HTTP stage that sends a payload's ``body`` (a JSON text)
    as it is, and answers with the reply's status and raw text.

    Ray Data keeps rows as Arrow tables: a payload of nested objects would have its fields unified across
    rows (a missing field sent as null, an integer as a float), and so would a reply. Carried as text,
    each request is sent byte for byte as the synchronous path sends it, and each reply is read by the
    synchronous path's parser. The classes are defined here so that Ray ships them by value.
    """
    import asyncio

    import aiohttp

    class Reply:
        def __init__(self, response: aiohttp.ClientResponse) -> None:
            self.response = response
            self.status = response.status
            self.reason = response.reason

        async def __aenter__(self) -> Reply:
            return self

        async def __aexit__(self, *exc_info: object) -> None:
            self.response.release()

        async def json(self) -> dict[str, Any]:
            return {"status_code": self.status, "text": await self.response.text()}

    class Session:
        def __init__(self) -> None:
            self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout))

        async def __aenter__(self) -> Session:
            return self

        async def __aexit__(self, *exc_info: object) -> None:
            await self.session.close()

        def post(self, url: str, *, headers: dict[str, str], data: str) -> Any:
            body = json.loads(data)["body"]
            sent = self.session.post(url, headers=headers, data=body.encode("utf-8"))
            return asyncio.ensure_future(_reply(sent, Reply))  # a worker's batch is sent at once

    async def _reply(sent: Any, reply: type[Reply]) -> Reply:
        return reply(await sent)

    return Session
