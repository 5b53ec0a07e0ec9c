"""`InspectProvider`: faceteval's calls made through an Inspect AI model (Inspect's ``openai-api`` provider
against the local server), with Inspect's cache and limits in play."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from faceteval import Direct, Instance, judge_async
from faceteval.errors import ProviderError
from faceteval.llm import CompletionRequest, GenerateConfig, assistant, system, user
from tests.support.llm_server import LLMServer, Reply, Status

if TYPE_CHECKING:
    from inspect_ai.model import Model


pytestmark = [
    pytest.mark.anyio,
    # Inspect's retry set-up, on every call, uses a parameter the installed tenacity deprecates.
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
]


@pytest.fixture
async def model(
    llm_server: LLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Model]:
    """An Inspect model on the local server, its response cache in the test's directory; closed after."""
    from inspect_ai.model import get_model

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    async with get_model("openai-api/local/judge", base_url=llm_server.base_url, api_key="test") as opened:
        yield opened


async def test_a_call_sends_the_messages_and_settings_and_returns_text_and_usage(
    model: Model, llm_server: LLMServer
) -> None:
    from faceteval.integrations.inspect import InspectProvider

    llm_server.enqueue(Reply("Score: 7", input_tokens=31, output_tokens=4))
    messages = (system("Be fair."), user("Judge this."), assistant("Which aspect?"), user("Correctness."))
    config = GenerateConfig(temperature=0.0, max_tokens=77, seed=5)
    completion = await InspectProvider(model).complete(CompletionRequest("judge", messages, config))
    assert (completion.text, completion.input_tokens, completion.output_tokens) == ("Score: 7", 31, 4)
    assert (completion.finish_reason, completion.model) == ("stop", "judge")
    (request,) = llm_server.requests
    assert request.body["messages"] == [m.to_dict() for m in messages]
    assert (request.body["temperature"], request.body["max_tokens"], request.body["seed"]) == (0.0, 77, 5)


async def test_a_call_inspect_gives_up_on_is_a_provider_error_in_one_line(
    model: Model, llm_server: LLMServer
) -> None:
    from faceteval.integrations.inspect import InspectProvider

    llm_server.enqueue(Status(400))
    with pytest.raises(ProviderError) as raised:
        await InspectProvider(model).complete(CompletionRequest("judge", (user("x"),)))
    message = str(raised.value)
    assert message.startswith("openai-api/local/judge: HTTP 400: ") and "\n" not in message
    assert not raised.value.retryable  # Inspect retried what it would; faceteval retries nothing more


async def test_a_limit_reached_is_left_to_inspect(model: Model, llm_server: LLMServer) -> None:
    from inspect_ai.util import LimitExceededError, token_limit

    from faceteval.integrations.inspect import InspectProvider

    llm_server.enqueue(Reply("Score: 7", input_tokens=500, output_tokens=500))
    with pytest.raises(LimitExceededError), token_limit(10):
        await InspectProvider(model).complete(CompletionRequest("judge", (user("x"),)))


async def test_inspects_cache_answers_a_repeated_call_and_keeps_samples_apart(
    model: Model, llm_server: LLMServer
) -> None:
    from inspect_ai.model import CachePolicy

    from faceteval.integrations.inspect import InspectProvider

    llm_server.responder = lambda body: f"reply {len(llm_server.requests)}"
    provider = InspectProvider(model, cache=CachePolicy(expiry=None))
    ask = CompletionRequest("judge", (user("Judge this."),))
    first = await provider.complete(ask)
    again = await provider.complete(ask)
    sampled = await provider.complete(CompletionRequest("judge", ask.messages, GenerateConfig(sample=1)))
    assert first.text == again.text == "reply 1" and sampled.text == "reply 2"
    assert len(llm_server.requests) == 2


async def test_without_a_cache_every_call_is_made(model: Model, llm_server: LLMServer) -> None:
    from faceteval.integrations.inspect import InspectProvider

    provider = InspectProvider(model)
    ask = CompletionRequest("judge", (user("Judge this."),))
    await provider.complete(ask)
    await provider.complete(ask)
    assert len(llm_server.requests) == 2


async def test_an_llm_over_an_inspect_model_judges_with_one_attempt_per_call(
    model: Model, llm_server: LLMServer
) -> None:
    from faceteval.integrations.inspect import inspect_llm

    llm = inspect_llm(model)
    assert (llm.cache, llm.retry.max_retries, str(llm.spec)) == (None, 0, "inspect:openai-api/local/judge")
    assert llm.identity == f"inspect:openai-api/local/judge@{llm_server.base_url}"
    llm_server.enqueue(Reply("8 3\nResponse 1 is right."))
    pair = Instance(id="1", query="2+2?", candidates=["4", "5"])
    (judgment,) = await judge_async([pair], Direct(), llm)
    assert (judgment.status, judgment.verdict, judgment.scores) == ("ok", 1, [8.0, 3.0])
    assert judgment.usage.calls == 1 and judgment.usage.cached_calls == 0
