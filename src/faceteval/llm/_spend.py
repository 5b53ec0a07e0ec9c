"""What a model's use came to: each exchange (request, reply, where it came from, what it cost) and
the running total of a run's calls, tokens and cost."""

from __future__ import annotations

import math
from dataclasses import dataclass

from faceteval.llm._types import Completion, Message


@dataclass(slots=True)
class Spend:
    """LLM use: exchanges by kind, retries, tokens and cost.

    ``calls`` were made (answered, or failed after their retries), ``cached`` answered from the
    cache, ``planned`` would be made (dry run). Tokens and cost cover made and planned exchanges,
    not cached ones: they are what was spent, or would be.
    """

    calls: int = 0
    cached: int = 0
    planned: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    cached_input_tokens: int = 0
    """Of ``input_tokens``, those the provider read from its prompt cache."""

    def __add__(self, other: Spend) -> Spend:
        """Both together (a judge panel's, from its judges').

        Examples:
            >>> total = Spend(calls=2, cost_usd=0.5) + Spend(calls=1, cached=3, cost_known=False)
            >>> (total.calls, total.cached, total.cost_usd, total.cost_known)
            (3, 3, 0.5, False)
        """
        return Spend(
            calls=self.calls + other.calls,
            cached=self.cached + other.cached,
            planned=self.planned + other.planned,
            retries=self.retries + other.retries,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            cost_known=self.cost_known and other.cost_known,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
        )

    def count(
        self,
        *,
        cached: bool = False,
        planned: bool = False,
        attempts: int = 1,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float | None = None,
        cached_input_tokens: int = 0,
    ) -> None:
        """Count one exchange (``cost_usd`` None: its price is not known)."""
        if cached:
            self.cached += 1
            return
        if planned:
            self.planned += 1
        else:
            self.calls += 1
            self.retries += max(attempts - 1, 0)
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cached_input_tokens += cached_input_tokens
        if cost_usd is None:
            self.cost_known = False
        elif math.isfinite(total := self.cost_usd + cost_usd):
            self.cost_usd = total
        else:  # past the largest float: no cost can be stated
            self.cost_known = False

    def _count(self, exchange: Exchange) -> None:
        completion = exchange.completion
        self.count(
            cached=exchange.cached,
            planned=exchange.planned,
            attempts=exchange.attempts,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            cost_usd=exchange.cost_usd,
            cached_input_tokens=completion.cached_input_tokens,
        )


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and its completion, with where it came from and what it cost.

    Attributes:
        messages: What was sent.
        completion: What came back (for a planned exchange, a stand-in reply).
        cached: Answered from the response cache.
        planned: A dry run's stand-in: no call was made and the tokens are estimates.
        cost_usd: Price of the exchange, None when the model has no known price.
        attempts: Provider attempts made (retries + 1); 0 when cached or planned.
    """

    messages: tuple[Message, ...]
    completion: Completion
    cached: bool = False
    planned: bool = False
    cost_usd: float | None = None
    attempts: int = 0
