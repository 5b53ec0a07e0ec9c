"""ScoreParser on the replies GPT-4 and ChatGPT really gave in LLMBar's rating experiments.

LLMBar's ``Rating*`` strategies ask a judge for "one integer score 0-9" per output and store each
reply as ``score_1``/``score_2`` = ``[text, finish_reason]`` in the last element of a record's
``results``. LLMBar itself reads a reply with ``int(text)`` and records the pair's ``winner`` as::

    try:   winner(swap=False) = "1" if s1 > s2 else "2";  winner(swap=True) = "2" if s2 > s1 else "1"
    except: winner(swap=False) = "1";                       winner(swap=True) = "2"

(``LLMEvaluator/evaluate.py`` at the staged commit). So ``winner`` is never null for these
strategies: a tie goes to whichever output was presented second, and an unreadable reply silently
becomes a split decision. "Recorded winner not null" therefore cannot tell which replies LLMBar read;
``int(text)`` succeeding can, and that is what these tests use. Where we differ from LLMBar, on purpose:
LLMBar accepted "10" on its 0-9 scale; we reject it as out of scale.

The comparison strategies' replies (which pick "Output (a)" or "Output (b)") check the other
direction: none of them may be read as scores.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from faceteval.errors import ParseError
from faceteval.parsing import ScoreParser

_REPO_ROOT = Path(__file__).resolve().parents[3]
_PARSER = ScoreParser(("Output",), scale=(0, 9))


@dataclass(frozen=True)
class _Record:
    where: str
    reply_1: str
    reply_2: str
    winner: str | None
    winner_swapped: str | None


def _data_dir() -> Path:
    configured = os.environ.get("FACETEVAL_DATA_DIR")
    candidates = [Path(configured)] if configured else []
    candidates.append(_REPO_ROOT.parent / "shared" / "data")
    for candidate in candidates:
        if (candidate / "llmbar").is_dir():
            return candidate / "llmbar"
    tried = ", ".join(str(c) for c in candidates)
    pytest.fail(f"LLMBar data not found (tried {tried}); set FACETEVAL_DATA_DIR to the shared data directory")


@cache
def _records() -> tuple[_Record, ...]:
    root = _data_dir()
    records = []
    for path in sorted(root.glob("**/evaluators/*/Rating*/result.json")):
        for number, record in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            last = record["results"][-1]
            records.append(
                _Record(
                    where=f"{path.relative_to(root).parent}#{number}",
                    reply_1=last["score_1"][0],
                    reply_2=last["score_2"][0],
                    winner=last["swap = False"]["winner"],
                    winner_swapped=last["swap = True"]["winner"],
                )
            )
    return tuple(records)


def _llmbar_reads(text: str) -> int | None:
    """What LLMBar's ``int(text)`` made of a reply, or None where it raised."""
    try:
        return int(text)
    except ValueError:
        return None


def _ours(text: str) -> float | ParseError:
    try:
        return _PARSER.parse(text).values[0]
    except ParseError as error:
        return error


def test_the_rating_results_are_there() -> None:
    records = _records()
    files = {r.where.split("#")[0] for r in records}
    assert len(files) == 35, sorted(files)  # 5 sets x (5 GPT-4 + 2 ChatGPT strategies)
    assert len(records) == 2933


def test_every_reply_llmbar_read_on_its_scale_parses_to_the_same_number() -> None:
    outcomes: Counter[str] = Counter()
    for record in _records():
        for text in (record.reply_1, record.reply_2):
            theirs, ours = _llmbar_reads(text), _ours(text)
            if theirs is not None and 0 <= theirs <= 9:
                assert ours == theirs, f"{record.where}: {text!r} -> {ours}"
                outcomes["read by both"] += 1
            elif theirs is not None:
                assert isinstance(ours, ParseError), f"{record.where}: {text!r}"
                assert ours.problem == f"score {theirs} for Output is outside 0-9"
                outcomes["out of scale: LLMBar read it, we refuse"] += 1
            else:
                assert isinstance(ours, ParseError), f"{record.where}: {text!r} -> {ours}"
                outcomes[f"unreadable: {ours.problem}"] += 1
    assert outcomes == {
        "read by both": 5858,
        "out of scale: LLMBar read it, we refuse": 3,  # ChatGPT answered "10" on the 0-9 scale
        "unreadable: the reply is empty": 5,  # GPT-4 replies blocked by Azure's content filter
    }


def test_empty_replies_fail_loudly() -> None:
    empty = [r for r in _records() if "" in (r.reply_1, r.reply_2)]
    assert len(empty) == 5
    for record in empty:
        text = record.reply_1 if record.reply_1 == "" else record.reply_2
        with pytest.raises(ParseError, match="the reply is empty"):
            _PARSER.parse(text)


def test_our_scores_imply_llmbars_recorded_winners() -> None:
    kinds: Counter[str] = Counter()
    for record in _records():
        first, second = _ours(record.reply_1), _ours(record.reply_2)
        if isinstance(first, ParseError) or isinstance(second, ParseError):
            kinds["unparsed"] += 1
            continue
        if first != second:
            expected = "1" if first > second else "2"
            assert (record.winner, record.winner_swapped) == (expected, expected), record.where
            kinds["decided"] += 1
        else:
            # LLMBar breaks a tie in favour of the output it presented second: output 2 in the
            # original order, output 1 in the swapped one.
            assert (record.winner, record.winner_swapped) == ("2", "1"), record.where
            kinds["tie"] += 1
    assert kinds == {"decided": 2211, "tie": 714, "unparsed": 8}


def test_llmbar_winners_where_we_refuse_a_score() -> None:
    """Where our parse fails, LLMBar's winner came from its int() fallback or from reading "10"."""
    for record in _records():
        first, second = _ours(record.reply_1), _ours(record.reply_2)
        if not (isinstance(first, ParseError) or isinstance(second, ParseError)):
            continue
        theirs = (_llmbar_reads(record.reply_1), _llmbar_reads(record.reply_2))
        if None in theirs:
            assert (record.winner, record.winner_swapped) == ("1", "2"), record.where  # the except branch
        else:
            s1, s2 = theirs
            assert s1 is not None
            assert s2 is not None
            assert 10 in (s1, s2)
            expected = "1" if s1 > s2 else "2"
            assert record.winner == expected, record.where


def _comparison_replies() -> list[str]:
    """Every completion of LLMBar's comparison strategies (Vanilla, CoT, Swap, ...) on its Natural set."""
    root = _data_dir() / "LLMBar" / "Natural" / "evaluators"
    replies = []
    for path in sorted(root.glob("*/*/result.json")):
        if path.parent.name.startswith("Rating"):
            continue
        for record in json.loads(path.read_text(encoding="utf-8")):
            for step in record["results"]:
                if isinstance(step, dict):
                    replies += [v["completion"][0] for k, v in step.items() if k.startswith("swap")]
    return replies


@pytest.mark.parametrize(
    "parser",
    [ScoreParser(("Output (a)", "Output (b)")), ScoreParser(("Output",), scale=(0, 9))],
    ids=["pair", "single"],
)
def test_comparison_verdicts_are_never_read_as_scores(parser: ScoreParser) -> None:
    """Replies that pick "Output (a)" or "Output (b)", often after reasoning full of numbers, hold no scores.

    A parser that found scores in any of them would be inventing values.
    """
    replies = _comparison_replies()
    assert len(replies) == 6310
    misread = []
    for text in replies:
        with contextlib.suppress(ParseError):
            misread.append((text, parser.parse(text).values))
    assert misread == []
