"""Structured output's dialects: how an OpenAI-compatible request carries its schema (``json_schema``,
``json_object``, ``guided``, ``format``), sent through the official SDK to the local server, the cache
keys they make, and the LLM's one fallback to ``json_object`` when a server refuses ``json_schema``."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest

from faceteval.errors import ConfigError, ProviderServerError
from faceteval.llm import (
    LLM,
    CompletionRequest,
    GenerateConfig,
    ModelSpec,
    ResponseSchema,
    RetryPolicy,
    user,
)
from faceteval.llm._openai import OpenAIProvider
from faceteval.llm.internal import cache_key
from faceteval.store import SQLiteCache
from tests.support.llm_server import LLMServer, Reply, Status, refusing_json_schema

pytestmark = pytest.mark.anyio

SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 10}},
    "required": ["score"],
    "additionalProperties": False,
}
RESPONSE_SCHEMA = ResponseSchema.of("score", SCHEMA, "The score.")
SPEC = ModelSpec("llamacpp", "judge")
FAST = RetryPolicy(max_retries=2, initial_delay=0.001, max_delay=0.001)
REPLY = '{"score": 7}'


@pytest.fixture
async def client() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(verify=False) as client:
        yield client


def config(dialect: str | None = None) -> GenerateConfig:
    return GenerateConfig(structured=True, response_schema=RESPONSE_SCHEMA, schema_dialect=dialect)  # type: ignore[arg-type]


def llm_at(
    server: LLMServer, client: httpx2.AsyncClient, dialect: str | None = None, **options: object
) -> LLM:
    provider = OpenAIProvider(api_key="x", base_url=server.base_url, http_client=client)
    return LLM(provider, SPEC, config=config(dialect), retry=FAST, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dialect", "field", "sent"),
    [
        ("json_object", "response_format", {"type": "json_object", "schema": SCHEMA}),
        ("guided", "guided_json", SCHEMA),
        ("format", "format", SCHEMA),
    ],
)
async def test_each_dialect_carries_the_schema_in_its_own_field(
    llm_server: LLMServer, client: httpx2.AsyncClient, dialect: str, field: str, sent: object
) -> None:
    llm_server.enqueue(Reply(REPLY))
    exchange = await llm_at(llm_server, client, dialect).generate([user("q")])

    (request,) = llm_server.requests
    assert request.body[field] == sent
    assert request.schema_dialect == (dialect, SCHEMA)
    others = {"response_format", "guided_json", "format"} - {field}
    assert not others & set(request.body)
    assert exchange.completion.text == REPLY


async def test_json_schema_named_or_left_to_the_llm_sends_what_it_always_sent(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    for dialect in (None, "json_schema"):
        await llm_at(llm_server, client, dialect).generate([user("q")])
    first, second = llm_server.requests
    assert first.body == second.body
    assert first.response_format["type"] == "json_schema"
    assert first.response_format["json_schema"]["strict"] is True


def test_the_dialect_is_in_the_cache_key_only_when_it_is_not_json_schema() -> None:
    def key(dialect: str | None) -> str:
        return cache_key("llamacpp@x", CompletionRequest("judge", (user("q"),), config(dialect)))

    assert key(None) == key("json_schema")
    assert len({key(None), key("json_object"), key("guided"), key("format")}) == 4
    assert "schema_dialect" not in config("json_schema").cache_fields()
    assert config("guided").cache_fields()["schema_dialect"] == "guided"


def test_an_unknown_dialect_is_refused() -> None:
    with pytest.raises(ConfigError, match="schema_dialect is one of json_schema, json_object"):
        config("grammar")


async def test_a_server_that_refuses_json_schema_is_asked_in_json_object_once_for_the_run(
    llm_server: LLMServer, client: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    llm_server.responder = refusing_json_schema(lambda _body: REPLY)
    with SQLiteCache(tmp_path / "c.sqlite") as cache, caplog.at_level(logging.INFO, logger="faceteval"):
        llm = llm_at(llm_server, client, cache=cache)
        first = await llm.generate([user("one")])
        second = await llm.generate([user("two")])
        again = await llm_at(llm_server, client, cache=cache).generate([user("one")])

    dialects = [r.schema_dialect[0] for r in llm_server.requests]  # type: ignore[index]
    assert dialects == ["json_schema", "json_object", "json_object"]  # refused once, then remembered
    assert first.completion.text == second.completion.text == REPLY
    assert again.cached  # the key is the request's own: the next run reads the replies back
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    message = warning.getMessage()
    assert "refuses structured output as response_format json_schema" in message
    assert "--structured json_object" in message
    assert llm.spent.retries == 1


async def test_a_named_json_schema_does_not_fall_back_and_says_which_dialect_to_try(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    llm_server.responder = refusing_json_schema(lambda _body: REPLY)
    with pytest.raises(ProviderServerError, match=r"try --structured json_object") as failed:
        await llm_at(llm_server, client, "json_schema").generate([user("q")])
    assert len(llm_server.requests) == 1  # not retried: the same request is refused the same way
    assert failed.value.attempts == 1


async def test_other_server_errors_do_not_change_the_dialect(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    llm_server.enqueue(Status(500, body={"error": {"message": "out of memory"}}), Reply(REPLY))
    await llm_at(llm_server, client).generate([user("q")])
    assert [r.schema_dialect[0] for r in llm_server.requests] == ["json_schema", "json_schema"]  # type: ignore[index]


async def test_a_json_object_refused_too_fails_with_the_servers_error(
    llm_server: LLMServer, client: httpx2.AsyncClient
) -> None:
    body = {"error": {"message": "response_format is not supported"}}
    llm_server.responder = refusing_json_schema(lambda _body: Status(400, body=body))
    with pytest.raises(Exception, match="response_format is not supported"):
        await llm_at(llm_server, client).generate([user("q")])
    assert [r.schema_dialect[0] for r in llm_server.requests] == ["json_schema", "json_object"]  # type: ignore[index]
    assert json.loads(json.dumps(llm_server.requests[1].body["response_format"]))["schema"] == SCHEMA
