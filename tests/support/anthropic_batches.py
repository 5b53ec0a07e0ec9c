"""Anthropic's Message Batches endpoints on the local `LLMServer`, for tests of batch runs.

Each request of a batch is answered as the server answers ``/v1/messages`` (its queue of scripted
behaviours, then its responder) when the batch ends:

```python
with LLMServer(lambda body: "Score: 4") as server:
    batches = AnthropicBatches(server)          # before the server starts: adds its routes
    ...
client = anthropic.Anthropic(api_key="test", base_url=server.root_url)
batch = client.messages.batches.create(requests=[{"custom_id": "k1", "params": {...}}])
client.messages.batches.retrieve(batch.id).processing_status   # in_progress, then ended
for result in client.messages.batches.results(batch.id): ...   # succeeded / errored / expired
```

A batch is ``in_progress`` for `AnthropicBatches.polls_in_progress` retrieves, then ``ended``: every
request answered, or (a scripted ``expire_after``) only the first ones, the rest ``expired``. A reply
other than 200 is an ``errored`` result. ``GET /v1/messages/batches`` lists them, newest first.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.llm_server import LLMServer

__all__ = ["AnthropicBatches"]


class AnthropicBatches:
    """The message batches endpoints, added to ``server`` (which must not be started yet).

    Attributes:
        polls_in_progress: How many retrieves show a batch ``in_progress`` before it ends.
        created: Every batch object, in order; ``requests``: each batch's requests by batch id.
    """

    def __init__(self, server: LLMServer, *, polls_in_progress: int = 1) -> None:
        self.server = server
        self.polls_in_progress = polls_in_progress
        self.created: list[dict[str, Any]] = []
        self.requests: dict[str, list[dict[str, Any]]] = {}
        self._results: dict[str, bytes] = {}
        self._polls: dict[str, int] = {}
        self._expiries: deque[int | None] = deque()
        self._lock = threading.Lock()
        server.extra_routes.extend(
            [
                Route("/v1/messages/batches", self._create, methods=["POST"]),
                Route("/v1/messages/batches", self._list, methods=["GET"]),
                Route("/v1/messages/batches/{batch_id}", self._retrieve, methods=["GET"]),
                Route("/v1/messages/batches/{batch_id}/results", self._result_file, methods=["GET"]),
            ]
        )

    def expire(self, *answered: int | None) -> None:
        """The next batches expire after answering so many requests (None: the batch completes)."""
        with self._lock:
            self._expiries.extend(answered)

    async def _create(self, request: Request) -> Response:
        body = await request.json()
        requests = body.get("requests") or []
        ids = [r.get("custom_id") for r in requests]
        if not requests or len(set(ids)) != len(ids):
            return _error(400, "requests must be non-empty, with each custom_id once")
        now = datetime.now(UTC)
        with self._lock:
            batch_id = f"msgbatch_{len(self.created) + 1:06d}"
            batch = {
                "id": batch_id,
                "type": "message_batch",
                "processing_status": "in_progress",
                "request_counts": {
                    "processing": len(requests),
                    "succeeded": 0,
                    "errored": 0,
                    "canceled": 0,
                    "expired": 0,
                },
                "ended_at": None,
                "created_at": now.isoformat(),
                "expires_at": (now + timedelta(days=1)).isoformat(),
                "archived_at": None,
                "cancel_initiated_at": None,
                "results_url": None,
            }
            self.created.append(batch)
            self.requests[batch_id] = requests
            self._polls[batch_id] = 0
        return JSONResponse(batch)

    async def _list(self, request: Request) -> Response:
        with self._lock:
            data = self.created[::-1]
        ids = [b["id"] for b in data]
        return JSONResponse(
            {
                "data": data,
                "has_more": False,
                "first_id": ids[0] if ids else None,
                "last_id": ids[-1] if ids else None,
            }
        )

    async def _retrieve(self, request: Request) -> Response:
        batch = self._batch(request.path_params["batch_id"])
        if batch is None:
            return _error(404, "no such batch")
        if batch["processing_status"] == "in_progress":
            with self._lock:
                self._polls[batch["id"]] += 1
                ends = self._polls[batch["id"]] > self.polls_in_progress
                answered = (self._expiries.popleft() if self._expiries else None) if ends else None
            if ends:
                self._end(batch, answered, f"{request.base_url}v1/messages/batches/{batch['id']}/results")
        return JSONResponse(batch)

    async def _result_file(self, request: Request) -> Response:
        content = self._results.get(request.path_params["batch_id"])
        if content is None:
            return _error(404, "the batch has not ended")
        return Response(content, media_type="application/binary")

    def _end(self, batch: dict[str, Any], answered: int | None, url: str) -> None:
        requests = self.requests[batch["id"]]
        counts = batch["request_counts"]
        lines = []
        for number, item in enumerate(requests):
            if answered is not None and number >= answered:
                result: dict[str, Any] = {"type": "expired"}
            else:
                status, body = self.server.answer("anthropic", item["params"], "/v1/messages")
                result = (
                    {"type": "succeeded", "message": body}
                    if status == 200
                    else {"type": "errored", "error": body}
                )
            counts[result["type"]] += 1
            lines.append(json.dumps({"custom_id": item["custom_id"], "result": result}))
        counts["processing"] = 0
        self._results[batch["id"]] = "".join(f"{line}\n" for line in lines).encode()
        batch.update(processing_status="ended", ended_at=datetime.now(UTC).isoformat(), results_url=url)

    def _batch(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            return next((b for b in self.created if b["id"] == batch_id), None)


def _error(code: int, message: str) -> Response:
    kind = "not_found_error" if code == 404 else "invalid_request_error"
    return JSONResponse({"type": "error", "error": {"type": kind, "message": message}}, code)
