"""What is left of a reply once its scores are cut out, and realistic explanations for examples."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from faceteval._util.replies import plain, tidy
from faceteval.parsing._score_text import Doc, Found

_SCORES_HEADING = re.compile(r"^(?i:(?:(?:my|the|final|overall)\s+)*(?:scores?|ratings?|grades?))\s*:?$")
_CONNECTIVES = frozenset({"and", "or", "but", "while", "whereas", "vs", "versus"})
_EXPLANATION_KEYS = ("explanation", "reasoning", "rationale", "justification", "feedback")

_SINGLE = (
    "{a} answers the question directly and gets the key facts right, including the names and dates "
    "it relies on. Its structure is easy to follow: a short summary comes first, then the supporting "
    "details, so a reader can stop early and still take away the main point. The tone is neutral and "
    "suits the audience the instruction describes. It loses some credit for one vague claim about costs "
    "that is stated without a source, and for a closing paragraph that repeats the introduction instead "
    "of adding anything new. Nothing in it is unsafe or off topic. With the repetition trimmed and the "
    "cost claim either supported or removed, it would be close to an ideal answer to this instruction."
)
_BEST = (
    "{a} answers the question directly and gets the key facts right, including the names and dates it "
    "relies on; its summary comes first and the supporting details follow, so it is easy to read."
)
_MIDDLE = (
    "{a} covers most of the same ground but is less precise: it states one figure without a source and "
    "drifts into background the instruction did not ask for."
)
_WORST = (
    "{a} spends its opening paragraph restating the question, misses one of the explicit requirements, "
    "and ends abruptly without a conclusion."
)
_CLOSE = (
    "None of them contains anything unsafe, and the tone is neutral throughout. Overall {a} is the most "
    "useful because it is accurate, complete and well organised, while the others would need another pass "
    "to fix their vagueness and trim the repetition before they could be relied on."
)
_CLOSE_TWO = (
    "Both are written in a neutral, readable tone and neither contains anything unsafe. Overall {a} is the "
    "more useful of the two because it is accurate, complete and easier to follow, while {b} would need "
    "another pass to fix its vagueness and trim the repetition."
)


def explanation_for(labels: Sequence[str]) -> str:
    """An explanation that discusses each candidate by its label, about 120 words."""
    if len(labels) == 1:
        label = labels[0]
        subject = f"The {label.lower()}" if label.isalpha() else label  # "Output" -> "The output"
        return _SINGLE.format(a=subject)
    parts = [_BEST.format(a=labels[0])]
    parts += [_MIDDLE.format(a=label) for label in labels[1:-1]]
    parts.append(_WORST.format(a=labels[-1]))
    if len(labels) == 2:
        parts.append(_CLOSE_TWO.format(a=labels[0], b=labels[1]))
    else:
        parts.append(_CLOSE.format(a=labels[0]))
    return " ".join(parts)


def cut(doc: Doc, found: Sequence[Found]) -> str:
    """The reply with the labelled scores in ``found`` cut out; lines left without words are dropped."""
    cuts: dict[int, list[tuple[int, int]]] = {}
    for item in found:
        cuts.setdefault(item.line, []).append((item.start, item.end))
    kept = []
    for number, line in enumerate(doc.lines):
        if number not in cuts:
            kept.append(line)
            continue
        rest = doc.plains[number]
        for start, end in sorted(cuts[number], reverse=True):
            rest = rest[:start] + " " + (rest[end:] if end >= 0 else "")
        rest = _mend(rest)
        if re.search(r"[^\W\d_]{2}", rest) and rest.lower() not in _CONNECTIVES:
            kept.append(rest)
    return _explanation(kept)


def _mend(text: str) -> str:
    """A line with scores cut out, made readable: no orphan brackets, doubled stops or dangling 'and'."""
    text = _orphan_brackets(text)
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split()))
    text = re.sub(r"([.,;:!?])(?:\s*[.,;!?])+", r"\1", text)
    text = re.sub(r"[,;]?\s*\b(?:and|while|but|whereas)\s*([.!?]?)$", r"\1", text)
    return re.sub(r"^[\s,;:|.)\]–—-]+|[\s,;:|(\[–—-]+$", "", text)


def _orphan_brackets(text: str) -> str:
    opened: list[int] = []
    orphans: set[int] = set()
    for position, char in enumerate(text):
        if char == "(":
            opened.append(position)
        elif char == ")":
            if opened:
                opened.pop()
            else:
                orphans.add(position)
    orphans.update(opened)
    return "".join(char for position, char in enumerate(text) if position not in orphans)


def without_lines(doc: Doc, numbers: Sequence[int]) -> str:
    """The reply without the lines ``numbers`` (a score line), tidied."""
    return lines_without(doc.lines, numbers)


def lines_without(lines: Sequence[str], numbers: Sequence[int]) -> str:
    """``lines`` without the lines ``numbers``, joined and tidied."""
    return _explanation([line for k, line in enumerate(lines) if k not in numbers])


def _explanation(lines: Sequence[str]) -> str:
    """The kept lines, without a leftover "Scores:" heading, tidied."""
    return tidy("\n".join(line for line in lines if not _SCORES_HEADING.match(plain(line))))


def json_explanation(value: Mapping[object, object]) -> str:
    """The explanation a JSON reply carries in an "explanation"-like field, or ""."""
    for key, item in value.items():
        if str(key).lower() in _EXPLANATION_KEYS and isinstance(item, str):
            return item.strip()
    return ""
