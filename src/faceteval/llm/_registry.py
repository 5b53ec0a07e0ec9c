"""Model specs (``openai:gpt-4o-mini``) to providers, with SDKs imported only when used.

This module and the CLI are the only places that read environment variables; everything else takes
values as arguments.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from faceteval.errors import ConfigError, MissingDependencyError
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
                f"for example openai:gpt-4o-mini, ollama:qwen2.5:7b or anthropic:claude-3-5-haiku-latest "
                f"(providers: {', '.join(sorted(_LOADERS))})"
            )
        if provider not in _LOADERS:
            raise ConfigError(
                f"unknown provider {provider!r} in {spec!r}; known: {', '.join(sorted(_LOADERS))}"
            )
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


ProviderFactory = Callable[[Mapping[str, str], "str | None", "str | None"], Provider]


def _openai(env: Mapping[str, str], base_url: str | None, api_key: str | None) -> Provider:
    from faceteval.llm._openai import OpenAIProvider

    return OpenAIProvider.from_env(env, base_url=base_url, api_key=api_key)


def _ollama(env: Mapping[str, str], base_url: str | None, api_key: str | None) -> Provider:
    from faceteval.llm._openai import OpenAIProvider

    host = env.get("OLLAMA_HOST", "").strip()
    default = f"{_ollama_url(host)}/v1" if host else OLLAMA_BASE_URL
    return OpenAIProvider(api_key=api_key or "ollama", base_url=base_url or default, name="ollama")


def _ollama_url(host: str) -> str:
    """``OLLAMA_HOST`` as a URL, in any form Ollama itself takes: ``host``, ``host:port``, a URL.

    Examples:
        >>> _ollama_url("127.0.0.1:8080"), _ollama_url("gpu-box"), _ollama_url("https://o.example/")
        ('http://127.0.0.1:8080', 'http://gpu-box:11434', 'https://o.example')
    """
    if not host.startswith(("http://", "https://")):
        host = f"http://{host}"
    parts = urllib.parse.urlsplit(host)
    if parts.port is None and parts.scheme == "http" and not parts.path.strip("/"):
        host = f"{parts.scheme}://{parts.hostname}:11434"
    return host.rstrip("/")


def _anthropic(env: Mapping[str, str], base_url: str | None, api_key: str | None) -> Provider:
    try:
        from faceteval.llm._anthropic import AnthropicProvider
    except ModuleNotFoundError as exc:
        if exc.name != "anthropic":
            raise
        raise MissingDependencyError("the 'anthropic' provider", extra="anthropic") from exc
    return AnthropicProvider.from_env(env, base_url=base_url, api_key=api_key)


_LOADERS: dict[str, ProviderFactory] = {"openai": _openai, "ollama": _ollama, "anthropic": _anthropic}


def create_provider(
    spec: ModelSpec,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Provider:
    """Build the provider for ``spec``.

    Args:
        spec: The parsed model spec.
        base_url: An OpenAI-compatible endpoint (vLLM, llama.cpp, LM Studio...) or an Anthropic one.
        api_key: A key that overrides the environment.
        env: Where credentials and endpoints are read from; the process environment when None.
    """
    environ = os.environ if env is None else env
    return _LOADERS[spec.provider](environ, base_url, api_key)
