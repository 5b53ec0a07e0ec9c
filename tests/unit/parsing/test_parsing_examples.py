"""Each parser's example parses back, its instructions say what it reads, and it fits the Parser protocol."""

from __future__ import annotations

import math
import re
from typing import Literal

import pytest

from faceteval.llm import Parser
from faceteval.parsing import CriteriaParser, ScoreParser, Scores, WeightParser

_LABEL_SETS = [
    ("Output",),
    ("Response",),
    ("Response 1", "Response 2"),
    ("Assistant A", "Assistant B", "Assistant C"),
    ("Output (a)", "Output (b)"),
    tuple(f"Response {k}" for k in range(1, 7)),
]


@pytest.mark.parametrize("labels", _LABEL_SETS, ids=lambda labels: f"{len(labels)}-{labels[0]}")
@pytest.mark.parametrize("scale", [(1, 10), (0, 9), (1, 5), (0, 1)], ids=lambda s: f"{s[0]}-{s[1]}")
@pytest.mark.parametrize("position", ["first", "last"])
@pytest.mark.parametrize("explained", [False, True], ids=["bare", "explained"])
def test_score_example_parses_back(
    labels: tuple[str, ...], scale: tuple[float, float], position: Literal["first", "last"], explained: bool
) -> None:
    parser = ScoreParser(labels, scale=scale, position=position, explained=explained)
    example = parser.example()
    scores = parser.parse(example)
    assert len(scores.values) == len(labels)
    assert all(scale[0] <= v <= scale[1] for v in scores.values)
    if explained:
        extra = 30 * max(0, len(labels) - 2)  # one more sentence per middle candidate
        assert 90 <= len(scores.explanation.split()) <= 160 + extra
        assert scores.explanation in example
        lines = example.splitlines()
        score_line = lines[0] if position == "first" else lines[-1]
        assert parser.parse(score_line).values == scores.values
    else:
        assert scores.explanation == ""


def test_score_instructions_name_the_labels_and_scale() -> None:
    parser = ScoreParser(("Response 1", "Response 2"))
    assert parser.instructions.startswith(
        "Give one score from 1 to 10 for each of Response 1, Response 2, on a single line, "
        "separated by a space."
    )
    last = ScoreParser(("Output",), scale=(0, 9), position="last", explained=True).instructions
    assert "from 0 to 9 for Output" in last
    assert "last line" in last


@pytest.mark.parametrize("count", range(1, 9))
def test_weight_example_parses_back(count: int) -> None:
    parser = WeightParser([f"Aspect {k}" for k in range(count)])
    example = parser.example()
    percents = [int(token.rstrip("%")) for token in example.split()]
    assert sum(percents) == 100
    assert all(p > 0 for p in percents)
    weights = parser.parse(example)
    assert weights == pytest.approx(tuple(p / 100 for p in percents))
    assert math.isclose(sum(weights), 1.0, abs_tol=1e-12)
    assert example in parser.instructions


@pytest.mark.parametrize("count", [None, 1, 2, 3, 5, 8, 12])
def test_criteria_example_parses_back(count: int | None) -> None:
    parser = CriteriaParser(count)
    example = parser.example()
    criteria = parser.parse(example)
    assert len(criteria) == (count or 3)
    assert all(c.name.endswith("?") and c.description == "" for c in criteria)
    assert all(re.match(r"^\d+\. ", line) for line in example.splitlines())


def test_criteria_instructions_state_the_count() -> None:
    assert "exactly 4 criteria" in CriteriaParser(4).instructions
    assert "numbered list" in CriteriaParser().instructions


def test_parsers_satisfy_the_parser_protocol() -> None:
    score_parser: Parser[Scores] = ScoreParser(("Output",))
    weight_parser: Parser[tuple[float, ...]] = WeightParser(["Accuracy"])
    criteria_parser: Parser[object] = CriteriaParser(2)
    for parser in (score_parser, weight_parser, criteria_parser):
        assert isinstance(parser.instructions, str)
        assert parser.instructions
        parser.parse(parser.example())
