"""``--templates DIR`` (and ``templates =`` in faceteval.toml) end to end, over HTTP, against a local
OpenAI-compatible server: the prompts sent, the run record, the response cache, the errors before any
call; and ``faceteval templates list`` / ``show``, the built-in templates to copy from."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import faceteval.methods  # noqa: F401  (registers every family's templates, which these render)
from faceteval._cli._app import cli
from faceteval.prompts.internal import builtin_template
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.rule_judge import RuleJudge

REASK = {"common/reask": builtin_template("common/reask").sha256}
"""The re-ask's template, which a baseline's run records beside its own (built-in here)."""
REASK_SOURCE = {"common/reask": "built-in"}

PAIRS = [
    {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
    {"id": "b", "query": "Name a prime.", "candidates": ["poor", "good"]},
]


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [*map(str, args)], catch_exceptions=False)


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server()) as running:
        yield running


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    return path


def my_templates(root: Path, word: str = "judge") -> Path:
    """A folder with ``direct/score``: the built-in one, its first line's 'assistant' now ``word``."""
    source = builtin_template("direct/score").source
    assert "precise assistant" in source
    (root / "direct").mkdir(parents=True, exist_ok=True)
    (root / "direct" / "score.j2").write_text(source.replace("precise assistant", f"precise {word}", 1))
    return root


def judge_args(
    pairs: Path, server: LLMServer, out: Path, cache: Path, *extra: str | Path
) -> list[str | Path]:
    return [
        "judge",
        pairs,
        "--method",
        "direct",
        "--model",
        "openai:judge",
        "--base-url",
        server.base_url,
        "--out",
        out,
        "--cache",
        cache,
        *extra,
    ]


def record_of(out: Path) -> dict[str, Any]:
    return json.loads(out.with_suffix(".run.json").read_text(encoding="utf-8"))


def test_judge_sends_the_templates_of_the_folder_and_records_them(
    tmp_path: Path, pairs: Path, server: LLMServer
) -> None:
    folder = my_templates(tmp_path / "mine")
    out = tmp_path / "j.jsonl"
    result = invoke(*judge_args(pairs, server, out, tmp_path / "c.sqlite", "--templates", folder))
    assert result.exit_code == 0, result.output
    assert all("precise judge" in r.body["messages"][0]["content"] for r in server.requests)
    record = record_of(out)
    text = (folder / "direct" / "score.j2").read_text()
    assert record["prompts"] == {"direct/score": hashlib.sha256(text.encode()).hexdigest(), **REASK}
    assert record["prompt_sources"] == {"direct/score": str(folder / "direct" / "score.j2"), **REASK_SOURCE}
    without = tmp_path / "builtin.jsonl"
    assert invoke(*judge_args(pairs, server, without, tmp_path / "c.sqlite")).exit_code == 0
    assert record_of(without)["prompt_sources"] == {"direct/score": "built-in", **REASK_SOURCE}
    assert record_of(without)["prompts"] == {"direct/score": builtin_template("direct/score").sha256, **REASK}


def test_one_changed_word_misses_the_cache_and_an_unchanged_run_hits_it(
    tmp_path: Path, pairs: Path, server: LLMServer
) -> None:
    cache = tmp_path / "c.sqlite"
    folder = my_templates(tmp_path / "mine", "judge")
    for run in range(2):  # the first asks; the second, unchanged, is answered from the cache
        assert (
            invoke(
                *judge_args(pairs, server, tmp_path / f"{run}.jsonl", cache, "--templates", folder)
            ).exit_code
            == 0
        )
        assert (server.request_count, record_of(tmp_path / f"{run}.jsonl")["spend"]["cached"]) == (2, 2 * run)
    my_templates(folder, "grader")  # one word of the template changed
    assert (
        invoke(*judge_args(pairs, server, tmp_path / "2.jsonl", cache, "--templates", folder)).exit_code == 0
    )
    assert (server.request_count, record_of(tmp_path / "2.jsonl")["spend"]["cached"]) == (4, 0)
    assert "precise grader" in server.requests[-1].body["messages"][0]["content"]
    with sqlite3.connect(cache) as db:
        (rows,) = db.execute("select count(*) from responses").fetchone()
    assert rows == 4


