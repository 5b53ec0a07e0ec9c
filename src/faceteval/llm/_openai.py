"""OpenAI chat completions, and every server that speaks the same API (vLLM, llama.cpp, LM Studio, Ollama).

Built on the official ``openai`` SDK (3.x) with its retries switched off: one call is one attempt, and
failures are translated into `faceteval.errors`. Requests go through the SDK's client (authentication,
headers, status errors), on its aiohttp transport (``openai[aiohttp]``) when that is installed, which
costs about half the CPU of the default one under high concurrency. The reply body is read here from
JSON, not through the SDK's response models: at hundreds of calls a second the SDK's request
transformation and model construction cost more CPU than everything else per call, and reading the
few fields we need directly lets every malformed reply be caught in one place:

- an HTTP error status raises an ``APIStatusError`` subclass: 429 → `RateLimitError`, 408 → `ProviderTimeout`,
  5xx → `ProviderServerError`, 401/403 → `AuthenticationError`, other 4xx → `BadRequestError`;
- a 200 that is not JSON (a proxy's HTML page), JSON that is not an object, ``choices`` empty, missing or
  null, or a choice without a message → `BadResponseError`;
- ``content: null`` is returned as is. It becomes an empty text when ``finish_reason`` explains it
  (``length``, ``content_filter``, ``tool_calls``), the refusal text with finish reason ``refusal`` when the
  model refused, and `BadResponseError` otherwise (a server that says it stopped normally but sent nothing);
- a reply body over ``max_reply_bytes`` → `ReplyTooLargeError`, its reading stopped there (at once when
  its Content-Length says so), and a compressed one → `BadResponseError` (see `faceteval.llm._transport`);
- a timeout → `ProviderTimeout`; a refused connection, or one closed before the reply was complete →
  `ProviderConnectionError` (``connected=False`` when none could be made). The SDK raises
  ``APITimeoutError`` for some of these on the aiohttp transport, which maps every aiohttp connection
  error to a "connect timeout": the chain of causes tells them apart;
- a reply that is not HTTP (another service on the port) → `ProviderProtocolError`, whether the SDK
  reports it as a connection error (``httpx2``) or lets the transport's error through (``aiohttp``).
"""

from __future__ import annotations

import functools
import json
import ssl
from collections.abc import Callable, Mapping
from typing import Any, Self

import httpx2
import openai

from faceteval.errors import (
    BadResponseError,
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeout,
)
from faceteval.llm._endpoint import Endpoint, key_for
from faceteval.llm._http import (
    DEFAULT_MAX_REPLY_BYTES,
    PerLoopClient,
    check_max_reply_bytes,
    snippet,
    status_error,
    token_count,
)
from faceteval.llm._rate import RateKey
from faceteval.llm._transport import (
    RefusedReply,
    ReplyLimit,
    connection_error,
    refused_reply,
    transport_error,
)
from faceteval.llm._types import (
    Completion,
    CompletionRequest,
    ResponseSchema,
    SchemaDialect,
    TokenLogprob,
)

