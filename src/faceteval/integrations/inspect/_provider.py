"""A faceteval provider over an Inspect AI model: Inspect's providers, retries, cache and limits apply."""

from __future__ import annotations

import math
from dataclasses import dataclass

from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelOutput,
    ModelRefusalError,
)
from inspect_ai.model import GenerateConfig as InspectConfig
from inspect_ai.util import LimitExceededError

from faceteval._util.urls import redact_url
from faceteval.errors import ProviderError
from faceteval.llm import (
    DEFAULT_GENERATE_CONFIG,
    LLM,
    Completion,
    CompletionRequest,
    GenerateConfig,
    Message,
    ModelSpec,
    RetryPolicy,
)
from faceteval.llm import TokenLogprob as FacetevalLogprob

PROVIDER_NAME = "inspect"
"""The provider's name, and the first part of the `ModelSpec` of an LLM built on it."""
NO_RETRY = RetryPolicy(max_retries=0)
"""Inspect retries a failed call itself (``--max-retries``); faceteval adds none on top."""
UNLIMITED = 1_000_000
"""faceteval's own concurrency limit on an Inspect model: none to speak of (``--max-connections`` rules)."""

CacheSetting = bool | CachePolicy | None
"""Inspect's response cache for the judge's calls: None leaves it to the eval (``--cache``)."""

_PASSED_THROUGH = (LimitExceededError, ModelRefusalError)
"""Inspect's own ways of ending a sample (a token, message or time limit; a refusal with
``fail_on_refusal``): raised on untouched, for Inspect to handle as it does any sample's."""


@dataclass(frozen=True, slots=True)
class InspectProvider:
    """A `faceteval.llm.Provider` whose calls go through an Inspect AI `Model`'s ``generate``.

    Each call is one ``Model.generate``: Inspect's provider, connection limit, retries, timeouts and
    cache apply to it, it is counted against the sample's limits, and it shows in the sample's
    transcript. A failure Inspect gives up on becomes a `ProviderError` (faceteval does not retry
    it again); a limit being reached is raised on untouched, for Inspect to end the sample.

    Attributes:
        model: The Inspect model (``get_model()``, ``get_model("openai/gpt-4o-mini")``...).
        cache: Inspect's response cache for these calls (``True``, a `CachePolicy`), or None to use
            the eval's own setting (``--cache``; none by default).
    """

    model: Model
    cache: CacheSetting = None

    @property
    def name(self) -> str:
        """``inspect``."""
        return PROVIDER_NAME

    @property
    def identity(self) -> str:
        """The Inspect model's name (``openai/gpt-4o-mini``), with its base URL when it has one (its
        credentials hidden: `faceteval._util.urls.redact_url`)."""
        base_url = self.model.api.base_url
        return f"{PROVIDER_NAME}:{self.model}" + (f"@{redact_url(base_url)}" if base_url else "")

    async def complete(self, request: CompletionRequest) -> Completion:
        """One ``generate`` call of the Inspect model."""
        messages = [_chat_message(message) for message in request.messages]
        config = _inspect_config(request.config)
        try:
            if (cache := _cache_policy(self.cache, request.config)) is None:
                output = await self.model.generate(messages, config=config)
            else:
                output = await self.model.generate(messages, config=config, cache=cache)
        except _PASSED_THROUGH:
            raise
        except Exception as exc:  # whatever the model's API raised, after Inspect's retries
            raise ProviderError(f"{self.model}: {_describe(exc)}") from exc
        return _completion(output)

    async def aclose(self) -> None:
        """Nothing to release: the model's connections are Inspect's, closed by Inspect."""


def inspect_llm(model: Model, *, cache: CacheSetting = None, config: GenerateConfig | None = None) -> LLM:
    """A faceteval `LLM` over an Inspect model: Inspect's retries, timeouts, limits and cache apply.

    It has no faceteval response cache and makes one attempt per call (Inspect makes the retries);
    the generation settings faceteval sends (temperature 0 and 1,024 tokens unless ``config`` says
    otherwise) override the model's own for those fields, and the model's config gives the rest.
    """
    return LLM(
        InspectProvider(model, cache=cache),
        ModelSpec(PROVIDER_NAME, str(model)),
        config=DEFAULT_GENERATE_CONFIG if config is None else config,
        retry=NO_RETRY,
        timeout=math.inf,
        concurrency=UNLIMITED,
    )


def _describe(error: Exception) -> str:
    """What went wrong, in one line: the provider's own message (Inspect's error also quotes the request)."""
    provider_message = getattr(error, "provider_message", None)  # Inspect's ModelGenerateError
    if isinstance(provider_message, str) and provider_message:
        status = getattr(error, "status_code", None)
        return f"HTTP {status}: {provider_message}" if isinstance(status, int) else provider_message
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1]}" if lines else type(error).__name__


def _chat_message(message: Message) -> ChatMessage:
    if message.role == "system":
        return ChatMessageSystem(content=message.content)
    if message.role == "assistant":
        return ChatMessageAssistant(content=message.content)
    return ChatMessageUser(content=message.content)


def _inspect_config(config: GenerateConfig) -> InspectConfig:
    """faceteval's generation settings as Inspect's; those faceteval leaves unset stay the model's."""
    return InspectConfig(
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        top_p=config.top_p,
        logprobs=config.logprobs or None,
        top_logprobs=config.top_logprobs,
    )


def _cache_policy(cache: CacheSetting, config: GenerateConfig) -> CacheSetting:
    """The cache setting of one call: a sampled call (``sample`` > 0) is kept apart from the others."""
    if cache is None or cache is False or config.sample == 0:
        return cache
    policy = CachePolicy() if cache is True else cache
    return policy.model_copy(update={"scopes": {**policy.scopes, "faceteval_sample": str(config.sample)}})


def _completion(output: ModelOutput) -> Completion:
    usage = output.usage
    choice = output.choices[0] if output.choices else None
    logprobs = None
    if choice is not None and choice.logprobs is not None:
        logprobs = tuple(
            FacetevalLogprob(
                token.token,
                token.logprob,
                tuple((alt.token, alt.logprob) for alt in token.top_logprobs or ()),
            )
            for token in choice.logprobs.content
        )
    return Completion(
        text=output.completion,
        input_tokens=_input_tokens(output),
        output_tokens=usage.output_tokens if usage is not None else 0,
        finish_reason=choice.stop_reason if choice is not None else None,
        model=output.model or None,
        logprobs=logprobs,
    )


def _input_tokens(output: ModelOutput) -> int:
    """Every input token of the call: at full rate, and read from or written to the provider's cache."""
    usage = output.usage
    if usage is None:
        return 0
    return usage.input_tokens + (usage.input_tokens_cache_read or 0) + (usage.input_tokens_cache_write or 0)
