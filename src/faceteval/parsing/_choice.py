"""The probability of a verdict the reply writes as a token: LLMBar's ``Output (a)`` / ``Output (b)``.

A parser that reads such a verdict (a `ChoiceReader`) says where in the reply the deciding character
is (the ``a`` of ``Output (a)``) and what the choices are. The reply's token there is found as for
expected scores (`faceteval.parsing._expected`: the tokens aligned with the text), and its top
alternatives that write another choice in its place (the same text around it: ``"a"`` / ``"b"``,
``" (a"`` / ``" (b"``) give each choice its probability, renormalised over the choices found. Where
that cannot be done, the choice is as written (mode ``parse``) with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from faceteval.core import ScoreSource
from faceteval.llm import TokenLogprob
from faceteval.parsing._expected import NO_LOGPROBS, _alternatives, _token_starts


@runtime_checkable
class ChoiceReader(Protocol):
    """A parser whose reply's verdict is one character naming a choice (``a`` of ``Output (a)``)."""

    @property
    def choices(self) -> tuple[str, ...]:
        """The characters naming the choices, in the order shown (``("a", "b")``)."""
        ...

    def choice_at(self, text: str) -> int:
        """Where in ``text`` (a reply ``parse`` reads) the character of the chosen choice is."""
        ...


def choice_source(text: str, tokens: Sequence[TokenLogprob] | None, reader: ChoiceReader) -> ScoreSource:
    """The choice a reply made (its 1-based number as shown) and each choice's probability.

    Examples:
        >>> import math
        >>> class Letters:
        ...     choices = ("a", "b")
        ...     def choice_at(self, text): return text.index("(") + 1
        >>> top = (("a", math.log(0.7)), ("b", math.log(0.2)), ("c", math.log(0.1)))
        >>> letter = TokenLogprob("a", math.log(0.7), top)
        >>> tokens = [TokenLogprob("Output (", 0.0), letter, TokenLogprob(")", 0.0)]
        >>> choice_source("Output (a)", tokens, Letters()).distribution
        [(1.0, 0.777777778), (2.0, 0.222222222)]
    """
    position = reader.choice_at(text)
    names = [name.casefold() for name in reader.choices]
    written = float(names.index(text[position].casefold()) + 1)
    found = _probabilities(text, tokens, position, names)
    if isinstance(found, str):
        return ScoreSource(mode="parse", written=written, score=written, reason=found)
    distribution = [(float(k), round(p, 9)) for k, p in sorted(found.items())]
    return ScoreSource(mode="logprobs", written=written, score=written, distribution=distribution)


def _probabilities(
    text: str, tokens: Sequence[TokenLogprob] | None, position: int, names: list[str]
) -> dict[int, float] | str:
    if tokens is None:
        return NO_LOGPROBS
    starts = _token_starts(text, tokens)
    if starts is None:
        return "the tokens do not spell the reply"
    index = next(
        (i for i, at in enumerate(starts) if at is not None and at <= position < at + len(tokens[i].token)),
        None,
    )
    if index is None or not tokens[index].top:
        return "the server sent no top log-probabilities at the verdict's token"
    at = starts[index]
    assert at is not None
    token = tokens[index].token
    before, after = token[: position - at].casefold(), token[position - at + 1 :].casefold()
    found: dict[int, float] = {}
    for alt, p in _alternatives(tokens[index]).items():
        folded = alt.casefold()
        for number, name in enumerate(names, start=1):
            if folded == before + name + after:
                found[number] = found.get(number, 0.0) + p
    total = math.fsum(found.values())
    if total <= 0:
        return "no choice is among the top log-probabilities at the verdict's token"
    return {number: p / total for number, p in found.items()}
