"""Criteria decomposition with a scripted provider: the prompt, merging, re-asks, which nodes grow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from faceteval.core import Criterion
from faceteval.errors import ConfigError, ParseError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, ScriptedProvider
from faceteval.methods.hdeval._tree import CriteriaTree
from faceteval.parsing import CriteriaParser
from faceteval.store import SQLiteCache
from faceteval.workflows.hdeval._decompose import ChildrenParser, decompose_tree, merge_similar, similar

TREE = CriteriaTree(
    task="text summarization",
    background="A summary is a shorter passage that keeps the key details of an article.",
    criteria=(
        Criterion(
            name="coherence",
            description="The summary is well organised.",
            children=(Criterion(name="logical flow", description="Ideas follow one another."),),
        ),
        Criterion(name="fluency", description="Sentences read naturally."),
    ),
)
WORDS = ("clarity", "brevity", "precision")
FIVE_WITH_A_DUPLICATE = """Here are the criteria:
1. Logical flow: Ideas follow one another.
2. Paragraph structure: Each paragraph has one topic.
3. Logical Flow.: The summary moves from one idea to the next without abrupt jumps or gaps.
4. Referential clarity: Pronouns point to clear antecedents.
5. Ordering of events: Events appear in a sensible order.
"""


def llm_for(provider: ScriptedProvider, **options: object) -> LLM:
    return LLM(provider, ModelSpec("scripted", "judge"), **options)  # type: ignore[arg-type]


def prompt_of(request: CompletionRequest) -> str:
    return request.messages[-1].content


def by_node(request: CompletionRequest) -> str:
    """Children named after the criterion the prompt asks about."""
    match = re.search(r'I would like to evaluate its "?(.+?)"?(?:,|\.\n)', prompt_of(request))
    assert match is not None
    subject = match[1]
    return "\n".join(f"{i}. {word} of {subject}: The {subject} is {word}." for i, word in enumerate(WORDS, 1))


# -- similarity and merging ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Logical flow", "logical  flow.", True),  # equal once normalised
        ("Grammar and syntax", "Syntax and grammar", True),  # the same words (Jaccard 1)
        ("Use of evidence and examples", "Use of examples and evidence", True),
        ("Spelling and punctuation", "Spelling punctuation", True),  # string ratio 0.91
        ("Factual accuracy", "Factual consistency", False),
        ("Grammar", "Topic relevance", False),
    ],
)
def test_similar_names(a: str, b: str, same: bool) -> None:
    assert similar(a, b) is same


def test_merging_keeps_the_first_name_and_the_longer_description_and_drops_the_parent() -> None:
    parent = Criterion(name="Coherence", description="Well organised.")
    children = [
        Criterion(name="Flow", description="short"),
        Criterion(name="coherence", description="A copy of the parent."),
        Criterion(name="flow.", description="a much longer description of flow"),
        Criterion(name="Structure"),
    ]
    merged = merge_similar(children, parent=parent)
    assert merged == [
        Criterion(name="Flow", description="a much longer description of flow"),
        Criterion(name="Structure"),
    ]


def test_the_criteria_parser_can_keep_repeated_names_for_the_caller_to_merge() -> None:
    reply = "1. Accuracy: facts\n2. accuracy: the facts are right"
    with pytest.raises(ParseError, match="listed twice"):
        CriteriaParser().parse(reply)  # the default is unchanged
    kept = CriteriaParser(distinct=False).parse(reply)
    assert [c.name for c in kept] == ["Accuracy", "accuracy"]
    with pytest.raises(ParseError, match="expected 3 criteria"):
        CriteriaParser(3, distinct=False).parse(reply)


def test_the_parser_states_the_format_and_gives_a_well_formed_example() -> None:
    assert '"<name>: <definition>"' in ChildrenParser(3).instructions
    for k in (1, 5, 12):
        example = ChildrenParser(k).parse(ChildrenParser(k).example())
        assert len(example) == k and all(c.description for c in example)


def test_a_reply_that_only_repeats_the_parent_is_not_a_decomposition() -> None:
    with pytest.raises(ParseError, match='repeats "coherence"'):
        ChildrenParser(2, Criterion(name="coherence")).parse("1. Coherence: the whole thing")


# -- through the LLM -------------------------------------------------------------------------------


def test_the_prompt_holds_the_task_background_parent_and_child_count() -> None:
    provider = ScriptedProvider(by_node)
    decompose_tree(TREE, ["coherence / logical flow"], 4, llm_for(provider))
    (request,) = provider.requests
    prompt = prompt_of(request)
    # a tree of no domain: its task is quoted data (HD-Eval's domains: test_prompts_golden.py)
    assert "I would like to perform automatic evaluation on quality of the outputs of this task:\n" in prompt
    assert "\n> text summarization\n" in prompt
    assert f"\n> {TREE.background}\n" in prompt
    assert 'I would like to evaluate its "logical flow", one part of its "coherence".' in prompt
    assert '"logical flow": "Ideas follow one another."' in prompt
    assert "around 4 fine-grained evaluation criteria" in prompt
    assert '"<number>. <name>: <definition>"' in prompt  # the format is stated, so that it parses


def test_five_children_with_two_near_duplicates_give_four() -> None:
    provider = ScriptedProvider.sequence([FIVE_WITH_A_DUPLICATE])
    tree, trace, usage = decompose_tree(TREE, ["fluency"], 5, llm_for(provider))
    children = tree.find("fluency").criterion.children
    assert [c.name for c in children] == [
        "Logical flow",
        "Paragraph structure",
        "Referential clarity",
        "Ordering of events",
    ]
    assert children[0].description.startswith("The summary moves from one idea")  # the longer one
    assert [e.stage for e in trace] == ["hdeval.decompose"]
    assert trace[0].parsed[0]["name"] == "Logical flow"
    assert trace[0].order is None  # decomposition never sees a candidate
    assert usage.calls == 1 and usage.input_tokens > 0


def test_an_unparsable_reply_is_asked_again_once_then_is_a_parse_error() -> None:
    provider = ScriptedProvider.sequence(["I would rather not.", "Still no list, sorry."])
    with pytest.raises(ParseError, match="no criteria") as caught:
        decompose_tree(TREE, ["fluency"], 3, llm_for(provider))
    assert len(provider.requests) == 2
    assert caught.value.stage == "hdeval.decompose"
    assert caught.value.raw == "Still no list, sorry."
    reask = prompt_of(provider.requests[1])
    assert "could not be used" in reask and "<name>: <definition>" in reask


def test_a_reply_read_on_the_re_ask_is_used() -> None:
    provider = ScriptedProvider.sequence(
        ["no idea", "1. Grammar: sentences are correct\n2. Word choice: apt words"]
    )
    tree, trace, usage = decompose_tree(TREE, ["fluency"], 2, llm_for(provider))
    assert [c.name for c in tree.find("fluency").criterion.children] == ["Grammar", "Word choice"]
    assert [e.problem is not None for e in trace] == [True, False]
    assert usage.calls == 2


def test_only_the_given_nodes_are_decomposed_concurrently_and_their_children_replaced() -> None:
    provider = ScriptedProvider(by_node)
    tree, trace, usage = decompose_tree(TREE, ["fluency", "coherence / logical flow"], 3, llm_for(provider))
    assert len(provider.requests) == 2 and usage.calls == 2
    assert [n.id for n in tree.layer(3)] == [f"coherence / logical flow / {w} of logical flow" for w in WORDS]
    assert [c.name for c in tree.find("fluency").criterion.children] == [f"{w} of fluency" for w in WORDS]
    assert tree.find("coherence").criterion.description == "The summary is well organised."
    asked = [e.parsed[0]["name"] for e in trace]
    assert asked == ["clarity of fluency", "clarity of logical flow"]  # in the order of the ids given
    assert TREE.depth == 2  # the input tree is unchanged

    again, _, _ = decompose_tree(TREE, ["coherence"], 3, llm_for(ScriptedProvider(by_node)))
    assert [n.id for n in again.layer(2)] == [f"coherence / {w} of coherence" for w in WORDS]  # replaced


def test_none_decomposes_the_task_into_layer_one() -> None:
    provider = ScriptedProvider.sequence(["1. Coherence: well organised\n2. Fluency: reads naturally"])
    tree, _, _ = decompose_tree(CriteriaTree("text summarization"), None, 2, llm_for(provider))
    assert [n.id for n in tree.nodes()] == ["Coherence", "Fluency"]
    prompt = prompt_of(provider.requests[0])
    assert "I would like to evaluate its overall quality." in prompt and "one part of" not in prompt


def test_bad_requests_fail_before_any_call() -> None:
    provider = ScriptedProvider(by_node)
    with pytest.raises(ConfigError, match="no criterion 'nope'"):
        decompose_tree(TREE, ["nope"], 3, llm_for(provider))
    with pytest.raises(ConfigError, match="which is under it"):
        decompose_tree(TREE, ["coherence", "coherence / logical flow"], 3, llm_for(provider))
    with pytest.raises(ConfigError, match="at least 1"):
        decompose_tree(TREE, ["fluency"], 0, llm_for(provider))
    assert provider.requests == []


def test_a_second_run_is_answered_from_the_cache(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "cache.sqlite") as cache:
        provider = ScriptedProvider(by_node)
        first, _, _ = decompose_tree(TREE, ["fluency"], 3, llm_for(provider, cache=cache))
        second, trace, usage = decompose_tree(TREE, ["fluency"], 3, llm_for(provider, cache=cache))
    assert len(provider.requests) == 1
    assert first == second
    assert usage.cached_calls == usage.calls == 1 and trace[0].cached
