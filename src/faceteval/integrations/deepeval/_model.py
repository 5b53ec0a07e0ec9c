"""The judge of a `FacetMetric`: a faceteval `LLM`, built from what DeepEval's metrics take as ``model``.

A DeepEval model (a ``DeepEvalBaseLLM``: ``GPTModel(...)``, any of DeepEval's providers, a subclass of
your own) makes the judge's calls through `DeepEvalProvider`, one ``a_generate`` each. A DeepEval model
name, or no model, is resolved as DeepEval's own metrics resolve theirs (``initialize_model``: the model
DeepEval is configured to use, ``deepeval set-...`` or its environment variables). A faceteval model
spec (``openai:gpt-4o-mini``) or `LLM` is faceteval's own provider.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from deepeval.errors import DeepEvalError
from deepeval.metrics.utils import initialize_model, is_native_model
from deepeval.models import DeepEvalBaseLLM

from faceteval import SQLiteCache
from faceteval._util.urls import redact_url
from faceteval.errors import BadRequestError, BadResponseError, ConfigError, ProviderError
from faceteval.llm import (
    DEFAULT_GENERATE_CONFIG,
    LLM,
    Completion,
    CompletionRequest,
    GenerateConfig,
    Message,
    ModelSpec,
    Price,
    PriceTable,
    ResponseCache,
    RetryPolicy,
)

PROVIDER_NAME = "deepeval"
"""The provider's name, and the first part of the `ModelSpec` of an LLM over a DeepEval model."""
NO_RETRY = RetryPolicy(max_retries=0)
"""DeepEval's models retry a failed call themselves; faceteval adds none on top."""
PER_MILLION = 1_000_000
"""DeepEval prices a model per token, faceteval per million tokens."""

Model = LLM | DeepEvalBaseLLM | str | None
"""What a `FacetMetric` takes as ``model``."""


@dataclass(frozen=True, slots=True)
class DeepEvalProvider:
    """A `faceteval.llm.Provider` whose calls go through a DeepEval model's ``a_generate``.

    DeepEval's models take one prompt: the messages of a call become one text (`prompt_of`), and the
    model's own settings (its temperature, its retries and timeouts) apply, not faceteval's. A model
    that returns DeepEval's cost with its reply (DeepEval's own models: an ``EvaluationCost``, which
    carries the token counts) has its tokens counted.

    Attributes:
        model: The DeepEval model.
    """

    model: DeepEvalBaseLLM
    returns_logprobs: ClassVar[bool] = False
    """A DeepEval model returns text alone (`faceteval.llm.LLM.returns_logprobs`)."""

    @property
    def name(self) -> str:
        """``deepeval``."""
        return PROVIDER_NAME

    @property
    def identity(self) -> str:
        """The model's class and name, with its base URL when it has one (credentials hidden)."""
        base_url = getattr(self.model, "base_url", None)
        where = f"@{redact_url(base_url)}" if isinstance(base_url, str) and base_url else ""
        return f"{PROVIDER_NAME}:{type(self.model).__name__}/{self.model.get_model_name()}{where}"

    async def complete(self, request: CompletionRequest) -> Completion:
        """One ``a_generate`` call of the DeepEval model.

        Raises:
            BadRequestError: The request asks for structured output, which a prompt alone cannot carry.
            BadResponseError: The model returned something other than text.
            ProviderError: The model's call failed (after its own retries).
        """
        if request.config.response_schema is not None:
            raise BadRequestError(
                f"{self._named()}: a DeepEval model is asked with a prompt alone, without a JSON schema; "
                "judge with free-text replies (structured=False)"
            )
        try:
            reply = await self.model.a_generate(prompt_of(request.messages))
        except Exception as exc:  # whatever the model's SDK raised, after its own retries
            raise ProviderError(f"{self._named()}: {type(exc).__name__}: {exc}") from exc
        text, cost = reply if isinstance(reply, tuple) and len(reply) == 2 else (reply, None)
        if not isinstance(text, str):
            raise BadResponseError(f"{self._named()} returned {type(text).__name__}, not text")
        return Completion(
            text=text,
            input_tokens=_tokens(cost, "input_tokens"),
            output_tokens=_tokens(cost, "output_tokens"),
            model=self.model.get_model_name(),
        )

    async def aclose(self) -> None:
        """Nothing to release: the model's clients are DeepEval's."""

    def _named(self) -> str:
        return f"DeepEval model {self.model.get_model_name()!r}"


def deepeval_llm(model: DeepEvalBaseLLM, *, config: GenerateConfig | None = None) -> LLM:
    """A faceteval `LLM` whose calls are made by a DeepEval model.

    It has no response cache and makes one attempt per call, without a timeout of its own (the model's
    retries and timeouts apply). A DeepEval model of DeepEval's own (``GPTModel``...) is priced as
    DeepEval prices it, per token; a model of your own has no known price, as in DeepEval.
    """
    spec = ModelSpec(PROVIDER_NAME, model.get_model_name())
    return LLM(
        DeepEvalProvider(model),
        spec,
        config=DEFAULT_GENERATE_CONFIG if config is None else config,
        retry=NO_RETRY,
        timeout=math.inf,
        prices=_prices(model, spec),
    )


