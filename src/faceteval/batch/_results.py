"""Result lines of OpenAI's batch format (also vLLM's ``run-batch`` and a Ray job's replies) put into the
response cache under the identity of the synchronous path, and what they brought in."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from faceteval.errors import BadResponseError
from faceteval.llm import Completion, Price, openai_batch_completion
from faceteval.store import SQLiteCache


@dataclass(slots=True)
class ImportTally:
    """What importing batches put into the cache, and what it cost at the batch rate (None: unpriced)."""

    imported: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0

    def add(self, other: ImportTally) -> None:
        """Count ``other`` in."""
        self.imported += other.imported
        self.failed += other.failed
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        both = (self.cost_usd, other.cost_usd)
        self.cost_usd = None if None in both else sum(c for c in both if c is not None)

    def count(self, completion: Completion, price: Price | None) -> None:
        """Count one imported reply in, at ``price`` (None: unpriced, as a self-hosted server is).

        Examples:
            >>> tally = ImportTally()
            >>> tally.count(Completion("ok", 10, 2), Price(1.0, 2.0))
            >>> tally.imported, tally.input_tokens, tally.cost_usd
            (1, 10, 1.4e-05)
            >>> tally.count(Completion("ok", 10, 2), None)
            >>> tally.imported, tally.cost_usd
            (2, None)
        """
        self.imported += 1
        self.input_tokens += completion.input_tokens
        self.output_tokens += completion.output_tokens
        if price is None:
            self.cost_usd = None
        elif self.cost_usd is not None:
            self.cost_usd += price.cost(completion.input_tokens, completion.output_tokens)


@dataclass(frozen=True, slots=True)
class ResultLine:
    """One line of a batch output file: its ``custom_id`` and, when it was answered (status 200), the
    reply's body; otherwise why not."""

    custom_id: str
    body: Any
    problem: str | None


def read_result(line: str, where: str) -> ResultLine:
    """The result a batch output line holds: ``{"custom_id", "response": {"status_code", "body"}, "error"}``.

    Raises:
        BadResponseError: It is not JSON, or not an object with a ``custom_id`` (``where`` named).

    Examples:
        >>> read_result('{"custom_id": "k", "response": {"status_code": 200, "body": {}}}', "x:1").problem
        >>> expired = '{"custom_id": "k", "response": null, "error": {"message": "expired"}}'
        >>> read_result(expired, "x:1").problem
        'expired'
    """
    try:
        result = json.loads(line)
    except ValueError as exc:
        raise BadResponseError(f"{where}: not JSON ({exc})") from exc
    custom_id = result.get("custom_id") if isinstance(result, dict) else None
    if not isinstance(custom_id, str) or not custom_id:
        raise BadResponseError(f"{where}: no custom_id (a batch result is an object with one)")
    response = result.get("response")
    status = response.get("status_code") if isinstance(response, dict) else None
    if status == 200:
        return ResultLine(custom_id, response.get("body"), None)
    error = result.get("error")
    message = error.get("message") if isinstance(error, dict) else None
    return ResultLine(custom_id, None, message or f"status {status}")


def store_result(
    cache: SQLiteCache,
    result: ResultLine,
    *,
    identity: str,
    model: str,
    price: Price | None,
    tally: ImportTally,
    where: str,
) -> None:
    """Put an answered result into ``cache`` under its ``custom_id`` (the cache key) with the synchronous
    path's ``identity``, and count it in ``tally``.

    Raises:
        BadResponseError: Its body is not a chat completion.
    """
    completion = openai_batch_completion(result.body, model=model, where=where)
    cache.put(result.custom_id, completion, identity=identity, model=model)
    tally.count(completion, price)
