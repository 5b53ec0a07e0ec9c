"""Fennec's replies: criteria, 1-5 scoring guidelines, per-criterion judge results, rewrites; and for
bridging, the criteria recovered from a recorded judgment and a regenerated final decision.

The judge result follows the format Fennec's prompts ask for (Table 9)::

    Response A Score: 4
    Explanation: ...
    Response B Score: 2
    Explanation: ...
    Comparison: ...

Markdown emphasis, ``4/5``, ``Score for Response A: 4`` and ``Response A: 4`` are read too. A label
without a score, a score off the 1-5 scale, a score given out of another maximum (``4/10``, ``4 out of
10``), a range (``2-5``, ``2 to 5``) or a refusal is a problem to re-ask about; no score is rescaled or
picked from a range.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from faceteval._util.numbers import (
    OUT_OF,
    RANGE_END,
    UNSIGNED,
    denominator_problem,
    describe_range,
    fmt,
    range_problem,
)
from faceteval._util.replies import is_refusal, plain, quote
from faceteval._util.text import plural
from faceteval.core import Criterion, ScoreSource
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.methods.fennec._replies import (
    decision_reply,
    guideline_reply,
    judge_result_reply,
    rewrite_reply,
)
from faceteval.parsing import CriteriaParser

FENNEC_SCALE = (1.0, 5.0)

_CRITERIA_EXAMPLE = (
    "Relevance: Evaluate whether the response is directly related to the user's query.",
    "Accuracy: Assess the correctness of the information provided in the response.",
    "Comprehensiveness: Assess whether the response covers every part of the query.",
    "Clarity: Evaluate whether the response is clearly organised and easy to follow.",
    "Conciseness: Evaluate whether the response avoids digressions and redundancy.",
)


class FennecCriteriaParser(CriteriaParser):
    """Exactly ``count`` criteria written as ``Name: what it evaluates``."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        return (
            f'List exactly {plural(self.count, "evaluation criterion")} as a numbered list ("1. ", "2. ", '
            '...), one per line, each as "Name: what it evaluates".'
        )

    def example(self) -> str:
        """A well-formed reply of ``count`` criteria."""
        items = [
            _CRITERIA_EXAMPLE[k] if k < len(_CRITERIA_EXAMPLE) else f"Criterion {k + 1}: Aspect {k + 1}."
            for k in range(self.count)
        ]
        return "\n".join(f"{k + 1}. {item}" for k, item in enumerate(items))

    def parse(self, text: str) -> tuple[Criterion, ...]:
        """The criteria, or `ParseError` for a refusal, no list, or the wrong count."""
        if is_refusal(text):
            raise ParseError(f"the reply is a refusal, not criteria: {quote(text)}", raw=text)
        return super().parse(text)


_GUIDELINE_LABEL = re.compile(r"^\W*\[?\s*scoring\s+guidelines?\s*\]?\s*:?\s*", re.I)


class GuidelineParser:
    """A 1-5 scoring guideline: free text that describes every score from 1 to 5."""

    instructions = (
        "Write the scoring guideline as five entries, one per score from 1 to 5 "
        '("1. Not at all satisfactory: ...", ..., "5. Extremely satisfactory: ..."), each saying what a '
        "response with that score is like."
    )

    def json_reply(self) -> JsonReply[str]:
        """The guideline as JSON (structured output): five descriptions, one per score."""
        return guideline_reply(self.parse, self.example())

    def parse(self, text: str) -> str:
        """The guideline text (a leading ``[Scoring Guideline]:`` label removed).

        Raises:
            ParseError: The reply is empty, a refusal, or does not describe each score 1-5.
        """
        body = _GUIDELINE_LABEL.sub("", text.strip(), count=1).strip()
        if not body:
            raise ParseError("the reply is empty", raw=text)
        if is_refusal(body):
            raise ParseError(f"the reply is a refusal, not a scoring guideline: {quote(body)}", raw=text)
        missing = [k for k in range(1, 6) if not re.search(rf"(?<![\d.]){k}(?![\d])", body)]
        if missing:
            listed = ", ".join(str(k) for k in missing)
            raise ParseError(f"the guideline does not describe score {listed}", raw=text)
        return body

    def example(self) -> str:
        """A well-formed guideline."""
        levels = (
            "Not at all satisfactory: the response ignores the criterion.",
            "Slightly satisfactory: the response meets a small part of the criterion.",
            "Fairly satisfactory: the response meets the criterion with clear gaps.",
            "Very satisfactory: the response meets the criterion with minor gaps.",
            "Extremely satisfactory: the response meets the criterion fully.",
        )
        return "\n".join(f"{k}. {text}" for k, text in enumerate(levels, start=1))


@dataclass(frozen=True, slots=True)
class Judged:
    """One criterion's judge result.

    Attributes:
        values: Score per response, in the order the labels were given.
        explanations: The explanation of each score (empty when the judge wrote none).
        comparison: The comparison of the responses, when the judge wrote one.
        sources: How each score was obtained, with ``--score-mode logprobs``; else None.
    """

    values: tuple[float, ...]
    explanations: tuple[str, ...]
    comparison: str | None = None
    sources: tuple[ScoreSource | None, ...] | None = None


