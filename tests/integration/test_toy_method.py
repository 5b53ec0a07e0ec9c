"""Adding a method is one package and one registry line: a toy method of the tests' own, installed with
an entry point as another project would install one, runs through ``faceteval judge``, ``meta-eval``
and ``report`` (and its own command), against a local OpenAI-compatible server, with no change to
faceteval. Each command is a child process that finds the plugin as an installed distribution."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.quoted import unquote

ROOT = SRC.parent
QUALITY = {"good": 8, "fair": 6, "poor": 3}
_RESPONSE = re.compile(r"\[The Start of (Response(?: \d+)?)\]\n(.*?)\n\[The End of \1\]", re.DOTALL)


def responder(body: Mapping[str, Any]) -> str:
    """Scores each response by its text, as the toy's prompt asks: ``Response k: <score>`` lines."""
    prompt = body["messages"][-1]["content"]
    assert "You are a judge of strictness" in body["messages"][0]["content"], body
    return "\n".join(f"{label}: {QUALITY[unquote(text)]}" for label, text in _RESPONSE.findall(prompt))


def install(site: Path, name: str, entry_points: str) -> None:
    """A distribution as an installer leaves it: its metadata and entry points in a ``.dist-info``."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    install(site, "toy_method", "[faceteval.methods]\ntoy = tests.support.toy_method:SPEC\n")
    return site


def faceteval(site: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT), str(site)]), "COLUMNS": "120"}
    command = [sys.executable, "-m", "faceteval", *map(str, args)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


def pairs(path: Path) -> Path:
    return write_jsonl(
        path,
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"], "label": 1},
            {"id": "b", "query": "Explain snow.", "candidates": ["fair", "good"], "label": 2},
            {"id": "c", "query": "Name a prime.", "candidates": ["poor", "fair"], "label": 2},
            {"id": "d", "query": "Name a colour.", "candidates": ["good", "fair"], "label": 1},
        ],
    )


def judge_pairs(site: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``faceteval judge`` of the four pairs with the toy method into ``j.jsonl``, against a local server."""
    with LLMServer(responder) as server:
        return faceteval(
            site, "judge", pairs(tmp_path / "pairs.jsonl"), "--method", "toy", "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--out", tmp_path / "j.jsonl",
        )  # fmt: skip


def test_a_plugin_method_is_judged_measured_and_reported(tmp_path: Path, site: Path) -> None:
    with LLMServer(responder) as server:
        local = ["--model", "openai:judge", "--base-url", server.base_url, "--cache", tmp_path / "c.sqlite"]
        judged = faceteval(
            site, "judge", pairs(tmp_path / "pairs.jsonl"), "--method", "toy", "--toy-strictness", "3",
            *local, "--out", tmp_path / "j.jsonl",
        )  # fmt: skip
        measured = faceteval(
            site, "meta-eval", pairs(tmp_path / "labels.jsonl"), "--method", "toy", "--toy-strictness",
            "1,2", *local, "--out", tmp_path / "run", "--no-report",
        )  # fmt: skip
        by_m = faceteval(
            site, "judge", tmp_path / "pairs.jsonl", "--method", "toy", "-M", "strictness=5", *local,
            "--out", tmp_path / "m.jsonl",
        )  # fmt: skip
    assert judged.returncode == 0, judged.stderr
    judgments = read_jsonl(tmp_path / "j.jsonl")
    assert [(j["method"], j["status"], j["verdict"], j["scores"]) for j in judgments] == [
        ("toy", "ok", 1, [8.0, 3.0]),
        ("toy", "ok", 2, [6.0, 8.0]),
        ("toy", "ok", 2, [3.0, 6.0]),
        ("toy", "ok", 1, [8.0, 6.0]),
    ]
    record = json.loads((tmp_path / "j.run.json").read_text())
    assert record["method"] == {"name": "toy", "params": {"strictness": 3}}
    assert set(record["prompts"]) == {"toy/score", "common/reask"}
    assert "strictness 3 on a scale" in judgments[0]["trace"][0]["messages"][0]["content"]

    assert measured.returncode == 0, measured.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())["summary"]  # schema 2
    assert [(row["dir"], row["aspects"]) for row in summary["sweep"]] == [
        ("strictness-1", 1),
        ("strictness-2", 2),
    ]
    assert all(row["agreement"]["value"] == 1.0 for row in summary["sweep"])
    inner = json.loads((tmp_path / "run" / "strictness-2" / "summary.json").read_text())
    assert inner["summary"]["variant"] == {"strictness": 2, "seed": None}  # schema 2: the record's summary
    assert inner["method"]["params"] == {"strictness": 2}

    assert by_m.returncode == 0, by_m.stderr
    assert json.loads((tmp_path / "m.run.json").read_text())["method"]["params"] == {"strictness": 5}

    reported = faceteval(site, "report", tmp_path / "run")
    assert reported.returncode == 0, reported.stderr
    markdown = (tmp_path / "run" / "report.md").read_text()
    assert "## Strictness sweep" in markdown and "| Dir | Strictness | Seed | Agreement |" in markdown
    assert "Metrics against the number of strictness levels" in (tmp_path / "run" / "report.html").read_text()


