"""OpenAI chat completions, and every server that speaks the same API (vLLM, llama.cpp, LM Studio, Ollama).

Built on the official ``openai`` SDK (3.x, on ``httpx2``) with its retries switched off: one call is one
attempt, and failures are translated into `faceteval.errors`. What the SDK does with bad replies, and how
each case is mapped (the SDK validates nothing by default, so each case is checked here):

- an HTTP error status raises an ``APIStatusError`` subclass: 429 → `RateLimitError`, 408 → `ProviderTimeout`,
  5xx → `ProviderServerError`, 401/403 → `AuthenticationError`, other 4xx → `BadRequestError`;
- a 200 that is not JSON (a proxy's HTML page) is *returned* as a ``str``; a JSON array is returned as a
  ``list``; a body sent as ``application/json`` that does not parse raises a bare ``json.JSONDecodeError``;
  all of these → `BadResponseError`;
- ``choices`` empty, missing or null, or a choice without a message, is returned as a ``ChatCompletion``
  holding exactly that → `BadResponseError`;
- ``content: null`` is returned as is. It becomes an empty text when ``finish_reason`` explains it
  (``length``, ``content_filter``, ``tool_calls``), the refusal text with finish reason ``refusal`` when the
  model refused, and `BadResponseError` otherwise (a server that says it stopped normally but sent nothing);
- a timeout raises ``APITimeoutError`` → `ProviderTimeout`; a refused or dropped connection raises
  ``APIConnectionError`` → `ProviderConnectionError`.
"""

from __future__ import annotations

import email.utils
import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Self

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.chat.chat_completion import Choice

from faceteval.errors import (
    AuthenticationError,
    BadRequestError,
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderServerError,
    ProviderTimeout,
    RateLimitError,
)
from faceteval.llm._types import Completion, CompletionRequest, TokenLogprob

if TYPE_CHECKING:
    import httpx2

__all__ = ["LOCAL_API_KEY", "OPENAI_BASE_URL", "OpenAIProvider"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "not-needed"
"""Sent to servers other than the official API when no key is given: local servers ignore it."""

SNIPPET_CHARS = 200
_FINISH_WITHOUT_TEXT = frozenset({"length", "content_filter", "tool_calls", "function_call"})


class OpenAIProvider:
    """A provider for the OpenAI chat completions API and compatible servers.

    Args:
        api_key: The key sent as a bearer token (any non-empty string for local servers).
        base_url: The API root, such as ``http://localhost:8000/v1``; the official API when None.
        name: The registry name (``"openai"``, ``"ollama"``...), used in messages and the identity.
        timeout: Seconds the SDK waits for a reply; the SDK's default when None. `faceteval.llm.LLM`
            enforces its own per-call timeout as well.
        http_client: An ``httpx2.AsyncClient`` to send requests with. The caller owns it: `aclose` closes
            only a client the provider created.

    Examples:
        >>> provider = OpenAIProvider(api_key="x", base_url="http://127.0.0.1:8000/v1", name="vllm")
        >>> provider.identity
        'vllm@http://127.0.0.1:8000/v1'
    """

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None = None,
        name: str = "openai",
        timeout: float | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        self._name = name
        self._base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self._owns_client = http_client is None
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=self._base_url,  # always explicit: the SDK would otherwise read OPENAI_BASE_URL itself
            timeout=openai.NOT_GIVEN if timeout is None else timeout,
            max_retries=0,
            http_client=http_client,
        )

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> Self:
        """Build from arguments, falling back to ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` in ``env``.

        Args:
            env: Where variables are read from (the registry passes ``os.environ``).
            base_url: The API root; overrides ``OPENAI_BASE_URL``.
            api_key: The key; overrides ``OPENAI_API_KEY``.

        Raises:
            ConfigError: No key is given for the official API. Servers at any other URL get `LOCAL_API_KEY`.
        """
        url = base_url or env.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        key = api_key or env.get("OPENAI_API_KEY")
        if not key:
            if _is_official(url):
                raise ConfigError(
                    "OPENAI_API_KEY is not set; export it to use the OpenAI API, "
                    "or pass --base-url to use a local OpenAI-compatible server (vLLM, llama.cpp, LM Studio)"
                )
            key = LOCAL_API_KEY
        return cls(api_key=key, base_url=url)

    @property
    def name(self) -> str:
        """The registry name, for example ``"openai"`` or ``"ollama"``."""
        return self._name

    @property
    def base_url(self) -> str:
        """The API root requests go to, without a trailing slash."""
        return self._base_url

    @property
    def identity(self) -> str:
        """``"openai"`` for the official API, else ``name@base_url``, so two servers never share a cache."""
        return "openai" if _is_official(self._base_url) else f"{self._name}@{self._base_url}"

    async def complete(self, request: CompletionRequest) -> Completion:
        """Make one attempt at a chat completion.

        Raises:
            ProviderError: A subclass that says what failed; see the module docstring.
        """
        try:
            reply: object = await self._client.chat.completions.create(**_params(request))
        except openai.APIError as exc:
            raise self._api_error(exc, request.model) from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"{self._name} at {self._base_url} failed: {exc}") from exc
        except ValueError as exc:  # json.JSONDecodeError from a body sent as JSON that is not
            raise BadResponseError(
                f"{self._name} at {self._base_url} sent a body that is not valid JSON "
                f"for model {request.model!r}: {_snippet(getattr(exc, 'doc', str(exc)))}"
            ) from exc
        return self._completion(reply, request)

    async def aclose(self) -> None:
        """Close the connections, unless the caller passed in its own ``http_client``."""
        if self._owns_client:
            await self._client.close()

    def _completion(self, reply: object, request: CompletionRequest) -> Completion:
        where = f"{self._name} at {self._base_url} (model {request.model!r})"
        if not isinstance(reply, ChatCompletion):
            what = "something that is not a chat completion (a proxy page?)"
            raise BadResponseError(f"{where} answered 200 with {what}: {_snippet(reply)}")
        choices = reply.choices
        if not isinstance(choices, list) or not choices:
            raise BadResponseError(f"{where} sent a reply without choices: choices={choices!r}")
        choice = choices[0]
        if not isinstance(choice, Choice) or not isinstance(choice.message, ChatCompletionMessage):
            raise BadResponseError(f"{where} sent a choice without a message: {_snippet(choice)}")
        reason: str | None = choice.finish_reason if isinstance(choice.finish_reason, str) else None
        text, finish = _text(choice.message, reason, where)
        usage = reply.usage
        return Completion(
            text=text,
            input_tokens=_count(getattr(usage, "prompt_tokens", None)),
            output_tokens=_count(getattr(usage, "completion_tokens", None)),
            finish_reason=finish,
            model=reply.model if isinstance(reply.model, str) and reply.model else request.model,
            logprobs=_logprobs(choice, where) if request.config.logprobs else None,
        )

    def _api_error(self, exc: openai.APIError, model: str) -> ProviderError:
        where = f"{self._name} at {self._base_url}"
        if isinstance(exc, openai.APITimeoutError):
            return ProviderTimeout(f"{where} did not answer in time (model {model!r})")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return ProviderConnectionError(
                f"the connection to {where} failed: {cause}; is the server running?"
            )
        if isinstance(exc, openai.APIStatusError):
            return _status_error(
                exc.status_code, exc.response.headers, exc.body, f"{where} (model {model!r})"
            )
        return BadResponseError(f"{where} sent a reply the SDK could not read (model {model!r}): {exc}")