_COMPARISON = re.compile(r"^\W*comparison\b\W*", re.I | re.M)
_EXPLANATION = re.compile(r"^\W*explanation\s*:?\s*", re.I)


class JudgeResultParser:
    """Reads ``<label> Score: n`` and the explanation after it for each label, then the comparison.

    Args:
        labels: How the prompt names the responses (``Response A``, ``Response B``; ``Response``).
        scale: The (low, high) score range.

    Examples:
        >>> reply = "Response A Score: 2\\nExplanation: thin.\\nResponse B Score: 4\\nExplanation: good."
        >>> JudgeResultParser(["Response A", "Response B"]).parse(reply).values
        (2.0, 4.0)
    """

    def __init__(self, labels: Sequence[str], scale: tuple[float, float] = FENNEC_SCALE) -> None:
        if not labels:
            raise ValueError("at least one label")
        self.labels = tuple(labels)
        self.scale = scale
        self._patterns = [_score_line(label) for label in self.labels]

    def scores_of(self, value: Judged) -> tuple[float, ...]:
        """The scores read (`faceteval.parsing.ScoreReader`)."""
        return value.values

    def rescored(self, value: Judged, sources: Sequence[ScoreSource]) -> Judged:
        """``value`` with the sources' scores (`faceteval.parsing.ScoreReader`)."""
        return replace(value, values=tuple(s.score for s in sources), sources=tuple(sources))

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        low, high = self.scale
        lines = " ".join(
            f'"{label} Score: <{describe_range(low, high)}>" then "Explanation: ..."' for label in self.labels
        )
        comparison = ', then "Comparison: ..."' if len(self.labels) > 1 else ""
        return f"For each response write {lines}{comparison}."

    def example(self) -> str:
        """A well-formed reply."""
        parts = [
            f"{label} Score: {fmt(self.scale[1] - k % 2)}\nExplanation: {label} matches the guideline's "
            "description of this score: it covers the query with one small gap."
            for k, label in enumerate(self.labels)
        ]
        if len(self.labels) > 1:
            parts.append(f"Comparison: {self.labels[0]} is more complete than {self.labels[1]}.")
        return "\n".join(parts)

    def json_reply(self) -> JsonReply[Judged]:
        """The judge result as JSON (structured output): scores, explanations, a comparison."""
        reply: JsonReply[Judged] = judge_result_reply(self.labels, self.scale, Judged, self.example())
        return reply

    def parse(self, text: str) -> Judged:
        """The scores, explanations and comparison.

        Raises:
            ParseError: A refusal, a response without a score, a score given out of another maximum
                than the scale's ("4/10"), a range ("2-5"), or a score off the scale.
        """
        body = plain_lines(text)
        if not body.strip():
            raise ParseError("the reply is empty", raw=text)
        found: list[tuple[int, int, float]] = []
        for label, pattern in zip(self.labels, self._patterns, strict=True):
            match = pattern.search(body)
            if match is None:
                if is_refusal(text):
                    raise ParseError(f"the reply is a refusal, not a judge result: {quote(text)}", raw=text)
                raise ParseError(f'no score for {label} (write "{label} Score: <n>")', raw=text)
            end = self._check_written(label, body, match, text)
            found.append((match.start(), end, float(match.group("score"))))
        comparison_at = _COMPARISON.search(body, max(end for _, end, _ in found))
        stop = comparison_at.start() if comparison_at else len(body)
        explanations = []
        for start, end, _ in found:
            until = min([s for s, _, _ in found if s > start] + [max(stop, end)])
            explanations.append(_EXPLANATION.sub("", body[end:until].strip(), count=1).strip())
        comparison = body[comparison_at.end() :].strip() if comparison_at else None
        return Judged(tuple(v for _, _, v in found), tuple(explanations), comparison or None)

    def _check_written(self, label: str, body: str, match: re.Match[str], text: str) -> int:
        """Where ``label``'s score (and its denominator) ends in ``body``; raises `ParseError`.

        The score must be one number on the scale; a denominator is allowed only when it is the scale's top.
        """
        end = match.end("score")
        if (denominator := OUT_OF.match(body, end)) is not None:
            end = denominator.end()
            score = f"the score of {label} ({quote(body[match.start('score') : end])})"
            if problem := denominator_problem(score, denominator["denominator"], self.scale):
                raise ParseError(problem, raw=text)
        value = float(match.group("score"))
        low, high = self.scale
        if (ranged := RANGE_END.match(body, end)) is not None:
            top = OUT_OF.match(body, ranged.end())
            # "2-5" and "3/5-4/5" are ranges; "4 - 2 minor errors" and "4/5 - 1 error" are a score and a
            # remark: a range rises on the scale, and after a denominator it ends with one too
            if top is not None if denominator else value < float(ranged["end"]) <= high:
                stop = top.end() if top is not None else ranged.end()
                score = f"the score of {label} ({quote(body[match.start('score') : stop])})"
                raise ParseError(range_problem(score), raw=text)
        if not low <= value <= high:
            raise ParseError(
                f"the score of {label} is {fmt(value)}, outside {describe_range(low, high)}", raw=text
            )
        return end


