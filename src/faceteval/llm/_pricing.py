"""Token prices and cost accounting: the table of prices a run uses, and where each came from.

A model's price is looked up in the table's own entries first (a ``--prices`` file, faceteval.toml's
``[prices]``, the built-in entries of models served locally), then in genai-prices
(`faceteval.llm._catalog`); a model neither knows has no price, and its cost is unknown.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from faceteval._util.documents import load_yaml, read_yaml
from faceteval.errors import ConfigError

MAX_PRICE = 1_000_000.0
"""The largest price taken, in USD per million tokens (a dollar a token): a larger one is a mistake,
and one large enough would make costs overflow to infinity."""


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million input and output tokens, and cached input tokens where the provider prices them
    apart (None: at the input price)."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """The cost of one exchange in USD; ``cached_input_tokens`` (of ``input_tokens``) at the cached price.

        Examples:
            >>> Price(2.5, 10.0, cached_input=1.25).cost(1_000_000, 0, cached_input_tokens=600_000)
            1.75

        Raises:
            OverflowError: The cost is too large to count (token counts past any real reply's).
        """
        cached = min(max(cached_input_tokens, 0), input_tokens)
        cached_price = self.input if self.cached_input is None else self.cached_input
        try:
            cost = (
                (input_tokens - cached) * self.input + cached * cached_price + output_tokens * self.output
            ) / 1_000_000
        except OverflowError:  # a token count too large to be a float at all
            cost = math.inf
        if not math.isfinite(cost):
            raise OverflowError(
                "the cost of this exchange is too large to count: its token counts are past any real reply's"
            )
        return cost

    def at_batch_rate(self) -> Price:
        """The price of a request sent through a provider's batch API: half (OpenAI's and Anthropic's),
        cached input tokens included.

        Examples:
            >>> Price(2.5, 10.0).at_batch_rate()
            Price(input=1.25, output=5.0, cached_input=None)
            >>> Price(2.5, 10.0, cached_input=1.25).at_batch_rate().cached_input
            0.625
        """
        cached = None if self.cached_input is None else self.cached_input * BATCH_RATE
        return Price(self.input * BATCH_RATE, self.output * BATCH_RATE, cached)


BATCH_RATE = 0.5
"""What a batch API charges of the synchronous price (OpenAI Batch, Anthropic Message Batches)."""

_DATED = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$")
"""What a dated or aliased name adds to its model's: -2024-08-06, -20241022, -0613, -latest."""


UNKNOWN = "unknown"
"""The source of a price that is not known: no table entry, and genai-prices does not know the model."""
BUILT_IN = "built-in (models served locally)"
"""The source of the built-in table's entries (``prices.yaml``: the models run on the user's machine)."""
GIVEN = "given"
"""The source of a table's entries when it is not named."""


@dataclass(frozen=True, slots=True)
class Quote:
    """A model's price and where it came from (`UNKNOWN`: it has none).

    Examples:
        >>> Quote(Price(1.0, 2.0), "--prices p.yaml").describe()
        '$1 in, $2 out per million tokens, from --prices p.yaml'
        >>> Quote(None, UNKNOWN).describe(), Quote(None, UNKNOWN).as_dict()
        ('unknown', {'source': 'unknown'})
    """

    price: Price | None
    source: str

    def describe(self) -> str:
        """The price in words, with its source."""
        price = self.price
        if price is None:
            return UNKNOWN
        cached = "" if price.cached_input is None else f" (${price.cached_input:g} cached input)"
        return f"${price.input:g} in, ${price.output:g} out per million tokens{cached}, from {self.source}"

    def as_dict(self) -> dict[str, float | str | None]:
        """The source and (when known) the rates, USD per million tokens, for run records."""
        price = self.price
        if price is None:
            return {"source": self.source}
        return {
            "source": self.source,
            "input": price.input,
            "output": price.output,
            "cached_input": price.cached_input,
        }


class PriceTable:
    """Prices by model spec, each with its source; with ``catalog``, a model the table lacks takes
    its price from genai-prices.

    A dated model name takes the price of its model's entry. Only a date or ``-latest`` may follow
    a key: ``gpt-4o-mini`` and ``o3-pro`` are models of their own, priced apart from ``gpt-4o`` and
    ``o3``, so they get no price from their entries rather than a wrong one.

    Examples:
        >>> table = PriceTable({"openai:gpt-4o": Price(2.5, 10.0)})
        >>> table.lookup("openai:gpt-4o-2024-08-06")
        Price(input=2.5, output=10.0, cached_input=None)
        >>> table.lookup("openai:gpt-4o-mini") is None
        True
    """

    def __init__(self, prices: Mapping[str, Price], *, source: str = GIVEN, catalog: bool = False) -> None:
        self._prices = dict(prices)
        self._sources = dict.fromkeys(self._prices, source)
        self._catalog = catalog
        self._quotes: dict[str, Quote] = {}

    @classmethod
    def default(cls) -> PriceTable:
        """genai-prices, with the built-in entries of models served locally (which it does not price)."""
        text = resources.files("faceteval.llm").joinpath("prices.yaml").read_text(encoding="utf-8")
        prices = _parse(load_yaml(text, "the built-in price table")[0], "the built-in price table")
        return cls(prices, source=BUILT_IN, catalog=True)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str) -> PriceTable:
        """A table from ``{"provider:model": {"input": x, "output": y}}``; ``source`` names it in
        errors, dry runs and run records."""
        return cls(_parse(data, source), source=source)

    @classmethod
    def from_file(cls, path: str | Path, *, source: str | None = None) -> PriceTable:
        """A table from a YAML or JSON file in the format of the built-in one; ``source`` names its
        prices in dry runs and run records (the path by default).

        Raises:
            InputError: The file cannot be read as YAML (not UTF-8, an alias, a key given twice...).
            ConfigError: An entry is not a price (not finite, negative, or above `MAX_PRICE`).
        """
        data, _ = read_yaml(path)
        return cls(_parse(data, str(path)), source=str(path) if source is None else source)

    def extended(self, other: PriceTable) -> PriceTable:
        """This table with ``other``'s entries added or replacing ours (genai-prices behind them if
        either table has it)."""
        table = PriceTable({**self._prices, **other._prices}, catalog=self._catalog or other._catalog)
        table._sources = {**self._sources, **other._sources}
        return table

    def quote(self, spec: str) -> Quote:
        """The price for ``spec`` (``provider:model``) and its source: the table's entry (exact, of
        its dated model, or ``provider:*``), else genai-prices' (with ``catalog``), else `UNKNOWN`."""
        if (quoted := self._quotes.get(spec)) is None:
            quoted = self._quotes[spec] = self._quote(spec)
        return quoted

    def _quote(self, spec: str) -> Quote:
        if (key := self._key(spec)) is not None:
            return Quote(self._prices[key], self._sources[key])
        if self._catalog:
            from faceteval.llm._catalog import CATALOG_SOURCE, catalog_price

            if (price := catalog_price(spec)) is not None:
                return Quote(price, CATALOG_SOURCE)
        return Quote(None, UNKNOWN)

    def _key(self, spec: str) -> str | None:
        if spec in self._prices:
            return spec
        if (dated := _DATED.search(spec)) is not None and spec[: dated.start()] in self._prices:
            return spec[: dated.start()]
        wildcard = f"{spec.partition(':')[0]}:*"
        return wildcard if wildcard in self._prices else None

    def lookup(self, spec: str) -> Price | None:
        """The price for ``spec`` (``provider:model``), as `quote` finds it; None when it is not known."""
        return self.quote(spec).price

    def __contains__(self, spec: object) -> bool:
        return isinstance(spec, str) and self.lookup(spec) is not None

    def __eq__(self, other: object) -> bool:
        """Tables are equal when they hold the same prices (two runs' settings compare by them)."""
        return (
            isinstance(other, PriceTable)
            and self._prices == other._prices
            and self._catalog == other._catalog
        )

    __hash__ = None  # type: ignore[assignment]  # a table's prices may be extended: not a key