def _params(request: CompletionRequest) -> dict[str, Any]:
    """The SDK arguments; optional ones only when set, and ``config.sample`` never."""
    config = request.config
    params: dict[str, Any] = {
        "model": request.model,
        "messages": [message.to_dict() for message in request.messages],
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
    }
    if config.seed is not None:
        params["seed"] = config.seed
    if config.top_p is not None:
        params["top_p"] = config.top_p
    if config.json_mode:
        params["response_format"] = {"type": "json_object"}
    if config.logprobs:
        params["logprobs"] = True
        if config.top_logprobs is not None:
            params["top_logprobs"] = config.top_logprobs
    return params


def _text(message: ChatCompletionMessage, finish: str | None, where: str) -> tuple[str, str | None]:
    """The reply text and finish reason, deciding what a null ``content`` means."""
    if isinstance(message.content, str):
        return message.content, finish
    if message.content is None and isinstance(message.refusal, str) and message.refusal:
        return message.refusal, "refusal"
    if message.content is None and finish in _FINISH_WITHOUT_TEXT:
        return "", finish
    raise BadResponseError(f"{where} sent a message without content (finish_reason={finish!r})")


def _logprobs(choice: Choice, where: str) -> tuple[TokenLogprob, ...] | None:
    content = getattr(choice.logprobs, "content", None)
    if content is None:
        return None
    try:
        return tuple(
            TokenLogprob(
                token=str(item.token),
                logprob=float(item.logprob),
                top=tuple((str(alt.token), float(alt.logprob)) for alt in item.top_logprobs or ()),
            )
            for item in content
        )
    except (AttributeError, TypeError, ValueError) as exc:
        raise BadResponseError(f"{where} sent malformed logprobs: {_snippet(content)}") from exc


def _count(value: object) -> int:
    """A token count, or 0 when the server sent none (or nonsense)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _is_official(base_url: str) -> bool:
    return base_url.rstrip("/") == OPENAI_BASE_URL


def _status_error(status: int, headers: Mapping[str, str], body: object, where: str) -> ProviderError:
    """The `ProviderError` for an HTTP error status."""
    detail = f"{where} answered HTTP {status}: {_snippet(body)}"
    if status == 429:
        return RateLimitError(detail, retry_after=retry_after(headers))
    if status >= 500:
        return ProviderServerError(detail, status=status, retry_after=retry_after(headers))
    if status in (401, 403):
        return AuthenticationError(f"{detail}; check the API key (OPENAI_API_KEY or --api-key)")
    if status == 408:
        return ProviderTimeout(detail)
    if status >= 400:
        return BadRequestError(detail)
    return BadResponseError(detail)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    Examples:
        >>> retry_after({"retry-after-ms": "1500"}), retry_after({"retry-after": "2"}), retry_after({})
        (1.5, 2.0, None)
    """
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    seconds = _seconds(value)
    if seconds is not None or not value:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _seconds(value: str | None) -> float | None:
    try:
        number = float(value) if value else math.nan
    except ValueError:
        return None
    return max(0.0, number) if math.isfinite(number) else None


def _snippet(body: object) -> str:
    """A short, one-line excerpt of an error body: the API's error message when there is one."""
    if isinstance(body, Mapping):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, Mapping) else error
        text = message if isinstance(message, str) else json.dumps(body, default=str)
    else:
        text = body if isinstance(body, str) else repr(body)
    text = " ".join(text.split()) or "(empty body)"
    return text if len(text) <= SNIPPET_CHARS else f"{text[:SNIPPET_CHARS]}..."
