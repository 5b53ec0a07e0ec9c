"""Inspect AI tasks for the tests of `faceteval.integrations.inspect`, run with ``inspect eval`` against the
local server, whose stand-in model (`tests.support.inspect_answers.respond`) answers each question and
judges by rule.

``inspect eval tests/support/inspect_tasks.py --model openai-api/local/judge`` runs the three tasks: each
output judged alone (``pointwise``), against the baseline in its sample's metadata (``against_baseline``)
and against its sample's target (``against_target``). The judge's calls about one output fail (the server
refuses them), and its replies about another cannot be read.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate

from faceteval.integrations.inspect import facet_scorer
from tests.support.inspect_answers import BASELINES, QUESTIONS, TARGETS


def _samples() -> list[Sample]:
    return [
        Sample(id=key, input=question, target=TARGETS[key], metadata={"baseline": BASELINES[key]})
        for key, question in QUESTIONS.items()
    ]


@task
def pointwise() -> Task:
    """Each output judged alone by DnA-Eval (three aspects), shown the target as a reference answer."""
    scorer = facet_scorer("dna", aspects=3, target_as_reference=True)
    return Task(dataset=_samples(), solver=generate(), scorer=scorer)


@task
def against_baseline() -> Task:
    """Each output judged against its sample's baseline, in both orders."""
    return Task(dataset=_samples(), solver=generate(), scorer=facet_scorer("dna", against="baseline"))


@task
def against_target() -> Task:
    """Each output judged against its sample's target, by a method object."""
    from faceteval import DnA

    return Task(dataset=_samples(), solver=generate(), scorer=facet_scorer(DnA(aspects=2), against="target"))