def _parse(data: Any, source: str) -> dict[str, Price]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of 'provider:model' to {{input, output}}")
    prices: dict[str, Price] = {}
    for key, value in data.items():
        if ":" not in str(key):
            raise ConfigError(f"{source}: key {key!r} is not of the form provider:model")
        if not isinstance(value, Mapping) or not {"input", "output"} <= set(value):
            raise ConfigError(
                f"{source}: {key}: expected {{input: <USD per 1M tokens>, output: <USD per 1M tokens>}}"
            )
        if unknown := sorted(map(str, set(value) - {"input", "output", "cached_input"})):
            # A price the table cannot use (a typo) would be silently left out.
            raise ConfigError(
                f"{source}: {key}: unknown field(s) {', '.join(unknown)}; an entry has input, output "
                "and (optional) cached_input"
            )
        cached = [value["cached_input"]] if "cached_input" in value else []
        given = (value["input"], value["output"], *cached)
        if any(isinstance(v, bool) or not isinstance(v, int | float | str) for v in given):
            raise ConfigError(f"{source}: {key}: prices must be numbers, got {given!r}")
        try:
            price = Price(*(float(v) for v in given))
        except (TypeError, ValueError, OverflowError) as exc:
            raise ConfigError(f"{source}: {key}: prices must be numbers ({exc})") from exc
        if not all(0 <= v < math.inf for v in (price.input, price.output, price.cached_input or 0.0)):
            raise ConfigError(f"{source}: {key}: prices must be finite and not negative, got {given!r}")
        if max(price.input, price.output, price.cached_input or 0.0) > MAX_PRICE:
            raise ConfigError(
                f"{source}: {key}: prices are USD per million tokens, at most {MAX_PRICE:,.0f} "
                f"(a dollar a token), got {given!r}"
            )
        prices[str(key)] = price
    return prices
