"""A rule-based stand-in for a Fennec judge, for tests.

It recognises Fennec's steps by their system messages (Table 7) and answers like a well-behaved
judge: a numbered criteria list, a 1-5 guideline per criterion, "Response A Score: n" judge results
computed from a quality table of the response texts, and rewrites. Its replies are test fixtures,
never judgments of anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.quoted import unquote

DEFAULT_CRITERIA = (
    ("Accuracy", "Evaluates if the response is correct."),
    ("Comprehensiveness", "Assesses if the response covers every part of the query."),
    ("Coherence", "Evaluates whether the response is logically structured."),
    ("Contextuality", "Assesses whether the response reflects the context of the query."),
    ("Conciseness", "Evaluates if the response is succinct."),
)

_RESPONSE = re.compile(r"\[The Start of (Response(?: [A-Z])?)\]\n(.*?)\n\[The End of \1\]", re.DOTALL)
_ORIGINAL = re.compile(
    r"\[The Start of Original Response\]\n(.*?)\n\[The End of Original Response\]", re.DOTALL
)
_CRITERION = re.compile(r"\[Evaluation Criteria\]:\n(.+?)\n", re.DOTALL)
_COUNT = re.compile(r"establish (\w+) \[Evaluation Criteria\]")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def stage_of(messages: Sequence[Mapping[str, Any]]) -> str:
    """Which Fennec step a request belongs to, from its system message."""
    system = next((str(m["content"]) for m in messages if m["role"] == "system"), "")
    prompt = "\n".join(str(m["content"]) for m in messages)
    if "creating Evaluation Criteria" in system:
        return "fennec.criteria"
    if "into comprehensive Scoring Guidelines" in system:
        return "fennec.guideline"
    if "Pairwise Evaluations" in system:
        return "fennec.pairwise"
    if "Single-Score Evaluations" in system:
        return "fennec.single"
    if "content modification" in system:
        return "fennec.correction"
    if "importance weightage" in prompt:
        return "fennec.weights"
    return "other"


def guideline_for(criterion: str) -> str:
    """The guideline this judge writes for ``criterion`` (name and description as shown)."""
    name = criterion.split(":", 1)[0].strip()
    levels = ("Not at all satisfactory", "Slightly satisfactory", "Fairly satisfactory", "Very satisfactory")
    lines = [f"{k}. {level}: {name} is met to degree {k}." for k, level in enumerate(levels, start=1)]
    lines.append(f"5. Extremely satisfactory: {name} is met in full.")
    return "\n".join(lines)


@dataclass
class FennecJudge:
    """Answers Fennec prompts by rule.

    Attributes:
        criteria: (name, description) pairs to propose (the first N asked for).
        quality: Response text -> its 1-5 score on every criterion (default 3), or -> {criterion: score}.
        first_bias: Added to the first presented response's score in pairwise-eval (clipped to 1-5).
        weights: Percentages to propose when asked for weights (the first k).
        rewrite: Original response text -> its correction (default: ``"<text> (corrected)"``).
        scorer: For texts not in ``quality``: (text, criterion) -> score (default 3).
        calls: Stage of every request answered, in order.
        prompts: Every request's messages, in order.
    """

    criteria: Sequence[tuple[str, str]] = DEFAULT_CRITERIA
    quality: Mapping[str, float | Mapping[str, float]] = field(default_factory=dict)
    first_bias: float = 0.0
    weights: Sequence[int] = (40, 30, 10, 10, 10)
    rewrite: Mapping[str, str] = field(default_factory=dict)
    scorer: Callable[[str, str], float] | None = None
    calls: list[str] = field(default_factory=list)
    prompts: list[list[dict[str, str]]] = field(default_factory=list)

    def respond(self, messages: Sequence[Mapping[str, Any]]) -> str:
        """The reply to a chat request given as ``[{"role", "content"}, ...]``."""
        stage = stage_of(messages)
        self.calls.append(stage)
        self.prompts.append([{"role": str(m["role"]), "content": str(m["content"])} for m in messages])
        prompt = str(messages[-1]["content"])
        if stage == "fennec.criteria":
            found = _COUNT.search(prompt)
            word = found[1] if found else "5"
            k = _WORDS.get(word) or int(word)
            return "\n".join(f"{i}. {n}: {d}" for i, (n, d) in enumerate(list(self.criteria)[:k], start=1))
        if stage == "fennec.guideline":
            return guideline_for(_criterion(prompt))
        if stage == "fennec.weights":
            block = prompt[prompt.index("# Evaluation aspects:") : prompt.index("Please propose")]
            k = len(re.findall(r"^\d+\. ", block, re.MULTILINE))
            return " ".join(f"{w}%" for w in list(self.weights)[:k])
        if stage == "fennec.correction":
            original = _ORIGINAL.search(prompt)
            text = unquote(original[1]) if original else ""
            return f"[Modified Response]: {self.rewrite.get(text, text + ' (corrected)')}"
        if stage in ("fennec.pairwise", "fennec.single"):
            name = _criterion(prompt).split(":", 1)[0].strip()
            parts = []
            for i, (label, quoted) in enumerate(_RESPONSE.findall(prompt)):
                text = unquote(quoted)
                bias = self.first_bias if stage == "fennec.pairwise" and i == 0 else 0.0
                value = max(1.0, min(5.0, self.score(text, name) + bias))
                parts.append(f"{label} Score: {_fmt(value)}\nExplanation: {label} on {name}: {text[:40]}.")
            if stage == "fennec.pairwise":
                parts.append(f"Comparison: compared on {name}.")
            return "\n".join(parts)
        return "I cannot answer that."

    def score(self, text: str, criterion: str) -> float:
        """The quality of ``text`` on ``criterion``."""
        if text not in self.quality and self.scorer is not None:
            return self.scorer(text, criterion)
        value = self.quality.get(text, 3.0)
        if isinstance(value, int | float):
            return float(value)
        return float(value.get(criterion, 3.0))

    def for_provider(self) -> Any:
        """A script for `ScriptedProvider`."""
        return lambda request: self.respond([m.to_dict() for m in request.messages])

    def for_server(self) -> Any:
        """A responder for `LLMServer`."""
        return lambda body: self.respond(body["messages"])


def _criterion(prompt: str) -> str:
    found = _CRITERION.search(prompt)
    return unquote(found[1]).strip() if found else ""


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
