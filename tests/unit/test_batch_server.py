"""The local OpenAI files + batches server, driven through the official openai SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.support.batch_server import Fate, OpenAIBatches
from tests.support.llm_server import LLMServer, Status


@pytest.fixture
def served() -> Iterator[tuple[LLMServer, OpenAIBatches, openai.OpenAI]]:
    server = LLMServer(lambda body: f"Score: {len(body['messages'][-1]['content'])}")
    batches = OpenAIBatches(server, polls_in_progress=2)
    with server:
        client = openai.OpenAI(api_key="test", base_url=server.base_url, max_retries=0)
        yield server, batches, client
        client.close()


def _lines(*texts: str) -> bytes:
    return "".join(
        json.dumps(
            {
                "custom_id": f"k{n}",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": {"model": "m", "messages": [{"role": "user", "content": text}]},
            }
        )
        + "\n"
        for n, text in enumerate(texts)
    ).encode()


def _submit(client: openai.OpenAI, data: bytes) -> Any:
    uploaded = client.files.create(file=("in.jsonl", data), purpose="batch")
    return client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )


def _rows(client: openai.OpenAI, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(line) for line in client.files.content(file_id).text.splitlines()]


def test_a_batch_is_in_progress_then_completed_with_each_line_answered_in_the_output_file(
    served: tuple[LLMServer, OpenAIBatches, openai.OpenAI],
) -> None:
    server, _, client = served
    batch = _submit(client, _lines("ab", "abcd"))
    assert batch.status == "validating"
    assert [client.batches.retrieve(batch.id).status for _ in range(3)] == [
        "in_progress",
        "in_progress",
        "completed",
    ]
    done = client.batches.retrieve(batch.id)
    assert done.request_counts is not None and done.request_counts.completed == 2
    assert done.error_file_id is None
    rows = _rows(client, done.output_file_id)
    assert [r["custom_id"] for r in rows] == ["k0", "k1"]
    assert [r["response"]["body"]["choices"][0]["message"]["content"] for r in rows] == [
        "Score: 2",
        "Score: 4",
    ]
    assert all(r["response"]["status_code"] == 200 and r["error"] is None for r in rows)
    assert len(server.requests) == 2  # each line answered by the chat completions logic


def test_a_scripted_failure_goes_to_the_error_file(
    served: tuple[LLMServer, OpenAIBatches, openai.OpenAI],
) -> None:
    server, batches, client = served
    batches.polls_in_progress = 0
    server.enqueue(Status(500))
    batch = client.batches.retrieve(_submit(client, _lines("a", "b")).id)
    assert batch.status == "completed"
    (failed,) = _rows(client, batch.error_file_id)
    assert failed["custom_id"] == "k0" and failed["response"]["status_code"] == 500
    assert [r["custom_id"] for r in _rows(client, batch.output_file_id)] == ["k1"]


def test_an_expired_batch_answers_its_first_lines_and_puts_the_rest_in_the_error_file(
    served: tuple[LLMServer, OpenAIBatches, openai.OpenAI],
) -> None:
    _, batches, client = served
    batches.polls_in_progress = 0
    batches.script(Fate("expired", answered=1))
    batch = client.batches.retrieve(_submit(client, _lines("a", "b", "c")).id)
    assert batch.status == "expired"
    assert [r["custom_id"] for r in _rows(client, batch.output_file_id)] == ["k0"]
    expired = _rows(client, batch.error_file_id)
    assert [(r["custom_id"], r["response"], r["error"]["code"]) for r in expired] == [
        ("k1", None, "batch_expired"),
        ("k2", None, "batch_expired"),
    ]


def test_a_batch_over_the_limits_or_with_a_custom_id_twice_fails(
    served: tuple[LLMServer, OpenAIBatches, openai.OpenAI],
) -> None:
    _, batches, client = served
    batches.max_requests = 2
    too_many = client.batches.retrieve(_submit(client, _lines("a", "b", "c")).id)
    twice = client.batches.retrieve(_submit(client, _lines("a") + _lines("b")).id)
    assert (too_many.status, twice.status) == ("failed", "failed")
    assert too_many.errors is not None and twice.errors is not None
    assert [e.code for e in too_many.errors.data or []] == ["too_many_requests"]
    assert [e.code for e in twice.errors.data or []] == ["duplicate_custom_id"]
