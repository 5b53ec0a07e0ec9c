"""A real local LLM HTTP server for tests and benchmarks: OpenAI and Anthropic formats on 127.0.0.1.

It runs a Starlette app under uvicorn in a background thread, so the official SDKs are exercised over real
sockets. Replies come from a queue of scripted behaviours (first in, first out), then from a responder:

```python
with LLMServer(lambda body: "Score: 4", latency=0.05) as server:
    server.enqueue(Status(429, headers={"retry-after": "2"}), Reply("Score: 5"))
    provider = OpenAIProvider(api_key="test", base_url=server.base_url)       # /v1/chat/completions
    anthropic = AnthropicProvider(api_key="test", base_url=server.root_url)   # /v1/messages
    ...
    assert server.requests[0].body["model"] == "m"
```

Structured output: a request's ``response_format`` (OpenAI) and forced tool (Anthropic) are recorded
(`RecordedRequest.response_format`, `RecordedRequest.forced_tool`); a JSON object replied to a request
that forces a tool is sent as that tool's ``tool_use`` block, with stop reason ``tool_use``.

As a process (prints its OpenAI base URL on stdout once listening; SIGINT or SIGTERM stops it):
``python -m tests.support.llm_server --port 8123 --latency 0.1 --responder package.module:function``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import importlib
import json
import logging
import math
import re
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from faceteval._util.prefix import common_prefix

__all__ = [
    "DEFAULT_REPLY",
    "Behaviour",
    "Disconnect",
    "EmptyChoices",
    "Hang",
    "Hold",
    "HugeBody",
    "LLMServer",
    "RawBody",
    "RecordedRequest",
    "Reply",
    "Responder",
    "Status",
    "Token",
    "echo",
]

DEFAULT_REPLY = "OK"
START_TIMEOUT = 10.0
Api = Literal["openai", "anthropic"]


@dataclass(frozen=True, slots=True)
class Token:
    """One generated token and, optionally, its top alternatives as probabilities (``{"8": 0.6, "7": 0.3}``).

    The token's own probability is its entry in ``top``, else 0.9. The server sends the alternatives
    as OpenAI does: log-probabilities, most likely first, cut to the request's ``top_logprobs``.
    """

    text: str
    top: Mapping[str, float] = field(default_factory=dict)


def tokens_of(text: str, tops: Sequence[Mapping[str, float]]) -> tuple[Token, ...]:
    """``text`` as one-digit tokens and runs of other text; the k-th digit gets ``tops[k]`` (if any)."""
    tokens, digit = [], 0
    for piece in re.findall(r"\d|\D+", text):
        if piece.isdigit():
            tokens.append(Token(piece, tops[digit] if digit < len(tops) else {piece: 1.0}))
            digit += 1
        else:
            tokens.append(Token(piece))
    return tuple(tokens)


@dataclass(frozen=True, slots=True)
class Reply:
    """A normal completion; token counts are estimated from the text when not given.

    When the request asks for ``logprobs``, ``tokens`` (whose texts must spell ``text``) are sent with
    their alternatives; without them, every whitespace-led word is a token with made-up alternatives.
    ``logprobs=False`` sends none even when asked (a server that does not support them).
    """

    text: str
    finish_reason: str = "stop"
    input_tokens: int | None = None
    output_tokens: int | None = None
    tokens: tuple[Token, ...] | None = None
    logprobs: bool = True
    cached_tokens: int | None = None
    """Of the prompt tokens, those reported as read from a prefix cache (OpenAI
    ``prompt_tokens_details.cached_tokens``, Anthropic ``cache_read_input_tokens``); none reported if None."""


@dataclass(frozen=True, slots=True)
class Status:
    """A reply with this status: ``body`` None sends the API's usual error object, a str is sent as
    text/plain, anything else as JSON (so ``Status(200, body={...})`` sends any JSON reply at all)."""

    code: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Hang:
    """Sleep ``seconds`` (on top of the latency), then reply from the responder (a second Hang from the
    responder is answered with `DEFAULT_REPLY`)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Hold:
    """Wait (on top of the latency) until ``gate`` is set, or ``timeout`` seconds pass, or the server
    stops; then reply from the responder (a Hold from the responder again is answered with
    `DEFAULT_REPLY`). The test sets ``gate`` on an event it awaits, not after a guessed time."""

    gate: threading.Event
    timeout: float = 120.0


