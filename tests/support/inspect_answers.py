"""The questions, answers, baselines and targets of the Inspect AI tasks of `tests.support.inspect_tasks`,
and the local server's stand-in model (`respond`), which answers each question with `ANSWERS` and judges
by rule; apart from the tasks, so that the tests reading them import no Inspect AI before they run.
"""

from __future__ import annotations

from typing import Any

from tests.support.llm_server import Behaviour, Status
from tests.support.rule_judge import RuleJudge, stage_of

QUESTIONS = {
    "capital": "What is the capital of Australia?",
    "prime": "Name a prime number between 20 and 30.",
    "boil": "At what temperature does water boil at sea level, in Celsius?",
    "translate": "Translate into French: 'The cat is sleeping on the sofa.'",
}
"""The samples' ids and inputs."""
ANSWERS = {
    QUESTIONS["capital"]: "Canberra is the capital of Australia.",
    QUESTIONS["prime"]: "23 is a prime number between 20 and 30.",
    QUESTIONS["boil"]: "It boils when it is hot enough.",
    QUESTIONS["translate"]: "Le chat dort sur le canapé.",
}
"""What the model under test answers to each question."""
UNREADABLE = ANSWERS[QUESTIONS["boil"]]
"""An answer whose facet scores the judge gives in no form that can be read."""
REFUSED = ANSWERS[QUESTIONS["translate"]]
"""An answer the judge's calls about fail: the server refuses them (HTTP 400)."""
BASELINES = {
    "capital": "Sydney.",
    "prime": "23 is a prime number between 20 and 30.",
    "boil": "100 degrees.",
    "translate": "Le chien mange.",
}
"""Each sample's baseline, in its metadata: worse than the answer, as good as it (a tie), and two never
judged (their samples are unscored)."""
TARGETS = {
    "capital": "Canberra.",
    "prime": "Any of 23 or 29.",
    "boil": "100 degrees Celsius.",
    "translate": "Le chat dort sur le canapé.",
}
QUALITY = {
    ANSWERS[QUESTIONS["capital"]]: 9.0,
    ANSWERS[QUESTIONS["prime"]]: 6.0,
    "Sydney.": 2.0,
    "Canberra.": 10.0,
    "Any of 23 or 29.": 6.0,
}
"""The stand-in judge's score of each text on every facet (so a text's overall score is this)."""

JUDGE = RuleJudge(quality=QUALITY, record=False)


UNREAD_REPLY = "Both responses have their merits."
"""The judge's reply to every scoring prompt about `UNREADABLE`."""


def respond(body: dict[str, Any]) -> str | Behaviour:
    """The stand-in model: an answer to a question, a judge's reply to a faceteval prompt."""
    messages = body["messages"]
    prompt = "\n".join(str(m["content"]) for m in messages if m["role"] != "assistant")
    if prompt in ANSWERS:
        return ANSWERS[prompt]
    if REFUSED in prompt:
        return Status(400)
    if stage_of(prompt) == "dna.score" and UNREADABLE in prompt:
        return UNREAD_REPLY
    return JUDGE.respond(messages)
