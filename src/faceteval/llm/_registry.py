"""Model specs (``openai:gpt-4o-mini``) to providers, with SDKs imported only when used.

This module and the CLI are the only places that read environment variables; everything else takes
values as arguments.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from faceteval._util.urls import redact_url
from faceteval.errors import ConfigError, MissingDependencyError
from faceteval.llm._http import DEFAULT_MAX_REPLY_BYTES
from faceteval.llm._provider import Provider

OLLAMA_BASE_URL = "http://localhost:11434/v1"


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed model spec: ``<provider>:<model>``.

    Examples:
        >>> ModelSpec.parse("ollama:qwen2.5:7b")
        ModelSpec(provider='ollama', model='qwen2.5:7b')
    """

    provider: str
    model: str

    @classmethod
    def parse(cls, spec: str) -> ModelSpec:
        """Split ``provider:model`` at the first colon (model names may contain colons)."""
        provider, sep, model = spec.partition(":")
        if not sep or not provider or not model:
            raise ConfigError(
                f"model spec {spec!r} is not of the form <provider>:<model>; "
                f"for example openai:gpt-4o-mini, ollama:qwen2.5:7b, anthropic:claude-3-5-haiku-latest or "
                f"llamacpp:models/qwen2.5-0.5b-instruct.gguf "
                f"(providers: {', '.join(sorted(_LOADERS))})"
            )
        if provider not in _LOADERS:
            raise ConfigError(
                f"unknown provider {provider!r} in {spec!r}; known: {', '.join(sorted(_LOADERS))}"
            )
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


ProviderFactory = Callable[[Mapping[str, str], "str | None", "str | None", int, str], Provider]
"""Builds a provider from the environment, base URL, API key, reply size limit and the spec's model."""


def _openai(
    env: Mapping[str, str],
    base_url: str | None,
    api_key: str | None,
    max_reply: int = DEFAULT_MAX_REPLY_BYTES,
    model: str = "",
) -> Provider:
    from faceteval.llm._openai import OpenAIProvider

    return OpenAIProvider.from_env(env, base_url=base_url, api_key=api_key, max_reply_bytes=max_reply)


def _ollama(
    env: Mapping[str, str],
    base_url: str | None,
    api_key: str | None,
    max_reply: int = DEFAULT_MAX_REPLY_BYTES,
    model: str = "",
) -> Provider:
    from faceteval.llm._endpoint import key_for
    from faceteval.llm._openai import OpenAIProvider

    host = env.get("OLLAMA_HOST", "").strip().strip("\"'")  # as Ollama reads it: quotes dropped
    url = base_url or (f"{_ollama_url(host)}/v1" if host else OLLAMA_BASE_URL)
    key = key_for(url, api_key) or "ollama"  # a user and password in the URL take its place
    return OpenAIProvider(api_key=key, base_url=url, name="ollama", max_reply_bytes=max_reply)


def _ollama_url(value: str) -> str:
    """``OLLAMA_HOST`` as the URL of the server, read as Ollama itself reads it.

    Without a scheme it is ``host``, ``host:port`` or ``:port`` over http (port 11434, host
    127.0.0.1 by default); with one, the scheme's own port is the default. IPv6 hosts are written
    in brackets when a port follows.

    A user and password before the host (``https://user:pass@box``, a server behind a proxy that
    asks for them) are kept: they are sent as HTTP Basic authentication (`faceteval.llm._endpoint`).

    Raises:
        ConfigError: A port that is not a number from 0 to 65535.

    Examples:
        >>> _ollama_url("127.0.0.1:8080"), _ollama_url("gpu-box"), _ollama_url("https://o.example/")
        ('http://127.0.0.1:8080', 'http://gpu-box:11434', 'https://o.example:443')
        >>> _ollama_url("::1"), _ollama_url("[::1]:9000"), _ollama_url(":11435"), _ollama_url("http://box")
        ('http://[::1]:11434', 'http://[::1]:9000', 'http://127.0.0.1:11435', 'http://box:80')
        >>> _ollama_url("https://me:pw@box")
        'https://me:pw@box:443'
    """
    scheme, found, rest = value.strip().partition("://")
    if not found:
        scheme, rest, default_port = "http", value.strip(), "11434"
    else:
        scheme = scheme.lower()
        default_port = {"http": "80", "https": "443"}.get(scheme, "11434")
    hostport, _, path = rest.partition("/")
    userinfo, at, hostport = hostport.rpartition("@")
    host, port = _split_host_port(hostport)
    if host is None:  # no port given: the whole is the host (an IPv6 address, possibly bracketed)
        host, port = hostport.strip("[]") or "127.0.0.1", default_port
    host = host or "127.0.0.1"
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise ConfigError(f"OLLAMA_HOST={redact_url(value)!r}: {port!r} is not a port")
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{userinfo}{at}{shown}:{port}" + (f"/{path.strip('/')}" if path.strip("/") else "")


def _split_host_port(hostport: str) -> tuple[str | None, str]:
    """``(host, port)`` of ``host:port`` / ``[v6]:port``; ``(None, "")`` when no port is given."""
    if hostport.startswith("["):
        host, _, after = hostport[1:].partition("]")
        return (host, after[1:]) if after.startswith(":") else (None, "")
    if hostport.count(":") == 1:
        host, _, port = hostport.partition(":")
        return host, port
    return None, ""


def _anthropic(
    env: Mapping[str, str],
    base_url: str | None,
    api_key: str | None,
    max_reply: int = DEFAULT_MAX_REPLY_BYTES,
    model: str = "",
) -> Provider:
    try:
        from faceteval.llm._anthropic import AnthropicProvider
    except ModuleNotFoundError as exc:
        if exc.name != "anthropic":
            raise
        raise MissingDependencyError("the 'anthropic' provider", extra="anthropic") from exc
    return AnthropicProvider.from_env(env, base_url=base_url, api_key=api_key, max_reply_bytes=max_reply)


def _llamacpp(
    env: Mapping[str, str],
    base_url: str | None,
    api_key: str | None,
    max_reply: int = DEFAULT_MAX_REPLY_BYTES,
    model: str = "",
) -> Provider:
    from faceteval.llm._llamacpp import LlamaCppOptions, LlamaCppProvider, split_spec

    if base_url is not None:
        raise ConfigError(
            "a llamacpp model runs in process: --base-url does not apply (for a llama.cpp server, use "
            "openai:MODEL with --base-url http://127.0.0.1:8080/v1)"
        )
    path, query = split_spec(model)
    return LlamaCppProvider(path, LlamaCppOptions.parse(query, f"llamacpp:{model}"))


_LOADERS: dict[str, ProviderFactory] = {
    "openai": _openai,
    "ollama": _ollama,
    "anthropic": _anthropic,
    "llamacpp": _llamacpp,
}


def create_provider(
    spec: ModelSpec,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
) -> Provider:
    """Build the provider for ``spec``.

    Args:
        spec: The parsed model spec.
        base_url: An OpenAI-compatible endpoint (vLLM, llama.cpp, LM Studio...) or an Anthropic one.
        api_key: A key that overrides the environment.
        env: Where credentials and endpoints are read from; the process environment when None.
        max_reply_bytes: The most bytes of a reply body read; a larger reply is a `ReplyTooLargeError`.
    """
    environ = os.environ if env is None else env
    return _LOADERS[spec.provider](environ, base_url, api_key, max_reply_bytes, spec.model)
