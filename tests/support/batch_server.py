"""OpenAI's files and batches endpoints on the local `LLMServer`, for tests of batch runs.

Each request line of a batch is answered as the server answers ``/v1/chat/completions`` (its queue of
scripted behaviours, then its responder), when the batch completes:

```python
with LLMServer(lambda body: "Score: 4") as server:
    batches = OpenAIBatches(server)            # before the server starts: adds its routes
    ...
client = openai.OpenAI(api_key="test", base_url=server.base_url)
uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
batch = client.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions",
                              completion_window="24h")
client.batches.retrieve(batch.id).status       # in_progress (polls_in_progress times), then completed
client.files.content(batch.output_file_id).text
```

A batch is ``validating`` when created, ``in_progress`` for `OpenAIBatches.polls_in_progress` retrieves,
then ends as the next scripted `Fate` says (``completed`` by default): its lines are answered then, the
200s into the output file and the others into the error file, in OpenAI's shape
``{id, custom_id, response: {status_code, request_id, body}, error}``. An ``expired`` batch answers only
its first ``answered`` lines; the rest go to the error file with ``response`` null and the error
``batch_expired``. An input that breaks the batch rules (a line that is not a POST to the endpoint, a
``custom_id`` given twice, more requests or bytes than the limits) makes the batch ``failed`` with its
``errors``, as the API does. ``GET /v1/batches`` lists every batch, newest first, on one page.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.support.llm_server import LLMServer

__all__ = ["Fate", "OpenAIBatches", "Pause", "StoredFile"]

PHASES = ("upload", "create", "retrieve", "content")
"""Where a `Pause` can hold a client: receiving a file upload (before it is stored), answering the create
call (the batch is made, its id not yet told), a retrieve of a running batch, and downloading an output
file."""


@dataclass(slots=True)
class Pause:
    """The next request of one phase, held: ``reached`` is set when it arrives, and it is answered once
    ``gate`` is set (or ``timeout`` seconds pass). A test kills its client meanwhile."""

    reached: threading.Event = field(default_factory=threading.Event)
    gate: threading.Event = field(default_factory=threading.Event)
    timeout: float = 120.0


MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Fate:
    """How the next batch ends: ``completed`` (every line answered) or ``expired`` after ``answered``."""

    status: Literal["completed", "expired"] = "completed"
    answered: int = 0


@dataclass(slots=True)
class StoredFile:
    """An uploaded or generated file."""

    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def to_json(self) -> dict[str, Any]:
        """The file object the API returns."""
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
            "status_details": None,
        }


class OpenAIBatches:
    """The files and batches endpoints, added to ``server`` (which must not be started yet).

    Attributes:
        polls_in_progress: How many retrieves show a batch ``in_progress`` before it ends.
        max_requests: The most request lines a batch input file may have (OpenAI: 50,000).
        max_bytes: The largest batch input file (OpenAI: 200 MB).
        files: Every file by id; ``batches``: every batch object by id (as last returned).
        first_id: Where the ids it makes start counting (two servers that must not give the same ids).
    """

    def __init__(
        self,
        server: LLMServer,
        *,
        polls_in_progress: int = 1,
        max_requests: int = MAX_REQUESTS,
        max_bytes: int = MAX_BYTES,
        first_id: int = 0,
    ) -> None:
        self.server = server
        self.polls_in_progress = polls_in_progress
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.files: dict[str, StoredFile] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._polls: dict[str, int] = {}
        self._fates: deque[Fate] = deque()
        self._pauses: dict[str, Pause] = {}
        self._lock = threading.Lock()
        self._next = first_id
        server.extra_routes.extend(
            [
                Route("/v1/files", self._upload, methods=["POST"]),
                Route("/v1/files/{file_id}", self._file, methods=["GET"]),
                Route("/v1/files/{file_id}/content", self._content, methods=["GET"]),
                Route("/v1/batches", self._create, methods=["POST"]),
                Route("/v1/batches", self._list, methods=["GET"]),
                Route("/v1/batches/{batch_id}", self._retrieve, methods=["GET"]),
            ]
        )

    def script(self, *fates: Fate) -> None:
        """How the next batches end, first in first out (then: completed)."""
        with self._lock:
            self._fates.extend(fates)

    def pause(self, phase: str) -> Pause:
        """Hold the next request of ``phase`` (one of `PHASES`) until the pause's gate is set."""
        assert phase in PHASES, phase
        self._pauses[phase] = pause = Pause()
        return pause

    async def _held(self, phase: str) -> None:
        if (pause := self._pauses.pop(phase, None)) is not None:
            pause.reached.set()
            await anyio.to_thread.run_sync(pause.gate.wait, pause.timeout)

    @property
    def created(self) -> list[dict[str, Any]]:
        """Every batch created, in order."""
        with self._lock:
            return list(self.batches.values())

    def input_lines(self, batch_id: str) -> list[dict[str, Any]]:
        """The request lines of a batch's input file."""
        content = self.files[self.batches[batch_id]["input_file_id"]].content
        return [json.loads(line) for line in content.splitlines() if line.strip()]

    # -- endpoints ------------------------------------------------------------------------------

    async def _upload(self, request: Request) -> Response:
        await self._held("upload")
        form = await request.form()
        upload, purpose = form.get("file"), form.get("purpose")
        if upload is None or isinstance(upload, str) or not isinstance(purpose, str):
            return _error(400, "a file upload needs 'file' and 'purpose'")
        stored = StoredFile(self._id("file"), upload.filename or "upload", purpose, await upload.read())
        await form.close()
        with self._lock:
            self.files[stored.id] = stored
        return JSONResponse(stored.to_json())

    async def _file(self, request: Request) -> Response:
        stored = self.files.get(request.path_params["file_id"])
        return _error(404, "no such file") if stored is None else JSONResponse(stored.to_json())

    async def _content(self, request: Request) -> Response:
        stored = self.files.get(request.path_params["file_id"])
        if stored is None:
            return _error(404, "no such file")
        if stored.purpose == "batch_output":
            await self._held("content")
        return Response(stored.content, media_type="application/octet-stream")

    async def _create(self, request: Request) -> Response:
        body = await request.json()
        stored = self.files.get(body.get("input_file_id", ""))
        if stored is None or stored.purpose != "batch":
            return _error(400, "input_file_id names no file uploaded with purpose 'batch'")
        now = int(time.time())
        batch: dict[str, Any] = {
            "id": self._id("batch"),
            "object": "batch",
            "endpoint": body.get("endpoint"),
            "errors": None,
            "input_file_id": stored.id,
            "completion_window": body.get("completion_window", "24h"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "in_progress_at": None,
            "expires_at": now + 86400,
            "finalizing_at": None,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        with self._lock:
            self.batches[batch["id"]] = batch
            self._polls[batch["id"]] = 0
        await self._held("create")
        return JSONResponse(batch)

    async def _list(self, request: Request) -> Response:
        newest_first = self.created[::-1]
        ids = [b["id"] for b in newest_first]
        page = {"object": "list", "data": newest_first, "has_more": False}
        return JSONResponse(
            {**page, "first_id": ids[0] if ids else None, "last_id": ids[-1] if ids else None}
        )

    async def _retrieve(self, request: Request) -> Response:
        batch_id = request.path_params["batch_id"]
        batch = self.batches.get(batch_id)
        if batch is None:
            return _error(404, "no such batch")
        if batch["status"] in ("validating", "in_progress"):
            await self._held("retrieve")
            self._advance(batch)
        return JSONResponse(batch)

    # -- the batch's life -------------------------------------------------------------------------

    def _advance(self, batch: dict[str, Any]) -> None:
        now = int(time.time())
        if batch["status"] == "validating":
            lines, errors = self._validate(self.files[batch["input_file_id"]], batch["endpoint"])
            if errors:
                batch.update(status="failed", failed_at=now, errors={"object": "list", "data": errors})
                return
            batch.update(status="in_progress", in_progress_at=now)
            batch["request_counts"]["total"] = len(lines)
        with self._lock:
            self._polls[batch["id"]] += 1
            polls = self._polls[batch["id"]]
        if polls > self.polls_in_progress:
            with self._lock:
                fate = self._fates.popleft() if self._fates else Fate()
            self._finish(batch, fate)

    def _validate(
        self, stored: StoredFile, endpoint: str
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        errors: list[dict[str, Any]] = []
        lines: list[dict[str, Any]] = []
        seen: set[str] = set()
        if len(stored.content) > self.max_bytes:
            errors.append(_line_error("file_too_large", None, f"more than {self.max_bytes} bytes"))
        for number, raw in enumerate(stored.content.splitlines(), start=1):
            try:
                line = json.loads(raw)
            except ValueError:
                errors.append(_line_error("invalid_json_line", number, "not JSON"))
                continue
            if line.get("method") != "POST" or line.get("url") != endpoint:
                errors.append(_line_error("invalid_url", number, f"not a POST to {endpoint}"))
            if line.get("custom_id") in seen:
                errors.append(_line_error("duplicate_custom_id", number, "custom_id given twice"))
            seen.add(line.get("custom_id"))
            lines.append(line)
        if len(lines) > self.max_requests:
            errors.append(_line_error("too_many_requests", None, f"more than {self.max_requests} requests"))
        return lines, errors

    def _finish(self, batch: dict[str, Any], fate: Fate) -> None:
        lines = self.input_lines(batch["id"])
        answered = len(lines) if fate.status == "completed" else min(fate.answered, len(lines))
        output: list[str] = []
        failed: list[str] = []
        for line in lines[:answered]:
            status, body = self.server.answer("openai", line["body"], line["url"])
            response = {"status_code": status, "request_id": self._id("req"), "body": body}
            record = {"id": self._id("batch_req"), "custom_id": line["custom_id"], "response": response}
            (output if status == 200 else failed).append(json.dumps({**record, "error": None}))
        for line in lines[answered:]:
            error = {
                "code": "batch_expired",
                "message": "This request could not be executed before the completion window expired.",
            }
            failed.append(
                json.dumps(
                    {
                        "id": self._id("batch_req"),
                        "custom_id": line["custom_id"],
                        "response": None,
                        "error": error,
                    }
                )
            )
        now = int(time.time())
        batch.update(status=fate.status, finalizing_at=now)
        batch["completed_at" if fate.status == "completed" else "expired_at"] = now
        batch["request_counts"].update(completed=len(output), failed=len(failed))
        batch["output_file_id"] = self._store(f"{batch['id']}_output.jsonl", output)
        batch["error_file_id"] = self._store(f"{batch['id']}_error.jsonl", failed)

    def _store(self, name: str, lines: list[str]) -> str | None:
        if not lines:
            return None
        stored = StoredFile(self._id("file"), name, "batch_output", "".join(f"{x}\n" for x in lines).encode())
        with self._lock:
            self.files[stored.id] = stored
        return stored.id

    def _id(self, prefix: str) -> str:
        with self._lock:
            self._next += 1
            return f"{prefix}_{self._next:06d}"


def _line_error(code: str, line: int | None, message: str) -> dict[str, Any]:
    return {"code": code, "line": line, "message": message, "param": None}


def _error(code: int, message: str) -> Response:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error"}}, code)
