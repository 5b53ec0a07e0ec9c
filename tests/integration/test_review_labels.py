"""`review import --order/--seed/--blind`, `review export --labels` and the labels in `review stats`, from the
command line: the queue annotators meet, the labels file read back, and the numbers against hand sums."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.datasets import HumanLabel, read_human_labels
from faceteval.metrics import labels_for_width, prediction_powered_mean
from faceteval.review import OVERALL, ReviewStore
from tests.support.review_project import build_project

VERDICTS = {"i0": 1, "i1": 2, "i2": 1, "i3": 2, "i4": 0, "i5": 1}
CONFIDENCES = {"i0": 0.9, "i1": None, "i2": 0.2, "i3": 0.2, "i4": 0.5, "i5": 0.9}


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def a_run(folder: Path, prefix: str = "i") -> tuple[Path, Path]:
    """A pairwise run of six instances (its input and judgments), with `VERDICTS` and `CONFIDENCES`."""
    folder.mkdir(parents=True, exist_ok=True)
    instances, judgments = folder / "pairs.jsonl", folder / "judged.jsonl"
    rows: list[dict[str, Any]] = []
    for key, verdict in VERDICTS.items():
        item_id = prefix + key[1:]
        judged = {"id": item_id, "method": "direct", "status": "ok", "verdict": verdict, "scores": [4.0, 3.0]}
        judged["explanation"] = f"SECRET-REASON-{item_id}: the judge prefers one."
        if CONFIDENCES[key] is not None:
            judged["confidence"] = CONFIDENCES[key]
        rows.append(judged)
    instances.write_text(
        "".join(
            json.dumps(
                {"id": r["id"], "query": f"Q {r['id']}?", "candidates": [f"A {r['id']}", f"B {r['id']}"]}
            )
            + "\n"
            for r in rows
        )
    )
    judgments.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return instances, judgments


def imported(project: Path, folder: Path, *options: str, prefix: str = "i") -> ReviewStore:
    instances, judgments = a_run(folder, prefix)
    run("review", "import", project, judgments, "--input", instances, "--task", "pairs", *options)
    return ReviewStore.open(project, create=False)


def test_an_import_queues_its_items_in_the_order_given_and_records_it(tmp_path: Path) -> None:
    store = imported(tmp_path / "p", tmp_path / "run", "--order", "uncertainty", "--seed", "3")
    order = [item.id for item in store.items("pairs")]
    assert order[0] == "i1" and set(order[1:3]) == {"i2", "i3"} and order[3] == "i4"
    assert set(order[4:]) == {"i0", "i5"}
    assert store.queued() == dict.fromkeys(VERDICTS, "uncertainty")
    assert (store.settings().order, store.settings().seed) == ("uncertainty", 3)
    assert store.neighbours(order[0])[1] == order[1]  # the next item is the queue's next
    again = imported(tmp_path / "q", tmp_path / "run", "--order", "uncertainty", "--seed", "3")
    assert [item.id for item in again.items("pairs")] == order  # the same seed, the same queue

    # A later import is queued after the items there, in its own order; theirs is kept.
    imported(tmp_path / "p", tmp_path / "more", "--order", "random", "--seed", "1", prefix="m")
    after = [item.id for item in store.items("pairs")]
    assert after[:6] == order and sorted(after[6:]) == [f"m{k}" for k in range(6)]
    assert after[6:] != [f"m{k}" for k in range(6)]  # shuffled
    assert store.queued()["m0"] == "random" and store.queued()["i0"] == "uncertainty"
    assert store.settings().order == "random"


def test_the_default_order_is_the_runs(tmp_path: Path) -> None:
    store = imported(tmp_path / "p", tmp_path / "run")
    assert [item.id for item in store.items()] == list(VERDICTS)
    assert store.settings() == type(store.settings())()  # input order, seed 0, not blind, default targets


def prefer(store: ReviewStore, choices: dict[str, dict[str, int]]) -> None:
    for annotator in ("kim", "lee"):
        store.add_annotator(annotator)
    for item_id, given in choices.items():
        for annotator, choice in given.items():
            store.set_preference(item_id, annotator, choice)


CHOICES = {
    "i0": {"kim": 1, "lee": 1},  # label 1
    "i1": {"kim": 2},  # label 2
    "i2": {"kim": 2, "lee": 2},  # label 2
    "i3": {"kim": 1, "lee": 2},  # the votes tie: label 0
    "i4": {"kim": 0},  # label 0
}


def test_exported_labels_read_back_with_their_votes_and_sampling(tmp_path: Path) -> None:
    store = imported(tmp_path / "p", tmp_path / "run", "--order", "random", "--seed", "2")
    prefer(store, CHOICES)
    store.set_preference("i4", "lee", 2)  # then changes their mind: the latest counts
    store.set_preference("i4", "lee", 0)
    out = tmp_path / "labels.jsonl"
    printed = run("review", "export", tmp_path / "p", "--labels", out)
    assert "5 labelled items" in printed and not (tmp_path / "labels.actions.jsonl").exists()
    labels = read_human_labels(out)
    expected = {
        "i0": HumanLabel("i0", 1, None, ("kim", "lee"), {"kim": 1, "lee": 1}, "random"),
        "i1": HumanLabel("i1", 2, None, ("kim",), {"kim": 2}, "random"),
        "i2": HumanLabel("i2", 2, None, ("kim", "lee"), {"kim": 2, "lee": 2}, "random"),
        "i3": HumanLabel("i3", 0, None, ("kim", "lee"), {"kim": 1, "lee": 2}, "random"),
        "i4": HumanLabel("i4", 0, None, ("kim", "lee"), {"kim": 0, "lee": 0}, "random"),
    }
    assert labels == expected  # i5 has no label: no line
    queue = [item.id for item in store.items()]
    assert list(labels) == [i for i in queue if i in expected]  # in the order annotators meet them

    # With --out too, and over the file it wrote; not over a file of another kind without --force.
    run("review", "export", tmp_path / "p", "--out", tmp_path / "scores.jsonl", "--labels", out)
    assert (tmp_path / "scores.actions.jsonl").is_file() and read_human_labels(out) == expected
    other = tmp_path / "notes.jsonl"
    other.write_text('{"note": "mine"}\n')
    refused = CliRunner().invoke(cli, ["review", "export", str(tmp_path / "p"), "--labels", str(other)])
    assert refused.exit_code != 0 and other.read_text() == '{"note": "mine"}\n'
    run("review", "export", tmp_path / "p", "--labels", other, "--force")
    assert read_human_labels(other) == expected


def test_labels_of_the_runs_order_say_no_sampling_and_a_project_without_labels_writes_none(
    tmp_path: Path,
) -> None:
    store = imported(tmp_path / "p", tmp_path / "run")
    out = tmp_path / "labels.jsonl"
    refused = CliRunner().invoke(cli, ["review", "export", str(tmp_path / "p"), "--labels", str(out)])
    assert refused.exit_code != 0 and "no labels yet" in refused.output and not out.exists()
    prefer(store, {"i2": {"kim": 1}})
    run("review", "export", tmp_path / "p", "--labels", out)
    assert read_human_labels(out)["i2"].sampling is None and "sampling" not in out.read_text()
    nothing = CliRunner().invoke(cli, ["review", "export", str(tmp_path / "p")])
    assert nothing.exit_code == 2 and "what to export" in nothing.output


def test_scores_export_as_the_mean_of_each_aspect_over_the_annotators(tmp_path: Path) -> None:
    store = build_project(tmp_path / "p")
    for name in ("alice", "bob"):
        store.add_annotator(name)
    store.set_score("q1", OVERALL, "alice", 4)
    store.set_score("q1", "Clarity", "alice", 3)
    store.set_score("q1", OVERALL, "bob", 2)
    store.set_score("q1", "Clarity", "bob", 5)
    store.set_score("q1", "Accuracy", "bob", 1)
    store.set_score("q2", "Clarity", "alice", 3)  # no overall score: no label
    out = tmp_path / "labels.jsonl"
    run("review", "export", tmp_path / "p", "--labels", out)
    labels = read_human_labels(out)
    assert list(labels) == ["q1"]
    assert labels["q1"].scores == {"overall": 3.0, "Clarity": 4.0, "Accuracy": 1.0}
    assert labels["q1"].votes == {
        "alice": {"overall": 4.0, "Clarity": 3.0},
        "bob": {"overall": 2.0, "Clarity": 5.0, "Accuracy": 1.0},
    }
    assert labels["q1"].annotators == ("alice", "bob") and labels["q1"].sampling is None


def stats(project: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "stats.json"
    run("review", "stats", project, "--resamples", "0", "--json", out, "--force")
    return dict(json.loads(out.read_text()))


def test_stats_give_judge_vs_human_agreement_and_the_labels_needed_as_computed_by_hand(
    tmp_path: Path,
) -> None:
    project = tmp_path / "p"
    store = imported(project, tmp_path / "run", "--order", "random", "--target-width", "0.2")
    prefer(store, CHOICES)
    numbers = stats(project, tmp_path)["tasks"]["pairs"]
    judged = numbers["preferences"]["judge_vs_human"]
    # (judge, humans): i0 (1, 1), i1 (2, 2), i2 (1, 2), i3 (2, tie), i4 (tie, tie).
    assert judged["items"] == 5 and judged["no_verdict"] == 0
    assert judged["cohen_kappa"] == pytest.approx(7 / 17)  # (3/5 - 8/25) / (1 - 8/25)
    rates = {v: (n["tpr"], n["tnr"]) for v, n in judged["per_verdict"].items()}
    assert rates == {
        "1": (1.0, pytest.approx(3 / 4)),
        "2": (0.5, pytest.approx(2 / 3)),
        "tie": (0.5, 1.0),
    }
    # kim and lee both judged i0 (1, 1), i2 (2, 2), i3 (1, 2): nominal alpha 1 - (2/6) / (18/30).
    assert numbers["preferences"]["alpha"]["annotators"] == pytest.approx(4 / 9)

    labels = numbers["labels"]
    assert (labels["labelled"], labels["labels"], labels["random_sample"]) == (5, 8, 5)
    # Response 1's win per item: humans' mean over votes, the judge's from its verdict; i5 unlabelled.
    current = prediction_powered_mean([1, 0, 0, 0.5, 0.5], [1, 0, 1, 0, 0.5], [1])
    assert labels["estimate"]["value"] == pytest.approx(current.value)
    assert labels["labels_for_width"] == labels_for_width(0.2, current=current)
    assert labels["more_for_width"] == labels["labels_for_width"] - 5
    assert (labels["labels_for_guarantee"], labels["more_for_guarantee"]) == (22, 17)  # log 0.1 / log 0.9
    printed = run("review", "stats", project, "--resamples", "0")
    assert "Judge vs humans, per verdict" in printed and "Calibration to 90% agreement" in printed
    assert f"about {labels['more_for_width']:,} more labels for a ±0.1 interval" in printed


def test_labels_queued_by_doubt_count_in_neither_need_and_targets_are_kept(tmp_path: Path) -> None:
    project = tmp_path / "p"
    options = ("--order", "uncertainty", "--target-agreement", "0.8", "--delta", "0.05")
    store = imported(project, tmp_path / "run", *options)
    prefer(store, CHOICES)
    labels = stats(project, tmp_path)["tasks"]["pairs"]["labels"]
    assert (labels["random_sample"], labels["chosen_by_doubt"]) == (0, 5)
    assert labels["labels_for_width"] == 385  # the worst case: (2 * 1.96 * 0.5 / 0.1) ** 2, rounded up
    assert labels["labels_for_guarantee"] == 14  # log 0.05 / log 0.8 = 13.4
    assert any("not a random sample" in line for line in labels["summary"])
    folder = tmp_path / "run"
    run(
        "review",
        "import",
        project,
        folder / "judged.jsonl",
        "--input",
        folder / "pairs.jsonl",
        "--task",
        "pairs",
    )
    assert store.settings().target_agreement == 0.8 and store.settings().delta == 0.05  # kept


def test_interval_alpha_of_overall_scores_as_computed_by_hand(tmp_path: Path) -> None:
    store = build_project(tmp_path / "p")
    for name in ("alice", "bob"):
        store.add_annotator(name)
    for item_id, (mine, theirs) in {"q1": (4, 2), "q2": (3, 3), "q3": (5, 5)}.items():
        store.set_score(item_id, OVERALL, "alice", mine)
        store.set_score(item_id, OVERALL, "bob", theirs)
    overall = stats(tmp_path / "p", tmp_path)["tasks"]["eli5"]["criteria"][OVERALL]
    # Do = 8/6 (the pair 4, 2), De = 88/30 (every pair of the values 4 2 3 3 5 5): 1 - Do/De = 6/11.
    assert overall["alpha"]["annotators"]["interval"] == pytest.approx(6 / 11)
