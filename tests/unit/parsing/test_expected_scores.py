"""Expected scores from token log-probabilities: where each score is, and its distribution (hand-computed)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest

from faceteval.llm import TokenLogprob
from faceteval.methods.coeval._parsers import CriterionParser, OverallParser
from faceteval.methods.fennec._parsers import JudgeResultParser
from faceteval.parsing import NO_LOGPROBS, ScoreParser, ScoreReader
from faceteval.parsing.internal import score_sources

PAIR = ScoreParser(["Response 1", "Response 2"], explained=True)
ONE = ScoreParser(["Response"], explained=True)


def tok(text: str, top: Mapping[str, float] | None = None) -> TokenLogprob:
    """A token with its alternatives given as probabilities (its own: its entry, else 0.9)."""
    top = top or {}
    alternatives = tuple((t, math.log(p)) for t, p in top.items())
    return TokenLogprob(text, math.log(top.get(text, 0.9)), alternatives)


def words(text: str) -> list[TokenLogprob]:
    """Plain tokens without alternatives."""
    return [tok(part) for part in text.split("|")]


def sources(parser: ScoreParser, text: str, tokens: Sequence[TokenLogprob] | None):  # type: ignore[no-untyped-def]
    return score_sources(text, tokens, lambda t: parser.scores_of(parser.parse(t)), parser.scale)


def test_single_digit_expected_score() -> None:
    # (8 x .6 + 7 x .2 + 9 x .1) / (.6 + .2 + .1): the newline's .05 is not a score
    tokens = [tok("8", {"8": 0.6, "7": 0.2, "9": 0.1, "\n": 0.05}), *words("\n|Good.")]
    (source,) = sources(ONE, "8\nGood.", tokens)
    assert source.mode == "logprobs"
    assert source.written == 8
    assert source.score == pytest.approx(7.1 / 0.9)
    assert dict(source.distribution or []) == pytest.approx({7: 0.2 / 0.9, 8: 0.6 / 0.9, 9: 0.1 / 0.9})


def test_two_scores_on_one_line_each_get_their_own_token() -> None:
    tokens = [
        tok("8", {"8": 0.5, "7": 0.4, "9": 0.1}),
        tok(" "),
        tok("8", {"8": 0.5, "9": 0.4, "7": 0.1}),
        *words("\n|Both| fine."),
    ]
    first, second = sources(PAIR, "8 8\nBoth fine.", tokens)
    assert first.score == pytest.approx(7.7)  # 8 x .5 + 7 x .4 + 9 x .1
    assert second.score == pytest.approx(8.3)  # 8 x .5 + 9 x .4 + 7 x .1


def test_ten_in_one_digit_tokens_follows_the_next_position() -> None:
    # "10" as "1", "0": P(10) = .6 x .8/(.8+.2), P(1) = .6 x .2/(.8+.2); then 9 (.3) and 8 (.05)
    tokens = [
        tok("1", {"1": 0.6, "9": 0.3, "8": 0.05}),
        tok("0", {"0": 0.8, " ": 0.2}),
        tok(" "),
        tok("6"),
        *words("\n|ok"),
    ]
    first, _ = sources(PAIR, "10 6\nok", tokens)
    assert first.score == pytest.approx((10 * 0.48 + 1 * 0.12 + 9 * 0.3 + 8 * 0.05) / 0.95)
    assert dict(first.distribution or []) == pytest.approx(
        {1: 0.12 / 0.95, 8: 0.05 / 0.95, 9: 0.3 / 0.95, 10: 0.48 / 0.95}
    )


def test_a_continuation_off_the_scale_takes_its_share_of_the_first_digit_with_it() -> None:
    # "1" then "0" (.5), " " (.1) or "1" (.4): 11 is off 1-10. By the chain rule P(10) = .6 x .5 and
    # P(1) = .6 x .1; 11's .24 is left out with every number off the scale, and the whole numbers on it
    # are renormalised once, at the end. (Renormalising the next position over 10 and 1 alone first
    # would give them the first digit's whole .6, 11's share too.)
    tokens = [
        tok("1", {"1": 0.6, "9": 0.3, "8": 0.05}),
        tok("0", {"0": 0.5, " ": 0.1, "1": 0.4}),
        tok(" "),
        tok("6"),
        *words("\n|ok"),
    ]
    first, _ = sources(PAIR, "10 6\nok", tokens)
    assert first.score == pytest.approx((10 * 0.3 + 1 * 0.06 + 9 * 0.3 + 8 * 0.05) / 0.71)
    assert dict(first.distribution or []) == pytest.approx(
        {1: 0.06 / 0.71, 8: 0.05 / 0.71, 9: 0.3 / 0.71, 10: 0.3 / 0.71}
    )
    two_kinds = (10 * 0.6 * 0.5 / 0.6 + 1 * 0.6 * 0.1 / 0.6 + 9 * 0.3 + 8 * 0.05) / 0.95
    assert first.score == pytest.approx(8.6761, abs=5e-5) and two_kinds == pytest.approx(8.6316, abs=5e-5)


def test_an_alternative_one_is_left_out_when_digits_are_split() -> None:
    # "1" instead of "8" could be 1 or the start of 10: its continuation is unknown, so it is left out
    tokens = [tok("8", {"8": 0.5, "1": 0.3, "7": 0.2}), *words("\n|ok")]
    (source,) = sources(ONE, "8\nok", tokens)
    assert source.score == pytest.approx((8 * 0.5 + 7 * 0.2) / 0.7)


def test_an_alternative_one_counts_when_the_tokenizer_merges_digits() -> None:
    # a "10" token among the alternatives: this tokenizer writes 10 in one token, so "1" is 1
    tokens = [tok("8", {"8": 0.5, "10": 0.1, "1": 0.2, "7": 0.2}), *words("\n|ok")]
    (source,) = sources(ONE, "8\nok", tokens)
    assert source.score == pytest.approx(8 * 0.5 + 10 * 0.1 + 1 * 0.2 + 7 * 0.2)


def test_alternatives_must_begin_as_the_emitted_token_does() -> None:
    # GPT-2-style " 8": " 9" is an alternative, "9" (no space) another path
    tokens = [*words("Score|:"), tok(" 8", {" 8": 0.7, " 9": 0.2, "9": 0.1}), *words("\n|Fine.")]
    (source,) = sources(ONE, "Score: 8\nFine.", tokens)
    assert source.score == pytest.approx((8 * 0.7 + 9 * 0.2) / 0.9)


def test_a_number_in_the_explanation_is_not_the_score() -> None:
    text = "Response 1 has 8 steps.\nResponse 1: 8\nResponse 2: 6"
    tokens = [
        *words("Response| 1| has| "),
        tok("8", {"8": 0.5, "3": 0.5}),  # the prose "8": were it taken, the score would move to 5.5
        *words(" steps|.\n|Response| 1|: "),
        tok("8", {"8": 0.75, "9": 0.25}),
        *words("\n|Response| 2|: "),
        tok("6", {"6": 1.0}),
    ]
    first, second = sources(PAIR, text, tokens)
    assert first.score == pytest.approx(8.25)
    assert (second.mode, second.score) == ("logprobs", 6)


def test_bytes_of_a_character_cut_between_tokens_are_skipped() -> None:
    text = "Nice \N{THUMBS UP SIGN} work.\n8"
    tokens = [
        *words("Nice| "),
        tok("bytes:\\xf0\\x9f"),
        tok("\\x91\\x8d"),
        *words(" work|.|\n"),
        tok("8", {"8": 0.5, "6": 0.5}),
    ]
    (source,) = sources(ScoreParser(["Response"], position="last", explained=True), text, tokens)
    assert source.score == pytest.approx(7)


@pytest.mark.parametrize(
    ("text", "tokens", "reason"),
    [
        ("8\nok", None, NO_LOGPROBS),
        ("8\nok", words("9|\n|ok"), "the tokens do not spell the reply"),
        ("8\nok", words("8|\n|ok"), "the server sent no top log-probabilities at the score's token"),
        ("7.5\nok", words("7|.|5|\n|ok"), "the score is not a whole number"),
    ],
)
def test_falls_back_to_the_written_score(text: str, tokens: list[TokenLogprob] | None, reason: str) -> None:
    (source,) = sources(ONE, text, tokens)
    assert (source.mode, source.score, source.reason) == ("parse", source.written, reason)


def test_numbers_off_the_scale_and_other_text_are_left_out() -> None:
    tokens = [tok("8", {"8": 0.6, "11": 0.2, "\n": 0.2}), *words("\n|ok")]
    (source,) = sources(ONE, "8\nok", tokens)
    assert (source.mode, source.score, source.distribution) == ("logprobs", 8, [(8, 1.0)])


def test_a_score_written_twice_where_both_count_is_not_located() -> None:
    # a parser that reads the sum of two numbers: either one moves it, so neither is its place
    class Sum:
        scale = (1.0, 10.0)

        def read(self, text: str) -> tuple[float, ...]:
            first, second = (int(x) for x in text.split())
            return (float(first + second),)

    (source,) = score_sources(
        "4 4", [tok("4", {"4": 0.5}), tok(" "), tok("4", {"4": 0.5})], Sum().read, Sum.scale
    )
    assert (source.mode, source.reason) == ("parse", "the score could not be located in the reply")


@pytest.mark.parametrize(
    ("parser", "text", "tokens", "expected"),
    [
        (
            CriterionParser("Clarity", 1, (1, 5)),
            '1. Conclusion: Clear.\n2. Score: 4 out of 5\n3. Evidence:\n- "x"',
            [
                *words("1|.| Conclusion|: Clear|.\n|2|.| Score|: "),
                tok("4", {"4": 0.5, "5": 0.5}),
                *words(' out| of| 5|\n|3|.| Evidence|:\n|- "x"'),
            ],
            4.5,
        ),
        (
            OverallParser(1, (1, 5)),
            "1. Weighing it all.\n\n2. Score: 3",
            [
                *words("1|.| Weighing| it| all|.\n\n|2|.| Score|: "),
                tok("3", {"3": 0.5, "2": 0.25, "4": 0.25}),
            ],
            3,
        ),
        (
            JudgeResultParser(["Response A", "Response B"], (1, 5)),
            "Response A Score: 2\nExplanation: thin.\nResponse B Score: 4\nExplanation: good.",
            [
                *words("Response| A| Score|: "),
                tok("2", {"2": 0.8, "1": 0.2}),
                *words("\n|Explanation|: thin|.\n|Response| B| Score|: "),
                tok("4", {"4": 0.6, "5": 0.4}),
                *words("\n|Explanation|: good|."),
            ],
            (1.8, 4.4),
        ),
    ],
)
def test_every_family_parser_locates_its_scores(
    parser: ScoreReader[object], text: str, tokens: list[TokenLogprob], expected: float | tuple[float, ...]
) -> None:
    assert isinstance(parser, ScoreReader)
    read = lambda t: parser.scores_of(parser.parse(t))  # type: ignore[attr-defined]  # noqa: E731
    found = score_sources(text, tokens, read, parser.scale)
    wanted = expected if isinstance(expected, tuple) else (expected,)
    assert [s.mode for s in found] == ["logprobs"] * len(wanted)
    assert [s.score for s in found] == pytest.approx(list(wanted))
    rescored = parser.rescored(parser.parse(text), found)  # type: ignore[attr-defined]
    assert parser.scores_of(rescored) == pytest.approx(wanted)
