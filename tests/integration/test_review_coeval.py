"""CoEval's released review imported into a project: counts, and the published numbers recomputed.

Needs the staged data (FACETEVAL_DATA_DIR, holding ``coeval/``); a missing directory fails the test.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from faceteval._cli._app import cli
from faceteval.errors import InputError
from faceteval.review import ReviewStore
from faceteval.review._stats import LLM, review_stats
from faceteval.review.internal import create_app
from faceteval.workflows.coeval._review import (
    file_action_rates,
    import_coeval,
    published_action_rates,
    published_score_changes,
)

TASKS = {  # short name -> (project task, score file, criteria, annotators)
    "eli5": ("coeval-eli5", "ELI5/eli5", 5, ("A01", "A02", "A03", "A04", "A05")),
    "rocstories": ("coeval-rocstories", "ROCStories/roc", 7, ("A06", "A07", "A08", "A09", "A10")),
    "selfinstruct": (
        "coeval-selfinstruct",
        "Self-Instruct/self_instruct",
        5,
        ("A05", "A10", "A11", "A12", "A13"),
    ),
}


def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    assert (Path(value) / "coeval").is_dir(), f"FACETEVAL_DATA_DIR={value} holds no coeval/"
    return Path(value)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    project = tmp_path_factory.mktemp("coeval") / "project"
    summary = import_coeval(ReviewStore.open(project), data_dir())
    return project, summary


@pytest.fixture(scope="module")
def numbers(imported: tuple[Path, Any]) -> dict[str, Any]:
    return review_stats(ReviewStore.open(imported[0], create=False))


def test_counts_match_the_data(imported: tuple[Path, Any]) -> None:
    project, summary = imported
    store = ReviewStore.open(project, create=False)
    assert summary.tasks == tuple(task for task, *_ in TASKS.values())
    assert (summary.items, summary.drafts, summary.scores) == (600, 200 * 17, 200 * 17 * 5)
    assert summary.sentence_actions == 21_748 + 35_873 + 29_101  # every element of the three action files
    scores = store.scores()
    for task, _, n_criteria, annotators in TASKS.values():
        items = store.items(task)
        assert len(items) == 200
        assert len({(item.query, item.system) for item in items}) == 200
        assert len(store.criteria(task)) == n_criteria
        ids = {item.id for item in items}
        assert {a for (i, _, a) in scores if i in ids} == set(annotators)
        assert sum(i in ids for (i, _, _) in scores) == 200 * n_criteria * 5
    assert len(store.annotators()) == 13  # A05 and A10 annotate two tasks each


def test_unaligned_action_lists_are_reported_and_kept(imported: tuple[Path, Any]) -> None:
    project, summary = imported
    per_task = {
        task: sum(u.item_id.startswith(f"{task}:") for u in summary.unaligned) for task, *_ in TASKS.values()
    }
    assert per_task == {"coeval-eli5": 1, "coeval-rocstories": 8, "coeval-selfinstruct": 1}
    store = ReviewStore.open(project, create=False)
    first = summary.unaligned[0]
    assert (first.item_id, first.criterion, first.annotator, first.actions, first.sentences) == (
        "coeval-eli5:44:human",
        "Accuracy",
        "A05",
        4,
        3,
    )
    assert store.item(first.item_id).metadata["unaligned"][0]["annotator"] == "A05"
    kept = [
        row["sentence"]
        for row in store.sentence_actions(first.item_id)
        if (row["criterion"], row["annotator"]) == ("Accuracy", "A05")
    ]
    assert kept == [0, 1, 2, 3, None, None, None]  # 4 actions on 3 sentences, then 3 adds


def test_sentences_line_up_with_coevals_rows(imported: tuple[Path, Any]) -> None:
    """A06 revised the "2. Score: 4" row of this evaluation (their session file A06.json in CoEval's repo)."""
    store = ReviewStore.open(imported[0], create=False)
    item = "coeval-rocstories:1:turbo"
    draft = next(d for d in store.drafts(item) if d.criterion == "Relevance")
    assert draft.sentences[1] == "2. Score: 4"
    assert len(draft.sentences) == 6 and "3. Evidence:" not in draft.sentences
    actions = [
        r for r in store.sentence_actions(item) if (r["criterion"], r["annotator"]) == ("Relevance", "A06")
    ]
    assert [(r["sentence"], r["action"]) for r in actions if r["action"] != "pass"] == [(1, "revise")]


@pytest.mark.parametrize("short", list(TASKS))
def test_action_rates_match_the_action_file_and_the_published_rates(
    short: str, numbers: dict[str, Any]
) -> None:
    task = TASKS[short][0]
    from_file = file_action_rates(data_dir(), short)
    published = published_action_rates(data_dir(), short)
    criteria = numbers["tasks"][task]["criteria"]
    assert set(from_file) == set(published) == set(criteria)
    for name, rates in published.items():
        assert criteria[name]["actions"]["rates"] == from_file[name], name  # the same counts: exactly equal
        if short == "rocstories" and name == "Length":
            # No actions in roc_action.json; the published 0.46 / 0.54 cannot be recomputed.
            assert criteria[name]["actions"]["n"] == 0
            assert rates == {"pass": 0.46, "delete": 0.0, "revise": 0.54, "add": 0.0}
            continue
        for action, value in rates.items():
            assert f"{from_file[name][action]:.2f}" == f"{value:.2f}", (name, action)


@pytest.mark.parametrize("short", list(TASKS))
def test_score_changes_match_the_published_counts(short: str, numbers: dict[str, Any]) -> None:
    criteria = numbers["tasks"][TASKS[short][0]]["criteria"]
    for name, published in published_score_changes(data_dir(), short).items():
        ours = criteria[name]["score_changes"]
        assert (ours["improve"], ours["decrease"]) == (published["improve"], published["decrease"])
        assert ours["unchange"] + 200 == published["unchange"]  # CoEval counts ChatGPT against itself too


@pytest.mark.parametrize("short", list(TASKS))
def test_alpha_matches_the_score_file(short: str, numbers: dict[str, Any]) -> None:
    task, prefix, _, annotators = TASKS[short]
    path = data_dir() / f"coeval/evaluation_data/{prefix}_annotator_scores.json"
    outputs = [
        o for systems in json.loads(path.read_text(encoding="utf-8")).values() for o in systems.values()
    ]
    criteria = numbers["tasks"][task]["criteria"]
    keys = [key for key in outputs[0] if key != "prediction"]
    for key, name in zip(keys, criteria, strict=True):
        humans = np.array([[o[key][a] for o in outputs] for a in annotators], dtype=float)
        chatgpt = np.array([[o[key]["chatgpt"] for o in outputs]], dtype=float)
        for level in ("interval", "ordinal"):
            alpha = criteria[name]["alpha"]
            expected = krippendorff.alpha(reliability_data=humans, level_of_measurement=level)
            with_llm = krippendorff.alpha(
                reliability_data=np.vstack([chatgpt, humans]), level_of_measurement=level
            )
            assert alpha["annotators"][level] == pytest.approx(expected, abs=1e-12), (name, level)
            assert alpha["llm_and_annotators"][level] == pytest.approx(with_llm, abs=1e-12), (name, level)


def test_pairwise_alpha_reproduces_cells_of_coevals_figure_5(numbers: dict[str, Any]) -> None:
    """Six cells of Fig. 5 (captioned ELI5, A3-A5) are ROCStories' A08-A10, every criterion pooled."""
    matrix = numbers["tasks"]["coeval-rocstories"]["pairwise_alpha"]
    published = {
        (LLM, "A08"): 0.756,
        (LLM, "A09"): 0.756,
        (LLM, "A10"): 0.749,
        ("A08", "A09"): 0.967,
        ("A08", "A10"): 0.959,
        ("A09", "A10"): 0.968,
    }
    assert {pair: round(matrix[pair[0]][pair[1]], 3) for pair in published} == published


def test_cli_stats_writes_the_numbers(
    imported: tuple[Path, Any], numbers: dict[str, Any], tmp_path: Path
) -> None:
    out, markdown = tmp_path / "stats.json", tmp_path / "stats.md"
    args = ["review", "stats", str(imported[0]), "--task", "coeval-eli5", "--resamples", "100"]
    result = CliRunner().invoke(cli, [*args, "--json", str(out), "--markdown", str(markdown)])
    assert result.exit_code == 0, result.output
    assert "Sentence actions" in result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert list(written["tasks"]) == ["coeval-eli5"]
    ours, theirs = written["tasks"]["coeval-eli5"], numbers["tasks"]["coeval-eli5"]
    for key in ("actions", "score_changes", "alpha", "pearson", "pairwise_alpha", "criteria_actions"):
        assert ours[key] == theirs[key], key  # JSON keeps every float as it was
    accuracy = ours["criteria"]["Accuracy"]
    assert accuracy["actions"]["rates"] == file_action_rates(data_dir(), "eli5")["Accuracy"]
    assert accuracy["llm_vs_human"]["pearson"]["ci"] is not None
    assert "| coeval-eli5 | Accuracy | 4,389 | 88.1% |" in markdown.read_text(encoding="utf-8")


def test_cli_import_coeval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACETEVAL_DATA_DIR", str(data_dir()))
    project = tmp_path / "eli5"
    result = CliRunner().invoke(cli, ["review", "import-coeval", str(project), "--task", "eli5"])
    assert result.exit_code == 0, result.output
    assert "Imported 200 outputs" in result.output
    assert "1 action list does not line up" in result.output
    assert "coeval-eli5:44:human / Accuracy / A05: 4 actions, 3 sentences" in result.output
    # CoEval's annotators scored every criterion but never overall: the home page says so, not just "0 / 200".
    with TestClient(create_app(project), base_url="http://127.0.0.1") as client:
        home = client.post("/signin", data={"annotator": "A01"}, headers={"Origin": "http://127.0.0.1"})
    assert home.status_code == 200
    shown = '0 / 200 <span class="muted">(200 more with every criterion done, no overall score)'
    assert home.text.count(shown) == 5  # one per annotator
    again = CliRunner().invoke(cli, ["review", "import-coeval", str(project), "--task", "eli5"])
    assert again.exit_code == 1
    assert "already holds coeval-eli5" in again.output
    wrong = CliRunner().invoke(cli, ["review", "import-coeval", str(tmp_path / "x"), "--task", "gsm8k"])
    assert wrong.exit_code == 1
    assert "unknown CoEval task 'gsm8k'" in wrong.output


def test_a_missing_file_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "coeval/evaluation_data").mkdir(parents=True)
    (root / "coeval/data").symlink_to(data_dir() / "coeval/data")
    (root / "coeval/evaluation_data/ELI5").symlink_to(data_dir() / "coeval/evaluation_data/ELI5")
    store = ReviewStore.open(tmp_path / "project")
    with pytest.raises(InputError, match=r"roc_annotator_scores\.json"):
        import_coeval(store, root, ["eli5", "rocstories"])
    assert store.tasks() == []
    assert store.items() == []


