"""Cached input tokens, as the providers report them, through the official SDKs and a local server:
counted in usage, kept in the response cache, and priced at the table's cached-input price."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval.llm import LLM, Price, PriceTable, user
from faceteval.store import SQLiteCache
from tests.support.llm_server import LLMServer, Reply

pytestmark = pytest.mark.anyio
PRICES = PriceTable(
    {"openai:judge": Price(2.0, 8.0, cached_input=0.5), "anthropic:judge": Price(2.0, 8.0, 0.2)}
)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_cached_input_tokens_are_counted_kept_and_priced(tmp_path: Path, provider: str) -> None:
    with LLMServer() as server, SQLiteCache(tmp_path / "c.sqlite") as cache:
        server.enqueue(Reply("8 6", input_tokens=1000, output_tokens=100, cached_tokens=600))
        root = server.base_url if provider == "openai" else server.root_url
        llm = LLM.from_spec(f"{provider}:judge", base_url=root, api_key="x", prices=PRICES, cache=cache)
        try:
            exchange = await llm.generate([user("rate these")])
            again = await llm.generate([user("rate these")])
        finally:
            await llm.aclose()
    completion = exchange.completion
    assert (completion.input_tokens, completion.cached_input_tokens) == (1000, 600)
    cached_price = 0.5 if provider == "openai" else 0.2
    assert exchange.cost_usd == pytest.approx((400 * 2.0 + 600 * cached_price + 100 * 8.0) / 1e6)
    assert again.cached and again.completion.cached_input_tokens == 600
    assert (llm.spent.calls, llm.spent.input_tokens, llm.spent.cached_input_tokens) == (1, 1000, 600)


async def test_a_reply_without_cache_details_has_none(llm_server: LLMServer) -> None:
    llm_server.enqueue(Reply("8 6", input_tokens=1000, output_tokens=100))
    llm = LLM.from_spec("openai:judge", base_url=llm_server.base_url, api_key="x", prices=PRICES)
    try:
        exchange = await llm.generate([user("rate these")])
    finally:
        await llm.aclose()
    assert exchange.completion.cached_input_tokens == 0
    assert exchange.cost_usd == pytest.approx((1000 * 2.0 + 100 * 8.0) / 1e6)


def test_the_table_reads_a_cached_input_price_and_defaults_to_the_input_price() -> None:
    table = PriceTable.from_mapping(
        {"openai:a": {"input": 1, "output": 2, "cached_input": 0.25}, "openai:b": {"input": 1, "output": 2}},
        source="test",
    )
    assert table.lookup("openai:a") == Price(1.0, 2.0, 0.25)
    assert table.lookup("openai:b").cost(100, 0, cached_input_tokens=50) == pytest.approx(100 / 1e6)  # type: ignore[union-attr]
    default = PriceTable.default().lookup("openai:gpt-4o-mini")  # genai-prices' cached-input rate
    assert default is not None and default.cached_input is not None and default.cached_input < default.input
