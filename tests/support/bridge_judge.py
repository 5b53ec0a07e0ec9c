"""A rule-based stand-in for the LLM behind Fennec's bridging, for tests.

It recognises the bridging steps by their system messages and answers like a well-behaved model:

- reverse criteria: a numbered "Name: description" list; "Conciseness" is among them when the judgment
  speaks of concision;
- reverse guideline: five score lines and a summary line stating the conclusion the judgment reached
  ("the better response is Response 2", "this response deserves a 4");
- bridging (Auto-J prompt or single-eval): the conclusion the guideline's summary line states.

So a record is consistent unless its guideline is made to state another conclusion (``mislead``).
``refuse`` makes a step answer with a refusal, for every reply including the re-ask. Its replies are
test fixtures, never judgments of anything.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from faceteval.prompts import fence
from tests.support.quoted import unquote

REFUSAL = "I'm sorry, but I can't help with that."

_JUDGMENT = re.compile(r"\[The Start of Judge Result\]\n(.*?)\n\[The End of Judge Result\]", re.DOTALL)
_GUIDELINE = re.compile(r"\[Scoring Guideline\]:\n(.*?)\n\n\[", re.DOTALL)
_DECISION = re.compile(r"final decision is (Response 1|Response 2|Tie)")
_SCORE = re.compile(r"Response Score: (\d)")
_BETTER = re.compile(r"the better response is (Response 1|Response 2|Tie)")
_DESERVES = re.compile(r"this response deserves a (\d)")
_OTHER = {"Response 1": "Response 2", "Response 2": "Response 1", "Tie": "Response 1"}


def stage_of(messages: Sequence[Mapping[str, Any]]) -> str:
    """Which bridging step a request belongs to, from its system message (and the Auto-J prompt's ending)."""
    system = next((str(m["content"]) for m in messages if m["role"] == "system"), "")
    first = next((str(m["content"]) for m in messages if m["role"] == "user"), "")
    if "recovering the Evaluation Criteria" in system:
        return "bridge.criteria"
    if "recovering the comprehensive Scoring Guidelines" in system:
        return "bridge.guideline"
    if "Pairwise Evaluations" in system and "So, the final decision is" in first:
        return "bridge.pairwise"
    if "Single-Score Evaluations" in system:
        return "bridge.single"
    return "other"


def conclusion_of(judgment: str) -> str:
    """The recorded conclusion: ``Response 1``, ``Response 2``, ``Tie``, or a score such as ``4``."""
    decision = _DECISION.findall(judgment)
    if decision:
        return str(decision[-1])
    score = _SCORE.search(judgment)
    return score[1] if score else "Tie"


def _contradict(conclusion: str) -> str:
    if conclusion in _OTHER:
        return _OTHER[conclusion]
    return "5" if int(conclusion) <= 3 else "1"


@dataclass
class BridgeJudge:
    """Answers the bridging prompts by rule.

    Attributes:
        mislead: Prompts holding any of these texts get a guideline that states another conclusion.
        refuse: Stage -> texts: a prompt of that stage holding any of them is answered with a refusal.
        calls: Stage of every request answered, in order.
        prompts: The first user message of every request, in order.
    """

    mislead: Collection[str] = ()
    refuse: Mapping[str, Collection[str]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def respond(self, messages: Sequence[Mapping[str, Any]]) -> str:
        """The reply to a chat request given as ``[{"role", "content"}, ...]``."""
        stage = stage_of(messages)
        prompt = next((str(m["content"]) for m in messages if m["role"] == "user"), "")
        with self._lock:
            self.calls.append(stage)
            self.prompts.append(prompt)
        if any(fence(text) in prompt for text in self.refuse.get(stage, ())):
            return REFUSAL
        if stage == "bridge.criteria":
            return self._criteria(prompt)
        if stage == "bridge.guideline":
            return self._guideline(prompt)
        if stage in ("bridge.pairwise", "bridge.single"):
            return self._judge(prompt, stage)
        return REFUSAL

    def _criteria(self, prompt: str) -> str:
        judgment = _block(_JUDGMENT, prompt)
        items = ["Helpfulness: Evaluates whether the response does what the user asked."]
        if "concise" in judgment.lower():
            items.append("Conciseness: Evaluates whether the response avoids needless words.")
        items.append("Accuracy: Assesses whether what the response states is correct.")
        return "Here are the criteria:\n" + "\n".join(f"{k}. {item}" for k, item in enumerate(items, 1))

    def _guideline(self, prompt: str) -> str:
        conclusion = conclusion_of(_block(_JUDGMENT, prompt))
        if any(fence(text) in prompt for text in self.mislead):
            conclusion = _contradict(conclusion)
        levels = ("Not at all", "Slightly", "Fairly", "Very", "Extremely")
        lines = [
            f"{k}. {level} satisfactory: the criteria are met to degree {k}."
            for k, level in enumerate(levels, 1)
        ]
        if conclusion.isdigit():
            lines.append(f"In Summary: this response deserves a {conclusion}.")
        else:
            lines.append(f"In Summary: the better response is {conclusion}.")
        return "[Scoring Guideline]:\n" + "\n".join(lines)

    def _judge(self, prompt: str, stage: str) -> str:
        guideline = _block(_GUIDELINE, prompt)
        if stage == "bridge.single":
            score = _DESERVES.search(guideline)
            value = score[1] if score else "3"
            return f"Response Score: {value}\nExplanation: the guideline's level {value} describes it."
        better = _BETTER.search(guideline)
        decision = better[1] if better else "Tie"
        return f"Both responses were compared on the criteria. So, the final decision is {decision}."

    def for_provider(self) -> Any:
        """A script for `ScriptedProvider`."""
        return lambda request: self.respond([m.to_dict() for m in request.messages])

    def for_server(self) -> Any:
        """A responder for `LLMServer`."""
        return lambda body: self.respond(body["messages"])


def _block(pattern: re.Pattern[str], prompt: str) -> str:
    found = pattern.search(prompt)
    return unquote(found[1]) if found else ""
