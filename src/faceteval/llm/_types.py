"""Value objects that cross the provider seam."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from faceteval.errors import ConfigError

Role = Literal["system", "user", "assistant"]
"""Who says a `Message`."""

SchemaDialect = Literal["json_schema", "json_object", "guided", "format"]
"""How an OpenAI-compatible request carries a `ResponseSchema` (``--structured DIALECT``):

- ``json_schema``: ``response_format: {"type": "json_schema", "json_schema": {...}}`` (OpenAI, vLLM,
  llama.cpp's ``llama-server``, LM Studio);
- ``json_object``: ``response_format: {"type": "json_object", "schema": {...}}`` (llama-cpp-python's
  server, which refuses ``json_schema``);
- ``guided``: the schema as the body's ``guided_json`` (vLLM's own field);
- ``format``: the schema as the body's ``format`` (Ollama's field).
"""
SCHEMA_DIALECTS: tuple[SchemaDialect, ...] = ("json_schema", "json_object", "guided", "format")
DEFAULT_SCHEMA_DIALECT: SchemaDialect = "json_schema"


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
class ResponseSchema:
    """A JSON schema a reply must follow (structured output).

    Attributes:
        name: The schema's name: letters, digits, ``_`` and ``-``, at most 64 (OpenAI's rule for
            ``json_schema.name``, and Anthropic's for a tool name).
        schema_json: The JSON schema as compact JSON text (hashable, and the cache key's form). Its keys
            keep their order: a server that enforces the schema generates the properties in it.
        description: What the reply is, for the provider (a tool's description).
    """

    name: str
    schema_json: str
    description: str = ""

    @classmethod
    def of(cls, name: str, schema: Mapping[str, Any], description: str = "") -> ResponseSchema:
        """The schema ``schema`` (a JSON schema object) under ``name``."""
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            raise ValueError(f"a response schema's name is 1-64 letters, digits, _ or -, got {name!r}")
        return cls(name, json.dumps(schema, separators=(",", ":"), ensure_ascii=False), description)

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON schema as an object."""
        value: dict[str, Any] = json.loads(self.schema_json)
        return value

    def cache_fields(self) -> dict[str, Any]:
        """What identifies the schema in a cache key."""
        return {"name": self.name, "schema": self.schema_json, "description": self.description}


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
        structured: Structured-output mode: every stage asks for its reply as JSON under the stage's
            schema (`faceteval.llm.JsonReply`), sent as ``response_schema``. Off by default: the
            free-text prompts are the papers'.
        response_schema: The JSON schema this request's reply must follow: OpenAI-compatible servers
            get it as ``schema_dialect`` says (``response_format`` ``json_schema``, strict, by default),
            Anthropic as a forced tool.
        schema_dialect: How an OpenAI-compatible server is sent ``response_schema`` (`SchemaDialect`).
            None: ``json_schema``, and if the server refuses that with an error that says so, the LLM
            falls back once to ``json_object`` for the rest of the run (with a warning). A dialect
            named here is used as it is, even ``json_schema``. In the cache key only when it is not
            ``json_schema``, so the keys of earlier structured runs are unchanged.
    """

    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None
    top_p: float | None = None
    sample: int = 0
    logprobs: bool = False
    top_logprobs: int | None = None
    json_mode: bool = False
    structured: bool = False
    response_schema: ResponseSchema | None = None
    schema_dialect: SchemaDialect | None = None

    def __post_init__(self) -> None:
        if self.schema_dialect is not None and self.schema_dialect not in SCHEMA_DIALECTS:
            raise ConfigError(
                f"schema_dialect is one of {', '.join(SCHEMA_DIALECTS)} (or None), "
                f"got {self.schema_dialect!r}"
            )

    @property
    def dialect(self) -> SchemaDialect:
        """The dialect requests are sent in: ``schema_dialect``, ``json_schema`` when None."""
        return self.schema_dialect or DEFAULT_SCHEMA_DIALECT

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
        } | self._structured_fields()

    def _structured_fields(self) -> dict[str, Any]:
        """Structured output's fields, only when set: the keys of free-text requests stay as they were."""
        fields: dict[str, Any] = {}
        if self.structured:
            fields["structured"] = True
        if self.response_schema is not None:
            fields["response_schema"] = self.response_schema.cache_fields()
        if self.dialect != DEFAULT_SCHEMA_DIALECT:
            fields["schema_dialect"] = self.dialect
        return fields


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
    cached_input_tokens: int = 0
    """Of ``input_tokens``, those the provider read from its prompt cache (and bills at its cached rate)."""
    response_id: str | None = field(default=None, compare=False)
    """The provider's id of the reply (``chatcmpl-...``, ``msg_...``), when it gave one; not cached,
    and not part of what a reply is (a cached reply equals the call's, whose id it does not keep)."""
