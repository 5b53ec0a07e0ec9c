"""The reply formats of the benchmarks' own baseline prompts: LLMBar's choice, FairEval's score lines.

Each parser has ``instructions`` (the reply format, for the re-ask), ``parse`` (raising `ParseError`
with a problem an LLM can act on) and ``example``, like those of `faceteval.parsing`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval.errors import ParseError
from faceteval.parsing import ScoreParser

_CHOICE_LINE = re.compile(r"^[ \t*\"'`]*Output \(([ab])\)", re.IGNORECASE | re.MULTILINE)
"""LLMBar's Vanilla parsing (``(?:^|\\n) ?Output \\(a\\)``), also past Markdown emphasis or a quote."""
_CLAIM = re.compile(r"Output \(([ab])\) is better", re.IGNORECASE)
"""LLMBar's CoT parsing (``Output \\(a\\) is better.``)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """The output a reply chose: 0 for Output (a), 1 for Output (b), and the reasoning before it."""

    index: int
    explanation: str = ""


class ChoiceParser:
    """Reads LLMBar's answer: ``Output (a)`` / ``Output (b)`` (Vanilla), or an explanation that ends
    ``Therefore, Output (a) is better.`` (CoT).

    LLMBar's own parsing takes Output (a) whenever its pattern occurs anywhere; this one refuses a reply
    that answers both ways (Vanilla), and reads the last claim of a CoT reply (the one its prompt asks
    to end with).

    Examples:
        >>> ChoiceParser().parse("Output (b)").index
        1
        >>> ChoiceParser(explained=True).parse("(a) is vague.\\nTherefore, Output (b) is better.").index
        1
    """

    def __init__(self, *, explained: bool = False) -> None:
        self._explained = explained

    @property
    def instructions(self) -> str:
        """The reply format, in one or two sentences."""
        if self._explained:
            return (
                'Give a brief explanation, then end your reply with either "Therefore, Output (a) is '
                'better." or "Therefore, Output (b) is better." verbatim.'
            )
        return 'Answer using ONLY "Output (a)" or "Output (b)". Do NOT output any other words.'

    def example(self) -> str:
        """A well-formed reply of typical length."""
        if not self._explained:
            return "Output (a)"
        return (
            "Output (a) carries out the instruction precisely: it answers what was asked, in the form "
            "asked, and adds nothing the instruction did not ask for. Output (b) reads well but drifts "
            "from the instruction and leaves one of its requirements out.\n\nTherefore, Output (a) is better."
        )

    @property
    def choices(self) -> tuple[str, ...]:
        """The letters naming the outputs, as shown: ``a``, ``b``."""
        return ("a", "b")

    def choice_at(self, text: str) -> int:
        """Where the letter of the chosen output is in ``text`` (a reply `parse` reads): the ``a`` of
        the answer's ``Output (a)`` (the last claim of a CoT reply), for its log-probabilities."""
        self.parse(text)
        match = list(_CLAIM.finditer(text))[-1] if self._explained else _CHOICE_LINE.search(text)
        assert match is not None
        return match.start(1)

    def parse(self, text: str) -> Choice:
        """The chosen output.

        Raises:
            ParseError: The reply chooses neither output, or (Vanilla) both.
        """
        if not text.strip():
            raise ParseError("the reply is empty", raw=text)
        if self._explained:
            claims = list(_CLAIM.finditer(text))
            if not claims:
                raise ParseError(
                    'the reply does not end with "Therefore, Output (a) is better." or "Therefore, '
                    'Output (b) is better."',
                    raw=text,
                )
            last = claims[-1]
            return Choice(_index(last[1]), text[: last.start()].strip().removesuffix("Therefore,").strip())
        chosen = {match[1].lower() for match in _CHOICE_LINE.finditer(text)}
        if len(chosen) != 1:
            problem = "answers both" if chosen else "does not answer"
            raise ParseError(f'the reply {problem} "Output (a)" or "Output (b)"', raw=text)
        return Choice(_index(chosen.pop()))


def _index(letter: str) -> int:
    return 0 if letter.lower() == "a" else 1


class ScoreLinesParser(ScoreParser):
    """FairEval's evidence-then-scores reply: ``Score of the Assistant 1: <score>`` on each of the last
    lines (`ScoreParser` reads it; this names the format in a re-ask).

    Examples:
        >>> reply = "Evaluation evidence: ...\\nScore of the Assistant 1: 8\\nScore of the Assistant 2: 6"
        >>> ScoreLinesParser(["Assistant 1", "Assistant 2"], scale=(1, 10)).parse(reply).values
        (8.0, 6.0)
    """

    def __init__(self, labels: Sequence[str], *, scale: tuple[float, float]) -> None:
        super().__init__(labels, scale=scale, position="last", explained=True)
        self._names = tuple(labels)

    @property
    def instructions(self) -> str:
        """The reply format."""
        lines = "\n".join(f"Score of the {label}: <score>" for label in self._names)
        return f"Output with the following format:\nEvaluation evidence: <your evaluation here>\n{lines}"

    def example(self) -> str:
        """A well-formed reply of typical length."""
        plain = super().example().splitlines()
        lines = "\n".join(
            f"Score of the {label}: {v}" for label, v in zip(self._names, plain[-1].split(), strict=True)
        )
        return f"Evaluation evidence: {plain[0]}\n{lines}"