@dataclass(frozen=True, slots=True)
class RawBody:
    """A body sent verbatim, such as the HTML error page of a proxy, with any headers."""

    body: str | bytes
    content_type: str = "text/html"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class EmptyChoices:
    """A well-formed reply with nothing in it: ``choices: []`` (OpenAI) or ``content: []`` (Anthropic)."""


@dataclass(frozen=True, slots=True)
class Disconnect:
    """Close the connection: without sending any response, or with ``after`` bytes of a normal reply sent
    (its status, headers with the whole reply's Content-Length, and the start of its body)."""

    after: int | None = None


@dataclass(frozen=True, slots=True)
class HugeBody:
    """A 200 reply of about ``size`` bytes: a well-formed completion whose text is that long, as a server
    that ignores ``max_tokens`` sends. It is sent in 64 KiB chunks (chunked transfer encoding), or with
    its Content-Length when ``content_length``; ``pause`` seconds pass between the headers and the body.
    The body is made as it is sent, so the server's memory stays small however large it is."""

    size: int
    content_length: bool = False
    pause: float = 0.0


Behaviour = Reply | Status | Hang | Hold | RawBody | EmptyChoices | Disconnect | HugeBody
Responder = Callable[[dict[str, Any]], "str | Behaviour"]


def echo(body: Mapping[str, Any]) -> str:
    """A responder that answers with the last message's text (handy in subprocess benchmarks)."""
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    return content if isinstance(content, str) else json.dumps(content)


