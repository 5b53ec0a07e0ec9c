"""The parsers against a corpus of realistic, messy replies (corpus.yaml)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from faceteval.errors import ParseError
from faceteval.parsing import CriteriaParser, ScoreParser, WeightParser

_CORPUS: dict[str, list[dict[str, Any]]] = yaml.safe_load(
    (Path(__file__).with_name("corpus.yaml")).read_text(encoding="utf-8")
)
_DEFAULT_LABELS = ["Response 1", "Response 2"]
_DEFAULT_NAMES = ["Accuracy", "Helpfulness", "Clarity"]


def _cases(section: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in _CORPUS[section]]


def _problem(parse: Any, text: str) -> str:
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert caught.value.raw == text, "ParseError must carry the raw reply"
    return caught.value.problem


def test_corpus_is_large_and_ids_are_unique() -> None:
    ids = [case["id"] for section in _CORPUS.values() for case in section]
    assert len(ids) >= 80
    for section in _CORPUS.values():
        assert len({case["id"] for case in section}) == len(section)


@pytest.mark.parametrize("case", _cases("scores"))
def test_scores(case: dict[str, Any]) -> None:
    parser = ScoreParser(
        case.get("labels", _DEFAULT_LABELS),
        scale=tuple(case.get("scale", (1, 10))),
        position=case.get("position", "first"),
    )
    if "problem" in case:
        assert case["problem"] in _problem(parser.parse, case["text"])
        return
    scores = parser.parse(case["text"])
    assert scores.values == pytest.approx(tuple(case["expect"]))
    if "explanation" in case:
        assert scores.explanation == case["explanation"]


@pytest.mark.parametrize("case", _cases("weights"))
def test_weights(case: dict[str, Any]) -> None:
    parser = WeightParser(case.get("names", _DEFAULT_NAMES))
    if "problem" in case:
        assert case["problem"] in _problem(parser.parse, case["text"])
        return
    weights = parser.parse(case["text"])
    expected = [value / sum(case["expect"]) for value in case["expect"]]
    assert weights == pytest.approx(tuple(expected))
    assert math.isclose(sum(weights), 1.0, abs_tol=1e-12)


@pytest.mark.parametrize("case", _cases("criteria"))
def test_criteria(case: dict[str, Any]) -> None:
    parser = CriteriaParser(case.get("count", 3))
    if "problem" in case:
        assert case["problem"] in _problem(parser.parse, case["text"])
        return
    criteria = parser.parse(case["text"])
    assert [[c.name, c.description] for c in criteria] == case["expect"]
