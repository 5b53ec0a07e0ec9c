"""Probability-weighted scores from token log-probabilities (G-Eval's expected scores).

Liu et al., "G-Eval: NLG Evaluation using GPT-4 with Better Human Alignment" (2023), Section 2.3:
the score is the sum over the scale's values of value x probability, which breaks the ties of
integer scores and follows the judge's uncertainty. Here it is computed from one greedy reply with
its top log-probabilities (``logprobs: true, top_logprobs: N``), for every score the reply's parser reads.

**Where a score is.** A number in the reply is the source of score ``k`` when writing another value
on the scale in its place (two different ones are tried) makes the parser read that value as score
``k`` and leaves every other score as it was. The parser thus decides, whatever the reply's form.

**Which token.** The reply's tokens are aligned with its text (their texts concatenated spell it;
tokens that are parts of one character, which servers send as bytes, are skipped over the run of
non-ASCII characters they stand for). The score's token is the one where its first digit is. Its
alternatives count when they begin as the emitted token does before the digit (a token ``" 8"``
makes ``" 7"`` an alternative, not ``"7"``) and then give digits.

**Multi-digit scores** ("10" on 1-10). Tokenizers either keep a number in one token (OpenAI's, up to
three digits; Llama 3's) or give one digit per token (Llama 2, Mistral, Qwen). An alternative that
ends its token with digits is a whole number when the tokenizer merges digits (seen from a token of the
reply, or an alternative, that holds two digits in a row) or when no score on the scale begins with its digits
and goes on. Otherwise (a ``"1"`` on 1-10 from a one-digit tokenizer: 1, or the start of 10) it is
decided by the next position's distribution if it is the emitted token (``"0"`` there makes 10,
anything that is not a digit ends the number at 1; renormalised over those two kinds of
alternatives), and left out if it is not (its continuation is not known).

**Expected score.** The probabilities of the whole numbers on the scale are renormalised over
those found (mass outside the top N, and off-scale numbers, are left out), and the expected score
is their weighted mean. A score falls back to the number as written (mode ``parse``, with the reason)
when the server sent no log-probabilities, the score is not a whole number or could not be located,
the tokens do not spell the reply, or no value on the scale is among the alternatives.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from faceteval.core import ScoreSource
from faceteval.errors import ParseError
from faceteval.llm import TokenLogprob

T = TypeVar("T")

_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\d)")
_DIGITS = re.compile(r"\d+")
_TWO_DIGITS = re.compile(r"\d\d")
_ESCAPED = re.compile(r"(?:\\x[0-9a-fA-F]{2})+")

NO_LOGPROBS = "the server returned no log-probabilities"
"""The fallback reason when a reply came without them (a server that does not send them, a cached
reply of a run that did not ask, a dry run's stand-in)."""


@runtime_checkable
class ScoreReader(Protocol[T]):
    """A parser whose value holds scores on a scale: what ``--score-mode logprobs`` needs of it."""

    @property
    def scale(self) -> tuple[float, float]:
        """The lowest and highest score."""
        ...

    def scores_of(self, value: T) -> tuple[float, ...]:
        """The scores in a parsed value, in order."""
        ...

    def rescored(self, value: T, sources: Sequence[ScoreSource]) -> T:
        """``value`` with each score replaced by its source's ``score``, the sources kept."""
        ...


def score_sources(
    text: str,
    tokens: Sequence[TokenLogprob] | None,
    read: Callable[[str], Sequence[float]],
    scale: tuple[float, float],
) -> tuple[ScoreSource, ...]:
    """How each score ``read`` finds in ``text`` is obtained: its expected score, or as written.

    Args:
        text: The reply.
        tokens: Its tokens with their top alternatives; None when the server sent none.
        read: The parser, as scores in order (raises `ParseError`); ``text`` must be readable.
        scale: The lowest and highest score.

    Examples:
        >>> tokens = [TokenLogprob("8", math.log(0.6), (("8", math.log(0.6)), ("6", math.log(0.2))))]
        >>> source = score_sources("8", tokens, lambda t: [float(t)], (1, 10))[0]
        >>> source.mode, source.score
        ('logprobs', 7.5)
    """
    written = tuple(float(v) for v in read(text))
    if tokens is None:
        return tuple(_parsed(w, NO_LOGPROBS) for w in written)
    values = _whole_values(scale)
    if len(values) < 2:
        return tuple(_parsed(w, "the scale has no whole-number scores") for w in written)
    spans = _locate(text, written, read, values)
    starts = _token_starts(text, tokens)
    return tuple(_source(w, spans.get(k), text, tokens, starts, values) for k, w in enumerate(written))


def _parsed(written: float, reason: str) -> ScoreSource:
    return ScoreSource(mode="parse", written=written, score=written, reason=reason)


def _whole_values(scale: tuple[float, float]) -> tuple[int, ...]:
    return tuple(range(math.ceil(scale[0]), math.floor(scale[1]) + 1))


def _source(
    written: float,
    span: tuple[int, int] | str | None,
    text: str,
    tokens: Sequence[TokenLogprob],
    starts: list[int | None] | None,
    values: tuple[int, ...],
) -> ScoreSource:
    if not written.is_integer():
        return _parsed(written, "the score is not a whole number")
    if span is None:
        return _parsed(written, "the score could not be located in the reply")
    if isinstance(span, str):
        return _parsed(written, span)
    if starts is None:
        return _parsed(written, "the tokens do not spell the reply")
    found = _distribution(span[0], text, tokens, starts, values)
    if isinstance(found, str):
        return _parsed(written, found)
    expected = math.fsum(value * p for value, p in found.items())
    distribution = [(float(value), round(p, 9)) for value, p in sorted(found.items())]
    return ScoreSource(mode="logprobs", written=written, score=round(expected, 9), distribution=distribution)


# -- where each score is written ----------------------------------------------------------------


def _locate(
    text: str, written: tuple[float, ...], read: Callable[[str], Sequence[float]], values: tuple[int, ...]
) -> dict[int, tuple[int, int] | str]:
    """Score index -> the span of the number it was read from (or why it is not known)."""
    wanted = {w for w in written if w.is_integer()}
    found: dict[int, list[tuple[int, int]]] = {}
    for match in _NUMBER.finditer(text):
        number = match[0]
        if "." in number or float(number) not in wanted:
            continue
        slot = _slot_of(text, match.span(), int(number), written, read, values)
        if slot is not None:
            found.setdefault(slot, []).append(match.span())
    located: dict[int, tuple[int, int] | str] = {}
    for slot, spans in found.items():
        located[slot] = spans[0] if len(spans) == 1 else "the score is written in several places"
    return located


def _slot_of(
    text: str,
    span: tuple[int, int],
    original: int,
    written: tuple[float, ...],
    read: Callable[[str], Sequence[float]],
    values: tuple[int, ...],
) -> int | None:
    """The score the number at ``span`` is read as, found by writing two other values in its place."""
    probes = [v for v in dict.fromkeys((values[-1], values[0], values[1], values[-2])) if v != original][:2]
    slots = set()
    for probe in probes:
        try:
            changed = tuple(read(text[: span[0]] + str(probe) + text[span[1] :]))
        except ParseError:
            return None
        if len(changed) != len(written):
            return None
        moved = [k for k, (old, new) in enumerate(zip(written, changed, strict=True)) if old != new]
        if len(moved) != 1 or changed[moved[0]] != probe:
            return None
        slots.add(moved[0])
    return slots.pop() if len(slots) == 1 else None


def _token_starts(text: str, tokens: Sequence[TokenLogprob]) -> list[int | None] | None:
    """Where each token starts in ``text`` (None for a part of a character); None if they do not spell it."""
    starts: list[int | None] = []
    position = 0
    index = 0
    while index < len(tokens):
        token = tokens[index].token
        if text.startswith(token, position):
            starts.append(position)
            position += len(token)
            index += 1
            continue
        end = position
        while end < len(text) and not text[end].isascii():
            end += 1
        if end == position:
            return None
        while index < len(tokens) and _part_of_character(tokens[index].token):
            starts.append(None)
            index += 1
        position = end
    return starts


def _part_of_character(token: str) -> bool:
    """Whether ``token`` may stand for bytes of a character cut between tokens: OpenAI's ``bytes:\\xf0``
    or ``\\xf0\\x9f``, vLLM's U+FFFD, or the text of a character that is not ASCII."""
    return not token or not token.isascii() or token.startswith("bytes:") or bool(_ESCAPED.fullmatch(token))


# -- the distribution at a score's token(s) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Path:
    tokens: Sequence[TokenLogprob]
    starts: list[int | None]
    values: tuple[int, ...]
    merges: bool

    def complete(self, digits: str) -> bool:
        """Whether a number whose token ends with ``digits`` is whole without seeing the next token."""
        return self.merges or not any(
            str(v).startswith(digits) and len(str(v)) > len(digits) for v in self.values
        )


def _distribution(
    start: int, text: str, tokens: Sequence[TokenLogprob], starts: list[int | None], values: tuple[int, ...]
) -> dict[int, float] | str:
    """Score value -> probability, renormalised over the values found; or why there is none."""
    index = next(
        (i for i, at in enumerate(starts) if at is not None and at <= start < at + len(tokens[i].token)),
        None,
    )
    if index is None:
        return "the score's token is not among the log-probabilities"
    if not tokens[index].top:
        return "the server sent no top log-probabilities at the score's token"
    at = starts[index]
    assert at is not None
    lead = text[at:start]
    masses = _masses(_Path(tokens, starts, values, _merges_digits(tokens)), index, lead, "")
    found = {int(n): p for n, p in masses.items() if (n == "0" or not n.startswith("0")) and int(n) in values}
    total = math.fsum(found.values())
    if not found or total <= 0:
        return "no score on the scale is among the top log-probabilities at the score's token"
    return {value: p / total for value, p in found.items() if p > 0}


def _masses(path: _Path, index: int, lead: str, prefix: str) -> dict[str, float]:
    """Number -> probability mass from position ``index`` on, given the digits ``prefix`` before it."""
    token = path.tokens[index]
    masses: dict[str, float] = {}
    for alt, p in _alternatives(token).items():
        if not alt.startswith(lead):
            continue
        rest = alt[len(lead) :]
        digits = _digits(rest)
        if not digits:
            if prefix:  # the number ended before this token
                masses[prefix] = masses.get(prefix, 0.0) + p
            continue
        number = prefix + digits
        if len(rest) > len(digits) or path.complete(number):  # a whole number
            masses[number] = masses.get(number, 0.0) + p
        elif alt == token.token:  # the emitted token: what follows it is known
            for longer, q in _following(path, index, number).items():
                masses[longer] = masses.get(longer, 0.0) + p * q
    return masses


def _following(path: _Path, index: int, number: str) -> dict[str, float]:
    """How the number ``number`` emitted at ``index`` goes on: the next position's distribution,
    renormalised over the alternatives that end it or continue it with digits."""
    nxt = index + 1
    if nxt >= len(path.tokens) or path.starts[nxt] is None:
        return {number: 1.0}
    masses = _masses(path, nxt, "", number)
    total = math.fsum(masses.values())
    return {n: q / total for n, q in masses.items()} if total > 0 else {number: 1.0}


def _merges_digits(tokens: Sequence[TokenLogprob]) -> bool:
    """Whether the tokenizer keeps several digits in one token: some token of the reply, or some
    alternative, holds two digits in a row (a one-digit tokenizer has none)."""
    return any(
        _TWO_DIGITS.search(token.token) or any(_TWO_DIGITS.search(alt) for alt, _ in token.top)
        for token in tokens
    )


def _alternatives(token: TokenLogprob) -> dict[str, float]:
    """The token's alternatives with their probabilities (the emitted token among them)."""
    probabilities: dict[str, float] = {}
    for alt, logprob in token.top:
        probabilities[alt] = probabilities.get(alt, 0.0) + math.exp(logprob)
    probabilities.setdefault(token.token, math.exp(token.logprob))
    return probabilities


def _digits(text: str) -> str:
    match = _DIGITS.match(text)
    return match[0] if match else ""
