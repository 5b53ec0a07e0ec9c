"""HD-Eval over a real local OpenAI-compatible server: decompose a tree, save it, judge with it, re-run."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from faceteval import Instance, judge
from faceteval.hdeval._decompose import decompose_tree
from faceteval.hdeval._method import HierarchyAware
from faceteval.hdeval._tree import CriteriaTree, load_tree, save_tree
from faceteval.llm import LLM
from faceteval.store import SQLiteCache
from tests.support.llm_server import LLMServer
from tests.support.quoted import unquote

CHILDREN = {
    "overall quality": "1. Coherence: The summary is well organised.\n2. Fluency: Sentences read naturally.",
    "Coherence": "1. Logical flow: Ideas follow one another.\n2. Structure: Paragraphs have one topic each.",
}
QUALITY = {"good summary": 5, "weak summary": 2}
_SUBJECT = re.compile(r'I would like to evaluate its "?(.+?)"?(?:,|\.\n)')
_RESPONSE = re.compile(r"\[The Start of Response\]\n(.*?)\n\[The End of Response\]", re.DOTALL)


def responder(body: Mapping[str, Any]) -> str:
    """Decomposes by table, and scores a response by its text (an unreadable reply for 'garbled')."""
    prompt = body["messages"][-1]["content"]
    if subject := _SUBJECT.search(prompt):
        return CHILDREN[subject[1]]
    response = _RESPONSE.search("\n".join(m["content"] for m in body["messages"]))
    assert response is not None, prompt
    text = unquote(response[1])
    if text not in QUALITY:
        return "I cannot score this."
    return f"{QUALITY[text]}\nScored by rule."


def llm_for(server: LLMServer, cache: SQLiteCache) -> LLM:
    return LLM.from_spec("openai:judge", base_url=server.base_url, env={}, cache=cache)


def test_decompose_then_judge_over_http_then_again_from_cache(tmp_path: Path) -> None:
    instances = [
        Instance(id=str(i), query="Summarise the article.", candidates=(text,))
        for i, text in enumerate(["good summary", "weak summary", "garbled"])
    ]
    with LLMServer(responder) as server, SQLiteCache(tmp_path / "cache.sqlite") as cache:
        tree, _, usage = decompose_tree(CriteriaTree("text summarization"), None, 2, llm_for(server, cache))
        tree, _, more = decompose_tree(tree, ["Coherence"], 2, llm_for(server, cache))
        assert (usage + more).calls == len(server.requests) == 2
        save_tree(tree, tmp_path / "tree.yaml")
        tree = load_tree(tmp_path / "tree.yaml")
        assert [n.id for n in tree.nodes()] == [
            "Coherence",
            "Fluency",
            "Coherence / Logical flow",
            "Coherence / Structure",
        ]

        method = HierarchyAware.from_tree(tree)
        first = judge(instances, method, llm_for(server, cache))
        made = len(server.requests)
        second = judge(instances, method, llm_for(server, cache))
        assert (
            len(server.requests) == made == 2 + 3 * 4 + 4
        )  # each criterion of the garbled response is re-asked once

    good, weak, garbled = first
    assert (good.status, good.scores, weak.status, weak.scores) == ("ok", [5.0], "ok", [2.0])
    assert [f.name for f in good.facets] == [n.id for n in tree.nodes()]
    assert garbled.status == "parse_error" and garbled.error and "hdeval.evaluate" in garbled.error
    assert any(e.raw == "I cannot score this." for e in garbled.trace)
    assert [j.model_dump(exclude={"usage", "trace"}) for j in second] == [
        j.model_dump(exclude={"usage", "trace"}) for j in first
    ]
    assert all(j.usage.cached_calls == j.usage.calls > 0 for j in second)
