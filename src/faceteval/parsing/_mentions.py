"""Finding the candidates a judge names ("Response 1", "**Assistant A**", "Output (a)") and their scores."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval._util.numbers import NUMBER, UNSIGNED

GENERIC_WORDS = ("response", "assistant", "output", "answer", "candidate")
"""Words a judge may use for a candidate, with a number or a letter, whatever the prompt called it."""

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_DIGIT_LABEL = re.compile(r"^(?P<word>.*?)[\s#_-]*(?P<ident>\d+)$")
_LETTER_LABEL = re.compile(r"^(?P<word>.*?\S)\s*(?:\((?P<paren>[A-Za-z])\)|\s(?P<letter>[A-Za-z]))$")

SCORE_WORD = r"(?i:(?:(?:final|overall|total)\s+)?(?:score|rating|grade))"
"""'score', 'rating' or 'grade', optionally 'final'/'overall'/'total', as a regex source."""

_SEP = (
    r"(?:→|=>|->|[:=|–—-]|\((?!\s*[A-Za-z]\))"
    r"|(?i:\b(?:is|gets|receives|earns|scores?|scored|deserves|was|rated)\b))"
)


def score_value(words: str = "") -> str:
    """A score as a regex source: a number, then a denominator or a plausible end.

    Never '3 points', '7-8', '80%' or the first item of a list ('[0.5, 1.5]'). ``words`` are
    candidate words that may follow ("8 Response 2: 6").
    """
    also = rf"|\s+(?:{words})\b" if words else ""
    end = (
        r"(?!\s*[-–]\s*\d)(?!\s*,\s*[-+]?\d)"
        r"(?=[^\S\n]*(?:$|\n)|\s*[,;.!?)(\]|*]|\s+[-–—]"
        rf"|\s+(?i:and|but|because|as|since|for|with|while|overall|due|given)\b{also})"
    )
    return (
        rf"\[*(?P<value>{NUMBER})(?!\.?\d)"
        rf"(?:\s*(?:/|(?i:out\s+of))\s*(?P<denom>{UNSIGNED})(?!\.?\d)|{end})"
    )


def ident_number(token: str) -> int:
    """The position a candidate identifier stands for: ``3`` for "3", ``1`` for "A" or "a"."""
    if token.isdigit():
        return int(token)
    return ord(token.lower()) - ord("a") + 1


def _flex(text: str) -> str:
    """``text`` as a case-insensitive regex source, any run of spaces matching any whitespace."""
    return "(?i:" + r"\s+".join(re.escape(part) for part in text.split()) + ")"


@dataclass(frozen=True, slots=True)
class _Label:
    word: str
    ident: int | None


def _parse_label(label: str) -> _Label:
    label = label.strip()
    if match := _DIGIT_LABEL.match(label):
        return _Label(match["word"].strip().lower(), int(match["ident"]))
    if match := _LETTER_LABEL.match(label):
        return _Label(match["word"].strip().lower(), ident_number(match["paren"] or match["letter"]))
    return _Label(label.lower(), None)


class Mentions:
    """The regexes that find candidates, and scores next to them, for one set of labels.

    ``labelled`` finds "Response 1: 8", "Response 1's score: 8/10", "**Assistant A** - 6";
    ``score_for`` "Score for Response 2: 7"; ``given`` "I'd give Response 1 an 8";
    ``value_first`` "8/10 for Response 1" or "8/10 (Response 1)"; ``header`` a line naming only a
    candidate ("### Response 1").

    Args:
        labels: How the prompt names the candidates, in order.
    """

    def __init__(self, labels: Sequence[str]) -> None:
        parsed = [_parse_label(label) for label in labels]
        idents = [p.ident for p in parsed]
        if all(i is not None for i in idents) and len(set(idents)) == len(idents):
            self._by_ident = {i: k for k, i in enumerate(idents) if i is not None}
        else:
            self._by_ident = {k + 1: k for k in range(len(labels))}
        self._count = len(labels)
        extra = {p.word for p in parsed if p.word and p.ident is not None}
        words = "|".join(_flex(w) for w in sorted(set(GENERIC_WORDS) | extra, key=len, reverse=True))
        self.words = words
        order = sorted(range(len(labels)), key=lambda k: -len(labels[k]))
        literals = "|".join(rf"(?P<lit{k}>{_flex(labels[k])})(?!\w)" for k in order)
        ident = (
            r"(?:\s*(?:\#|(?i:no\.?|number))?\s*[-_]?\s*(?P<num>\d+)(?!\d)"
            r"|\s*\((?P<paren>[A-Za-z]|\d+)\)"
            r"|\s+(?P<letter>[A-Z])(?!\w)(?!['’](?!s\b)))"
        )
        ordinals = "|".join(_ORDINALS)
        mention = (
            rf"(?<![\w-])(?P<mention>{literals}|(?i:(?P<ord>{ordinals}))\s+(?:{words})(?!\w)"
            rf"|(?:{words})(?:{ident}))"
        )
        self.mention = re.compile(mention)
        value = score_value(words)
        aside = r"(?:[\"”]|\s*\((?!\s*[-+]?\d)[^()]{1,40}\))?"  # a closing quote, or "(Assistant A)"
        self.labelled = re.compile(
            rf"{mention}{aside}(?:['’]s)?\s*"
            rf"(?:{SCORE_WORD}\s*(?:{_SEP}\s*)?|{_SEP}\s*(?:{SCORE_WORD}\s*[:=]?\s*)?)"
            rf"(?i:an?\s+)?(?:(?i:score|rating)\s+(?i:of)\s+)?{value}"
        )
        self.score_for = re.compile(
            rf"{SCORE_WORD}\s+(?i:for|of)\s+(?i:the\s+)?{mention}\s*(?:[:=|–—-]|(?i:\bis\b))\s*{value}"
        )
        self.given = re.compile(
            r"(?i:\b(?:give|gave|giving|rate|rated|rating|award|awarded|assign|assigned)\s+)"
            rf"{mention}\s+(?i:an?\s+)?(?:(?i:score|rating)\s+(?i:of)\s+)?{value}"
        )
        self.value_first = re.compile(
            rf"(?<![\w./])(?P<value>{NUMBER})\s*(?:/|(?i:out\s+of))\s*(?P<denom>{UNSIGNED})(?!\.?\d)"
            rf"(?:\s+(?i:for|to)\s+(?i:the\s+)?|\s*\(\s*){mention}"
        )
        self.header = re.compile(
            r"^(?:\d+[.)]\s+)?(?i:(?:(?:evaluation|assessment|analysis|review|feedback|scoring)\s+(?:of|for)\s+)?"
            rf"(?:the\s+)?){mention}"
            r"(?i:(?:['’]s)?\s+(?:evaluation|assessment|analysis|review|feedback|scores?))?\s*[:.]?$"
        )

    def index(self, match: re.Match[str]) -> int | None:
        """The label index a mention names, or None for a candidate the prompt did not name."""
        for k in range(self._count):
            if match.group(f"lit{k}") is not None:
                return k
        if match["ord"] is not None:
            return self._by_ident.get(_ORDINALS[match["ord"].lower()])
        token = match["num"] or match["paren"] or match["letter"]
        return self._by_ident.get(ident_number(token))

    @staticmethod
    def named(match: re.Match[str]) -> str:
        """The mention as written, for problems ("Response 3")."""
        return " ".join(match["mention"].split())


@functools.lru_cache(maxsize=64)
def mentions_for(labels: tuple[str, ...]) -> Mentions:
    """The `Mentions` of ``labels``, built once: parsers for the same labels share their regexes."""
    return Mentions(labels)