def test_the_plugin_flags_help_refusals_and_command_come_from_its_spec(tmp_path: Path, site: Path) -> None:
    helped = faceteval(site, "judge", "--help")
    assert helped.returncode == 0, helped.stderr
    text = " ".join(helped.stdout.split())
    assert "coeval-direct|fennec|hdeval|toy]" in text
    assert (
        "--toy-strictness INTEGER RANGE toy: how strict the judge is told to be (1-5). [default: 1; 1<=x<=5]"
        in text
    )

    wrong = faceteval(site, "judge", pairs(tmp_path / "p.jsonl"), "--method", "dna", "--toy-strictness", "2")
    assert wrong.returncode == 2 and "--toy-strictness only applies to --method toy" in wrong.stderr
    criteria = tmp_path / "c.yaml"
    criteria.write_text("criteria: [Clarity]\n")
    named = faceteval(site, "judge", tmp_path / "p.jsonl", "--method", "toy", "--criteria", criteria)
    assert (
        named.returncode == 2
        and "--criteria does not apply to --method toy (it names no criteria)" in named.stderr
    )
    swept = faceteval(site, "meta-eval", tmp_path / "p.jsonl", "--method", "dna", "--toy-strictness", "1,2",
                      "--model", "openai:x", "--out", tmp_path / "o")  # fmt: skip
    assert swept.returncode == 2 and "a --toy-strictness sweep only applies to --method toy" in swept.stderr

    shown = faceteval(site, "toy", "--strictness", "4")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == "You are a judge of strictness 4 on a scale of 1 to 5."
    listed = faceteval(site, "--help")
    assert re.search(
        r"^\s+toy\s+Show the system message the toy judge is sent\.$", listed.stdout, re.MULTILINE
    )


def test_a_plugin_that_cannot_be_loaded_is_named_and_the_rest_runs(tmp_path: Path, site: Path) -> None:
    install(site, "broken_method", "[faceteval.methods]\nbroken = no_such_module:SPEC\n")
    judged = judge_pairs(site, tmp_path)
    assert judged.returncode == 0, judged.stderr
    assert (
        "warning: method plugin broken = no_such_module:SPEC could not be loaded: "
        "ModuleNotFoundError: No module named 'no_such_module'" in judged.stderr
    )
    assert len(read_jsonl(tmp_path / "j.jsonl")) == 4


READ_BACK = """
import sys
from pathlib import Path
from faceteval import store
record = store.read_record(store.record_path_for(Path(sys.argv[1])), store.record_kind("toy tally").record)
print(type(record).__name__, record.summary.tallied, record.summary.first, record.made_by()["name"])
print(type(store.RUN_RECORDS.validate_json(store.record_path_for(Path(sys.argv[1])).read_bytes())).__name__)
"""


def test_a_plugin_record_kind_is_read_back_costed_and_listed(tmp_path: Path, site: Path) -> None:
    judged = judge_pairs(site, tmp_path)
    assert judged.returncode == 0, judged.stderr
    tallies = tmp_path / "tallies" / "t.jsonl"
    tallied = faceteval(site, "toy-tally", tmp_path / "j.jsonl", "--out", tallies)
    assert tallied.returncode == 0, tallied.stderr

    # the store reads the plugin's record back as its own model, found through the plugin's spec alone
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT), str(site)])}
    read = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(tallies)], env=env, capture_output=True, text=True, timeout=120
    )
    assert read.returncode == 0, read.stderr
    assert read.stdout.split("\n")[:2] == ["TallyRecord 4 2 toy tallying", "TallyRecord"]

    # cost finds the run by the plugin's kind of lines, and names it by what its record says made it
    costed = faceteval(site, "cost", tallies, "--markdown", tmp_path / "cost.md")
    assert costed.returncode == 0, costed.stderr
    rows = [line for line in (tmp_path / "cost.md").read_text().splitlines() if "toy tallying" in line]
    assert len(rows) == 1 and [cell.strip() for cell in rows[0].split("|")][1:4] == ["toy tallying", "", "4"]

    # without the plugin, the same record is of no known kind: refused by name, not misread
    alone = subprocess.run(
        [sys.executable, "-c", READ_BACK, str(tallies)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert alone.returncode == 1
    assert "no kind of run record is registered for the command 'toy tally'" in alone.stderr


LIST_ITEMS = """
import sys
from pathlib import Path
from faceteval.review import ReviewStore
store = ReviewStore.open(Path(sys.argv[1]))
print(sorted(name for name, _ in store.tasks()), len(store.items()))
"""


def test_a_plugin_review_importer_joins_the_review_group(tmp_path: Path, site: Path) -> None:
    judged = judge_pairs(site, tmp_path)
    assert judged.returncode == 0, judged.stderr

    listed = faceteval(site, "review", "--help")
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^\s+import-toy\s+Import a toy run into PROJECT", listed.stdout, re.MULTILINE)
    assert re.search(r"^\s+import-coeval\s", listed.stdout, re.MULTILINE)  # the built-in family's too

    imported = faceteval(
        site, "review", "import-toy", tmp_path / "p", tmp_path / "j.jsonl", tmp_path / "pairs.jsonl"
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "imported 4 toy items"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(ROOT)])}
    shown = subprocess.run(
        [sys.executable, "-c", LIST_ITEMS, str(tmp_path / "p")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["['toy", "strictness']", "4"]

    # without the plugin, the review group has no such command
    alone = subprocess.run(
        [sys.executable, "-m", "faceteval", "review", "import-toy", "--help"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert alone.returncode == 2 and "No such command 'import-toy'" in alone.stderr
