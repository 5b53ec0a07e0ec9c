"""Fennec's SFT sets as values: the sets and their files, a sample, a correction line, the statistics."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

SftSet = Literal["criteria", "score", "judge", "correction"]


SFT_SETS: tuple[SftSet, ...] = ("criteria", "score", "judge", "correction")


SET_FILES: Mapping[SftSet, str] = {
    "criteria": "criteria.jsonl",
    "score": "score.jsonl",
    "judge": "judge.jsonl",
    "correction": "correction.jsonl",
}


STATS_FILE = "stats.json"


Chat = tuple[tuple[str, str], ...]
"""Messages as ``(role, content)`` pairs."""


_LABEL = re.compile(r"\b(Response|response|RESPONSE) ([A-Za-z])\b")


@dataclass(frozen=True, slots=True)
class Sample:
    """One training conversation: the prompt's messages, then the reply to learn.

    Attributes:
        messages: ``(role, content)`` pairs: system, user, then assistant.
        augmented: Made by swapping the responses of a judgment made in one order (not compared).
    """

    messages: Chat
    augmented: bool = field(default=False, compare=False)

    @property
    def prompt(self) -> Chat:
        """The messages before the reply."""
        return self.messages[:-1]

    def to_record(self) -> dict[str, list[dict[str, str]]]:
        """The sample as one JSONL record: ``{"messages": [{"role", "content"}, ...]}``."""
        return {"messages": [{"role": role, "content": content} for role, content in self.messages]}


class Repeats:
    """Which chats were seen, and how many came again: how a training set leaves out repeats.

    Attributes:
        seen: Every chat seen.
        count: Chats seen again (the repeats left out).

    Examples:
        >>> repeats = Repeats()
        >>> chat = (("user", "Hi"), ("assistant", "Hello"))
        >>> repeats.first(chat), repeats.first(chat), repeats.count
        (True, False, 1)
    """

    __slots__ = ("count", "seen")

    def __init__(self) -> None:
        self.seen: set[Chat] = set()
        self.count = 0

    def first(self, chat: Chat) -> bool:
        """Whether ``chat`` is seen for the first time (it is remembered); a repeat is counted."""
        if chat in self.seen:
            self.count += 1
            return False
        self.seen.add(chat)
        return True


@dataclass(frozen=True, slots=True)
class Correction:
    """One line of a corrections file (`faceteval correct`), as far as an export reads it.

    Attributes:
        status: ``kept``, ``corrected``, ``parse_error`` or ``error``.
        query: The user query.
        original: The response that was corrected.
        correction: The corrected response (``corrected`` lines only).
        judgments: ``(criterion as shown, score, explanation)`` per criterion the correction was given.
    """

    status: str
    query: str = ""
    original: str = ""
    correction: str | None = None
    judgments: tuple[tuple[str, float, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SftStats:
    """What an export wrote and what it left out.

    Attributes:
        samples: Samples written, per set.
        duplicates: Samples left out as repeats (the same sample, or the same criteria or guideline
            prompt), per set.
        augmented: Swapped judge samples among those written.
        inconsistent: Judge samples dropped because their criterion's preference changed with the order.
        incomplete: Judge samples left out for a missing score, explanation, comparison or guideline.
        judgments: Judgments read.
        failed: Judgments skipped because they failed.
        predefined: Judgments whose criteria were predefined (no criteria sample).
        single: Judgments made with single-eval.
        corrections: Correction lines read.
        not_corrected: Correction lines without a correction, by status.
        augment: Whether one-order judgments were swap-augmented.
    """

    samples: Mapping[SftSet, int]
    duplicates: Mapping[SftSet, int]
    augmented: int = 0
    inconsistent: int = 0
    incomplete: int = 0
    judgments: int = 0
    failed: int = 0
    predefined: int = 0
    single: int = 0
    corrections: int = 0
    not_corrected: Mapping[str, int] = field(default_factory=dict)
    augment: bool = True

    @property
    def total(self) -> int:
        """Samples written, over every set."""
        return sum(self.samples.values())

    def skipped(self, name: SftSet) -> int:
        """Inputs of set ``name`` left out: failed judgments, or correction lines without a correction."""
        return sum(self.not_corrected.values()) if name == "correction" else self.failed

    def to_dict(self) -> dict[str, Any]:
        """The statistics as ``stats.json`` holds them."""
        sets: dict[str, dict[str, Any]] = {}
        for name in SFT_SETS:
            entry: dict[str, Any] = {
                "file": SET_FILES[name],
                "samples": self.samples[name],
                "duplicates": self.duplicates[name],
                "skipped": self.skipped(name),
            }
            if name == "judge":
                entry |= {
                    "augmented": self.augmented,
                    "inconsistent": self.inconsistent,
                    "incomplete": self.incomplete,
                }
            sets[name] = entry
        inputs = {
            "judgments": self.judgments,
            "failed": self.failed,
            "predefined_criteria": self.predefined,
            "single_eval": self.single,
            "corrections": self.corrections,
            "corrected": self.corrections - sum(self.not_corrected.values()),
            "not_corrected": dict(self.not_corrected),
        }
        return {"augment": self.augment, "sets": sets, "total": self.total, "inputs": inputs}


@dataclass(frozen=True, slots=True)
class SftData:
    """The four SFT sets and their statistics."""

    sets: Mapping[SftSet, tuple[Sample, ...]]
    stats: SftStats


def swap_labels(text: str, n: int = 2) -> str:
    """``text`` with the response labels of ``n`` responses exchanged as reversing their order does.

    Examples:
        >>> swap_labels("Response A is longer than Response B; response b is right.")
        'Response B is longer than Response A; response a is right.'
        >>> swap_labels("Response A beats Response C", 3)
        'Response C beats Response A'
    """
    letters = string.ascii_uppercase[:n]

    def exchange(match: re.Match[str]) -> str:
        word, letter = match[1], match[2]
        k = letters.find(letter.upper())
        if k < 0:
            return match[0]
        other = letters[n - 1 - k]
        return f"{word} {other if letter.isupper() else other.lower()}"

    return _LABEL.sub(exchange, text)


def preference(scores: Sequence[float | None]) -> int | None:
    """The preferred candidate (1-based) by ``scores``, 0 for a tie at the top, None when one is missing.

    Examples:
        >>> preference([4, 2]), preference([3, 3]), preference([2, None])
        (1, 0, None)
    """
    known = [s for s in scores if s is not None]
    if len(known) < len(scores) or not known:
        return None
    best = max(known)
    top = [m for m, s in enumerate(known, start=1) if s == best]
    return top[0] if len(top) == 1 else 0


def criterion_shown(name: str, description: str | None) -> str:
    """A criterion as the prompts show it: ``name: description``, or its name alone."""
    return f"{name}: {description}" if description else name
