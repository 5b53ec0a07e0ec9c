"""A rule-based stand-in for an LLM judge, for tests and benchmarks.

It reads faceteval's prompts, recognises the stage, and answers like a well-behaved judge would:
numbered aspect questions, a weight line, a score line per aspect computed from a quality table of
the candidate texts (so results follow the candidates, not their positions, unless ``first_bias``
says otherwise). Its replies are test fixtures, never judgments of anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.quoted import unquote

DEFAULT_ASPECTS = (
    "Does the output follow the instruction?",
    "Is the output correct?",
    "Is the output concise?",
)
DEFAULT_WEIGHTS = (50, 30, 20)

_CANDIDATE = re.compile(r"\[The Start of (Response(?: \d+)?)\]\n(.*?)\n\[The End of \1\]", re.DOTALL)
_ASPECT = re.compile(r"on one aspect only:\n(.+?)\n\nEach response", re.DOTALL)
_ASPECT_LAST = re.compile(r"\n\[Aspect\]\n(.+)\Z", re.DOTALL)
"""The aspect where ``--prefix-cache`` puts it: at the end."""
_COUNT = re.compile(r"Propose (\d+) concise question")


@dataclass
class RuleJudge:
    """Answers faceteval prompts by rule.

    Attributes:
        aspects: Aspect questions to propose (the first k are used).
        weights: Percentages to propose (the first k, renormalised to 100).
        quality: Candidate text -> score on every aspect (default 5), or -> {aspect: score}.
        first_bias: Added to the first presented candidate's scores (a position-biased judge).
        scorer: For texts not in ``quality``: (text, aspect or None) -> score (default 5).
        calls: Stage of every prompt answered, in order.
    """

    aspects: Sequence[str] = DEFAULT_ASPECTS
    weights: Sequence[int] = DEFAULT_WEIGHTS
    quality: Mapping[str, float | Mapping[str, float]] = field(default_factory=dict)
    first_bias: float = 0.0
    scorer: Callable[[str, str | None], float] | None = None
    calls: list[str] = field(default_factory=list)
    record: bool = True

    def respond(self, messages: Sequence[Mapping[str, Any]]) -> str:
        """The reply to a chat request given as ``[{"role", "content"}, ...]``."""
        prompt = _prompt(messages)
        stage = stage_of(prompt)
        if self.record:
            self.calls.append(stage)
        if stage == "dna.aspects":
            k = int(_COUNT.search(prompt)[1])  # type: ignore[index]
            return "\n".join(f"{i}. {q}" for i, q in enumerate(list(self.aspects)[:k], start=1))
        if stage == "dna.weights":
            block = prompt[prompt.index("# Evaluation aspects:") : prompt.index("Please propose")]
            k = len(re.findall(r"^\d+\. ", block, re.MULTILINE))
            chosen = list(self.weights)[:k] or [1] * k
            return " ".join(f"{w}%" for w in chosen)
        candidates = [unquote(text) for _, text in _CANDIDATE.findall(prompt)]
        aspect_match = _ASPECT.search(prompt) or _ASPECT_LAST.search(prompt)
        aspect = unquote(aspect_match[1]).strip() if aspect_match else None
        scores = [
            self.score(text, aspect) + (self.first_bias if i == 0 else 0) for i, text in enumerate(candidates)
        ]
        line = " ".join(_fmt(min(10.0, max(1.0, s))) for s in scores)
        if stage == "cot":
            return f"Weighing each response against the question.\n{line}"
        return f"{line}\nScored by rule on {aspect or 'overall quality'}."

    def score(self, text: str, aspect: str | None) -> float:
        """The quality of ``text`` on ``aspect`` (overall: the mean over its aspects)."""
        if text not in self.quality and self.scorer is not None:
            return self.scorer(text, aspect)
        value = self.quality.get(text, 5.0)
        if isinstance(value, int | float):
            return float(value)
        if aspect is None:
            return sum(value.values()) / len(value)
        return float(value.get(aspect, 5.0))

    def for_provider(self) -> Any:
        """A script for `ScriptedProvider`."""
        return lambda request: self.respond([m.to_dict() for m in request.messages])

    def for_server(self) -> Any:
        """A responder for `LLMServer`: free text, or JSON under the schema a request asks for."""
        return lambda body: self.respond_json(body) if schema_name(body) else self.respond(body["messages"])

    def respond_json(self, body: Mapping[str, Any]) -> str:
        """The reply to a structured-output request: the free-text reply written as the JSON its schema
        (``scores``, ``weights`` or ``criteria``) asks for."""
        text = self.respond(body["messages"])
        name = schema_name(body)
        if name == "criteria":
            questions = [line.split(". ", 1)[1] for line in text.splitlines()]
            return json.dumps({"criteria": [{"name": q, "description": ""} for q in questions]})
        if name == "weights":
            return json.dumps({"weights": [float(w.rstrip("%")) for w in text.split()]})
        lines = text.splitlines()
        line, why = (
            (lines[-1], lines[:-1]) if stage_of(_prompt(body["messages"])) == "cot" else (lines[0], lines[1:])
        )
        return json.dumps({"scores": [float(v) for v in line.split()], "explanation": "\n".join(why)})


def schema_name(body: Mapping[str, Any]) -> str | None:
    """The name of the schema a request asks its reply to follow (OpenAI's ``response_format``, or the tool
    an Anthropic request forces), None for a free-text request."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return str(response_format["json_schema"]["name"])
    schema = response_format.get("schema") or body.get("guided_json") or body.get("format")
    if isinstance(schema, dict):  # the other dialects send no name: the schema's own property names it
        return next(name for name in ("criteria", "weights", "scores") if name in schema["properties"])
    choice = body.get("tool_choice") or {}
    return str(choice["name"]) if choice.get("type") == "tool" else None


def _prompt(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(str(m["content"]) for m in messages if m["role"] != "assistant")


def stage_of(prompt: str) -> str:
    """Which faceteval stage a prompt belongs to."""
    if "concise question" in prompt and "# Instruction:" in prompt:
        return "dna.aspects"
    if "importance weightage" in prompt:
        return "dna.weights"
    if "on one aspect only:" in prompt:
        return "dna.score"
    if "already been scored" in prompt:
        return "dna.aggregate"
    if "explain your evaluation step by step" in prompt:
        return "cot"
    return "direct"


def _fmt(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def benchmark_responder(body: dict[str, Any]) -> str:
    """A responder for benchmark servers: a fixed judge with every candidate at quality 5."""
    return _BENCH.respond(body["messages"])


_BENCH = RuleJudge(record=False)
