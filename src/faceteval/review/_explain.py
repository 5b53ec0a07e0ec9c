"""An explanation as the review shows it: sentences to act on, and the headings and score lines between.

An LLM's explanation (CoEval's ``Conclusion: ... Score: ... Evidence: - "..."``, a numbered reply,
a comparison under ``Response k:`` headings, plain prose) becomes a list of `Part`s:

- a line that is only a label (``Evidence:``, ``3. Evidence:``, ``**Explanation:**``, ``Response 2:``)
  is a ``heading``; ``Response k`` (or ``Output k``, ``Assistant k``, ``Candidate k``) also says which
  candidate the parts after it are about. A label is a known word (`LABELS`) or a short title (at most
  `_TITLE_WORDS` words, each capitalised): "The answer lists three steps:" is a sentence;
- a known label opening a line (``Conclusion: The answer ...``) is a heading, the rest of the line
  read on;
- a score line (``Score: 5``, ``2. Score: 4 out of 5.``, ``Rating: 7/10``) or a sentence that states a
  score (``I would assign a score of 4 to this answer.``) is a ``score`` part: the annotator's own
  score takes its place, so it is shown, not approved; what follows it on its line is read on;
- a bulleted line (``- "a quote" This shows ...``) is one sentence, as CoEval's own app showed it;
- anything else is prose, split into sentences.

Prose is split after ``.``, ``!`` or ``?`` (with the closing quotes or brackets after it) followed by
a space and a capital, a digit or an opening quote or bracket; not inside a double-quoted passage,
nor after an abbreviation (``e.g.``, ``Dr.``, ``U.S.``); a piece with no letter (a list number) joins
the sentence after it. List markers (``1.``, ``-``) and Markdown emphasis are not part of a label or
of a bullet's text. No dependency of the project splits sentences (none of nltk, spaCy, pySBD is
one), so these rules are checked on CoEval's 3,380 recorded ChatGPT evaluations
(``tests/unit/review/test_explain.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from faceteval.review._model import Part

__all__ = ["LABELS", "SCORE_LABELS", "explanation_parts", "sentences_of", "split_sentences", "states_score"]

SCORE_LABELS = frozenset(
    {"score", "scores", "rating", "overall score", "final score", "overall rating", "grade"}
)
"""Labels whose line states the score."""
LABELS = SCORE_LABELS | frozenset(
    {
        "analysis",
        "assessment",
        "comment",
        "comments",
        "conclusion",
        "critique",
        "evaluation",
        "evidence",
        "explanation",
        "feedback",
        "judgment",
        "judgement",
        "justification",
        "note",
        "rationale",
        "reason",
        "reasoning",
        "reasons",
        "strengths",
        "summary",
        "verdict",
        "weaknesses",
    }
)
"""Labels (lower case) that head a part of an explanation, alone on their line or before its text."""

_TITLE_WORDS = 4
_SMALL_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to", "vs"})
_MARKER = re.compile(r"^(?:[-*•+]|\d{1,2}[.)])[ \t]+(?=\S)")
_BULLET = re.compile(r"^[-*•+][ \t]+(?=\S)")
_NUMBERED = re.compile(r"^\d{1,2}[.)][ \t]+(?=\S)")
_LIST_NUMBER = re.compile(r"^(?:\d{1,2}|[A-Za-z]|[IVXivx]{1,4})[.)]$")
_EMPHASIS = re.compile(r"\*\*|__|^#+\s*|^[*_]|[*_]$")
_HEADING = re.compile(r"^([^:.!?]{1,60}?)\s*:$")
_LABELLED = re.compile(r"^([A-Za-z][A-Za-z0-9 ]{0,20}?)\s*(?:\([^)]{0,30}\))?\s*:\s*(\S.*)$")
_CANDIDATE = re.compile(r"^(?:response|output|assistant|candidate|answer)\s*(\d{1,2})$", re.IGNORECASE)
_NUMBER = r"(?<![\w.-])\d{1,3}(?:\.\d+)?(?![\w-])"
_STATES_SCORE = re.compile(
    rf"\b(?:scores?|scored|rating|grade)\b(?P<noun>[^.!?]{{0,60}}?){_NUMBER}"
    rf"|\b(?:rate[ds]?|scores?|scored)\b(?P<verb>[^.!?\d]{{0,40}}?){_NUMBER}"
    rf"|\b(?:deserves?|earns?|gets?|gives?|assigns?|receives?|merits?)\b(?P<given>[^.!?\d]{{0,40}}?)"
    rf"{_NUMBER}\s*(?:/|out of)\s*\d{{1,3}}\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"^[\"“'‘]")
"""A sentence opening with a quotation: the output's words, not the judge's (its numbers are no score)."""
_NOT_STATED = re.compile(r"\b(?:scale|range|between|from)\b", re.IGNORECASE)
"""Words between a score word and a number that make the number a scale's, not the score given."""
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset(
    {"al.", "approx.", "cf.", "dr.", "e.g.", "eg.", "fig.", "i.e.", "ie.", "jr.", "mr.", "mrs.", "ms.", "no.",
     "prof.", "sr.", "st.", "viz.", "vs."}
)  # fmt: skip
_DOTTED = re.compile(r"^(?:[A-Za-z]\.){2,}$")  # U.S., e.g.


def explanation_parts(text: str) -> list[Part]:
    """The parts of an explanation: headings, score lines and sentences, in order (see the module).

    Examples:
        >>> for part in explanation_parts("Conclusion: Clear. Short.\\nScore: 5\\nEvidence:\\n- \\"Rain.\\""):
        ...     print(part.kind, part.text)
        heading Conclusion
        sentence Clear.
        sentence Short.
        score Score: 5
        heading Evidence
        sentence "Rain."
    """
    parts: list[Part] = []
    candidate: int | None = None
    for line in text.splitlines():
        read = list(_line_parts(line.strip(), candidate))
        for part in read:
            if part.kind == "heading" and part.candidate is not None:
                candidate = part.candidate
        parts += read
    return parts