LLAMA_CPP_PYTHON_REFUSAL = {
    "error": {
        "message": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  Input should "
        "be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}
"""What llama-cpp-python's server answers (HTTP 500) to ``response_format`` of type ``json_schema``."""


def refusing_json_schema(responder: Responder) -> Responder:
    """A responder as llama-cpp-python's server is: HTTP 500 with `LLAMA_CPP_PYTHON_REFUSAL` to a request
    whose ``response_format`` is of type ``json_schema``, ``responder``'s reply to any other."""

    def respond(body: dict[str, Any]) -> str | Behaviour:
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            return Status(500, body=LLAMA_CPP_PYTHON_REFUSAL)
        return responder(body)

    return respond


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request as the server received it."""

    path: str
    body: Any
    headers: Mapping[str, str]
    received_at: float
    query: str = ""
    """The request's query string, as sent (without the ``?``)."""

    @property
    def response_format(self) -> Any:
        """The ``response_format`` an OpenAI request asked for (structured output), None if none."""
        return self.body.get("response_format") if isinstance(self.body, dict) else None

    @property
    def schema_dialect(self) -> tuple[str, Any] | None:
        """How an OpenAI request carried its schema, and the schema: ``("json_schema", schema)``,
        ``("json_object", schema)``, ``("guided", schema)`` (``guided_json``), ``("format", schema)``;
        None if it carried none."""
        body = self.body if isinstance(self.body, dict) else {}
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            return "json_schema", response_format["json_schema"]["schema"]
        if response_format.get("type") == "json_object" and "schema" in response_format:
            return "json_object", response_format["schema"]
        for field_name, dialect in (("guided_json", "guided"), ("format", "format")):
            if field_name in body:
                return dialect, body[field_name]
        return None

    @property
    def forced_tool(self) -> dict[str, Any] | None:
        """The tool an Anthropic request forces (``tool_choice`` of type ``tool``), as declared in its
        ``tools``; None if it forces none."""
        body = self.body if isinstance(self.body, dict) else {}
        choice = body.get("tool_choice") or {}
        if choice.get("type") != "tool":
            return None
        return next((t for t in body.get("tools") or () if t.get("name") == choice.get("name")), None)


class LLMServer:
    """A local OpenAI- and Anthropic-compatible server; a context manager that starts and stops it.

    Args:
        responder: Makes the reply for a request body when the queue is empty; it may return text or any
            behaviour. The default always answers `DEFAULT_REPLY`. If it raises, the client gets a 500.
        latency: Seconds slept (asynchronously) before every reply.
        port: The port to listen on; 0 picks a free one.
        host: The interface to listen on.
        record: Keep every request (``requests``); benchmarks turn it off and read ``request_count``.
        prefix_cache: Report, for every reply that does not give its own, the prompt tokens shared with
            an earlier request's prompt (its longest common prefix, about four characters a token) as
            cached, as a server with automatic prefix caching (vLLM's) would.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        port: int = 0,
        host: str = "127.0.0.1",
        record: bool = True,
        prefix_cache: bool = False,
    ) -> None:
        self.record = record
        self.prefix_cache = prefix_cache
        self._prompts: list[str] = []  # every prompt so far, sorted
        self._count = 0
        self.responder: Responder = responder or (lambda _body: DEFAULT_REPLY)
        self.latency = latency
        self.host = host
        self._wanted_port = port
        self._port: int | None = None
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._queue: deque[Behaviour] = deque()
        self._in_flight = 0
        self._max_in_flight = 0
        self._server: _UvicornServer | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self.extra_routes: list[Route] = []
        """Routes served before the catch-all (another API on the same server; add them before start)."""

    # -- test-facing API (any thread) -------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._port is None:
            raise RuntimeError("the server is not started; use `with LLMServer() as server:`")
        return self._port

    @property
    def root_url(self) -> str:
        """``http://host:port``: the Anthropic SDK's base URL."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://host:port/v1``: the OpenAI SDK's base URL."""
        return f"{self.root_url}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_count(self) -> int:
        """How many requests arrived, recorded or not."""
        with self._lock:
            return self._count

    @property
    def in_flight(self) -> int:
        """How many requests are being answered now."""
        with self._lock:
            return self._in_flight

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being answered at the same time."""
        with self._lock:
            return self._max_in_flight

    def enqueue(self, *behaviours: Behaviour) -> None:
        """Script the next replies: one behaviour per API request, first in first out."""
        with self._lock:
            self._queue.extend(behaviours)

    def reset(self) -> None:
        """Forget recorded requests, queued behaviours and the in-flight peak."""
        with self._lock:
            self._requests.clear()
            self._queue.clear()
            self._max_in_flight = self._in_flight

    def answer(self, api: Api, body: dict[str, Any], path: str) -> tuple[int, Any]:
        """The status and JSON body this server answers a request ``body`` with, as if it came to ``path``
        (it is recorded, and takes the next scripted behaviour): how a batch's request lines are answered.

        A behaviour that only makes sense on a connection (Disconnect, HugeBody) answers 500.
        """
        behaviour = self._admit(RecordedRequest(path, body, {}, time.monotonic()), scripted=True)
        try:
            if behaviour is None or isinstance(behaviour, Hang):
                answer = self.responder(body)
                behaviour = Reply(answer) if isinstance(answer, str) else answer
            if isinstance(behaviour, Disconnect | HugeBody):
                return 500, _error_body(api, 500, "the connection was dropped")
            response = _render(api, behaviour, body)
        finally:
            self._release()
        assert isinstance(response, Response)
        return response.status_code, _parse_json(bytes(response.body))

    def start(self) -> None:
        """Listen, serve in a background thread, and return once connections are accepted."""
        if self._thread is not None:
            raise RuntimeError("the server is already started")
        _quiet_uvicorn()
        sock = _bind(self.host, self._wanted_port)
        self._port = sock.getsockname()[1]
        config = uvicorn.Config(
            _AsgiApp(self),
            http="auto",
            loop="auto",
            lifespan="off",
            ws="none",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=2,
        )
        self._server = _UvicornServer(config)
        self._thread = threading.Thread(
            target=self._run, args=(sock,), name=f"llm-server-{self._port}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                self._thread = None
                raise RuntimeError(f"the LLM server did not start on {self.host}:{self._port}")
            time.sleep(0.005)

    def stop(self) -> None:
        """Stop serving: pending sleeps end at once, open connections are closed, the thread is joined."""
        if self._thread is None or self._server is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed in between
                self._loop.call_soon_threadsafe(self._begin_stop)
        self._thread.join(timeout=START_TIMEOUT)
        self._thread = None

    def __enter__(self) -> LLMServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- server thread ----------------------------------------------------------------------------

    def _run(self, sock: socket.socket) -> None:
        try:  # uvloop and httptools (dev dependencies) keep the server's own overhead small
            import uvloop

            factory: Callable[[], asyncio.AbstractEventLoop] | None = uvloop.new_event_loop
        except ImportError:
            factory = None
        with asyncio.Runner(loop_factory=factory) as runner:
            runner.run(self._serve(sock))

    async def _serve(self, sock: socket.socket) -> None:
        assert self._server is not None
        self._loop = asyncio.get_running_loop()
        self._stopping = self._server.stopping = asyncio.Event()
        await self._server.serve(sockets=[sock])

    def _begin_stop(self) -> None:
        assert self._server is not None
        assert self._stopping is not None
        self._stopping.set()
        self._server.should_exit = True

    async def _sleep(self, seconds: float) -> None:
        """Sleep in the server loop, waking early when the server stops."""
        if seconds <= 0 or self._stopping is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)

    async def _hold(self, hold: Hold) -> None:
        """Wait until ``hold.gate`` is set (or its timeout passes, or the server stops)."""
        deadline = time.monotonic() + hold.timeout
        while not hold.gate.is_set() and time.monotonic() < deadline:
            if self._stopping is not None and self._stopping.is_set():
                return
            await asyncio.sleep(0.01)

    def _admit(self, request: RecordedRequest, *, scripted: bool) -> Behaviour | None:
        """Record ``request``, count it in flight, and take the next scripted behaviour if asked."""
        with self._lock:
            self._count += 1
            if self.record:
                self._requests.append(request)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return self._queue.popleft() if scripted and self._queue else None

    def _cached_prefix(self, prompt: str) -> int:
        """The tokens of ``prompt`` an earlier prompt shares as its prefix (then ``prompt`` is kept too)."""
        with self._lock:
            # the longest prefix shared with any earlier prompt is shared with a neighbour in sorted order
            at = bisect.bisect_left(self._prompts, prompt)
            neighbours = self._prompts[max(at - 1, 0) : at + 1]
            shared = max((common_prefix((prompt, seen)) for seen in neighbours), default=0)
            self._prompts.insert(at, prompt)
        return shared // 4

    def _release(self) -> None:
        """Count one request as answered."""
        with self._lock:
            self._in_flight -= 1


class _UvicornServer(uvicorn.Server):
    """uvicorn's server, woken by an event rather than polling every 0.1 s, so that it stops sooner."""

    stopping: asyncio.Event | None = None

    async def main_loop(self) -> None:
        await self.on_tick(0)  # tick 0 sets the Date header; later ticks refresh it
        while not self.should_exit and self.stopping is not None:
            try:
                await asyncio.wait_for(self.stopping.wait(), timeout=1.0)
            except TimeoutError:
                await self.on_tick(0)


_DROP_KEY = "tests.llm_server.drop"
_DROP_MARKER = "disconnect"


class _AsgiApp:
    """The Starlette app, plus the one thing it cannot do: drop a connection without a response.

    uvicorn closes the transport without writing anything when an ASGI callable returns a value other than
    None; an endpoint marks the scope to ask for that.
    """

    def __init__(self, server: LLMServer) -> None:
        routes = [
            *server.extra_routes,
            Route("/v1/chat/completions", _Endpoint(server, "openai"), methods=["POST"]),
            Route("/v1/messages", _Endpoint(server, "anthropic"), methods=["POST"]),
            Route("/{path:path}", _Endpoint(server, None), methods=["GET", "POST", "PUT", "DELETE"]),
        ]
        self._app = Starlette(routes=routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> Any:
        await self._app(scope, receive, send)
        return _DROP_MARKER if scope.get(_DROP_KEY) else None


class _Endpoint:
    """A raw ASGI endpoint (so it may send nothing at all) serving one API format."""

    def __init__(self, server: LLMServer, api: Api | None) -> None:
        self._server = server
        self._api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        body = _parse_json(await request.body())
        recorded = RecordedRequest(
            request.url.path, body, dict(request.headers), time.monotonic(), request.url.query
        )
        behaviour = self._server._admit(recorded, scripted=self._api is not None)
        try:
            response = await self._respond(behaviour, body)
        finally:
            self._server._release()
        if response is None:
            scope[_DROP_KEY] = True
            return
        if isinstance(response, _Partial):
            await response.send_part(send)
            scope[_DROP_KEY] = True
            return
        await response(scope, receive, send)

    async def _respond(self, behaviour: Behaviour | None, body: Any) -> Response | _Partial | None:
        await self._server._sleep(self._server.latency)
        if self._api is None:
            return JSONResponse(_error_body("openai", 404, "no such endpoint"), status_code=404)
        fields = body if isinstance(body, dict) else {}
        if behaviour is None:
            behaviour = self._ask(fields)
        if isinstance(behaviour, Hang):
            await self._server._sleep(behaviour.seconds)
            behaviour = self._ask(fields)
        if isinstance(behaviour, Hold):
            await self._server._hold(behaviour)
            behaviour = self._ask(fields)
            behaviour = Reply(DEFAULT_REPLY) if isinstance(behaviour, Hold | Hang) else behaviour
        if isinstance(behaviour, HugeBody):
            return _huge(self._api, behaviour, fields, self._server._sleep)
        return _render(self._api, behaviour, fields)

    def _ask(self, body: dict[str, Any]) -> Behaviour:
        answer = self._server.responder(body)
        behaviour = Reply(answer) if isinstance(answer, str) else answer
        if self._server.prefix_cache and isinstance(behaviour, Reply) and behaviour.cached_tokens is None:
            behaviour = replace(behaviour, cached_tokens=self._server._cached_prefix(_prompt_text(body)))
        return behaviour


def _render(api: Api, behaviour: Behaviour, body: dict[str, Any]) -> Response | _Partial | None:
    if isinstance(behaviour, Reply):
        payload = _openai_reply(behaviour, body) if api == "openai" else _anthropic_reply(behaviour, body)
        return JSONResponse(payload)
    if isinstance(behaviour, Status):
        headers = dict(behaviour.headers)
        if isinstance(behaviour.body, str):
            return Response(behaviour.body, behaviour.code, headers, media_type="text/plain")
        error = _error_body(api, behaviour.code) if behaviour.body is None else behaviour.body
        return JSONResponse(error, behaviour.code, headers)
    if isinstance(behaviour, RawBody):
        return Response(
            behaviour.body, behaviour.status, dict(behaviour.headers), media_type=behaviour.content_type
        )
    if isinstance(behaviour, EmptyChoices):
        payload = _openai_reply(Reply(""), body) if api == "openai" else _anthropic_reply(Reply(""), body)
        payload["choices" if api == "openai" else "content"] = []
        return JSONResponse(payload)
    if isinstance(behaviour, Disconnect):
        if behaviour.after is None:
            return None
        whole = _render(api, Reply(DEFAULT_REPLY), body)
        assert isinstance(whole, Response)
        return _Partial(whole, behaviour.after)
    # A Hang right after a Hang: answer with the default text rather than hang again.
    return _render(api, Reply(DEFAULT_REPLY), body)


@dataclass(frozen=True, slots=True)
class _Partial:
    """The status, headers and first ``after`` bytes of ``response``; then the connection is dropped."""

    response: Response
    after: int

    async def send_part(self, send: Send) -> None:
        response = self.response
        await send(
            {"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers}
        )
        await send(
            {"type": "http.response.body", "body": bytes(response.body[: self.after]), "more_body": True}
        )


_HUGE_CHUNK = 64 * 1024


def _huge(
    api: Api, huge: HugeBody, body: dict[str, Any], sleep: Callable[[float], Awaitable[None]]
) -> Response:
    """A completion whose text is ``x`` repeated, about ``huge.size`` bytes in all, made as it is sent."""
    marker = "@@TEXT@@"
    reply = _openai_reply(Reply(marker), body) if api == "openai" else _anthropic_reply(Reply(marker), body)
    head, tail = (part.encode() for part in json.dumps(reply).split(marker))
    text = max(huge.size - len(head) - len(tail), 0)
    chunk = b"x" * _HUGE_CHUNK

    async def parts() -> AsyncIterator[bytes]:
        await sleep(huge.pause)
        yield head
        for start in range(0, text, _HUGE_CHUNK):
            yield chunk[: min(_HUGE_CHUNK, text - start)]
        yield tail

    length = len(head) + text + len(tail)
    headers = {"content-length": str(length)} if huge.content_length else None
    return StreamingResponse(parts(), media_type="application/json", headers=headers)


def _openai_reply(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": reply.text},
        "finish_reason": reply.finish_reason,
        "logprobs": _openai_logprobs(reply, body) if body.get("logprobs") and reply.logprobs else None,
    }
    prompt, completion = _usage(reply, body)
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            **(
                {}
                if reply.cached_tokens is None
                else {"prompt_tokens_details": {"cached_tokens": min(reply.cached_tokens, prompt)}}
            ),
        },
    }


def _openai_logprobs(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    if reply.tokens is not None:
        return {"content": [_scripted_token(t, body) for t in reply.tokens], "refusal": None}
    text = reply.text
    alternatives = int(body.get("top_logprobs") or 0)
    content = []
    for index, token in enumerate(re.findall(r"\s*\S+", text) or [text]):
        logprob = -0.1 * (index % 5 + 1)
        top = [(token, logprob)] + [(f"alt{k}", logprob - k) for k in range(1, alternatives)]
        content.append(
            {
                "token": token,
                "logprob": logprob,
                "bytes": list(token.encode()),
                "top_logprobs": [
                    {"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top[:alternatives]
                ],
            }
        )
    return {"content": content, "refusal": None}


def _scripted_token(token: Token, body: dict[str, Any]) -> dict[str, Any]:
    """A scripted token as OpenAI's chat completions send it: ``{token, logprob, bytes, top_logprobs}``."""
    alternatives = int(body.get("top_logprobs") or 0)
    ranked = sorted(token.top.items(), key=lambda item: -item[1])[:alternatives]
    return {
        "token": token.text,
        "logprob": math.log(token.top.get(token.text, 0.9)),
        "bytes": list(token.text.encode()),
        "top_logprobs": [
            {"token": text, "logprob": math.log(p), "bytes": list(text.encode())} for text, p in ranked
        ],
    }


_ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens"}


def _anthropic_reply(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    prompt, completion = _usage(reply, body)
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
    stop = _ANTHROPIC_STOP.get(reply.finish_reason, reply.finish_reason)
    if (tool_use := _tool_use(reply.text, body)) is not None:
        content, stop = [tool_use], "tool_use"
    return {
        "id": f"msg_{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "test-model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _anthropic_usage(prompt, completion, reply.cached_tokens),
    }


def _anthropic_usage(prompt: int, completion: int, cached: int | None) -> dict[str, Any]:
    """Anthropic's usage: cache reads are counted apart from ``input_tokens``, not within them."""
    if cached is None:
        return {"input_tokens": prompt, "output_tokens": completion}
    read = min(cached, prompt)
    return {"input_tokens": prompt - read, "output_tokens": completion, "cache_read_input_tokens": read}


def _tool_use(text: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """When the request forces a tool (``tool_choice`` of type ``tool``) and the reply text is a JSON object,
    the ``tool_use`` block calling it with that object as its input, as the Messages API answers; else None
    (the text is sent as a text block, as a server that ignores the tool would)."""
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") != "tool":
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return {
        "type": "tool_use",
        "id": f"toolu_{time.monotonic_ns()}",
        "name": choice.get("name"),
        "input": value,
    }


def _prompt_text(body: dict[str, Any]) -> str:
    """A request's prompt as one text: its system prompt and messages in order."""
    messages = body.get("messages") or []
    return str(body.get("system") or "") + "".join(str(m.get("content", "")) for m in messages)


def _usage(reply: Reply, body: dict[str, Any]) -> tuple[int, int]:
    """The given token counts, else about four characters per token."""
    messages = body.get("messages") or []
    chars = len(str(body.get("system") or "")) + sum(len(str(m.get("content", ""))) for m in messages)
    prompt = reply.input_tokens if reply.input_tokens is not None else max(1, chars // 4)
    completion = reply.output_tokens if reply.output_tokens is not None else max(1, len(reply.text) // 4)
    return prompt, completion


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _error_body(api: Api, code: int, message: str | None = None) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(code, "api_error" if code >= 500 else "invalid_request_error")
    text = message or f"test server says HTTP {code}"
    if api == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": text}}
    return {"error": {"message": text, "type": kind, "param": None, "code": None}}


def _parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


class _QuietDrops(logging.Filter):
    """Hide uvicorn's complaint about the value `_AsgiApp` returns to drop a connection on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        dropped = isinstance(record.args, tuple) and _DROP_MARKER in record.args
        return not (message.startswith("ASGI callable should return None") and dropped)


def _quiet_uvicorn() -> None:
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietDrops) for f in logger.filters):
        logger.addFilter(_QuietDrops())


def _load_responder(path: str) -> Responder:
    module_name, sep, attribute = path.partition(":")
    if not sep:
        raise SystemExit(f"--responder must look like package.module:function, got {path!r}")
    responder: Responder = getattr(importlib.import_module(module_name), attribute)
    return responder


_STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM or SIGINT; print the OpenAI base URL once listening.

    A stop request is held pending from the start (the server thread inherits the blocked signals) and
    taken by `signal.sigwait` once the URL is out, so one that arrives at any moment, even while the URL is
    still being printed, ends the process cleanly. (A handler raising KeyboardInterrupt did not: a
    SIGTERM sent the moment the URL was read could land before the wait began, outside any ``try``.)
    """
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.llm_server", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds slept before every reply")
    parser.add_argument("--responder", help="package.module:function returning the reply text for a body")
    parser.add_argument("--no-record", action="store_true", help="keep no request bodies (long benchmarks)")
    args = parser.parse_args(argv)
    signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    for stop in _STOP_SIGNALS:  # not ignored, even when started in the background (where SIGINT is)
        signal.signal(stop, signal.SIG_DFL)
    responder = _load_responder(args.responder) if args.responder else None
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    with LLMServer(
        responder, latency=args.latency, port=args.port, host=args.host, record=not args.no_record
    ) as server:
        print(server.base_url, flush=True)
        signal.sigwait(_STOP_SIGNALS)
    return 0


if __name__ == "__main__":
    # Run as `python -m`, this file is `__main__`; a responder that imports this module's behaviours
    # (`Hang`, `Status`...) gets those of `tests.support.llm_server`, which `__main__`'s isinstance
    # checks would not recognise (the reply would be taken for text). Serve from that module instead.
    from tests.support.llm_server import main as serve

    sys.exit(serve())