def test_a_score_row_of_coevals_drafts_is_shown_overridden_where_the_annotators_score_differs(
    imported: tuple[Path, Any],
) -> None:
    """CoEval's action lists act on its score rows ("2. Score: 4"), so they stay rows to review; the
    page marks one an annotator kept while scoring otherwise, and none they scored alike."""
    project, _ = imported
    store = ReviewStore.open(project, create=False)
    scores = store.scores()
    latest = {
        (a["item_id"], a["criterion"], a["sentence"]): a["action"]
        for a in store.sentence_actions()
        if a["annotator"] == "A01"
    }
    deleted = {key for key, action in latest.items() if action == "delete"}
    overridden = kept = None
    for draft in store.drafts():
        given = scores.get((draft.item_id, draft.criterion, "A01"))
        rows = [k for k, text in enumerate(draft.sentences) if text.startswith("2. Score: ")]
        if given is None or draft.score is None or len(rows) != 1:
            continue
        if (draft.item_id, draft.criterion, rows[0]) in deleted:
            continue
        if given != draft.score and overridden is None:
            overridden = (draft, rows[0], given)
        elif given == draft.score and kept is None:
            kept = (draft, rows[0], given)
    assert overridden is not None and kept is not None
    with TestClient(create_app(project), base_url="http://127.0.0.1") as client:
        client.post("/signin", data={"annotator": "A01"}, headers={"Origin": "http://127.0.0.1"})
        for (draft, row, given), marked in ((overridden, True), (kept, False)):
            page = client.get("/item", params={"id": draft.item_id}).text
            section = page[page.index(f'data-criterion="{draft.criterion}"') :]
            section = section[: section.index("</section>")]
            shown = re.findall(r'<div class="sentence ([^"]*)">\s*<div>\s*<span class="state">[^<]*</span>\s*'
                               r'<div class="body">([^<]*)</div>', section)  # fmt: skip
            classes, text = shown[row]
            assert text == draft.sentences[row]
            assert ("overridden" in classes.split()) is marked, (draft.item_id, draft.criterion, classes)
            if marked:
                assert f"overridden by your score: {given:g}" in section
