"""The LLM wrapper: the one place that owns retries, timeouts, concurrency, rate limits, caching and cost."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar

import anyio
from tenacity import RetryCallState

from faceteval import tracing
from faceteval._util.checks import whole_number
from faceteval.errors import (
    BadRequestError,
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderServerError,
    ProviderTimeout,
    RateLimitError,
    ReplyTooLargeError,
)
from faceteval.llm._cache import ResponseCache, cache_key
from faceteval.llm._collect import Collector
from faceteval.llm._endpoint import DRY_RUN_KEY
from faceteval.llm._http import DEFAULT_MAX_REPLY_BYTES, check_max_reply_bytes
from faceteval.llm._pricing import PriceTable
from faceteval.llm._provider import Provider
from faceteval.llm._rate import RateKey, RateLimits, check_limit
from faceteval.llm._registry import ModelSpec, create_provider
from faceteval.llm._retry import DEFAULT_RETRY, RetryPolicy, final_error
from faceteval.llm._spend import Exchange, Spend
from faceteval.llm._tokens import estimate_prompt_tokens, estimate_tokens
from faceteval.llm._tracing import call_span, record, retrying
from faceteval.llm._types import (
    DEFAULT_GENERATE_CONFIG,
    Completion,
    CompletionRequest,
    GenerateConfig,
    Message,
    TokenLogprob,
)
from faceteval.tracing import internal as tracing_internal

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT = 120.0
LOUD_WAIT = 10.0
"""Retry waits from this many seconds are logged as warnings (the command shows those), others as info."""


def _as_text(completion: Completion) -> Completion:
    """``completion`` with each half of a character in it replaced by U+FFFD (the replacement character).

    A server may send one as a JSON escape (``\\ud83d`` alone: an emoji cut at ``max_tokens``).
    It is not text: it could be neither cached, nor written to a JSON Lines file, nor shown.
    Two halves that make a character are joined.
    """
    logprobs = completion.logprobs
    if _is_text(completion.text) and (
        logprobs is None or all(_is_text(t.token) and all(_is_text(a) for a, _ in t.top) for t in logprobs)
    ):
        return completion
    return dataclasses.replace(
        completion,
        text=_repair(completion.text),
        logprobs=None
        if logprobs is None
        else tuple(
            TokenLogprob(_repair(t.token), t.logprob, tuple((_repair(a), p) for a, p in t.top))
            for t in logprobs
        ),
    )


def _repair(value: str) -> str:
    return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def refuses_json_schema(error: ProviderError, config: GenerateConfig) -> bool:
    """Whether ``error`` is a server refusing a request sent in the ``json_schema`` dialect for that
    dialect: an HTTP error whose body names ``response_format`` and its type (llama-cpp-python's
    server answers 500 with a pydantic ``literal_error`` on ``response_format.type``).

    Examples:
        >>> from faceteval.errors import ProviderServerError
        >>> from faceteval.llm._types import ResponseSchema
        >>> config = GenerateConfig(response_schema=ResponseSchema.of("s", {"type": "object"}))
        >>> body = "answered HTTP 500: literal_error at ('body', 'response_format', 'type')"
        >>> refuses_json_schema(ProviderServerError(body, status=500), config)
        True
        >>> refuses_json_schema(ProviderServerError("answered HTTP 500: out of memory", status=500), config)
        False
    """
    if config.response_schema is None or config.dialect != "json_schema":
        return False
    if not isinstance(error, BadRequestError | ProviderServerError):
        return False
    text = str(error).lower()
    return "response_format" in text and any(
        word in text for word in ("json_schema", "literal_error", "type")
    )


def _with_dialect_hint(error: ProviderError) -> ProviderError:
    """``error`` with a hint at the dialect to try (the server refused ``json_schema`` when named)."""
    error.args = (
        f"{error}; the server refuses response_format json_schema: try --structured json_object "
        "(or guided for vLLM, format for Ollama)",
    )
    return error


def failure_reason(error: ProviderError) -> str:
    """Why an attempt failed, in a few words, for the log and the final error.

    Examples:
        >>> from faceteval.errors import ProviderServerError, RateLimitError
        >>> failure_reason(ProviderServerError("x", status=503)), failure_reason(RateLimitError("x"))
        ('HTTP 503', 'HTTP 429 (rate limited)')
        >>> failure_reason(ProviderTimeout("x"))
        'timed out'
    """
    status = getattr(error, "status", None)
    if isinstance(error, RateLimitError):
        return "HTTP 429 (rate limited)"
    if isinstance(status, int):
        return f"HTTP {status}"
    if isinstance(error, ProviderTimeout):
        return "timed out"
    if isinstance(error, ProviderConnectionError):
        return "connection failed" if error.connected else "no connection"
    if isinstance(error, ReplyTooLargeError):
        return "reply too large"
    if isinstance(error, BadResponseError):
        return "unusable reply"
    return type(error).__name__


def endpoint_identity(provider: str, endpoint_id: str) -> str:
    """The identity, in cache keys, of the endpoint a user names ``endpoint_id`` (``--endpoint-id``).

    Examples:
        >>> endpoint_identity("ollama", "lab-qwen")
        'ollama@id:lab-qwen'
    """
    if not isinstance(endpoint_id, str) or not endpoint_id.strip() or endpoint_id != endpoint_id.strip():
        raise ConfigError(f"an endpoint id is a name without surrounding spaces, got {endpoint_id!r}")
    return f"{provider}@id:{endpoint_id}"


@dataclass(slots=True)
class _InFlight:
    """A call under way, for identical requests made meanwhile to wait for (see `LLM.generate`)."""

    done: anyio.Event = field(default_factory=anyio.Event)
    completion: Completion | None = None
    """The reply, once it came and was cached; None if the call failed or was cancelled."""


@dataclass(slots=True)
class _Call:
    """One call to the provider, over its attempts: what was asked, how often, and why each failed."""

    request: CompletionRequest
    asked: CompletionRequest = field(init=False)
    """The request as last sent (in ``json_object`` once the server refused ``json_schema``)."""
    sent: int = 0
    reasons: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.asked = self.request


@dataclass(slots=True)
class LLM:
    """A model behind a provider, with the cross-cutting work done once.

    Methods call `generate`; it answers from the cache when it can, otherwise calls the provider
    under a concurrency limit, the rate limits (``rpm``, ``tpm``) and a per-call timeout, retrying
    retryable failures with jittered backoff (`RetryPolicy`), then stores the reply. With
    ``dry_run`` it never calls the provider: a cached reply is still used, anything else is answered
    by the caller's ``example`` with estimated tokens.

    Two failures are retried once at most: a reply over the size limit (``max_reply_bytes`` of
    `from_spec`), and, until a call has succeeded, a server that cannot be connected to (a wrong
    URL or port, a server not started), which then raises `ProviderUnreachableError` to stop the run.

    With ``retry_unreadable``, a cached reply that the caller cannot read (a parse error of an
    earlier run) is not used: the request is asked again, once per run, and the new reply replaces
    it in the cache.

    Use `LLM.from_spec` to build one from a model spec string.
    """

    provider: Provider | None
    spec: ModelSpec
    config: GenerateConfig = DEFAULT_GENERATE_CONFIG
    cache: ResponseCache | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy = DEFAULT_RETRY
    prices: PriceTable = field(default_factory=PriceTable.default)
    dry_run: bool = False
    identity: str = ""
    retry_unreadable: bool = False
    collector: Collector | None = None
    """With ``--batch``: a miss is recorded here and waits (the pass is cut) instead of calling."""
    rpm: int | None = None
    """Requests a minute at most (``--rpm``), shared with every LLM sending with the same key to the
    same endpoint (`faceteval.llm._rate`); None: no limit."""
    tpm: int | None = None
    """Tokens a minute at most (``--tpm``), each request counted as its estimated prompt plus its
    ``max_tokens``, shared as ``rpm`` is; None: no limit."""
    spent: Spend = field(default_factory=Spend, init=False)
    """Everything asked of this LLM so far, whether or not the work that asked finished."""
    _limiter: anyio.CapacityLimiter = field(init=False, repr=False)
    _rate: RateLimits | None = field(init=False, repr=False, default=None)
    _cache_model: str | None = field(init=False, repr=False, default=None)
    """The model's name in cache keys when its provider names it otherwise (a file's digest)."""
    _in_flight: dict[str, _InFlight] = field(init=False, repr=False, default_factory=dict)
    _asked: set[str] = field(init=False, repr=False, default_factory=set)
    """With ``retry_unreadable``: the requests asked in this run, whose cached replies are not asked again."""
    _json_object: bool = field(init=False, repr=False, default=False)
    """Whether the server refused ``json_schema``: requests that leave the dialect to the LLM are then
    sent in ``json_object`` (`_in_dialect`)."""
    _answered: bool = field(init=False, repr=False, default=False)
    """Whether a call to the provider has succeeded: until one has, a server that refuses connections
    is taken to be absent (`ProviderUnreachableError`), not restarting."""

    def __post_init__(self) -> None:
        if not whole_number(self.concurrency, 1):
            raise ConfigError(f"concurrency must be a whole number of at least 1, got {self.concurrency!r}")
        if not isinstance(self.config, GenerateConfig):
            raise ConfigError(f"config must be a GenerateConfig, got {type(self.config).__name__}")
        timeout = self.timeout
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ConfigError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if not isinstance(self.retry, RetryPolicy):
            raise ConfigError(
                f"retry must be a RetryPolicy, such as RetryPolicy(max_retries=3), got {self.retry!r}"
            )
        if self.collector is not None and self.cache is None:
            raise ConfigError("a batch run needs the response cache: its replies reach the method through it")
        if self.provider is None and not self.dry_run:
            raise ConfigError("an LLM needs a provider unless it is a dry run")
        if not self.identity:
            self.identity = self.provider.identity if self.provider is not None else self.spec.provider
        most = getattr(self.provider, "max_concurrency", None)
        if isinstance(most, int) and self.concurrency > most:
            logger.info("%s answers %d call(s) at a time: concurrency %d", self.spec, most, most)
            self.concurrency = most
        self._limiter = anyio.CapacityLimiter(self.concurrency)
        self._cache_model = getattr(self.provider, "cache_model", None)
        self._rate = self._rate_limits()

    def _rate_limits(self) -> RateLimits | None:
        """The rate limits of the calls, counted by the provider's `RateKey` (its endpoint and key);
        a provider that has none is counted by its identity."""
        rpm, tpm = check_limit("rpm", self.rpm), check_limit("tpm", self.tpm)
        if tpm is not None and tpm < self.config.max_tokens:
            raise ConfigError(
                f"tpm {tpm} is less than max_tokens {self.config.max_tokens}: every request counts its "
                "max_tokens, so none would fit in a minute; raise --tpm or lower --max-tokens"
            )
        if rpm is None and tpm is None:
            return None
        key = getattr(self.provider, "rate_key", None)
        return RateLimits(key if isinstance(key, RateKey) else RateKey(self.identity, ""), rpm, tpm)

    @classmethod
    def from_spec(
        cls,
        spec: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        env: Mapping[str, str] | None = None,
        dry_run: bool = False,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        endpoint_id: str | None = None,
        **options: Any,
    ) -> LLM:
        """Build from ``provider:model``, reading credentials from ``env`` (the process environment if None).

        A dry run needs no credentials: the provider is built with a placeholder key and never called.
        A reply body larger than ``max_reply_bytes`` is abandoned as soon as it passes that size, and
        the call fails with `ReplyTooLargeError`. ``endpoint_id`` names the endpoint in cache keys in
        place of its URL (`endpoint_identity`), so a server that moves to another port keeps its cache.
        """
        parsed = ModelSpec.parse(spec)
        check_max_reply_bytes(max_reply_bytes)
        if endpoint_id is not None:
            options["identity"] = endpoint_identity(parsed.provider, endpoint_id)
        if dry_run and api_key is None:
            api_key = DRY_RUN_KEY
        provider = create_provider(
            parsed, base_url=base_url, api_key=api_key, env=env, max_reply_bytes=max_reply_bytes
        )
        return cls(provider=provider, spec=parsed, dry_run=dry_run, **options)

    @property
    def returns_logprobs(self) -> bool:
        """Whether the provider can return token log-probabilities: every one but those that say they
        cannot with a ``returns_logprobs = False`` attribute (Anthropic's)."""
        return bool(getattr(self.provider, "returns_logprobs", True))

    def describe(self) -> dict[str, Any]:
        """What rebuilds this LLM (for run records): spec, endpoint identity and parameters (the rate
        limits when set), and the structured-output dialect fallen back to when the server refused
        ``json_schema``."""
        return (
            {
                "model": str(self.spec),
                "identity": self.identity,
                "config": self.config.cache_fields(),
                "concurrency": self.concurrency,
                "timeout": self.timeout,
                "max_retries": self.retry.max_retries,
            }
            | self._limits()
            | ({"structured_fallback": "json_object"} if self._json_object else {})
        )

    def _limits(self) -> dict[str, int]:
        """The rate limits set (``rpm``, ``tpm``), for `describe`."""
        return {name: value for name, value in (("rpm", self.rpm), ("tpm", self.tpm)) if value is not None}

    async def generate(
        self,
        messages: Sequence[Message],
        *,
        config: GenerateConfig | None = None,
        example: Callable[[], str] | None = None,
        readable: Callable[[str], bool] | None = None,
    ) -> Exchange:
        """One completion for ``messages``: from the cache, the provider or (dry run) ``example``.

        With a cache, a request identical to one still under way waits for that call and is
        answered as from the cache, as it would be had the first call finished before it was made:
        identical requests cost one call whatever their timing. If that call fails, it asks itself.
        With ``retry_unreadable``, a cached reply from an earlier run that ``readable`` refuses is
        treated as a miss. While tracing is on (`faceteval.tracing`), the call is a span.
        """
        request = CompletionRequest(
            model=self.spec.model, messages=tuple(messages), config=config or self.config
        )
        if (tracer := tracing_internal.tracer()) is None:
            return await self._generate(request, example, readable)
        with call_span(tracer, self.spec, request, getattr(self.provider, "base_url", None)) as span:
            exchange = await self._generate(request, example, readable)
            record(span, exchange)
        return exchange

    async def _generate(
        self,
        request: CompletionRequest,
        example: Callable[[], str] | None,
        readable: Callable[[str], bool] | None,
    ) -> Exchange:
        key = cache_key(
            self.identity, request if self._cache_model is None else replace(request, model=self._cache_model)
        )
        hit = None
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and readable is not None and self._stale(key, hit, readable):
                hit = None
            if hit is None and (under_way := self._in_flight.get(key)) is not None:
                await under_way.done.wait()
                if under_way.completion is None:  # it failed: ask again, or wait for whoever does
                    return await self._generate(request, example, readable)
                hit = under_way.completion
        if hit is not None:
            exchange = Exchange(request.messages, hit, cached=True, cost_usd=self._cost(hit))
        elif self.collector is not None:
            self._asked.add(key)  # the batch's reply is this run's: retry_unreadable keeps it
            await self.collector.defer(key, request)
            raise AssertionError("a collected request waits until its pass is cut")
        elif self.dry_run:
            exchange = self._plan(request, example)
            if self.retry_unreadable:
                self._asked.add(key)
        else:
            exchange = await self._ask(key, request)
        self.spent._count(exchange)
        return exchange

    def _stale(self, key: str, hit: Completion, readable: Callable[[str], bool]) -> bool:
        """Whether a cached reply is one ``retry_unreadable`` asks again: unreadable, and not this run's."""
        return self.retry_unreadable and key not in self._asked and not readable(hit.text)

    async def _ask(self, key: str, request: CompletionRequest) -> Exchange:
        """Call the provider, cache the reply, and hand it to identical requests made meanwhile."""
        under_way = None
        if self.cache is not None:
            under_way = self._in_flight[key] = _InFlight()
        try:
            try:
                completion, attempts = await self._call(request)
            except ProviderError as error:
                self.spent.count(attempts=error.attempts, cost_usd=0.0)
                raise
            completion = _as_text(completion)
            if self.cache is not None:
                try:
                    self.cache.put(key, completion, identity=self.identity, model=self.spec.model)
                except BaseException:  # the reply came (and is paid for) though it cannot be kept
                    self.spent._count(self._exchange(request, completion, attempts))
                    raise
                if self.retry_unreadable:
                    self._asked.add(key)
            if under_way is not None:
                under_way.completion = completion
        finally:
            if under_way is not None:
                del self._in_flight[key]
                under_way.done.set()
        return self._exchange(request, completion, attempts)

    def _exchange(self, request: CompletionRequest, completion: Completion, attempts: int) -> Exchange:
        return Exchange(request.messages, completion, cost_usd=self._cost(completion), attempts=attempts)

    def _plan(self, request: CompletionRequest, example: Callable[[], str] | None) -> Exchange:
        text = example() if example is not None else ""
        completion = Completion(
            text=text,
            input_tokens=estimate_prompt_tokens(request.messages),
            output_tokens=estimate_tokens(text),
            finish_reason="planned",
            model=self.spec.model,
        )
        return Exchange(request.messages, completion, planned=True, cost_usd=self._cost(completion))

    async def _call(self, request: CompletionRequest) -> tuple[Completion, int]:
        """Attempt, and retry retryable failures as the policy allows (`RetryPolicy.retrying`): the
        completion, and the requests sent for it."""
        call = _Call(request)
        retrying = self.retry.retrying(
            answered=lambda: self._answered,
            retryable=lambda error: not refuses_json_schema(error, call.asked.config),
            before_sleep=partial(self._retrying, call),
        )
        try:
            completion: Completion = await retrying(self._attempt, call)
        except ProviderError as exc:
            error = exc
        except BaseException:  # cancelled (Ctrl-C, a fatal stop)
            if call.sent:
                self.spent.count(attempts=call.sent, cost_usd=0.0)  # sent, so likely billed: counted
            raise
        else:
            return completion, call.sent
        if refuses_json_schema(error, call.asked.config):  # named: the same request fails the same way
            error = _with_dialect_hint(error)
        raise final_error(error, call.sent, answered=self._answered, policy=self.retry, reasons=call.reasons)

    async def _attempt(self, call: _Call) -> Completion:
        """One attempt: under the concurrency limit and the rate limits, within the timeout. A server
        that refuses ``json_schema`` is asked again at once in ``json_object`` (`_falls_back`)."""
        assert self.provider is not None
        while True:
            async with self._limiter:
                if self._rate is not None:
                    await self._rate.take(call.request)
                call.sent += 1
                # here: a call that waited sees a fallback
                call.asked = asked = self._in_dialect(call.request)
                try:
                    with anyio.fail_after(self.timeout):
                        completion = await self.provider.complete(asked)
                except TimeoutError as exc:
                    call.reasons.append(f"timed out after {self.timeout:g} s")
                    raise ProviderTimeout(f"{self.spec}: {self._timed_out()}") from exc
                except ProviderError as exc:
                    call.reasons.append(failure_reason(exc))
                    if self._falls_back(exc, asked):
                        continue
                    raise
            self._answered = True
            return completion

    def _retrying(self, call: _Call, state: RetryCallState) -> None:
        """Say that the last attempt of ``call`` failed, why, and how long until the next."""
        outcome = state.outcome
        error = outcome.exception() if outcome is not None else None
        assert isinstance(error, ProviderError)
        delay = state.upcoming_sleep
        log = logger.warning if delay >= LOUD_WAIT else logger.info
        log(
            "%s: attempt %d failed (%s: %s); retrying in %.1f s",
            self.spec,
            call.sent,
            call.reasons[-1],
            error,
            delay,
        )
        if tracing.enabled():
            retrying(call.sent, error, delay)

    def _timed_out(self) -> str:
        """What a call that timed out is told: the timeout, and with several calls at once, that a
        local server with one slot keeps all but one of them waiting."""
        hint = "set --timeout to wait longer"
        if self.concurrency > 1:
            hint += (
                f", or lower --concurrency (now {self.concurrency}): a local server that answers one "
                "call at a time keeps the others waiting"
            )
        return f"no reply within {self.timeout:g} s ({hint})"

    def _in_dialect(self, request: CompletionRequest) -> CompletionRequest:
        """``request`` as sent: in ``json_object`` once the server refused ``json_schema`` and the
        dialect was left to the LLM (``schema_dialect`` None). Its cache key stays the request's own:
        the server behind this identity takes ``json_object`` replies for it in every run."""
        config = request.config
        if not self._json_object or config.response_schema is None or config.schema_dialect is not None:
            return request
        return dataclasses.replace(request, config=config.merge(schema_dialect="json_object"))

    def _falls_back(self, error: ProviderError, asked: CompletionRequest) -> bool:
        """Whether to ask again at once in ``json_object``: ``asked`` left the dialect to the LLM, was
        sent in ``json_schema``, and the server refused that (said once per LLM, as a warning)."""
        if asked.config.schema_dialect is not None or not refuses_json_schema(error, asked.config):
            return False
        if not self._json_object:
            self._json_object = True
            logger.warning(
                "%s: the server refuses structured output as response_format json_schema (%s); asking "
                "with response_format json_object and the schema for the rest of the run. Set "
                "--structured json_object (GenerateConfig(schema_dialect='json_object') in Python) "
                "to ask so from the start",
                self.spec,
                error,
            )
        return True

    def _cost(self, completion: Completion) -> float | None:
        price = self.prices.lookup(str(self.spec))
        if price is None:
            return None
        try:
            tokens = (completion.input_tokens, completion.output_tokens, completion.cached_input_tokens)
            return price.cost(*tokens)
        except OverflowError as exc:  # said, and counted as unknown: never written as infinity
            logger.warning("%s: %s; counted as of unknown cost", self.spec, exc)
            return None

    async def aclose(self) -> None:
        """Close the provider's connections in the running event loop."""
        if self.provider is not None:
            await self.provider.aclose()

    async def closing_after(self, work: Callable[[], Awaitable[T]]) -> T:
        """``await work()``, then close the connections in this event loop however it ended (cancelled too).

        What a call that runs its own event loop does: ``anyio.run(llm.closing_after, partial(...))``.
        """
        try:
            return await work()
        finally:
            with anyio.CancelScope(shield=True):
                await self.aclose()
