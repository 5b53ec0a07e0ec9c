"""The shortcut for replies that open with a plain score line must agree with the full search."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from faceteval.errors import ParseError
from faceteval.parsing import ScoreParser

_CORPUS = yaml.safe_load((Path(__file__).with_name("corpus.yaml")).read_text(encoding="utf-8"))

TAILS = [
    "",
    "\nResponse 1 is more accurate.",
    "\n\nResponse 1: covers 3 points.\nResponse 2: 2 points, in 2023.",
    "\nScores: 4 4\nSecond thoughts aside, the first line stands.",
    "\nResponse 1: 3\nResponse 2: 9",
    "\n**Scores**\nBoth are fine; step 1 is missing in Response 2.",
    "\nResponse 3: 5",
]
HEADS = ["8 6", "8, 6", "7.5 9", "10 1", "0 6", "11 3", "8 6 7", "8", "  8   6  ", "\n\n8 6"]


def outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        scores = parse(text)
    except ParseError as error:
        return ("error", error.problem)
    return ("ok", (scores.values, scores.explanation))


def replies() -> list[str]:
    generated = [head + tail for head in HEADS for tail in TAILS]
    rng = random.Random(0)
    for _ in range(300):
        numbers = [str(rng.choice([0, 1, 5, 7, 9, 10, 12])) for _ in range(rng.choice([1, 2, 3]))]
        generated.append(rng.choice([" ", ", ", "  "]).join(numbers) + rng.choice(TAILS))
    return generated + [case["text"] for case in _CORPUS["scores"]]


@pytest.mark.parametrize(
    "labels", [["Response 1", "Response 2"], ["Response"], ["Response 1", "Response 2", "Response 3"]]
)
def test_shortcut_and_full_search_agree(labels: list[str]) -> None:
    parser = ScoreParser(labels, explained=True)
    taken = 0
    for text in replies():
        if not text.strip():
            continue
        taken += parser._plain_first_line(text) is not None
        assert outcome(parser.parse, text) == outcome(parser._parse_all, text), text
    assert taken > 50  # the shortcut is really exercised