__all__ = ["LOCAL_API_KEY", "OPENAI_BASE_URL", "OpenAIProvider"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
LOCAL_API_KEY = "not-needed"
"""Sent to servers other than the official API when no key is given: local servers ignore it."""

_FINISH_WITHOUT_TEXT = frozenset({"length", "content_filter", "tool_calls", "function_call"})


class OpenAIProvider:
    """A provider for the OpenAI chat completions API and compatible servers.

    Args:
        api_key: The key sent as a bearer token (any non-empty string for local servers).
        base_url: The API root, such as ``http://localhost:8000/v1``; the official API when None.
            A user name and password in it (``http://user:pass@host/v1``) are sent as HTTP Basic
            authentication, in the ``Authorization`` header in place of the key; a query
            (``?api-key=...``) is sent with every request (`faceteval.llm._endpoint`).
        name: The registry name (``"openai"``, ``"ollama"``...), used in messages and the identity.
        timeout: Seconds the SDK waits for a reply; the SDK's default when None. `faceteval.llm.LLM`
            enforces its own per-call timeout as well.
        http_client: An ``httpx2.AsyncClient`` to send requests with. The caller owns it: `aclose` closes
            only a client the provider created. The reply size limit is added to its event hooks.
        max_reply_bytes: The most bytes of a reply body read; a larger reply is `ReplyTooLargeError`.

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
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self._name = name
        self._api_key = api_key
        self._endpoint = endpoint = Endpoint.parse(base_url or OPENAI_BASE_URL)
        self._base_url = base = endpoint.url
        self._where = f"{name} at {endpoint.shown}"
        # Absolute: the SDK then does not merge a path with the base URL at every call.
        self._completions_url = f"{base}/chat/completions{endpoint.query_string}"
        limit = ReplyLimit(check_max_reply_bytes(max_reply_bytes))
        if http_client is not None:
            limit.install(http_client)
        # Each event loop gets its own client; what is costly to make (the TLS context) is made
        # here, once, so that a run's first calls do not pay for it.
        make_http_client = _http_client_factory(limit) if http_client is None else lambda: http_client
        self._clients = PerLoopClient(
            lambda: openai.AsyncOpenAI(
                api_key=api_key,
                base_url=base,  # explicit: else the SDK reads OPENAI_BASE_URL itself
                timeout=openai.NOT_GIVEN if timeout is None else timeout,
                max_retries=0,
                http_client=make_http_client(),
                default_headers=endpoint.headers(),
            ),
            owned=http_client is None,
        )

    @classmethod
    def from_env(
        cls,
        env: Mapping[str, str],
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> Self:
        """Build from arguments, falling back to ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` in ``env``.

        Args:
            env: Where variables are read from (the registry passes ``os.environ``).
            base_url: The API root; overrides ``OPENAI_BASE_URL``.
            api_key: The key; overrides ``OPENAI_API_KEY``.
            max_reply_bytes: The most bytes of a reply body read.

        Raises:
            ConfigError: No key is given for the official API (servers at any other URL get
                `LOCAL_API_KEY`), or a key is given for a URL with a user name and password, which
                take the ``Authorization`` header (``OPENAI_API_KEY`` is then not used).
        """
        url = base_url or env.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        key = key_for(url, api_key, env.get("OPENAI_API_KEY"))
        if not key:
            if _is_official(url):
                raise ConfigError(
                    "OPENAI_API_KEY is not set; export it to use the OpenAI API, "
                    "or give a base URL (--base-url; base_url= in Python) to use a local OpenAI-compatible "
                    "server (vLLM, llama.cpp, LM Studio)"
                )
            key = LOCAL_API_KEY
        return cls(api_key=key, base_url=url, max_reply_bytes=max_reply_bytes)

    @property
    def name(self) -> str:
        """The registry name, for example ``"openai"`` or ``"ollama"``."""
        return self._name

    @property
    def base_url(self) -> str:
        """The API root requests go to, without a trailing slash."""
        return self._base_url

    def sdk_client(self) -> openai.AsyncOpenAI:
        """A new client of the official SDK with this provider's key and API root (the batch endpoints
        are asked through it, with the SDK's own retries); the caller closes it."""
        endpoint = self._endpoint
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._base_url,
            default_headers=endpoint.headers(),
            default_query=dict(endpoint.query) or None,
        )

    @property
    def identity(self) -> str:
        """``"openai"`` for the official API, else ``name@base_url``, so two servers never share a cache
        (with its credentials hidden, and a digest of them: `faceteval.llm._endpoint.Endpoint.identity`)."""
        return "openai" if _is_official(self._base_url) else self._endpoint.identity(self._name)

    @property
    def rate_key(self) -> RateKey:
        """What the provider's rate limits are counted by: the endpoint and the key sent to it."""
        return self._endpoint.rate_key(self._api_key)

    async def complete(self, request: CompletionRequest) -> Completion:
        """Make one attempt at a chat completion.

        Raises:
            ProviderError: A subclass that says what failed; see the module docstring.
        """
        try:
            return self._completion(await self._post(request), request)
        except ProviderError as error:
            self._endpoint.hide(error)
            raise

    async def _post(self, request: CompletionRequest) -> httpx2.Response:
        where = f"{self._where} (model {request.model!r})"
        try:
            reply: httpx2.Response = await self._clients.get().post(
                self._completions_url, body=_params(request), cast_to=httpx2.Response
            )
        except RefusedReply as exc:
            raise exc.error(where) from None
        except openai.APIError as exc:
            raise self._api_error(exc, request.model) from exc
        except openai.OpenAIError as exc:
            raise ProviderError(f"{self._where} failed: {exc}") from exc
        except ValueError as exc:  # json.JSONDecodeError from a body sent as JSON that is not
            raise BadResponseError(
                f"{self._where} sent a body that is not valid JSON "
                f"for model {request.model!r}: {snippet(getattr(exc, 'doc', str(exc)))}"
            ) from exc
        except Exception as exc:  # what the aiohttp transport lets through (a reply that is not HTTP)
            if (failed := transport_error(exc, self._endpoint.shown, where)) is None:
                raise
            raise failed from exc
        return reply

    async def aclose(self) -> None:
        """Close the connections, unless the caller passed in its own ``http_client``.

        The provider stays usable: the next call opens new connections.
        """
        await self._clients.aclose()

    def _completion(self, reply: httpx2.Response, request: CompletionRequest) -> Completion:
        where = f"{self._where} (model {request.model!r})"
        try:
            data = json.loads(reply.content)
        except ValueError:
            what = "a body that is not JSON (a proxy page?)"
            raise BadResponseError(
                f"{where} answered {reply.status_code} with {what}: {snippet(reply.text)}"
            ) from None
        except RecursionError:  # nested deeper than the decoder goes: no completion looks like that
            raise BadResponseError(f"{where} answered with JSON nested too deep to be a completion") from None
        return completion_of(data, request, where)

    def _api_error(self, exc: openai.APIError, model: str) -> ProviderError:
        where = self._where
        if (refused := refused_reply(exc)) is not None:
            return refused.error(f"{where} (model {model!r})")
        if isinstance(exc, openai.APIConnectionError):  # APITimeoutError too
            failed = connection_error(exc, self._endpoint.shown, f"{where} (model {model!r})")
            if failed is not None:
                return failed
        if isinstance(exc, openai.APITimeoutError):
            return ProviderTimeout(f"{where} did not answer in time (model {model!r})")
        if isinstance(exc, openai.APIConnectionError):
            return ProviderConnectionError(f"the connection to {where} failed: {exc.__cause__ or exc}")
        if isinstance(exc, openai.APIStatusError):
            where = f"{where} (model {model!r})"
            return status_error(
                exc.status_code, exc.response.headers, exc.body, where, key_hint="OPENAI_API_KEY"
            )
        return BadResponseError(f"{where} sent a reply the SDK could not read (model {model!r}): {exc}")


def completion_of(data: Any, request: CompletionRequest, where: str) -> Completion:
    """The completion in a chat completion's JSON body (``where`` names its source in errors).

    Raises:
        BadResponseError: The body is not a chat completion with a choice.
    """
    if not isinstance(data, dict):
        raise BadResponseError(f"{where} answered with JSON that is not a chat completion: {snippet(data)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadResponseError(f"{where} sent a reply without choices: choices={choices!r}")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise BadResponseError(f"{where} sent a choice without a message: {snippet(choice)}")
    reason = choice.get("finish_reason")
    text, finish = _text(message, reason if isinstance(reason, str) else None, where)
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    model = data.get("model")
    reply_id = data.get("id")
    return Completion(
        text=text,
        input_tokens=token_count(usage.get("prompt_tokens")),
        output_tokens=token_count(usage.get("completion_tokens")),
        finish_reason=finish,
        model=model if isinstance(model, str) and model else request.model,
        logprobs=_logprobs(choice, where) if request.config.logprobs else None,
        cached_input_tokens=_cached_tokens(usage),
        response_id=reply_id if isinstance(reply_id, str) and reply_id else None,
    )


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
    if config.response_schema is not None:  # structured output: vLLM, llama.cpp and Ollama enforce it
        params.update(_schema_params(config.response_schema, config.dialect))
    elif config.json_mode:
        params["response_format"] = {"type": "json_object"}
    if config.logprobs:
        params["logprobs"] = True
        if config.top_logprobs is not None:
            params["top_logprobs"] = config.top_logprobs
    return params


def _schema_params(schema: ResponseSchema, dialect: SchemaDialect) -> dict[str, Any]:
    """The body fields that carry ``schema`` in ``dialect`` (`faceteval.llm.SchemaDialect`).

    Examples:
        >>> schema = ResponseSchema.of("score", {"type": "object"})
        >>> _schema_params(schema, "json_object")
        {'response_format': {'type': 'json_object', 'schema': {'type': 'object'}}}
        >>> _schema_params(schema, "guided"), _schema_params(schema, "format")
        ({'guided_json': {'type': 'object'}}, {'format': {'type': 'object'}})
    """
    if dialect == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema.schema}}
    if dialect == "guided":
        return {"guided_json": schema.schema}
    if dialect == "format":
        return {"format": schema.schema}
    json_schema: dict[str, Any] = {"name": schema.name, "schema": schema.schema, "strict": True}
    if schema.description:
        json_schema["description"] = schema.description
    return {"response_format": {"type": "json_schema", "json_schema": json_schema}}


def _http_client_factory(limit: ReplyLimit) -> Callable[[], httpx2.AsyncClient]:
    """Makes the SDK's client on its aiohttp transport when ``aiohttp`` is installed, else its httpx2 one,
    with the SDK's defaults and ``limit``'s hooks.

    The clients share one TLS context, the one the SDK would make for each (it reads the system's
    certificates and ``SSL_CERT_FILE``, which takes tens of milliseconds).
    """
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        kind: type[httpx2.AsyncClient] = openai.DefaultAsyncHttpxClient
    else:
        kind = openai.DefaultAioHttpClient
    context = _tls_context()
    return lambda: kind(verify=context, event_hooks=limit.hooks)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    return httpx2.create_ssl_context()


def _text(message: dict[str, Any], finish: str | None, where: str) -> tuple[str, str | None]:
    """The reply text and finish reason, deciding what a null ``content`` means."""
    content, refusal = message.get("content"), message.get("refusal")
    if isinstance(content, str):
        return content, finish
    if content is None and isinstance(refusal, str) and refusal:
        return refusal, "refusal"
    if content is None and finish in _FINISH_WITHOUT_TEXT:
        return "", finish
    raise BadResponseError(f"{where} sent a message without content (finish_reason={finish!r})")


def _logprobs(choice: dict[str, Any], where: str) -> tuple[TokenLogprob, ...] | None:
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content is None:
        return None
    try:
        return tuple(
            TokenLogprob(
                token=str(item["token"]),
                logprob=float(item["logprob"]),
                top=tuple(
                    (str(alt["token"]), float(alt["logprob"])) for alt in item.get("top_logprobs") or ()
                ),
            )
            for item in content
        )
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise BadResponseError(f"{where} sent malformed logprobs: {snippet(content)}") from exc


def _is_official(base_url: str) -> bool:
    return base_url.rstrip("/") == OPENAI_BASE_URL


def _cached_tokens(usage: dict[str, Any]) -> int:
    """``usage.prompt_tokens_details.cached_tokens``: the prompt tokens read from the server's prefix cache.

    Examples:
        >>> _cached_tokens({"prompt_tokens_details": {"cached_tokens": 1024}})
        1024
        >>> _cached_tokens({"prompt_tokens": 5})
        0
    """
    details = usage.get("prompt_tokens_details")
    return token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0
