"""A --prices file is read as every YAML file is (no aliases, no repeated keys, UTF-8 named by line),
and no price or token count can make a cost infinite."""

from pathlib import Path

import pytest

from faceteval.core import Usage
from faceteval.errors import ConfigError, InputError
from faceteval.llm import LLM, Completion, ModelSpec, Price, PriceTable, ScriptedProvider, user
from faceteval.llm._spend import Spend

pytestmark = pytest.mark.anyio
SPEC = ModelSpec("openai", "judge")


def prices(tmp_path: Path, content: bytes) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_bytes(content)
    return path


def test_a_price_given_twice_is_refused_as_a_criteria_file_refuses_it(tmp_path: Path) -> None:
    path = prices(tmp_path, b"openai:judge: {input: 1, output: 2}\nopenai:judge: {input: 3, output: 4}\n")
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    assert (
        str(caught.value)
        == f"{path}:2: field 'openai:judge': the key 'openai:judge' is given twice (first on line 1)"
    )


def test_a_prices_file_may_start_with_a_bom_and_a_bad_byte_is_named_by_line(tmp_path: Path) -> None:
    path = prices(tmp_path, b"\xef\xbb\xbfopenai:judge: {input: 1, output: 2}\n")
    assert PriceTable.from_file(path).lookup("openai:judge") == Price(1.0, 2.0)
    path = prices(
        tmp_path, b"openai:judge: {input: 1, output: 2}\nopenai:x: {input: 1, output: 2} # caf\xe9\n"
    )
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    assert str(caught.value) == f"{path}:2: not UTF-8 text (invalid continuation byte at byte 38 of the line)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"a: &p {input: 1, output: 2}\nopenai:judge: *p\n",
            ":1: YAML anchors and aliases (&p) are not read",
        ),
        (b"openai:judge: {input: 1, output: " + b"[" * 100_000, ":1: nested more than 64 levels deep"),
    ],
)
def test_a_prices_file_with_an_alias_or_deep_nesting_is_named_by_line(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = prices(tmp_path, content)
    with pytest.raises(InputError) as caught:
        PriceTable.from_file(path)
    assert str(caught.value).startswith(f"{path}{message}")


@pytest.mark.parametrize("price", ["1e308", "1000001", "1.0e+7"])
def test_a_price_past_a_dollar_a_token_is_refused_before_it_can_overflow(tmp_path: Path, price: str) -> None:
    path = prices(tmp_path, f"openai:judge: {{input: 1, output: {price}}}\n".encode())
    with pytest.raises(ConfigError, match="prices are USD per million tokens, at most 1,000,000"):
        PriceTable.from_file(path)
    assert PriceTable.from_mapping({"openai:judge": {"input": 1, "output": 1e6}}, source="s").lookup(
        "openai:judge"
    ) == Price(1.0, 1e6)


def test_a_cost_past_the_largest_float_is_an_overflow_not_infinity() -> None:
    price = Price(1e6, 1e6)
    assert price.cost(1_000_000, 0) == 1e6
    for tokens in (10**303, 10**400):  # a float past its range, and an int no float can hold
        with pytest.raises(OverflowError, match="too large to count"):
            price.cost(tokens, 0)


async def test_a_reply_claiming_more_tokens_than_can_be_priced_is_of_unknown_cost(
    caplog: pytest.LogCaptureFixture,
) -> None:
    huge = Completion(text="8", input_tokens=10**303, output_tokens=1, model="judge")
    llm = LLM(ScriptedProvider.sequence([huge]), SPEC, prices=PriceTable({"openai:judge": Price(1e6, 1e6)}))
    exchange = await llm.generate([user("rate")])
    assert exchange.cost_usd is None
    assert not llm.spent.cost_known
    assert "too large to count" in caplog.text


def test_sums_of_costs_past_the_largest_float_are_unknown_not_infinite() -> None:
    spent = Spend()
    spent.count(cost_usd=1e308)
    spent.count(cost_usd=1e308)
    assert not spent.cost_known and spent.cost_usd == 1e308
    total = Usage(cost_usd=1e308) + Usage(cost_usd=1e308)
    assert total.cost_usd is None
