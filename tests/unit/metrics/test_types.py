"""The result value objects and the package's public surface."""

import dataclasses
import json

import pytest

import faceteval.metrics
from faceteval.metrics import Correlation, PairedTest, Rate


def test_every_exported_name_exists() -> None:
    for name in faceteval.metrics.__all__:
        assert hasattr(faceteval.metrics, name), name


def test_rate_from_counts() -> None:
    assert Rate.from_counts(1, 4, missing=2, excluded=1) == Rate(0.25, 1, 4, 2, 1)
    assert Rate.from_counts(0, 0).value is None


def test_results_are_frozen() -> None:
    rate = Rate.from_counts(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rate.hits = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("result", "keys"),
    [
        (Rate.from_counts(3, 4, missing=1), {"value", "hits", "n", "missing", "excluded", "ci", "ci_method"}),
        (
            Correlation(0.5, 10, "kendall", p_value=0.04, ci=(0.1, 0.8)),
            {"value", "n", "method", "p_value", "missing", "skipped", "ci", "ci_method"},
        ),
        (
            PairedTest(0.1, 0.2, 30, "mcnemar-exact", b01=4, b10=1),
            {"difference", "p_value", "n", "method", "ci", "b01", "b10"},
        ),
    ],
)
def test_as_dict_is_plain_json(result: Rate | Correlation | PairedTest, keys: set[str]) -> None:
    data = result.as_dict()
    assert set(data) == keys
    assert json.loads(json.dumps(data)) == data


def test_as_dict_values() -> None:
    rate = dataclasses.replace(Rate.from_counts(3, 4, missing=1), ci=(0.5, 1.0), ci_method="bootstrap")
    assert rate.as_dict() == {
        "value": 0.75,
        "hits": 3,
        "n": 4,
        "missing": 1,
        "excluded": 0,
        "ci": [0.5, 1.0],
        "ci_method": "bootstrap",
    }