def _score_line(label: str) -> re.Pattern[str]:
    words = r"\s+".join(re.escape(word) for word in label.split())
    return re.compile(
        rf"^\W*(?:score\s+(?:for|of)\s+{words}|{words}(?:'s)?(?:\s+score)?)\s*[:=\-]?\s*(?:score\s*[:=]?\s*)?"
        rf"(?P<score>{UNSIGNED})",
        re.I | re.M,
    )


def plain_lines(text: str) -> str:
    """``text`` with markdown emphasis and heading marks removed from every line."""
    return "\n".join(plain(line) for line in text.strip().splitlines())


_REWRITE_LABEL = re.compile(r"^\W*\[?\s*modified\s+response\s*\]?\s*:?\s*", re.I)


class RewriteParser:
    """A rewritten response: the reply, without a leading ``[Modified Response]:`` label."""

    instructions = "Reply with the modified response itself, and nothing else."

    def json_reply(self) -> JsonReply[str]:
        """The rewrite as JSON (structured output)."""
        return rewrite_reply(self.parse, self.example())

    def parse(self, text: str) -> str:
        """The rewrite.

        Raises:
            ParseError: The reply is empty or a refusal.
        """
        body = _REWRITE_LABEL.sub("", text.strip(), count=1).strip()
        if not body:
            raise ParseError("the reply is empty", raw=text)
        if is_refusal(body) and len(body) < 200:
            raise ParseError(f"the reply is a refusal, not a modified response: {quote(body)}", raw=text)
        return body

    def example(self) -> str:
        """A rewrite of typical length."""
        return " ".join(["The corrected response addresses every point the evaluation raised."] * 8)


# -- bridging (`faceteval.methods.fennec.bridge`) -------------------------------------------------------

MAX_CRITERIA = 10
"""The most criteria a recovered list may hold."""

_DECISION = re.compile(
    r"final\s+decision\s*(?:is|:)?\s*[:\-]?\s*\W*(?:(?P<tie>tie)|response\s*(?P<n>[12]))\b(?!\s*/)", re.I
)


class DecisionParser:
    """The final decision of a pairwise judgment: ``So, the final decision is Response 1 / Response 2 / Tie``.

    The last decision stated counts; the template's own "Response 1 / Response 2 / Tie" repeated back
    is no decision.

    Examples:
        >>> DecisionParser().parse("Response 2 misses a step. So, the final decision is Response 1.")
        1
        >>> DecisionParser().parse("Both are equally good. So, the final decision is Tie.")
        0
    """

    instructions = (
        'End with your final decision as one of "So, the final decision is Response 1", '
        '"So, the final decision is Response 2" or "So, the final decision is Tie".'
    )

    def json_reply(self) -> JsonReply[int]:
        """The decision as JSON (structured output): the judgment, then Response 1, Response 2 or Tie."""
        return decision_reply(self.example())

    def parse(self, text: str) -> int:
        """1 or 2 for the better response, 0 for a tie.

        Raises:
            ParseError: The reply is empty, a refusal, or states no final decision.
        """
        body = plain_lines(text)
        if not body:
            raise ParseError("the reply is empty", raw=text)
        found = list(_DECISION.finditer(body))
        if not found:
            if is_refusal(body):
                raise ParseError(f"the reply is a refusal, not a judge result: {quote(body)}", raw=text)
            raise ParseError(
                'no final decision (end with "So, the final decision is Response 1", "... Response 2" '
                'or "... Tie")',
                raw=text,
            )
        last = found[-1]
        return 0 if last["tie"] else int(last["n"])

    def example(self) -> str:
        """A well-formed judgment."""
        return (
            "Response 1 answers every part of the query and follows the scoring guideline's description of "
            "a 5; Response 2 leaves out the second part. So, the final decision is Response 1."
        )


class ReverseCriteriaParser:
    """One to ``limit`` criteria written as ``Name: what it evaluates``."""

    def __init__(self, limit: int = MAX_CRITERIA) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.limit = limit
        self._items = CriteriaParser()

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        return (
            f"List the evaluation criteria the judge result applied, one to {self.limit} of them, as a "
            'numbered list ("1. ", "2. ", ...), one per line, each as "Name: what it evaluates".'
        )

    def example(self) -> str:
        """A well-formed reply of three criteria."""
        return FennecCriteriaParser(3).example()

    def json_reply(self) -> JsonReply[tuple[Criterion, ...]]:
        """The criteria as JSON (structured output): one to ``limit`` of them."""
        return self._items.json_reply(limit=self.limit)

    def parse(self, text: str) -> tuple[Criterion, ...]:
        """The criteria.

        Raises:
            ParseError: A refusal, no list, a repeated name, or more than ``limit`` criteria.
        """
        if is_refusal(text):
            raise ParseError(f"the reply is a refusal, not criteria: {quote(text)}", raw=text)
        criteria = self._items.parse(text)
        if len(criteria) > self.limit:
            raise ParseError(
                f"expected at most {plural(self.limit, 'criterion')} but found {len(criteria)}", raw=text
            )
        return criteria
