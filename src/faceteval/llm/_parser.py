"""What `JudgeContext.ask` needs from a parser, and a parser's JSON reply for structured output."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Parser(Protocol[T_co]):
    """Turns reply text into a value, loudly.

    ``parse`` raises `faceteval.errors.ParseError` with a ``problem`` an LLM can act on (it is sent
    back in the one re-ask) and never invents a value. ``example`` is a well-formed reply of typical
    length, used by dry runs to estimate tokens and to drive later stages without calling an LLM.
    """

    @property
    def instructions(self) -> str:
        """The expected reply format in one or two sentences, repeated in the re-ask."""
        ...

    def parse(self, text: str) -> T_co:
        """Read the value from ``text`` or raise `ParseError`."""
        ...

    def example(self) -> str:
        """A well-formed reply of typical length."""
        ...


@dataclass(frozen=True, slots=True)
class JsonReply(Generic[T]):
    """A parser's reply as JSON under a schema (structured output): what a parser's ``json_reply()`` gives.

    A parser that has one can be asked in structured mode (`faceteval.llm.GenerateConfig.structured`):
    the reply is validated against ``model`` and turned by ``read`` into the very value ``parse`` gives
    for a free-text reply, so nothing after the parser changes.

    Attributes:
        name: The schema's name (letters, digits, ``_``, ``-``), sent to the provider.
        model: The pydantic model the reply is validated with (``extra="forbid"``); its JSON schema is
            the one sent.
        read: The validated reply (an instance of ``model``) and the reply text → the parser's value;
            raises `faceteval.errors.ParseError` for what the schema cannot say (a repeated name, a sum).
        example: A valid reply, for dry runs.
    """

    name: str
    model: type[BaseModel]
    read: Callable[[Any, str], T]
    example: Mapping[str, Any]

    def schema(self) -> dict[str, Any]:
        """The model's JSON schema as strict structured output takes it: every property required, no
        other allowed, no titles (`strict_schema`)."""
        return reply_schema(self.model)


def reply_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` as strict structured output takes it (`strict_schema`), a fresh copy."""
    schema: dict[str, Any] = json.loads(_schema_text(model))
    return schema


@functools.lru_cache(maxsize=1024)
def _schema_text(model: type[BaseModel]) -> str:
    """The strict schema of ``model`` as JSON text, made once per model (it takes milliseconds)."""
    return json.dumps(strict_schema(model.model_json_schema()))


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` without ``title`` keys, each object closed (``additionalProperties: false``) and all
    its properties required, as OpenAI's strict mode asks.

    Examples:
        >>> closed = strict_schema({"title": "T", "type": "object", "properties": {"a": {"type": "number"}}})
        >>> closed["additionalProperties"], closed["required"], "title" in closed
        (False, ['a'], False)
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: strict_schema(sub) for name, sub in value.items()}
        elif isinstance(value, Mapping):
            out[key] = strict_schema(value)
        elif isinstance(value, list):
            out[key] = [strict_schema(item) if isinstance(item, Mapping) else item for item in value]
        else:
            out[key] = value
    if out.get("type") == "object" and "properties" in out:
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    return out
