"""Result lines of OpenAI's batch format (also vLLM's ``run-batch`` and a Ray job's replies) put into the
response cache under the identity of the synchronous path, and what they brought in."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from faceteval.errors import BadResponseError
from faceteval.llm import Completion, Price
from faceteval.llm.internal import openai_batch_completion
from faceteval.store import SQLiteCache


@dataclass(slots=True)
class ImportTally:
    """What importing batches put into the cache, and what it cost at the batch rate (None: unpriced).

    ``reasons`` holds why each request the batches did not answer was not, by cache key, as far as the
    batches said (an error line's message, a failed batch's errors, an expiry).
    """

    imported: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    reasons: dict[str, str] = field(default_factory=dict)

    def add(self, other: ImportTally) -> None:
        """Count ``other`` in."""
        self.imported += other.imported
        self.failed += other.failed
        self.reasons.update(other.reasons)
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

    A result that is not answered has its ``problem``: the line's ``error`` (its message), and its
    response's status with the message of the error its body holds (a request the API refused).

    Examples:
        >>> read_result('{"custom_id": "k", "response": {"status_code": 200, "body": {}}}', "x:1").problem
        >>> expired = '{"custom_id": "k", "response": null, "error": {"message": "expired"}}'
        >>> read_result(expired, "x:1").problem
        'expired'
        >>> refused = {"status_code": 400, "body": {"error": {"message": "prompt too long"}}}
        >>> read_result(json.dumps({"custom_id": "k", "response": refused}), "x:1").problem
        'status 400: prompt too long'
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
    body = response.get("body") if isinstance(response, dict) else None
    refused = None if status is None else refusal(status, body)
    said = [why for why in (_message(result.get("error")), refused) if why]
    return ResultLine(custom_id, None, "; ".join(said) or "no reason given")


def refusal(status: object, body: object) -> str:
    """Why a request was refused: its status, with the message of the error object its reply's body
    holds (OpenAI's shape, which vLLM answers with too) if it does.

    Examples:
        >>> refusal(400, {"error": {"message": "prompt too long"}})
        'status 400: prompt too long'
        >>> refusal(502, "Bad Gateway")
        'status 502'
    """
    message = _message(body.get("error")) if isinstance(body, dict) else None
    return f"status {status}: {message}" if message else f"status {status}"


def _message(error: object) -> str | None:
    """An error's message: the error itself when it is text (vLLM's), else its ``message`` field."""
    message = error.get("message") if isinstance(error, dict) else error
    return message if isinstance(message, str) and message else None


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
