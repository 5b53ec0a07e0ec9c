"""The workflows render the templates they are given, as a judge run renders its options': nothing is
put in use around them, so what is in use elsewhere neither leaks into them nor is changed by them."""

from __future__ import annotations

from pathlib import Path

from faceteval.core import Criterion
from faceteval.llm import LLM, CompletionRequest, ModelSpec, ScriptedProvider
from faceteval.methods.hdeval import CriteriaTree
from faceteval.prompts import Templates, render, using_templates
from faceteval.workflows.coeval import Demonstration, generate_criteria, save_generation
from faceteval.workflows.hdeval import decompose_tree

GENERATE = "### user\nMINE: criteria for {{ task }} shown {{ example.input }} -> {{ example.output }}"
DECOMPOSE = (
    "### user\nMINE: split {{ task }} {{ background }} {{ domain_task }} {{ domain_definition }} "
    "{{ criterion }} {{ parent }} into {{ k }}"
)


def criteria_reply(request: CompletionRequest) -> str:
    return "1. Clarity: Easy to follow.\n2. Accuracy: The facts are right."


def llm(provider: ScriptedProvider) -> LLM:
    return LLM(provider, ModelSpec("scripted", "w"))


def test_criteria_generation_renders_and_records_the_templates_it_is_given(tmp_path: Path) -> None:
    mine = Templates.from_texts({"coeval/generate": GENERATE})
    provider = ScriptedProvider(criteria_reply)

    example = Demonstration("q", "a")
    generation = generate_criteria("Explain.", example, llm(provider), samples=1, templates=mine)

    assert {r.messages[-1].content for r in provider.requests} == {"MINE: criteria for Explain. shown q -> a"}
    record = save_generation(generation, tmp_path / "out", model="scripted:w")
    assert record.prompts == {"coeval/generate": mine.get("coeval/generate").sha256}
    built_in = render("coeval/generate", task="t", example=example)[-1].content
    assert not built_in.startswith("MINE")  # nothing was left in use


def test_decomposition_renders_the_templates_it_is_given_over_those_in_use() -> None:
    tree = CriteriaTree("Summarize.", criteria=(Criterion(name="Coherence"),))
    mine = Templates.from_texts({"hdeval/decompose": DECOMPOSE})
    outer = Templates.from_texts({"common/reask": "### user\nOUTER {{ problem }} {{ instructions }}"})
    provider = ScriptedProvider(lambda request: "1. Flow: Ideas follow.\n2. Focus: One topic.")

    with using_templates(outer):  # what is in use around the call stays in use for the rest
        decompose_tree(tree, ["coherence"], 2, llm(provider), templates=mine)
        assert render("common/reask", problem="p", instructions="i")[-1].content == "OUTER p i"

    assert provider.requests[0].messages[-1].content.startswith("MINE: split Summarize.")
