"""Structured output: a stage asked for its reply as JSON under its parser's schema (``--structured``).

The stage's messages get one short paragraph more (the last user message ends with the schema, in a
``json`` code block: text the template wrote, so it is not fenced; the untrusted text above stays
fenced as it was), the request carries the schema (`faceteval.llm.ResponseSchema`: ``response_format``
for OpenAI-compatible servers, a forced tool for Anthropic), and the reply is validated with pydantic
against the parser's `faceteval.llm.JsonReply` model, then read into the value the free-text parser
gives. An invalid reply is a `ParseError` like any other: re-asked once, then the instance's
``parse_error`` with the raw reply kept.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel, ValidationError

from faceteval.errors import ConfigError, ParseError
from faceteval.llm import GenerateConfig, JsonReply, Message, Parser, ResponseSchema
from faceteval.llm.internal import reply_schema
from faceteval.prompts import Prompts
from faceteval.prompts.internal import current_prompts

T = TypeVar("T")

_FENCED = re.compile(r"\A```[A-Za-z]*[ \t]*\n(?P<body>.*)\n```\Z", re.S)
_MAX_PROBLEMS = 3


class StructuredParser(Generic[T]):
    """A parser's JSON form as a `faceteval.llm.Parser`: validates the reply with the schema's model.

    Args:
        reply: The parser's `JsonReply`.
    """

    def __init__(self, reply: JsonReply[T]) -> None:
        self.reply = reply

    @property
    def instructions(self) -> str:
        """The reply format, repeated in the re-ask."""
        return "Reply with a JSON object only, following the JSON schema given above."

    def parse(self, text: str) -> T:
        """The value the free-text parser would give, from a JSON reply valid under the schema.

        A reply that is one code block of JSON (as a server that does not enforce the schema may
        send) is read as the JSON inside it.

        Raises:
            ParseError: The reply is not JSON, does not follow the schema, or is refused by the
                parser's own checks.
        """
        body = text.strip()
        if (fenced := _FENCED.match(body)) is not None:
            body = fenced["body"].strip()
        if not body:
            raise ParseError("the reply is empty", raw=text)
        try:
            value = self.reply.model.model_validate_json(body, strict=True)
        except ValidationError as exc:
            if (loose := _with_raw_control_characters(body, exc)) is None:
                raise ParseError(_problem(exc), raw=text) from None
            try:
                value = self.reply.model.model_validate(loose, strict=True)
            except ValidationError as again:
                raise ParseError(_problem(again), raw=text) from None
        return self.reply.read(value, text)

    def example(self) -> str:
        """A valid reply."""
        return json.dumps(self.reply.example, ensure_ascii=False)


def structured(
    messages: Sequence[Message],
    parser: Parser[T],
    config: GenerateConfig,
    *,
    stage: str,
    prompts: Prompts | None = None,
) -> tuple[tuple[Message, ...], StructuredParser[T], GenerateConfig]:
    """``messages``, ``parser`` and ``config`` of a stage, asked as structured output.

    Raises:
        ConfigError: The parser has no JSON form (``json_reply``).
    """
    make = getattr(parser, "json_reply", None)
    if make is None:
        raise ConfigError(
            f"stage {stage!r} reads its reply with {type(parser).__name__}, which has no JSON form "
            "(json_reply); run it without structured output (--structured)"
        )
    reply = cast(JsonReply[T], make())
    described, note = _request_parts(reply.name, reply.model, prompts or current_prompts())
    return _appended(messages, note), StructuredParser(reply), config.merge(response_schema=described)


@functools.lru_cache(maxsize=1024)
def _request_parts(name: str, model: type[BaseModel], prompts: Prompts) -> tuple[ResponseSchema, str]:
    """The schema sent for ``model`` and the paragraph that shows it (made once per model and run)."""
    schema = reply_schema(model)
    doc = (model.__doc__ or "").strip()
    described = ResponseSchema.of(name, schema, doc.splitlines()[0] if doc else "")
    note = prompts.render("common/structured", schema=json.dumps(schema, ensure_ascii=False))[0].content
    return described, note


def _appended(messages: Sequence[Message], note: str) -> tuple[Message, ...]:
    """``messages`` with ``note`` after the last user message's text (a new user message if none ends)."""
    if messages and messages[-1].role == "user":
        last = messages[-1]
        return (*messages[:-1], Message("user", f"{last.content}\n\n{note}"))
    return (*messages, Message("user", note))


def _with_raw_control_characters(body: str, error: ValidationError) -> Any:
    """The JSON value of ``body`` when its only fault is a raw control character (a newline, a tab)
    inside a string, which JSON forbids but whose meaning is plain: llama-cpp-python's grammars let
    a model write one. None otherwise."""
    if not any(p["type"] == "json_invalid" and "control character" in p["msg"] for p in error.errors()):
        return None
    try:
        return json.loads(body, strict=False)
    except ValueError:
        return None


def _problem(error: ValidationError) -> str:
    """What is wrong with a reply, in words an LLM can act on."""
    problems = error.errors(include_url=False)
    if any(p["type"] == "json_invalid" for p in problems):
        return f"the reply is not valid JSON ({problems[0]['msg']})"
    shown = []
    for p in problems[:_MAX_PROBLEMS]:
        where = ".".join(str(part) for part in p["loc"])
        shown.append(f"{where}: {p['msg']}" if where else str(p["msg"]))
    more = f" (and {len(problems) - _MAX_PROBLEMS} more)" if len(problems) > _MAX_PROBLEMS else ""
    return "the reply does not follow the JSON schema: " + "; ".join(shown) + more
