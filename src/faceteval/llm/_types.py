"""Value objects that cross the provider seam."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]
"""Who says a `Message`."""


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def to_dict(self) -> dict[str, str]:
        """The message as ``{"role", "content"}``."""
        return {"role": self.role, "content": self.content}


def system(content: str) -> Message:
    """A system message."""
    return Message("system", content)


def user(content: str) -> Message:
    """A user message."""
    return Message("user", content)


def assistant(content: str) -> Message:
    """An assistant message."""
    return Message("assistant", content)


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """Generation parameters. Every field here changes the output, so every field is in the cache key.

    Attributes:
        temperature: Sampling temperature; 0 for reproducible judgments.
        max_tokens: Upper bound on the reply length.
        seed: A seed for providers that honour one.
        top_p: Nucleus sampling, when set.
        sample: Index of a sample when the same request is sampled several times at temperature > 0;
            it is not sent to the provider, only used to keep samples apart in the cache.
        logprobs: Ask for token log-probabilities, where the provider supports them.
        top_logprobs: How many alternatives per token, with ``logprobs``.
        json_mode: Ask for a JSON object reply, where the provider supports it.
    """

    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    top_p: float | None = None
    sample: int = 0
    logprobs: bool = False
    top_logprobs: int | None = None
    json_mode: bool = False

    def merge(self, **changes: Any) -> GenerateConfig:
        """A copy with ``changes`` applied."""
        return replace(self, **changes)

    def cache_fields(self) -> dict[str, Any]:
        """The fields that identify a reply, for the cache key (``temperature=0`` and ``0.0`` alike)."""
        return {
            "temperature": float(self.temperature),
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "top_p": None if self.top_p is None else float(self.top_p),
            "sample": self.sample,
            "logprobs": self.logprobs,
            "top_logprobs": self.top_logprobs,
            "json_mode": self.json_mode,
        }


DEFAULT_GENERATE_CONFIG = GenerateConfig()


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """What a provider is asked for."""

    model: str
    messages: tuple[Message, ...]
    config: GenerateConfig = DEFAULT_GENERATE_CONFIG


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One generated token with its log-probability and the top alternatives."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Completion:
    """What a provider returns."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None
    model: str | None = None
    logprobs: tuple[TokenLogprob, ...] | None = field(default=None)
