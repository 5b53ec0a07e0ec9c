"""`faceteval judge --human-labels`: a judge that favours B too often, corrected by a few human labels
into the win rate humans would give; stored in the run record, gated by `--fail-under`; over a local
server."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import faceteval
from faceteval._cli._app import cli
from faceteval._cli._console import err_console
from faceteval.datasets import read_human_labels, read_instances, read_judgments
from faceteval.results import compute_result
from tests.support.files import write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

ITEMS = 400
HUMAN_RATE = 0.45
"""How often humans prefer B."""
OVERRATED = 0.4
"""Of the items humans prefer A on, the share the judge gives B all the same."""


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(err_console, "_width", 200)


def truths() -> list[tuple[bool, bool]]:
    """Per item: whether humans prefer B, and whether the judge does."""
    rng = random.Random(8)
    made = []
    for _ in range(ITEMS):
        human_b = rng.random() < HUMAN_RATE
        made.append((human_b, human_b or rng.random() < OVERRATED))
    return made


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    quality: dict[str, float] = {}
    for i, (_, judge_b) in enumerate(truths()):
        quality[f"A's answer to {i}"], quality[f"B's answer to {i}"] = (3, 8) if judge_b else (8, 3)
    with LLMServer(RuleJudge(quality=quality, record=False).for_server(), record=False) as running:
        yield running


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def files(tmp_path: Path, every: int = 4) -> tuple[Path, Path]:
    rows = [
        {"id": f"q{i}", "query": f"Question {i}?", "candidates": [f"A's answer to {i}", f"B's answer to {i}"]}
        for i in range(ITEMS)
    ]
    labels = [
        {"id": f"q{i}", "label": 2 if human_b else 1, "annotators": ["kim"]}
        for i, (human_b, _) in enumerate(truths())
        if i % every == 0
    ]
    for row in labels[::2]:  # a second annotator, who agrees, on half of them
        row["annotators"], row["votes"] = ["kim", "lee"], {"kim": row["label"], "lee": row["label"]}
    labels.append({"id": "q1", "label": 1, "annotators": ["kim"], "sampling": "uncertainty"})
    return write_jsonl(tmp_path / "pairs.jsonl", rows), write_jsonl(tmp_path / "labels.jsonl", labels)


def test_human_labels_correct_the_judges_win_rate_and_are_stored_and_gated(
    tmp_path: Path, server: LLMServer
) -> None:
    data, labels = files(tmp_path)
    out = tmp_path / "j.jsonl"
    flags = [data, "--method", "direct", "--systems", "A,B", "--model", "openai:judge"]
    flags += ["--base-url", server.base_url, "--cache", tmp_path / "c.sqlite", "--human-labels", labels]
    run = invoke(
        *flags, "--out", out, "--fail-under", "win_rate:B=0.6", "--fail-under", "ppi_win_rate_low:B=0.6"
    )

    assert run.exit_code == 3, run.output  # the judge's rate passes; the humans' would not
    human_rate = sum(h for h, _ in truths()) / ITEMS
    judge_rate = sum(j for _, j in truths()) / ITEMS
    assert judge_rate > 0.6 > human_rate + 0.1
    assert "below threshold: ppi_win_rate_low:B=0.6" in run.output
    assert "below threshold: win_rate:B" not in run.output
    assert "As humans would judge it, from 100 human labels" in run.output
    assert "1 label chosen where the judge was least sure set aside" in run.output
    assert "Cohen's kappa" in run.output

    record = faceteval.read_run(out)
    assert record.options["human_labels"] == {"source": str(labels), "labels": 101}
    stored = record.summary.result
    assert stored is not None and stored.human is not None
    b = next(row for row in stored.human.systems if row.name == "B")
    assert b.judge == pytest.approx(judge_rate)
    assert b.ppi.ci is not None and b.ppi.ci[0] <= human_rate <= b.ppi.ci[1]
    assert b.ppi.ci[0] < 0.6
    assert b.human.labels == 100 and b.ppi.unlabelled == 300
    assert f"{100 * b.ppi.value:.1f} [{100 * b.ppi.ci[0]:.1f}-{100 * b.ppi.ci[1]:.1f}]" in run.output
    # the judgments and the labels file give the same result
    again = compute_result(
        read_judgments(out), read_instances(data, systems=["A", "B"]), labels=read_human_labels(labels)
    )
    assert again.human == stored.human


def test_labels_in_the_input_count_without_a_labels_file(tmp_path: Path, server: LLMServer) -> None:
    data, _ = files(tmp_path)
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    for i, (human_b, _) in enumerate(truths()):
        if i % 2 == 0:
            rows[i]["label"] = 2 if human_b else 1
    write_jsonl(data, rows)
    out = tmp_path / "j.jsonl"
    flags = [data, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
    run = invoke(*flags, "--cache", tmp_path / "c.sqlite", "--out", out)

    assert run.exit_code == 0, run.output
    stored = faceteval.read_run(out).summary.result
    assert stored is not None and stored.human is not None and stored.human.labels == ITEMS // 2
    assert "As humans would judge it, from 200 human labels" in run.output


def test_a_bad_labels_file_is_refused_before_any_call_naming_its_line(
    tmp_path: Path, server: LLMServer
) -> None:
    data, labels = files(tmp_path)
    labels.write_text('{"id": "q0", "label": 1}\n{"id": "q2", "label": "A"}\n')
    before = server.request_count
    run = invoke(data, "--model", "openai:judge", "--base-url", server.base_url, "--human-labels", labels)
    assert run.exit_code != 0
    assert f"{labels}:2" in run.output and "label" in run.output
    assert server.request_count == before


def test_the_report_shows_the_humans_estimates_of_a_run_with_labels_or_given_them(
    tmp_path: Path, server: LLMServer
) -> None:
    data, labels = files(tmp_path)
    out = tmp_path / "j.jsonl"
    flags = [data, "--method", "direct", "--systems", "A,B", "--model", "openai:judge"]
    run = invoke(*flags, "--base-url", server.base_url, "--cache", tmp_path / "c.sqlite", "--out", out)
    assert run.exit_code == 0, run.output
    assert "As humans would judge it" not in run.output  # no label yet

    plain = CliRunner().invoke(cli, ["report", str(out)], catch_exceptions=False)
    assert plain.exit_code == 0, plain.output
    assert "As humans would judge it" not in (tmp_path / "j.report.md").read_text()

    given = CliRunner().invoke(cli, ["report", str(out), "--human-labels", str(labels), "--force"])
    assert given.exit_code == 0, given.output
    markdown = (tmp_path / "j.report.md").read_text()
    assert "## As humans would judge it" in markdown
    assert "From 100 human labels" in markdown and "1 label chosen where the judge was least sure" in markdown
    expected = compute_result(
        read_judgments(out), read_instances(data, systems=["A", "B"]), labels=read_human_labels(labels)
    ).human
    assert expected is not None
    b = next(row for row in expected.systems if row.name == "B")
    assert b.ppi.value is not None and f"{100 * b.ppi.value:.1f}%" in markdown
    assert "Between the 2 annotators whose votes the labels carry, Krippendorff's alpha is 1.00" in markdown
    assert "Cohen's kappa" in markdown and "TPR" in (tmp_path / "j.report.html").read_text()


def test_labels_given_in_the_review_app_come_back_through_judge_human_labels(
    tmp_path: Path, server: LLMServer
) -> None:
    from faceteval.review import ReviewStore

    data, _ = files(tmp_path)
    out = tmp_path / "j.jsonl"
    flags = [data, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
    flags += ["--cache", tmp_path / "c.sqlite", "--out", out]
    assert invoke(*flags).exit_code == 0
    project = tmp_path / "review"
    imported = CliRunner().invoke(
        cli,
        [
            "review",
            "import",
            str(project),
            str(out),
            "--input",
            str(data),
            "--order",
            "random",
            "--seed",
            "4",
        ],
    )
    assert imported.exit_code == 0, imported.output
    store = ReviewStore.open(project, create=False)
    store.add_annotator("kim")
    queue = [item.id for item in store.items()][:60]  # the first 60 the annotator meets: a random sample
    truth = dict(zip((f"q{i}" for i in range(ITEMS)), truths(), strict=True))
    store.add_annotator("lee")
    for item_id in queue:
        store.set_preference(item_id, "kim", 2 if truth[item_id][0] else 1)
    for item_id in queue[:30]:  # a second annotator, who agrees
        store.set_preference(item_id, "lee", 2 if truth[item_id][0] else 1)
    labels = tmp_path / "labels.jsonl"
    exported = CliRunner().invoke(cli, ["review", "export", str(project), "--labels", str(labels)])
    assert exported.exit_code == 0, exported.output

    again = invoke(*flags, "--force", "--human-labels", labels)
    assert again.exit_code == 0, again.output
    stored = faceteval.read_run(out).summary.result
    assert stored is not None and stored.human is not None
    assert (stored.human.labels, stored.human.set_aside) == (60, 0)
    assert (stored.human.annotators, stored.human.annotator_alpha) == (2, 1.0)
    assert "Between the 2 annotators: Krippendorff's alpha 1.00" in again.output
    expected = compute_result(read_judgments(out), read_instances(data), labels=read_human_labels(labels))
    assert stored.human == expected.human
    first = next(row for row in stored.human.positions if row.name == "2")
    humans = [1.0 if truth[i][0] else 0.0 for i in queue]
    assert first.human.value == pytest.approx(sum(humans) / len(humans))
