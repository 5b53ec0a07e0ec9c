"""Prices from genai-prices (pydantic's maintained catalogue of LLM API prices): the default source of
a cloud model's price.

A model is looked up by its provider and name as genai-prices matches them (its dated snapshots and
aliases included), and every cost is genai-prices' own calculation: its rates at the time of the call,
its tiers by prompt length, its cached-input and batch rates. A model it does not know has no price
here (cost unknown, never $0), and neither has one it prices other than by tokens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import genai_prices
from genai_prices.types import PriceCalculation, TieredPrices

from faceteval.llm._pricing import BATCH_RATE, Price

CATALOG_PROVIDERS = {"openai": "openai", "anthropic": "anthropic"}
"""The faceteval providers whose models genai-prices prices, with its id for each. A model of another
(``ollama``, ``llamacpp``) runs where its user runs it, and is priced by the table only."""

CATALOG_SOURCE = f"genai-prices {genai_prices.__version__}"
"""Where a `CatalogPrice` came from, as dry runs and run records say it."""

BATCH = {"processing": "batch"}
"""genai-prices' price context of a request sent through a provider's batch API."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogPrice(Price):
    """A model's price in genai-prices; ``input``, ``output`` and ``cached_input`` are its rates (the
    first tier's, where the rate depends on the prompt's length), shown in dry runs and records.

    Attributes:
        model_id: The model's id in genai-prices (a dated name's is its model's).
        provider_id: Its genai-prices provider.
        model_ref: The model's name, as genai-prices is asked for it.
        batch: Priced at genai-prices' batch rates for the model.
        share: What is paid of genai-prices' price: `BATCH_RATE` for a batch request to a model it
            gives no batch rate (the providers' published half), else 1.
    """

    model_id: str
    provider_id: str
    model_ref: str = field(compare=False)
    batch: bool = False
    share: float = 1.0

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """genai-prices' cost of one exchange in USD; ``cached_input_tokens`` (of ``input_tokens``) are
        the provider's prompt-cache reads.

        Raises:
            OverflowError: The cost is too large to count (token counts past any real reply's).
        """
        inputs = max(input_tokens, 0)
        usage = genai_prices.Usage(
            input_tokens=inputs,
            cache_read_tokens=min(max(cached_input_tokens, 0), inputs),
            output_tokens=max(output_tokens, 0),
        )
        try:
            cost = float(self._calculation(usage).total_price) * self.share
        except OverflowError:
            cost = math.inf
        if not math.isfinite(cost):
            raise OverflowError(
                "the cost of this exchange is too large to count: its token counts are past any real reply's"
            )
        return cost

    def at_batch_rate(self) -> CatalogPrice:
        """The price of a request sent through the provider's batch API: genai-prices' batch rates
        for the model where it has them, else half its price (`BATCH_RATE`)."""
        if self.batch or self.share != 1.0:
            return self
        calculation = self._calculation(genai_prices.Usage(), batch=True)
        if any(variant.when == BATCH for variant in calculation.model.price_variants or ()):
            return _price_of(calculation, self.model_ref, self.provider_id, batch=True)
        cached = None if self.cached_input is None else self.cached_input * BATCH_RATE
        return replace(
            self,
            input=self.input * BATCH_RATE,
            output=self.output * BATCH_RATE,
            cached_input=cached,
            share=BATCH_RATE,
        )

    def _calculation(self, usage: Any, *, batch: bool | None = None) -> PriceCalculation:
        context = BATCH if (self.batch if batch is None else batch) else None
        return genai_prices.calc_price(
            usage,
            self.model_ref,
            provider_id=self.provider_id,
            genai_request_timestamp=datetime.now(UTC),
            price_context=context,
        )


def catalog_price(spec: str) -> CatalogPrice | None:
    """genai-prices' price of ``spec`` (``provider:model``) now; None when it does not know the model,
    or prices it other than per token.

    Examples:
        >>> catalog_price("openai:gpt-4o-2024-08-06").model_id
        'gpt-4o'
        >>> catalog_price("openai:my-finetune") is None, catalog_price("ollama:qwen2.5:7b") is None
        (True, True)
    """
    provider, _, model = spec.partition(":")
    provider_id = CATALOG_PROVIDERS.get(provider)
    if provider_id is None or not model:
        return None
    try:
        calculation = genai_prices.calc_price(genai_prices.Usage(), model, provider_id=provider_id)
    except LookupError:
        return None
    prices = calculation.model_price
    if prices.input_mtok is None or prices.output_mtok is None:  # priced per request or second: not here
        return None
    return _price_of(calculation, model, provider_id, batch=False)


def _price_of(calculation: PriceCalculation, model: str, provider_id: str, *, batch: bool) -> CatalogPrice:
    prices = calculation.model_price
    cached = prices.cache_read_mtok
    return CatalogPrice(
        _rate(prices.input_mtok),
        _rate(prices.output_mtok),
        None if cached is None else _rate(cached),
        model_id=calculation.model.id,
        provider_id=provider_id,
        model_ref=model,
        batch=batch,
    )


def _rate(value: Decimal | TieredPrices | None) -> float:
    """A rate per million tokens as a float: a tiered one's first tier."""
    if isinstance(value, TieredPrices):
        value = value.base
    return float(value or 0)
