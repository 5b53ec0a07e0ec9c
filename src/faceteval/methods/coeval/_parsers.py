"""CoEval's replies: a criterion evaluation (conclusion, score, evidence), an overall evaluation, and a
task's criteria (`TaskCriteriaParser`).

Li et al., "Collaborative Evaluation" (Appendices A and C). Scores are read as Appendix C says: the
score part of the reply (the "2." item, or a "Score:" line) loses "out of N" and "/N" (and scale
mentions such as "(1-5)"), and its first number is the score. Where the reply has no score part, the
project's `ScoreParser` reads it; where its score part holds no number (the reply numbered its
own steps) and its conclusion is a bare number ("Conclusion: 3"), that number. A denominator other
than the scale's top, a range ("4-5"), or a score off the scale is a parse failure (re-asked once),
never repaired.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from faceteval._util.numbers import OUT_OF, RANGE_END, denominator_problem, describe_range, fmt, range_problem
from faceteval._util.replies import quote
from faceteval.core import Criterion, ScoreSource
from faceteval.errors import ParseError
from faceteval.llm import JsonReply
from faceteval.methods.coeval._replies import criterion_reply, overall_reply
from faceteval.parsing import CriteriaParser, ScoreParser

_CRITERION_FORM = ("conclusion", "score", "evidence")
_OVERALL_FORM = ("conclusion", "score")
_KINDS = {"conclusion": "conclusion", "explanation": "conclusion", "reasoning": "conclusion"}
_KINDS |= {"score": "score", "rating": "score", "evidence": "evidence"}
_LEAD = re.compile(r"(?:#{1,6}[ \t]*|>[ \t]*)?(?:[*_]{1,3}(?=\S))?")
_ITEM = re.compile(r"(\d{1,2})[.)](?:[ \t]+|(?=[*_])|$)")
_LABEL = re.compile(
    r"(?:[*_]{1,3}(?=\S))?(?:(?:overall|final|evaluation)[ \t]+)?"
    r"(conclusion|explanation|reasoning|score|rating|evidence)s?[*_]*"
    r"[ \t]*(?:\([^)\n]*\)[ \t]*)?[*_]*[ \t]*(?:[:：][*_]*[ \t]*|$)",
    re.IGNORECASE,
)
_NUM = r"\d+(?:\.\d+)?"
_SCALE_MENTION = re.compile(
    rf"\(\s*{_NUM}\s*(?:-|–|to)\s*{_NUM}\s*\)|(?:on\s+)?(?:a\s+)?scale\s+(?:of|from)\s+{_NUM}\s*(?:-|–|to)\s*{_NUM}",
    re.IGNORECASE,
)
_FIRST = re.compile(rf"(?<![\w.])[-+]?{_NUM}(?!\w)")
_BARE = re.compile(rf"[*_]*{_NUM}(?:[ \t]*(?:/|out of)[ \t]*{_NUM})?[*_]*[ \t]*\.?", re.IGNORECASE)
"""A part that is a number and nothing more ("3", "**4**", "4/5")."""
_BULLET = re.compile(r"^(?:[-*•]|\d{1,2}[.)])[ \t]+")


@dataclass(frozen=True, slots=True)
class CriterionEvaluation:
    """What one criterion evaluation of one candidate said (a trace's ``parsed`` value).

    Attributes:
        criterion: The criterion's name.
        candidate: The candidate evaluated, 1-based in the instance's original order.
        score: The score, on the criterion's scale.
        conclusion: The conclusion, as written.
        score_text: The score part as written ("I would assign a score of 4 ...").
        evidence: The evidence items as written, bullets removed.
        explanation: The whole reply (the assistant turn of the overall call's history).
        source: How the score was obtained, with ``--score-mode logprobs``; else None.
    """

    criterion: str
    candidate: int
    score: float
    conclusion: str
    score_text: str
    evidence: tuple[str, ...]
    explanation: str
    source: ScoreSource | None = None

    def summary(self) -> str:
        """The evaluation as ``Conclusion: ...``, ``Score: ...``, ``Evidence:`` + ``- item`` lines."""
        parts = [f"Conclusion: {self.conclusion}"] if self.conclusion else []
        parts.append(f"Score: {self.score_text}")
        if self.evidence:
            parts.append("Evidence:\n" + "\n".join(f"- {item}" for item in self.evidence))
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class OverallEvaluation:
    """The overall score of one candidate and the reasoning behind it (a trace's ``parsed`` value).

    Attributes:
        candidate: The candidate, 1-based in the instance's original order.
        score: The overall score.
        reasoning: The explanation part of the reply ("" when it gives none).
        explanation: The whole reply.
        source: How the score was obtained, with ``--score-mode logprobs``; else None.
    """

    candidate: int
    score: float
    reasoning: str
    explanation: str
    source: ScoreSource | None = None


@dataclass(frozen=True, slots=True)
class _Reading:
    score: float
    parts: dict[str, str]
    preamble: str


@dataclass(frozen=True, slots=True)
class _Form:
    """How a reply is laid out: its numbered parts, and whether a bare number may open it."""

    items: tuple[str, ...]
    scale: tuple[float, float]
    opens_with_score: bool = False

    def read(self, text: str) -> _Reading:
        """The score (Appendix C) and the parts of ``text``; raises `ParseError`."""
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        preamble, parts = self._parts(text)
        if "score" not in parts and self.opens_with_score and _FIRST.match(text.lstrip(" \t\n*_#")):
            first, _, rest = text.strip().partition("\n")
            preamble, parts = rest.strip(), {"score": first}
        if "score" in parts and _bare_conclusion(parts, text):
            parts["score"] = parts["conclusion"]  # its own steps numbered, then "Conclusion: 3"
        if "score" in parts:
            return _Reading(self._score(parts["score"], text), parts, preamble)
        around = "\n".join(p for p in (preamble, parts.get("conclusion", "")) if p) or text
        scores = ScoreParser(["Output"], scale=self.scale, explained=True).parse(around)
        if "conclusion" not in parts:
            parts["conclusion"] = scores.explanation
        return _Reading(scores.values[0], parts | {"score": fmt(scores.values[0])}, "")

    def _parts(self, text: str) -> tuple[str, dict[str, str]]:
        """The text before the first part, and each part's text by kind.

        A part opens at its label ("Score:"), or at the next item number of the form ("2.") when no
        line carries that part's label (so a numbered list inside a part stays in it).
        """
        lines = text.splitlines()
        heads = [_head(line) for line in lines]
        labelled = {head[1] for head in heads if head is not None and head[1] is not None}
        found: dict[str, list[str]] = {}
        current: list[str] = []
        preamble, following = current, 1
        for line, head in zip(lines, heads, strict=True):
            kind = None
            if head is not None:
                number, label, rest = head
                if number is not None and number == following <= len(self.items):
                    kind = self.items[number - 1]
                    following += 1
                kind = label or (kind if kind not in labelled else None)
            if kind is not None and kind not in found:
                current = found[kind] = [rest]
            else:
                current.append(line)
        return "\n".join(preamble).strip(), {k: "\n".join(v).strip() for k, v in found.items()}

    def _score(self, part: str, text: str) -> float:
        low, high = self.scale
        plain = _SCALE_MENTION.sub(" ", part)
        for written in OUT_OF.finditer(plain):
            if problem := denominator_problem(
                f"the score ({quote(part)})", written["denominator"], self.scale
            ):
                raise ParseError(problem, raw=text)
        plain = OUT_OF.sub(" ", plain)
        number = _FIRST.search(plain)
        if number is None:
            raise ParseError(f"the score part of the reply ({quote(part)}) holds no number", raw=text)
        if RANGE_END.match(plain, number.end()):
            raise ParseError(range_problem(f"the score part ({quote(part)})"), raw=text)
        value = float(number[0])
        if not low <= value <= high:
            raise ParseError(f"score {number[0]} is outside {describe_range(low, high)}", raw=text)
        return value


def _bare_conclusion(parts: dict[str, str], text: str) -> bool:
    """Whether the conclusion is a bare number and the score part, an item no line labels "Score",
    holds none (scale mentions and denominators taken out): the reply numbered its own steps."""
    if not _BARE.fullmatch(parts.get("conclusion", "")):
        return False
    if _FIRST.search(OUT_OF.sub(" ", _SCALE_MENTION.sub(" ", parts["score"]))) is not None:
        return False
    return not any(head and head[1] == "score" for head in map(_head, text.splitlines()))


def _head(line: str) -> tuple[int | None, str | None, str] | None:
    """A line that may open a part: its item number, its label kind, and the text after them."""
    if len(line) - len(line.lstrip(" \t")) > 1:
        return None
    rest = _LEAD.sub("", line.strip(), count=1)
    number = None
    if item := _ITEM.match(rest):
        number, rest = int(item[1]), rest[item.end() :]
    label = None
    if named := _LABEL.match(rest):
        label, rest = _KINDS[named[1].lower()], rest[named.end() :]
    if number is None and label is None:
        return None
    return number, label, rest.strip()


def _evidence(part: str) -> tuple[str, ...]:
    """Evidence items: one per bullet (continuation lines joined), or the whole part when unbulleted."""
    items: list[str] = []
    for line in part.splitlines():
        if bullet := _BULLET.match(line.strip()):
            items.append(line.strip()[bullet.end() :])
        elif items and line.strip():
            items[-1] = f"{items[-1]}\n{line.strip()}"
        elif line.strip():
            items.append(line.strip())
    return tuple(items)


def _scale_words(scale: tuple[float, float]) -> str:
    return f"one number from {fmt(scale[0])} to {fmt(scale[1])}"


@dataclass(frozen=True, slots=True)
class CriterionParser:
    """Reads a criterion evaluation: conclusion, score (Appendix C) and evidence.

    Examples:
        >>> reply = '1. Conclusion: Plain words.\\n2. Score: 4/5\\n3. Evidence:\\n- "It is wet."'
        >>> CriterionParser("Clarity", 1, (1, 5)).parse(reply).evidence
        ('"It is wet."',)
    """

    criterion: str
    candidate: int
    scale: tuple[float, float]

    @property
    def instructions(self) -> str:
        """The reply format."""
        return (
            "Reply in three numbered parts: 1. Conclusion: whether the output satisfies the criterion, "
            f"with explanations; 2. Score: {_scale_words(self.scale)}; 3. Evidence: sentences quoted "
            "from the output, one per line."
        )

    def json_reply(self) -> JsonReply[CriterionEvaluation]:
        """The evaluation as JSON (structured output): conclusion, score, evidence."""

        def make(score: float, conclusion: str, evidence: tuple[str, ...], text: str) -> CriterionEvaluation:
            return CriterionEvaluation(
                self.criterion, self.candidate, score, conclusion, fmt(score), evidence, text
            )

        reply: JsonReply[CriterionEvaluation] = criterion_reply(self.scale, make)
        return reply

    def scores_of(self, value: CriterionEvaluation) -> tuple[float, ...]:
        """The score read (`faceteval.parsing.ScoreReader`)."""
        return (value.score,)

    def rescored(self, value: CriterionEvaluation, sources: Sequence[ScoreSource]) -> CriterionEvaluation:
        """``value`` with its source's score (`faceteval.parsing.ScoreReader`)."""
        return replace(value, score=sources[0].score, source=sources[0])

    def parse(self, text: str) -> CriterionEvaluation:
        """Read ``text``; raises `ParseError`."""
        reading = _Form(_CRITERION_FORM, self.scale).read(text)
        return CriterionEvaluation(
            criterion=self.criterion,
            candidate=self.candidate,
            score=reading.score,
            conclusion=reading.parts.get("conclusion") or reading.preamble,
            score_text=reading.parts["score"],
            evidence=_evidence(reading.parts.get("evidence", "")),
            explanation=text.strip(),
        )

    def example(self) -> str:
        """A well-formed reply of typical length."""
        score = fmt(round(self.scale[0] + 0.67 * (self.scale[1] - self.scale[0])))
        return (
            "1. Conclusion: The output mostly satisfies the criterion. It answers the main point of the "
            "input directly and in plain words, although one passage is vaguer than the rest and leaves "
            "a step of the explanation to the reader.\n\n"
            f"2. Score: {score}\n\n"
            "3. Evidence:\n"
            '- "The first sentence answers the question directly." This sentence meets the criterion.\n'
            '- "It works a bit like a sponge soaking up water." This comparison makes the idea concrete.\n'
            '- "Several other things also play a part." This sentence is vague and weakens the answer.'
        )


@dataclass(frozen=True, slots=True)
class OverallParser:
    """Reads an overall evaluation (the multi-turn question, or with ``direct`` the straightforward one)."""

    candidate: int
    scale: tuple[float, float]
    direct: bool = False

    @property
    def instructions(self) -> str:
        """The reply format."""
        if self.direct:
            return f"Reply with the overall score, {_scale_words(self.scale)}, on the first line."
        return (
            "Reply in two numbered parts: 1. your explanation of the overall quality of the output; "
            f"2. Score: {_scale_words(self.scale)}."
        )

    def json_reply(self) -> JsonReply[OverallEvaluation]:
        """The evaluation as JSON (structured output): the explanation (unless ``direct``), then the score."""

        def make(score: float, reasoning: str, text: str) -> OverallEvaluation:
            return OverallEvaluation(self.candidate, score, reasoning, text)

        reply: JsonReply[OverallEvaluation] = overall_reply(self.scale, direct=self.direct, make=make)
        return reply

    def scores_of(self, value: OverallEvaluation) -> tuple[float, ...]:
        """The score read (`faceteval.parsing.ScoreReader`)."""
        return (value.score,)

    def rescored(self, value: OverallEvaluation, sources: Sequence[ScoreSource]) -> OverallEvaluation:
        """``value`` with its source's score (`faceteval.parsing.ScoreReader`)."""
        return replace(value, score=sources[0].score, source=sources[0])

    def parse(self, text: str) -> OverallEvaluation:
        """Read ``text``; raises `ParseError`."""
        form = (
            _Form((), self.scale, opens_with_score=True) if self.direct else _Form(_OVERALL_FORM, self.scale)
        )
        reading = form.read(text)
        reasoning = reading.parts.get("conclusion") or reading.preamble
        return OverallEvaluation(self.candidate, reading.score, reasoning, text.strip())

    def example(self) -> str:
        """A well-formed reply of typical length."""
        score = fmt(round(self.scale[0] + 0.67 * (self.scale[1] - self.scale[0])))
        if self.direct:
            return score
        return (
            "1. The output meets most of the criteria: it is accurate and easy to follow, and its "
            "comparison makes the idea concrete. One vague passage and a missing step keep it from the "
            f"top score.\n\n2. Score: {score}"
        )


_EXAMPLES = (
    ("Simplicity", "Use simple and easy-to-understand language."),
    ("Relatable examples", "Use examples or analogies that are relatable to a five-year-old's experience."),
    ("Factual correctness", "Answers should be factually correct, with nothing subtly wrong or made up."),
    ("Coherence", "Be easy to follow and logically coherent."),
    ("Helpfulness", "All things considered, the answer should help the person who asked."),
)
"""The ELI5 criteria of the paper (Table 14), for dry-run replies."""


class TaskCriteriaParser:
    """Reads a list of task-level criteria: numbered, bulleted or JSON, "Name: description" items.

    A name listed twice is a problem to re-ask about: the set is written as a criteria file, in
    which names must be distinct.
    """

    def __init__(self) -> None:
        self._items = CriteriaParser()

    @property
    def instructions(self) -> str:
        """The reply format, in one sentence."""
        return (
            'List the evaluation criteria as a numbered list ("1. ", "2. ", ...), one per line, each written '
            'as "<name>: <description>", such as "1. Simplicity: Use simple and easy-to-understand language."'
        )

    def example(self) -> str:
        """A well-formed reply: the paper's ELI5 criteria."""
        return "\n".join(f"{k}. {name}: {text}" for k, (name, text) in enumerate(_EXAMPLES, 1))

    def json_reply(self) -> JsonReply[tuple[Criterion, ...]]:
        """The criteria as JSON (structured output): names and descriptions, each name once."""
        return replace(
            self._items.json_reply(),
            example={"criteria": [{"name": n, "description": d} for n, d in _EXAMPLES]},
        )

    def parse(self, text: str) -> tuple[Criterion, ...]:
        """The criteria in ``text``.

        Raises:
            ParseError: The reply lists no criteria, or lists one name twice.
        """
        return self._items.parse(text)
