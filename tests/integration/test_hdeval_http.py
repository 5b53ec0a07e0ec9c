"""HD-Eval over a real local OpenAI-compatible server: decompose a tree, save it, judge with it, re-run."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from faceteval import Criterion, Instance, judge
from faceteval._cli._app import cli
from faceteval.llm import LLM
from faceteval.methods.hdeval._method import HierarchyAware
from faceteval.methods.hdeval._tree import CriteriaTree, load_tree, save_tree
from faceteval.store import SQLiteCache
from faceteval.workflows.hdeval._decompose import decompose_tree
from tests.support.files import read_jsonl, write_jsonl
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


def run_cli(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


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


def test_judge_method_hdeval_scores_a_tree_file_or_each_instance_own_tree_over_http(tmp_path: Path) -> None:
    tree = CriteriaTree(
        "text summarization",
        criteria=(
            Criterion(
                name="Coherence",
                description="The summary is well organised.",
                children=(Criterion(name="Structure", description="Paragraphs have one topic each."),),
            ),
        ),
    )
    save_tree(tree, tmp_path / "tree.yaml")
    rows = [
        {"id": "1", "query": "Summarise the article.", "candidates": ["good summary"]},
        {"id": "2", "query": "Summarise the article.", "candidates": ["weak summary"]},
    ]
    outputs = write_jsonl(tmp_path / "outputs.jsonl", rows)
    own = write_jsonl(
        tmp_path / "own.jsonl",
        [
            {**rows[0], "task": "text summarization", "criteria": [tree.criteria[0].model_dump()]},
            {**rows[1]},  # no tree: an error for this instance alone
        ],
    )
    with LLMServer(responder) as server:
        local = ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache"]
        by_file = run_cli("judge", outputs, "--method", "hdeval", "--criteria", tmp_path / "tree.yaml",
                          *local, "--out", tmp_path / "file.jsonl")  # fmt: skip
        by_instance = run_cli("judge", own, "--method", "hdeval", *local, "--out", tmp_path / "own.out.jsonl")
        strict = run_cli("judge", own, "--method", "hdeval", "--strict", *local)
        calls = len(server.requests)
    assert by_file.exit_code == 0, by_file.output
    judged = read_jsonl(tmp_path / "file.jsonl")
    assert [(j["method"], j["status"], j["scores"]) for j in judged] == [
        ("hdeval", "ok", [5.0]),
        ("hdeval", "ok", [2.0]),
    ]
    assert [f["name"] for f in judged[0]["facets"]] == ["Coherence", "Coherence / Structure"]
    record = json.loads((tmp_path / "file.run.json").read_text())
    assert record["method"]["params"]["task"] == "text summarization"
    assert by_instance.exit_code == 6, by_instance.output  # the instance without criteria failed
    first, second = read_jsonl(tmp_path / "own.out.jsonl")
    assert (first["status"], first["scores"]) == ("ok", [5.0])
    assert second["status"] == "error" and "hdeval scores the criteria of a tree" in second["error"]
    assert strict.exit_code == 1 and "hdeval scores the criteria of a tree" in strict.output
    assert calls == 4 + 2  # two criteria of two outputs, then the one instance with a tree; --strict: none