def sentences_of(parts: Sequence[Part]) -> tuple[str, ...]:
    """The parts to review (the sentences), in order."""
    return tuple(part.text for part in parts if part.kind == "sentence")


def split_sentences(text: str) -> list[str]:
    """The sentences of an explanation, as the review shows them one by one (headings and score lines
    left out; see `explanation_parts`).

    Examples:
        >>> split_sentences("1. Conclusion: It is clear, e.g. short. \\"Really?\\" she asked!\\n2. Score: 4")
        ['It is clear, e.g. short.', '"Really?" she asked!']
    """
    return list(sentences_of(explanation_parts(text)))


def states_score(sentence: str) -> bool:
    """Whether a sentence states a score (``Score: 5``, ``I would assign a score of 4 ...``, ``7/10``).

    Examples:
        >>> states_score("2. Score: 4 out of 5."), states_score("I would rate it a 3.")
        (True, True)
        >>> states_score("It names 3 reasons."), states_score("The score is missing.")
        (False, False)
    """
    plain = _plain(sentence)
    labelled = _LABELLED.match(plain)
    if labelled is not None and labelled[1].strip().lower() in SCORE_LABELS:
        return True
    if _QUOTED.match(plain):
        return False
    return any(
        not _NOT_STATED.search(found["noun"] or found["verb"] or found["given"] or "")
        for found in _STATES_SCORE.finditer(plain)
    )


def _line_parts(line: str, candidate: int | None) -> Iterator[Part]:
    """The parts of one line of an explanation, about ``candidate`` unless it heads another."""
    if not line:
        return
    plain = _plain(line)
    heading = _HEADING.match(plain)
    if heading is not None and _is_label(heading[1]):
        named = _CANDIDATE.match(heading[1].strip())
        yield Part("heading", heading[1].strip(), int(named[1]) if named else candidate)
        return
    labelled = _LABELLED.match(plain)
    if labelled is not None:
        label, rest = labelled[1].strip(), labelled[2].strip()
        named = _CANDIDATE.match(label)
        if named is not None or label.lower() in LABELS:
            if label.lower() in SCORE_LABELS:
                yield from _score_line(f"{label}: {rest}", candidate)
                return
            about = int(named[1]) if named else candidate
            yield Part("heading", label, about)
            yield from _prose(rest, about)
            return
    bullet = _BULLET.match(line)
    if bullet is not None:
        text = line[bullet.end() :].strip()
        if any(character.isalnum() for character in text):  # not a bullet cut off after its quote mark
            yield Part("sentence", text, candidate)
        return
    yield from _prose(_MARKER.sub("", line, count=1), candidate)


def _score_line(text: str, candidate: int | None) -> Iterator[Part]:
    """A score line: its first sentence is the score, what follows it is read on (a reason)."""
    first, *rest = _sentences(text)
    yield Part("score", first, candidate)
    for sentence in rest:
        yield Part("score" if states_score(sentence) else "sentence", sentence, candidate)


def _prose(text: str, candidate: int | None) -> Iterator[Part]:
    for sentence in _sentences(text):
        if not any(character.isalnum() for character in sentence):
            continue  # a stray mark (a bullet left empty): nothing to read
        scored = states_score(sentence) or not any(character.isalpha() for character in sentence)
        yield Part("score" if scored else "sentence", sentence, candidate)


def _sentences(text: str) -> list[str]:
    """``text`` split into sentences (see the module), each stripped; none when it is blank."""
    quotes = text.count('"') % 2 == 0 and text.count("“") == text.count("”")
    pieces: list[str] = []
    start = 0
    for end in _END.finditer(text):
        piece = text[start : end.end()]
        if quotes and (piece.count('"') % 2 or piece.count("“") != piece.count("”")):
            continue  # inside a quotation: the sentence goes on after it
        if _abbreviated(piece) or _numbered(piece):
            continue
        pieces.append(piece)
        start = end.end()
    pieces.append(text[start:])
    return [_NUMBERED.sub("", piece.strip(), count=1) for piece in pieces if piece.strip()]


def _abbreviated(piece: str) -> bool:
    """Whether ``piece`` ends in an abbreviation (its full stop ends no sentence)."""
    words = piece.split()
    last = words[-1].lstrip("(\"'“‘") if words else ""
    return last.lower() in _ABBREVIATIONS or _DOTTED.match(last) is not None


def _numbered(piece: str) -> bool:
    """Whether ``piece`` ends in a list marker (``2.``, ``B.``, ``IV.``) alone or after a colon."""
    words = piece.split()
    return (
        bool(words)
        and _LIST_NUMBER.match(words[-1]) is not None
        and (len(words) == 1 or words[-2].endswith(":"))
    )


def _plain(line: str) -> str:
    """``line`` without a list marker and Markdown emphasis, to read a label in it."""
    return _EMPHASIS.sub("", _MARKER.sub("", _EMPHASIS.sub("", line.strip()), count=1)).strip()


def _is_label(text: str) -> bool:
    """Whether ``text`` (before a colon that ends its line) is a label rather than a sentence."""
    words = text.split()
    if not words:
        return False
    if words[0].lower() in LABELS or _CANDIDATE.match(text.strip()):
        return True
    return len(words) <= _TITLE_WORDS and all(
        word[0].isupper() or word[0].isdigit() or word.lower() in _SMALL_WORDS for word in words
    )
