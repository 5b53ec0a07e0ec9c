"""The request lines and result bodies of OpenAI's batch file format (also vLLM's ``run-batch``), and the
requests and results of Anthropic's message batches."""

from __future__ import annotations

import json
from typing import Any

from faceteval.errors import ConfigError
from faceteval.llm._llm import _as_text
from faceteval.llm._types import (
    DEFAULT_GENERATE_CONFIG,
    Completion,
    CompletionRequest,
    GenerateConfig,
    ResponseSchema,
)

CHAT_COMPLETIONS = "/v1/chat/completions"


def openai_batch_line(custom_id: str, request: CompletionRequest) -> str:
    """One line of a batch request file: the body the synchronous path sends, under ``custom_id``.

    Examples:
        >>> from faceteval.llm import user
        >>> line = openai_batch_line("k1", CompletionRequest("m", (user("hi"),), DEFAULT_GENERATE_CONFIG))
        >>> json.loads(line)["body"]["messages"]
        [{'role': 'user', 'content': 'hi'}]
    """
    from faceteval.llm._openai import _params  # the SDK on first use: importing faceteval loads none

    line = {"custom_id": custom_id, "method": "POST", "url": CHAT_COMPLETIONS, "body": _params(request)}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def openai_batch_completion(body: Any, *, model: str, where: str) -> Completion:
    """The completion a batch result's ``response.body`` holds, as the synchronous path would cache it.

    Token log-probabilities are read when the reply has them (a request that asked for them).

    Raises:
        BadResponseError: The body is not a chat completion with a choice.
    """
    choices = body.get("choices") if isinstance(body, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    config = GenerateConfig(logprobs=first.get("logprobs") is not None)
    request = CompletionRequest(model, (), config if config.logprobs else DEFAULT_GENERATE_CONFIG)
    from faceteval.llm._openai import completion_of

    return _as_text(completion_of(body, request, where))


def anthropic_batch_request(custom_id: str, request: CompletionRequest) -> dict[str, Any]:
    """One request of an Anthropic message batch: the parameters the synchronous path sends.

    Raises:
        ConfigError: The request asks for log-probabilities, which the Anthropic API has not.
    """
    from faceteval.llm import _anthropic  # the SDK is an optional extra: imported when used

    if request.config.logprobs:
        raise ConfigError(f"the Anthropic API returns no log-probabilities (model {request.model!r})")
    return {"custom_id": custom_id, "params": _anthropic._params(request)}


def anthropic_batch_completion(message: Any, *, model: str, where: str) -> Completion:
    """The completion a succeeded batch result's ``message`` (the SDK's Message) holds, as the synchronous
    path would cache it: a forced tool's input is the reply text (structured output).

    Raises:
        BadResponseError: It is not a message with text.
    """
    from faceteval.llm import _anthropic

    blocks = getattr(message, "content", None)
    tool = next((b.name for b in blocks or () if getattr(b, "type", None) == "tool_use"), None)
    config = (
        DEFAULT_GENERATE_CONFIG
        if tool is None
        else GenerateConfig(response_schema=ResponseSchema(tool, "{}"))
    )
    return _as_text(_anthropic._completion(message, CompletionRequest(model, (), config), where))
