"""Where a model's price comes from: genai-prices by default, a --prices file before it, the built-in
entries of local models; a model none of them knows is of unknown cost, never free."""

from pathlib import Path

import genai_prices
import pytest

from faceteval.llm import LLM, Completion, ModelSpec, Price, PriceTable, Quote, ScriptedProvider, user
from faceteval.llm._catalog import CATALOG_SOURCE
from faceteval.llm._pricing import BUILT_IN, UNKNOWN

pytestmark = pytest.mark.anyio

USAGE = [
    (1_200, 300, 0),
    (250_000, 4_000, 0),  # past a 200k-token prompt tier, where genai-prices has one
    (40_000, 1_000, 30_000),  # most of the prompt read from the provider's prompt cache
]
"""Input, output and cached input tokens of the exchanges priced."""


def own_cost(model: str, provider: str, tokens: tuple[int, int, int], **context: str) -> float:
    """genai-prices' own price of one exchange."""
    usage = genai_prices.Usage(input_tokens=tokens[0], output_tokens=tokens[1], cache_read_tokens=tokens[2])
    price = genai_prices.calc_price(usage, model, provider_id=provider, price_context=context or None)
    return float(price.total_price)


async def cost_of(spec: str, tokens: tuple[int, int, int], prices: PriceTable) -> float | None:
    reply = Completion(
        text="8", input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=tokens[2]
    )
    llm = LLM(ScriptedProvider.sequence([reply]), ModelSpec.parse(spec), prices=prices)
    return (await llm.generate([user("rate")])).cost_usd


@pytest.mark.parametrize(
    "spec",
    [
        "openai:gpt-4o-mini",
        "openai:gpt-4o-2024-08-06",
        "openai:o4-mini",
        "anthropic:claude-sonnet-4-5",
        "anthropic:claude-3-5-haiku-latest",
    ],
)
@pytest.mark.parametrize("tokens", USAGE)
async def test_a_known_models_cost_is_genai_prices_own(spec: str, tokens: tuple[int, int, int]) -> None:
    provider, _, model = spec.partition(":")
    quote = PriceTable.default().quote(spec)
    assert quote.source == CATALOG_SOURCE == f"genai-prices {genai_prices.__version__}"
    assert await cost_of(spec, tokens, PriceTable.default()) == pytest.approx(
        own_cost(model, provider, tokens)
    )


async def test_a_batch_request_is_priced_at_genai_prices_batch_rate_or_half() -> None:
    batch = PriceTable.default().lookup("openai:gpt-4o-mini")
    assert batch is not None
    tokens = (50_000, 2_000, 20_000)
    assert batch.at_batch_rate().cost(*tokens) == pytest.approx(
        own_cost("gpt-4o-mini", "openai", tokens, processing="batch")
    )
    no_batch_rate = PriceTable.default().lookup("openai:gpt-3.5-turbo-0613")  # none in genai-prices
    assert no_batch_rate is not None
    assert no_batch_rate.at_batch_rate().cost(*tokens) == pytest.approx(no_batch_rate.cost(*tokens) / 2)


async def test_a_prices_file_overrides_genai_prices(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("openai:gpt-4o-mini: {input: 1, output: 2}\n", encoding="utf-8")
    table = PriceTable.default().extended(PriceTable.from_file(path, source=f"--prices {path}"))
    assert table.quote("openai:gpt-4o-mini") == Quote(Price(1.0, 2.0), f"--prices {path}")
    assert table.quote("openai:gpt-4o-mini-2024-07-18").source == f"--prices {path}"  # its dated name too
    assert await cost_of("openai:gpt-4o-mini", (1000, 500, 0), table) == pytest.approx(2000 / 1e6)
    assert table.quote("openai:gpt-4o").source == CATALOG_SOURCE  # the rest still from genai-prices
    assert PriceTable.from_file(path).quote("openai:gpt-4o-mini").source == str(path)


@pytest.mark.parametrize(
    "spec", ["openai:my-finetune", "anthropic:claude-9-imaginary", "openai:gpt-4o-mini-x"]
)
async def test_a_model_genai_prices_does_not_know_is_of_unknown_cost_never_free(spec: str) -> None:
    table = PriceTable.default()
    assert table.quote(spec) == Quote(None, UNKNOWN)
    reply = Completion(text="8", input_tokens=100, output_tokens=10)
    llm = LLM(ScriptedProvider.sequence([reply]), ModelSpec.parse(spec), prices=table)
    assert (await llm.generate([user("rate")])).cost_usd is None
    assert not llm.spent.cost_known


def test_local_models_keep_their_built_in_price_and_a_local_endpoint_is_priced_by_its_model() -> None:
    table = PriceTable.default()
    for spec in ("ollama:qwen2.5:7b", "llamacpp:models/qwen.gguf"):
        assert table.quote(spec) == Quote(Price(0.0, 0.0), BUILT_IN)
    local = LLM.from_spec("openai:judge", base_url="http://127.0.0.1:8000/v1", api_key="x")
    assert local.prices.quote("openai:judge") == Quote(None, UNKNOWN)
    named = LLM.from_spec("openai:gpt-4o-mini", base_url="http://127.0.0.1:8000/v1", api_key="x")
    assert named.prices.quote("openai:gpt-4o-mini") == table.quote("openai:gpt-4o-mini")


def test_a_quote_says_its_rates_and_source() -> None:
    quote = PriceTable.default().quote("openai:gpt-4o")
    assert quote.price is not None
    assert quote.describe().endswith(
        f"per million tokens (${quote.price.cached_input:g} cached input), from {CATALOG_SOURCE}"
    )
    assert quote.as_dict() == {
        "source": CATALOG_SOURCE,
        "input": quote.price.input,
        "output": quote.price.output,
        "cached_input": quote.price.cached_input,
    }