def judge_llm(
    model: Model,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    cache: str | Path | ResponseCache | None = None,
    endpoint_id: str | None = None,
) -> LLM:
    """The judge's LLM for ``model``: a faceteval `LLM` as it is, a faceteval model spec built with the
    other settings, or a DeepEval model, model name or (None) DeepEval's configured model.

    Raises:
        ConfigError: Settings for a model spec given with something else, or a model of another kind.
    """
    settings = {"base_url": base_url, "api_key": api_key, "cache": cache, "endpoint_id": endpoint_id}
    given = [name for name, value in settings.items() if value]
    if isinstance(model, LLM | DeepEvalBaseLLM) or model is None:
        if given:
            held = "a DeepEval model has its own"
            if isinstance(model, LLM):
                held = "the LLM given has its own"
            elif model is None:
                held = "no model spec is given"
            raise ConfigError(
                f"{', '.join(given)} build an LLM from a faceteval model spec such as "
                f"'openai:gpt-4o-mini'; {held}: pass the spec, or build the model with them"
            )
        return model if isinstance(model, LLM) else deepeval_llm(_deepeval_model(model))
    if not isinstance(model, str):
        raise ConfigError(
            "model is a faceteval model spec ('openai:gpt-4o-mini') or LLM, a DeepEval model or its "
            f"name ('gpt-4o-mini'), or None for DeepEval's own, got {model!r}"
        )
    if not given and not _is_spec(model):
        return deepeval_llm(_deepeval_model(model))
    if isinstance(cache, str | Path):
        cache = SQLiteCache(cache)
    if cache is not None and not (hasattr(cache, "get") and hasattr(cache, "put")):
        raise ConfigError(f"cache is a SQLite file's path or a ResponseCache, got {type(cache).__name__}")
    return LLM.from_spec(model, base_url=base_url, api_key=api_key, cache=cache, endpoint_id=endpoint_id)


def evaluation_model(llm: LLM) -> str:
    """The judge's name in DeepEval's reports: a DeepEval model's own (``get_model_name()``, as DeepEval's
    metrics report theirs), else the faceteval model spec."""
    provider = llm.provider
    if isinstance(provider, DeepEvalProvider):
        return provider.model.get_model_name()
    return str(llm.spec)


def prompt_of(messages: Sequence[Message]) -> str:
    """The messages of a call as the one prompt a DeepEval model takes.

    The system messages' text comes first; then a single user message as it is, or a conversation (a
    re-ask, CoEval's overall question) as its turns, each led by who speaks.

    Examples:
        >>> from faceteval.llm import assistant, system, user
        >>> prompt_of([system("Judge fairly."), user("Score this.")])
        'Judge fairly.\\n\\nScore this.'
        >>> print(prompt_of([user("Score this."), assistant("Good."), user("As a number, please.")]))
        User: Score this.
        <BLANKLINE>
        Assistant: Good.
        <BLANKLINE>
        User: As a number, please.
    """
    instructions = [m.content for m in messages if m.role == "system"]
    turns = [m for m in messages if m.role != "system"]
    if len(turns) == 1 and turns[0].role == "user":
        said = [turns[0].content]
    else:
        said = [f"{'User' if m.role == 'user' else 'Assistant'}: {m.content}" for m in turns]
    return "\n\n".join([*instructions, *said])


def _deepeval_model(model: DeepEvalBaseLLM | str | None) -> DeepEvalBaseLLM:
    """``model`` as DeepEval's metrics resolve theirs (``initialize_model``)."""
    try:
        resolved, _native = initialize_model(model)
    except DeepEvalError as exc:
        raise ConfigError(f"DeepEval cannot build its model {model!r}: {exc}") from exc
    assert resolved is not None  # None only in DeepEval's system_one eval mode, which is not asked for
    return resolved


def _is_spec(model: str) -> bool:
    """Whether ``model`` is a faceteval model spec (a known provider, a colon, a model)."""
    try:
        ModelSpec.parse(model)
    except ConfigError:
        return False
    return True


def _prices(model: DeepEvalBaseLLM, spec: ModelSpec) -> PriceTable:
    """DeepEval's price of one of its own models (per token, as faceteval's per million); none otherwise."""
    data = getattr(model, "model_data", None)
    input_rate, output_rate = getattr(data, "input_price", None), getattr(data, "output_price", None)
    if not (
        is_native_model(model)
        and isinstance(input_rate, int | float)
        and isinstance(output_rate, int | float)
    ):
        return PriceTable({})
    return PriceTable({str(spec): Price(input_rate * PER_MILLION, output_rate * PER_MILLION)})


def _tokens(cost: object, field: str) -> int:
    value = getattr(cost, field, None)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
