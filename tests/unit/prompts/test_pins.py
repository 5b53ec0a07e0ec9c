"""Every template's hash, and the prompts every method sends, pinned: moving a template or a method
must leave the texts, the run records' prompt hashes and the response cache's keys as they were.

The values were computed from the code before the methods moved into their family packages. A
change here is a change of prompts: every cached reply of the changed prompts is asked again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pytest

from faceteval import Criterion, Instance, JudgeOptions, Method, judge
from faceteval.llm import LLM, CompletionRequest, Message, ModelSpec
from faceteval.llm._cache import cache_key
from faceteval.methods import create_method
from faceteval.methods.hdeval import CriteriaTree, HierarchyAware
from faceteval.prompts import load_template, render, template_names

TEMPLATE_SHA256 = {
    "coeval/criterion": "0b683f473e1f648452512ec91af6590f6dd94f11dec3242ac431505ced47c8a1",
    "coeval/direct": "4fd3c52e5e58114f822a231ce3c21a03fc8909b87b3797dea13520221da22bee",
    "coeval/generate": "51e002d901171556643dba68a8139916d57a26ec8a82ebe055d9642aae28501b",
    "coeval/overall": "4ddea30468911b5073dab8b3863230626daf1c8111db380b9c786361680c9be4",
    "common/examples": "de4ccfaaad642b03784efccc61953fef31375834c7e432c67169f36b88b89ed0",
    "common/reask": "6296bbef6d908c3f0733146417fb8a2530aebe8421bf052845c9ff7a6060a45e",
    "common/structured": "47f3cc4d646507169c50cc0d12eb9add16690fd2ec22cd30b82d7a5961a5a641",
    "cot/faireval": "e064a82acd344ec7b82ba4eebca15c8f4f8888c6ba8b1fedeef45d4cbcb1f737",
    "cot/llmbar": "b3a83052016af2ec37deda2f6c697829cbfb54108095d5349e795e10508aca14",
    "cot/mtbench": "b44e047ae84a6968fddad0bea61c66a7defef368b174b93870bc1cdd54b15cc5",
    "cot/score": "2e2877e48c99e1d0ac20f436af514455aaa1e78bce7c8ee829bad6b6746cf8c2",
    "direct/faireval": "067a1fe7dcb11e35f3bc5c199e98b99fd829d9a44b98a43372ac49647a35fd12",
    "direct/llmbar": "37e1ddeb88e19c0deccf66ee518a04234b1ddb97631df2922764dcd0af4bf576",
    "direct/mtbench": "331dd8256c3857bc62d0d3afed2d2e53064432077673817006ed460aee62707f",
    "direct/score": "ee289323078bc9d05cf89fef2e744e35291f77ac861d7cbd58a375e997db91d0",
    "dna/aggregate": "291234b2c549b3ef6a72d406ba31d30dd98c0ed27f27d146a20719093c6ca840",
    "dna/aspects": "90ad697ce3ff1003a867b53777bf0b1f5cbc7def4fba5ed2f8bfa3432a78c3eb",
    "dna/score": "6bb469a297ff16ac05a4f6d4a4ed25b9820a1dd6d3e7f7a5fcebc1929d4d07c5",
    "dna/weights": "1aec0dda6e0375116c312494fcba3b02ff9b64e0579db5a2cb6e1dcd8c7a7486",
    "fennec/bridge_pairwise": "4b40e1f2772c06c5e90e3246e0612a30bf6eae2dd9042bf3909d917a8fb3e51f",
    "fennec/correction": "e3a04c4a3f56de83c2af9fcad5dbaf48c2807fb18820f22ab9fad474af5a0860",
    "fennec/criteria": "31ad2261da8de15cf0421876be1561351a9514f5dc782fa361d5580e112624f0",
    "fennec/guideline": "532db0ef045506d131789523fd029b6497f59d92e936d9f8eab4304bfc15a91d",
    "fennec/pairwise": "fa4417c3c3e8b7ecbc51c39681f33836205fa98366fcf53836ba890478791988",
    "fennec/reverse_criteria": "7aceee475225bf405893d3d3c5f1fa5088c4a120959d26e0062c8ff77c1afffc",
    "fennec/reverse_guideline": "04f28c2ca3ab4591d7e0478a78de212586bacb284955d5049cf377f9d3fb4240",
    "fennec/single": "f6843c0d0d21d308ec866832b6eaa532018eb63b47c9cb176e1c5e3dcfbed4ee",
    # HD-Eval's prompts as Figures 10-13 word them, per domain (issue 26, item 3)
    "hdeval/decompose": "31902acca27b7341d110be3e6a3fcf49d75aa4374c3b1e4118f3b4cb1f626bd0",
    "hdeval/evaluate": "2526afd09b513740b62b3553c2ada50055c536eceb52c4ad90ea3a5407d1b9d4",
    "hdeval/evaluate/data-to-text": "b3780172daa2ba87edf1acbc0ce22a7395a9cd6ccc08d13ba7619a169a4baabf",
    "hdeval/evaluate/dialogue": "10889819287d990f6696e131333cb53ab3acbaae86bb401cb75401fef16df5ce",
    "hdeval/evaluate/summarization": "6a7ed0712df6fe5a62181e5d56c3887fb71c890104d536fec328a4fff43da28c",
    # --prefix-cache's variants: the facet last (issue 28, item 7)
    "coeval/criterion.prefix": "d9c6564a792ea563334b621ae113031472f6e053aaf923ee68bb128ced5b3248",
    "dna/score.prefix": "c70362dd61b8dd95c76f88bc39de654db4b763266c218affdfd6a8c487a10a26",
    "fennec/pairwise.prefix": "01d2cd68fd6ead1e64352a98ad4fe21a7c093b05a36436e2dca54e45ae52fe32",
    "fennec/single.prefix": "8f748d7565b373d7958fcca4886467116bbc73a538011687bd31995b08cc9dff",
    "hdeval/evaluate/data-to-text.prefix": "240c0e5bcc7945bc01010f1ef047b65daa2727d141d306f936d5ef7c694e7def",
    "hdeval/evaluate/dialogue.prefix": "f74701675af6098dd1f2c285bee4efb8baa67fd7bbbeb24f8acea78032be74a0",
    "hdeval/evaluate/summarization.prefix": (
        "d508c3e24a49fe3f921b5f6702f738895cdbb2c7fed95c37316e3628fbd8bdab"
    ),
    "hdeval/evaluate.prefix": "6ad7654bd90484aa7087f381117b57978d33be441c9ed11a57624a7a12221a0b",
}
MACROS_SHA256 = "4384ee8abca5853a0171be83fdd56afacbd51f31313a48b5519d8eba472895cc"
"""``_macros.j2``, which every template calls as ``m``."""

RENDERED_SHA256 = {
    "fennec/correction": "5ff59e9d2ec23caf2c5366fc6629b97b68cbdb982d8c70c5603c262a68ec84a7",
    "fennec/reverse_criteria": "474306dcaf4c6c3bbc32f1629a779b752b5655a3fc989cd8ea6cd837972eadd0",
    "fennec/reverse_guideline": "a0dc80bbfbf4447226a9c8d944b7ff7097d7fa807eef975fea73493e12078c2a",
    "fennec/bridge_pairwise": "9ccfc5976085b32ffd9d7c6895d66a452829f7937654f5b146845bcb49826964",
    "coeval/generate": "b0a98a265a7e9446f9471a73fdb9709bbca98f44f3e3f45ef9e1b4bca8c4e667",
    "hdeval/decompose": "c73c618acc64bf2809345c0644c60eab70e075c7c5a6fe6e1bfdb7c98eeee0de",
    "common/reask": "55d8bedd68029dcbe76f0b321be46385973cb14e5cd517118d7840dda41af95a",
    "common/examples": "d0121e7ef1ce6c593664a3da01f0a9432f83946a4ab2252ec76ab5e8b053159f",
}
"""The templates no method below renders while judging, rendered with fixed variables."""

CACHE_KEYS = {
    "direct": (2, "1f50794c93da94459157f1a6866b4264026b50d18c591f44c655dd23c1693f35"),
    "cot": (2, "c88d6c3340ea410f7338d1edd5d0dcda229aaffd854570c64e63a3df2be6b0c0"),
    "dna": (8, "a4546455d38960115aac6abc311ee0fe247525e64717ba05e634e687aef7812e"),
    "dna-prompted": (7, "2649ac26ce026394eec611878849a455bd9454132e8e83255fb0f4cc51d3259b"),
    "dna-criteria": (5, "bde26c6d94a21544bf0e303057e94af623a5c50606df25de9682bd202c781447"),
    "coeval": (6, "4299856b5f46733d96e5c0f2320548eb75eacd5ffc1294b5696d4d33243bc4a6"),
    "coeval-direct": (2, "6c63c5ed8dfa6d94c7a824f0e3cdd9b2b248d66760036b7df45f54202e28b424"),
    "fennec": (7, "3efa7dcf666fddef277bd2edc8b5ccc1522914ddafc7f6c4bd0861312ce62e7c"),
    "fennec-single-weighted": (7, "2708c8a999bcd953471f47c4cdc802fb8e80db0ea9279ce1aa06cc8d6ddc02df"),
    "hdeval": (3, "a3a33f55d88392a2dadf4e64b81613ed13acf7819ba20bae01acfca801d480da"),  # issue 26, item 3
}
"""Per method setting: how many distinct requests judging one instance in both orders makes (a dry
run, answered by each parser's example reply), and a hash of their sorted response-cache keys."""

PAIR = Instance(
    id="p",
    query="Explain why the sky is blue.",
    candidates=("Rayleigh scattering of sunlight.", "Because it reflects the sea."),
    reference="Sunlight scatters off air molecules.",
    task="Answer science questions.",
)
SINGLE = Instance(
    id="s",
    query="Summarise: the cat sat on the mat.",
    candidates=("A cat sat.",),
    criteria=(
        Criterion(
            name="coherence",
            description="Well organised.",
            children=(Criterion(name="flow", description="Ideas follow."),),
        ),
        Criterion(name="fluency"),
    ),
    task="summaries",
)
CRITERIA = [{"name": "Accuracy", "description": "Facts are right."}, {"name": "Clarity"}]


def methods() -> dict[str, tuple[Method, Instance]]:
    tree = CriteriaTree(task="summaries", criteria=SINGLE.criteria or ())
    return {
        "direct": (create_method("direct"), PAIR),
        "cot": (create_method("cot"), PAIR),
        "dna": (create_method("dna"), PAIR),
        "dna-prompted": (create_method("dna", aggregate="prompted", aspects=2), PAIR),
        "dna-criteria": (create_method("dna", criteria=CRITERIA), PAIR),
        "coeval": (create_method("coeval", criteria=CRITERIA), PAIR),
        "coeval-direct": (create_method("coeval-direct"), PAIR),
        "fennec": (create_method("fennec", criteria_count=2), PAIR),
        "fennec-single-weighted": (
            create_method("fennec", single=True, aggregate="weighted", criteria=CRITERIA),
            PAIR,
        ),
        "hdeval": (HierarchyAware.from_tree(tree), SINGLE),
    }


def digest(messages: Sequence[Message]) -> str:
    return hashlib.sha256(json.dumps([[m.role, m.content] for m in messages]).encode()).hexdigest()


def test_every_template_keeps_its_name_and_text() -> None:
    assert template_names() == sorted([*TEMPLATE_SHA256, "_macros"])
    assert {name: load_template(name).sha256 for name in TEMPLATE_SHA256} == TEMPLATE_SHA256
    assert load_template("_macros").sha256 == MACROS_SHA256


@pytest.mark.parametrize("name", sorted(CACHE_KEYS))
def test_every_method_sends_the_prompts_it_sent(name: str) -> None:
    method, instance = methods()[name]
    llm = LLM(None, ModelSpec("openai", "judge"), dry_run=True, identity="openai:https://example.test/v1")
    (judgment,) = judge([instance], method, llm, options=JudgeOptions(swap=True))
    assert judgment.error is not None and judgment.error.startswith("dry run"), judgment.error
    keys = sorted(
        {
            cache_key(llm.identity, CompletionRequest("judge", tuple(_messages(entry.messages)), llm.config))
            for entry in judgment.trace
        }
    )
    assert (len(keys), hashlib.sha256("\n".join(keys).encode()).hexdigest()) == CACHE_KEYS[name]


def test_the_other_templates_render_as_they_did() -> None:
    judged = {
        "criterion": "Accuracy",
        "description": "Right facts.",
        "guideline": "1: bad\n5: good",
        "score": "2",
        "explanation": "Wrong date.",
        "weight": None,
    }
    rendered = {
        "fennec/correction": render(
            "fennec/correction", query="Q?", response="An answer.", judgments=[judged]
        ),
        "fennec/reverse_criteria": render(
            "fennec/reverse_criteria",
            query="Q?",
            responses=["A", "B"],
            labels=["Response 1", "Response 2"],
            reference=None,
            judgment="Response 1 is better.",
        ),
        "fennec/reverse_guideline": render(
            "fennec/reverse_guideline",
            query="Q?",
            responses=["A"],
            labels=["Response"],
            reference="R",
            criteria="Accuracy: right",
            judgment="Score: 4",
        ),
        "fennec/bridge_pairwise": render(
            "fennec/bridge_pairwise",
            query="Q?",
            criteria="Accuracy",
            guideline="1-5",
            responses=["A", "B"],
            reference=None,
        ),
        "coeval/generate": render(
            "coeval/generate", task="Answer questions.", example={"input": "How?", "output": "Like so."}
        ),
        "hdeval/decompose": render(
            "hdeval/decompose",
            domain_task=None,
            domain_definition=None,
            task="summaries",
            background="bg",
            criterion=Criterion(name="coherence", description="organised"),
            parent=None,
            k=3,
        ),
        "common/reask": render("common/reask", problem="no score", instructions="Reply with a score."),
        "common/examples": render(
            "common/examples",
            examples=[
                {"query": "Q?", "candidates": ["A", "B"], "labels": ["Response 1", "Response 2"], "label": 1},
                {"query": "R?", "candidates": ["C", "D"], "labels": ["Response 1", "Response 2"], "label": 0},
            ],
        ),
    }
    assert {name: digest(messages) for name, messages in rendered.items()} == RENDERED_SHA256


def _messages(rows: list[dict[str, Any]]) -> list[Message]:
    return [Message(row["role"], row["content"]) for row in rows]
