"""Replies that follow a JSON schema, as a server enforcing it (guided decoding) would send, for tests.

`conforming` builds a value valid under a schema (the subset structured output uses: objects, arrays with
minItems/maxItems, numbers with minimum/maximum, strings, enums, $ref into $defs); numbers and strings
vary with a counter, so names are distinct and scores differ. The replies are test fixtures, never
judgments of anything.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from faceteval.llm import CompletionRequest


def conforming(schema: Mapping[str, Any], counter: Iterator[int] | None = None) -> Any:
    """A value valid under ``schema``."""
    counter = counter if counter is not None else itertools.count()
    return _value(schema, schema.get("$defs", {}), counter)


def _value(schema: Mapping[str, Any], defs: Mapping[str, Any], counter: Iterator[int]) -> Any:
    if "$ref" in schema:
        return _value(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, counter)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if kind == "object":
        return {name: _value(sub, defs, counter) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        count = max(schema.get("minItems", 1), 1)
        return [_value(schema.get("items", {}), defs, counter) for _ in range(count)]
    if kind in ("number", "integer"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 100)
        return low + next(counter) % (int(high - low) + 1)
    if kind == "string":
        return f"text {next(counter)}"
    raise ValueError(f"no conforming value for {schema!r}")


def conforming_script(
    replies: Mapping[str, Callable[[], str]] | None = None,
) -> Callable[[CompletionRequest], str]:
    """A `ScriptedProvider` script answering each structured request with a value valid under its schema
    (``replies`` may give a schema name its own replies instead)."""
    counter = itertools.count()

    def script(request: CompletionRequest) -> str:
        schema = request.config.response_schema
        assert schema is not None, "a free-text request in a structured run"
        if replies and schema.name in replies:
            return replies[schema.name]()
        return json.dumps(conforming(schema.schema, counter))

    return script