def test_a_bad_folder_is_an_error_before_any_call(tmp_path: Path, pairs: Path, server: LLMServer) -> None:
    folder = tmp_path / "mine"
    (folder / "direct").mkdir(parents=True)
    (folder / "direct" / "scores.j2").write_text("### user\n{{ query }}")
    result = invoke(
        *judge_args(pairs, server, tmp_path / "j.jsonl", tmp_path / "c.sqlite", "--templates", folder)
    )
    assert result.exit_code == 2
    assert "no built-in template is named 'direct/scores'; the templates are" in result.output
    assert "direct/score," in result.output
    assert server.request_count == 0 and not (tmp_path / "j.jsonl").exists()


def test_faceteval_toml_names_the_folder_for_every_command(
    tmp_path: Path, pairs: Path, server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    my_templates(tmp_path / "mine")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_text('templates = "mine"\n', encoding="utf-8")
    assert invoke(*judge_args(pairs, server, tmp_path / "j.jsonl", tmp_path / "c.sqlite")).exit_code == 0
    assert record_of(tmp_path / "j.jsonl")["prompt_sources"] == {
        "direct/score": str(Path("mine/direct/score.j2")),
        **REASK_SOURCE,
    }
    (tmp_path / "faceteval.toml").write_text('[judge]\ntemplates = "missing"\n', encoding="utf-8")
    result = invoke(*judge_args(pairs, server, tmp_path / "k.jsonl", tmp_path / "c.sqlite"))
    assert result.exit_code == 2 and "'missing' does not exist" in result.output


def test_hdeval_decompose_sends_the_folder_s_decomposition_prompt(tmp_path: Path) -> None:
    source = builtin_template("hdeval/decompose").source.replace("automatic evaluation", "careful evaluation")
    (tmp_path / "mine" / "hdeval").mkdir(parents=True)
    (tmp_path / "mine" / "hdeval" / "decompose.j2").write_text(source)
    with LLMServer(lambda _: "1. Order: Ideas come in order.") as server:
        result = invoke(
            "hdeval", "decompose", "--domain", "summarization", "--criteria", "coherence",
            "--model", "openai:m", "--base-url", server.base_url, "--no-cache",
            "--out", tmp_path / "tree.yaml", "--templates", tmp_path / "mine",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        (request,) = server.requests
    prompt = request.body["messages"][-1]["content"]
    assert prompt.startswith("I would like to perform careful evaluation on quality of text summarization.")


def test_templates_list_and_show_give_the_built_in_ones_to_copy(tmp_path: Path) -> None:
    listed = invoke("templates", "list")
    assert listed.exit_code == 0, listed.output
    for name in ("direct/score", "dna/score", "hdeval/evaluate/summarization", "common/reask"):
        assert name in listed.output
    assert "candidates*" in listed.output and "_macros" not in listed.output
    shown = invoke("templates", "show", "hdeval/evaluate/dialogue")
    assert shown.exit_code == 0 and shown.output == builtin_template("hdeval/evaluate/dialogue").source
    mine = my_templates(tmp_path / "mine")
    marked = invoke("templates", "list", "--templates", mine)
    assert str(mine / "direct" / "score.j2") in marked.output
    unknown = invoke("templates", "show", "dna/scor")
    assert unknown.exit_code == 1 and "did you mean 'dna/score'" in unknown.output


def test_meta_eval_judges_with_the_folder_s_templates_and_records_them(
    tmp_path: Path, server: LLMServer
) -> None:
    labels = tmp_path / "labels.jsonl"
    rows = [
        {
            "id": f"p{i}",
            "query": f"Question {i}?",
            "candidates": ["good", "poor"][:: 1 - 2 * (i % 2)],
            "label": 1 + i % 2,
        }
        for i in range(4)
    ]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    folder = my_templates(tmp_path / "mine")
    result = invoke(
        "meta-eval", labels, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url,
        "--no-cache", "--out", tmp_path / "run", "--templates", folder, "-q", "--resamples", "50",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(server.requests) == 4
    assert all("precise judge" in r.body["messages"][0]["content"] for r in server.requests)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert summary["prompt_sources"] == {"direct/score": str(folder / "direct" / "score.j2"), **REASK_SOURCE}
    text = (folder / "direct" / "score.j2").read_text()
    assert summary["prompts"] == {"direct/score": hashlib.sha256(text.encode()).hexdigest(), **REASK}


def test_faceteval_toml_refuses_a_templates_setting_that_is_not_a_path_and_keeps_the_command_s_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_text("templates = 3\n", encoding="utf-8")
    result = invoke("templates", "list")
    assert (
        result.exit_code == 2
        and "faceteval.toml: templates = 3: expected a directory's path" in result.output
    )
    my_templates(tmp_path / "mine")
    (tmp_path / "faceteval.toml").write_text('[templates.list]\ntemplates = "mine"\n', encoding="utf-8")
    result = invoke("templates", "list")
    assert result.exit_code == 0, result.output
    assert str(Path("mine/direct/score.j2")) in result.output


def test_hdeval_train_scores_with_the_folder_s_domain_template_and_records_it(tmp_path: Path) -> None:
    rows = [
        {
            "id": f"s{i}",
            "query": f"Article {i}.",
            "candidates": [f"Summary {i}."],
            "scores": {"coherence": i % 5 + 1},
        }
        for i in range(8)
    ]
    data = tmp_path / "summaries.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    name = "hdeval/evaluate/summarization"
    source = builtin_template(name).source.replace("news article on its", "news story on its", 1)
    assert "news story" in source
    (tmp_path / "mine" / "hdeval" / "evaluate").mkdir(parents=True)
    (tmp_path / "mine" / f"{name}.j2").write_text(source, encoding="utf-8")
    with LLMServer(lambda body: f"{len(body['messages'][-1]['content']) % 5 + 1}\nBy rule.") as server:
        result = invoke(
            "hdeval", "train", data, "--target", "coherence", "--domain", "summarization", "--layers", "1",
            "--aggregator", "lr", "--resamples", "20", "--out", tmp_path / "ev", "--model", "openai:m",
            "--base-url", server.base_url, "--no-cache", "-q", "--templates", tmp_path / "mine",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 8
        assert all(
            "summary of a news story on its" in r.body["messages"][-1]["content"] for r in server.requests
        )
    record = json.loads((tmp_path / "ev" / "evaluator.json").read_text(encoding="utf-8"))
    assert record["prompt_sources"][name] == str(tmp_path / "mine" / f"{name}.j2")
    assert record["prompts"][name] == hashlib.sha256(source.encode()).hexdigest()
    assert record["prompt_sources"]["hdeval/decompose"] == "built-in"
    judged = json.loads((tmp_path / "ev" / "judgments" / "layer-1.run.json").read_text(encoding="utf-8"))
    assert judged["prompt_sources"][name] == str(tmp_path / "mine" / f"{name}.j2")


PAYLOADS = {
    "direct/score": "{{ cycler.__init__.__globals__.os.system('touch PWNED') }}",
    "dna/score": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "common/reask": "{{ problem|attr('__class__') }}{{ lipsum.__globals__['os'].system('touch PWNED') }}",
    "fennec/criteria": "{% include '../../../../etc/passwd' %}",
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "payload"), PAYLOADS.items())
def test_a_checkout_s_template_runs_no_code_even_in_a_dry_run(
    tmp_path: Path, pairs: Path, name: str, payload: str
) -> None:
    """A cloned checkout's faceteval.toml names its template folder: a template there that reaches for
    Python's internals is refused before anything runs, as is the same folder given with --templates."""
    checkout = tmp_path / "checkout"
    template = checkout / "tpl" / f"{name}.j2"
    template.parent.mkdir(parents=True)
    template.write_text(builtin_template(name).source.rstrip("\n") + f"\n{payload}\n", encoding="utf-8")
    line = builtin_template(name).source.rstrip("\n").count("\n") + 2
    (checkout / "faceteval.toml").write_text('templates = "tpl"\n', encoding="utf-8")
    method = name.split("/")[0] if name != "common/reask" else "direct"
    base = ["judge", str(pairs), "--method", method, "--model", "openai:m"]
    local = ["--base-url", "http://127.0.0.1:9/v1", "--dry-run"]
    for extra in ([], ["--templates", str(checkout / "tpl")]):
        ran = faceteval_in(checkout, *base, *local, *extra)
        assert ran.returncode == 2, ran.stderr
        assert (
            f"score.j2, line {line}: " in ran.stderr or f"{Path(name).name}.j2, line {line}: " in ran.stderr
        )
        assert "the template is refused" in ran.stderr and "Traceback" not in ran.stderr
        assert not (checkout / "PWNED").exists()
        assert not list(checkout.glob("*.jsonl"))
    listed = faceteval_in(checkout, "templates", "list", "--templates", "tpl")
    assert listed.returncode == 2 and "the template is refused" in listed.stderr
    assert not (checkout / "PWNED").exists()


def faceteval_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command line run in ``folder`` (where it reads faceteval.toml), in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "faceteval", *args],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
