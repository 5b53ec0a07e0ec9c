"""Structured output at the provider seam: the schema a request carries, sent through the official SDKs
to the local server (``response_format`` for OpenAI-compatible servers, a forced tool for Anthropic),
the reply read back, and the cache key that tells structured requests apart."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx2
import pytest

from faceteval.llm import CompletionRequest, GenerateConfig, ResponseSchema, user
from faceteval.llm._openai import OpenAIProvider
from faceteval.llm.internal import cache_key
from tests.support.llm_server import LLMServer, Reply, Status

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {
        "scores": {"type": "array", "items": {"type": "number", "minimum": 1, "maximum": 10}},
        "explanation": {"type": "string"},
    },
    "required": ["scores", "explanation"],
    "additionalProperties": False,
}
STRUCTURED = GenerateConfig(
    structured=True, response_schema=ResponseSchema.of("scores", SCHEMA, "The scores of the candidates.")
)
REQUEST = CompletionRequest("judge", (user("Score both."),), STRUCTURED)


@pytest.fixture
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(verify=False) as client:
        yield client


async def test_openai_sends_the_schema_as_a_strict_json_schema_response_format(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    provider = OpenAIProvider(api_key="sk-test", base_url=llm_server.base_url, http_client=client)
    llm_server.enqueue(Reply('{"scores": [8, 6], "explanation": "first is better"}'))

    completion = await provider.complete(REQUEST)

    assert llm_server.requests[0].response_format == {
        "type": "json_schema",
        "json_schema": {
            "name": "scores",
            "schema": SCHEMA,
            "strict": True,
            "description": "The scores of the candidates.",
        },
    }
    assert json.loads(completion.text) == {"scores": [8, 6], "explanation": "first is better"}


async def test_the_schema_keeps_its_property_order(llm_server: LLMServer, client: httpx2.AsyncClient) -> None:
    """A server that enforces the schema generates the properties in its order: reasoning before scores
    for chain of thought, as the free-text prompt orders them."""
    provider = OpenAIProvider(api_key="sk-test", base_url=llm_server.base_url, http_client=client)
    ordered = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "number"}}}
    config = GenerateConfig(response_schema=ResponseSchema.of("x", ordered))

    await provider.complete(CompletionRequest("judge", (user("q"),), config))

    sent = llm_server.requests[0].response_format["json_schema"]["schema"]
    assert list(sent["properties"]) == ["b", "a"]


async def test_a_free_text_request_sends_no_response_format(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    provider = OpenAIProvider(api_key="sk-test", base_url=llm_server.base_url, http_client=client)

    await provider.complete(CompletionRequest("judge", (user("q"),)))

    assert llm_server.requests[0].response_format is None


async def test_anthropic_forces_one_tool_with_the_schema_and_reads_its_input(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    from faceteval.llm._anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key="sk-ant-test", base_url=llm_server.root_url, http_client=client)
    llm_server.enqueue(Reply('{"scores": [3, 9], "explanation": "second is better"}'))

    completion = await provider.complete(REQUEST)

    (seen,) = llm_server.requests
    assert seen.body["tools"] == [
        {"name": "scores", "input_schema": SCHEMA, "description": "The scores of the candidates."}
    ]
    assert seen.body["tool_choice"] == {"type": "tool", "name": "scores"}
    assert seen.forced_tool == seen.body["tools"][0]
    assert json.loads(completion.text) == {"scores": [3, 9], "explanation": "second is better"}
    assert completion.finish_reason == "tool_calls"


async def test_anthropic_reads_the_forced_tools_input_among_other_blocks(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    """A message as the Messages API sends it: text, then the tool_use block (other tools' blocks ignored)."""
    from faceteval.llm._anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key="sk-ant-test", base_url=llm_server.root_url, http_client=client)
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [
            {"type": "text", "text": "Here are the scores."},
            {"type": "tool_use", "id": "toolu_0", "name": "other", "input": {"x": 1}},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "scores",
                "input": {"scores": [5, 4], "explanation": "é"},
            },
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 30, "output_tokens": 12},
    }
    llm_server.enqueue(Status(200, body=body))

    completion = await provider.complete(REQUEST)

    assert json.loads(completion.text) == {"scores": [5, 4], "explanation": "é"}
    assert (completion.input_tokens, completion.output_tokens) == (30, 12)


async def test_anthropic_without_the_tool_call_returns_its_text(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    """A server that ignores the tool answers in text: that text is the reply, for the parser to judge."""
    from faceteval.llm._anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key="sk-ant-test", base_url=llm_server.root_url, http_client=client)
    llm_server.enqueue(Reply("8 6"))

    completion = await provider.complete(REQUEST)

    assert completion.text == "8 6"


def test_the_cache_key_changes_with_the_schema_and_not_for_free_text() -> None:
    messages = (user("Score both."),)
    plain = CompletionRequest("judge", messages)
    other = ResponseSchema.of("scores", {**SCHEMA, "required": ["scores"]})
    keys = {
        cache_key("openai", plain),
        cache_key("openai", REQUEST),
        cache_key("openai", CompletionRequest("judge", messages, STRUCTURED.merge(response_schema=other))),
    }
    assert len(keys) == 3
    # a free-text request's key is what it was before structured output existed
    assert "structured" not in plain.config.cache_fields()
    assert "response_schema" not in plain.config.cache_fields()
    assert cache_key("openai", plain) == "a713be014c08cdb241eb046e840ee4c8cea87420da28dc8cd9ee992207a1a82c"


def test_a_schema_name_is_one_the_apis_accept() -> None:
    with pytest.raises(ValueError, match="1-64 letters"):
        ResponseSchema.of("two words", SCHEMA)
