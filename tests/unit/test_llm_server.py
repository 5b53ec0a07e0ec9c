"""The local LLM server that provider, wrapper and benchmark tests run against."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.support.llm_server import (
    DEFAULT_REPLY,
    Disconnect,
    EmptyChoices,
    Hang,
    HugeBody,
    LLMServer,
    RawBody,
    Reply,
    Status,
)

ROOT = Path(__file__).resolve().parents[2]
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello world, how are you"}]}


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    """A plain-HTTP client (no TLS setup, which costs 0.1 s a client)."""
    with httpx2.Client(timeout=10, verify=False) as client:
        yield client


def post(
    http: httpx2.Client, server: LLMServer, path: str = "/chat/completions", body: Any = CHAT
) -> httpx2.Response:
    return http.post(f"{server.base_url}{path}", json=body)


def test_default_reply_is_an_openai_chat_completion(http: httpx2.Client, llm_server: LLMServer) -> None:
    payload = post(http, llm_server).json()

    assert payload["choices"][0]["message"] == {"role": "assistant", "content": DEFAULT_REPLY}
    assert payload["choices"][0]["finish_reason"] == "stop"
    assert payload["model"] == "m"
    assert payload["usage"]["prompt_tokens"] == len("hello world, how are you") // 4


def test_anthropic_messages_format(http: httpx2.Client) -> None:
    with LLMServer(lambda body: f"system was {body['system']}") as server:
        server.enqueue(Reply("cut", finish_reason="length", input_tokens=9, output_tokens=2))
        first = post(http, server, "/messages", {"model": "c", "system": "S", "messages": []}).json()
        second = post(http, server, "/messages", {"model": "c", "system": "S", "messages": []}).json()

    assert first["content"] == [{"type": "text", "text": "cut"}]
    assert (first["stop_reason"], first["usage"]) == ("max_tokens", {"input_tokens": 9, "output_tokens": 2})
    assert second["content"][0]["text"] == "system was S"
    assert second["stop_reason"] == "end_turn"


def test_queue_is_consumed_in_order_then_falls_back_to_the_responder(
    http: httpx2.Client, llm_server: LLMServer
) -> None:
    llm_server.enqueue(Reply("first"), Status(503, headers={"retry-after": "3"}))
    llm_server.enqueue(RawBody("<html>proxy</html>"), EmptyChoices())

    responses = [post(http, llm_server) for _ in range(5)]

    assert responses[0].json()["choices"][0]["message"]["content"] == "first"
    assert (responses[1].status_code, responses[1].headers["retry-after"]) == (503, "3")
    assert responses[1].json()["error"]["message"] == "test server says HTTP 503"
    assert (responses[2].text, responses[2].headers["content-type"]) == (
        "<html>proxy</html>",
        "text/html; charset=utf-8",
    )
    assert responses[3].json()["choices"] == []
    assert responses[4].json()["choices"][0]["message"]["content"] == DEFAULT_REPLY


def test_requests_are_recorded_in_arrival_order(http: httpx2.Client, llm_server: LLMServer) -> None:
    before = time.monotonic()
    post(http, llm_server, body={"model": "a", "messages": []})
    post(http, llm_server, "/messages", body={"model": "b", "messages": []})
    http.post(f"{llm_server.base_url}/chat/completions", content=b"not json")

    first, second, third = llm_server.requests
    assert (first.path, first.body["model"]) == ("/v1/chat/completions", "a")
    assert (second.path, second.body["model"]) == ("/v1/messages", "b")
    assert third.body is None
    assert first.headers["content-type"] == "application/json"
    assert before <= first.received_at <= second.received_at <= third.received_at


def test_unknown_paths_are_recorded_and_leave_the_queue_alone(
    http: httpx2.Client, llm_server: LLMServer
) -> None:
    llm_server.enqueue(Reply("kept"))

    missing = post(http, llm_server, "/embeddings")

    assert missing.status_code == 404
    assert llm_server.requests[0].path == "/v1/embeddings"
    assert post(http, llm_server).json()["choices"][0]["message"]["content"] == "kept"


def test_reset_forgets_requests_and_queue(http: httpx2.Client, llm_server: LLMServer) -> None:
    llm_server.enqueue(Reply("dropped"))
    post(http, llm_server)
    llm_server.enqueue(Reply("dropped too"))

    llm_server.reset()

    assert llm_server.requests == []
    assert post(http, llm_server).json()["choices"][0]["message"]["content"] == DEFAULT_REPLY


def test_responder_may_return_a_behaviour(http: httpx2.Client) -> None:
    with LLMServer(lambda body: Status(418) if body["model"] == "teapot" else "fine") as server:
        assert post(http, server, body={"model": "teapot", "messages": []}).status_code == 418
        assert post(http, server).status_code == 200


def test_disconnect_closes_the_connection_without_a_response(
    http: httpx2.Client, llm_server: LLMServer
) -> None:
    llm_server.enqueue(Disconnect())

    with pytest.raises(httpx2.RemoteProtocolError):
        post(http, llm_server)
    assert post(http, llm_server).status_code == 200


def test_disconnect_after_some_bytes_sends_the_start_of_a_reply(
    http: httpx2.Client, llm_server: LLMServer
) -> None:
    llm_server.enqueue(Disconnect(after=20))

    with http.stream("POST", f"{llm_server.base_url}/chat/completions", json=CHAT) as response:
        assert response.status_code == 200
        assert int(response.headers["content-length"]) > 20
        with pytest.raises(httpx2.RemoteProtocolError, match="without sending complete message body"):
            response.read()
    assert post(http, llm_server).status_code == 200


@pytest.mark.parametrize("content_length", [False, True])
def test_huge_body_is_a_completion_of_about_its_size(
    http: httpx2.Client, llm_server: LLMServer, content_length: bool
) -> None:
    llm_server.enqueue(HugeBody(1_000_000, content_length=content_length))

    response = post(http, llm_server)

    assert ("content-length" in response.headers) is content_length
    assert response.headers.get("transfer-encoding") == (None if content_length else "chunked")
    assert len(response.content) == 1_000_000
    assert set(response.json()["choices"][0]["message"]["content"]) == {"x"}


def test_hang_delays_the_reply(http: httpx2.Client, llm_server: LLMServer) -> None:
    llm_server.enqueue(Hang(0.3))
    start = time.monotonic()

    response = post(http, llm_server)

    assert response.status_code == 200
    assert time.monotonic() - start >= 0.3


def test_stopping_ends_pending_hangs_at_once(http: httpx2.Client) -> None:
    server = LLMServer()
    server.start()
    server.enqueue(Hang(30))
    with pytest.raises(httpx2.ReadTimeout):
        http.post(f"{server.base_url}/chat/completions", json=CHAT, timeout=0.2)
    start = time.monotonic()

    server.stop()

    assert time.monotonic() - start < 2


@pytest.mark.anyio
async def test_sixty_four_requests_with_latency_overlap() -> None:
    latency, count = 2.0, 64  # long enough for 64 connections to open on a loaded machine
    with LLMServer(latency=latency) as server:
        limits = httpx2.Limits(max_connections=count)
        async with httpx2.AsyncClient(timeout=10, limits=limits, verify=False) as client:

            async def one() -> None:
                response = await client.post(f"{server.base_url}/chat/completions", json=CHAT)
                assert response.status_code == 200

            start = time.monotonic()
            async with anyio.create_task_group() as group:
                for _ in range(count):
                    group.start_soon(one)
            elapsed = time.monotonic() - start

        assert server.max_in_flight == count
        assert len(server.requests) == count
    assert latency <= elapsed < latency * 8  # one after another would take latency * 64


def start_process(*flags: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.support.llm_server", *flags]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_runs_as_a_process(http: httpx2.Client) -> None:
    process = start_process("--responder", "tests.support.llm_server:echo")
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:")
        assert base_url.endswith("/v1")
        reply = http.post(f"{base_url}/chat/completions", json=CHAT).json()
        assert reply["choices"][0]["message"]["content"] == "hello world, how are you"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0, stderr


def stop_as_soon_as_announced(_: int) -> tuple[int, str]:
    process = start_process()
    assert process.stdout is not None
    process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    return process.returncode, stderr


@pytest.mark.slow
def test_a_stop_sent_the_moment_the_url_is_read_ends_it_cleanly() -> None:
    # The URL line is a caller's only sign of readiness, so a stop may follow it at once. Before the
    # server held stop signals pending, a SIGTERM that landed between its print and its wait ended it
    # with a traceback: 5 to 12 of these 24 did, four servers at a time.
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(stop_as_soon_as_announced, range(24)))

    assert outcomes == [(0, "")] * 24
