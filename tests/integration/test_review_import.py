"""A `judge --method coeval` run over HTTP imports into a review project as drafts, and exports back."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from faceteval._cli._app import cli
from faceteval.review import OVERALL, ReviewStore
from faceteval.store.internal import record_path_for
from tests.integration.test_coeval_http import QUALITY, inputs, responder
from tests.support.llm_server import LLMServer


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_coeval_run_becomes_drafts_that_annotators_review(tmp_path: Path) -> None:
    outputs, criteria = inputs(tmp_path)
    judged = tmp_path / "j.jsonl"
    with LLMServer(responder) as server:
        run(
            "judge", outputs, "--method", "coeval", "--criteria", criteria, "--model", "openai:judge",
            "--base-url", server.base_url, "--cache", tmp_path / "c.sqlite", "--out", judged, "-q",
        )  # fmt: skip
    project = tmp_path / "review"
    printed = run("review", "import", project, judged, "--task", "rain")
    assert (
        "Imported 3 outputs (3 new)" in printed and "Comparisons (every response side by side): 1." in printed
    )
    store = ReviewStore.open(project, create=False)
    assert [c.name for c in store.criteria("rain")] == ["Comprehensibility", "Length"]
    assert [c.scale for c in store.criteria("rain")] == [(1.0, 5.0), (1.0, 3.0)]
    items = {item.id: item for item in store.items("rain")}
    assert set(items) == {"good", "poor", "pair"}  # the pair is one item: both candidates side by side
    assert [c.output for c in items["pair"].candidates] == [items["poor"].output, items["good"].output]
    assert not items["good"].compares and items["pair"].compares
    drafts = {(d.item_id, d.criterion): d for d in store.drafts()}
    for item_id in ("good", "poor"):
        comprehensibility, length, overall = QUALITY[items[item_id].output]
        assert drafts[(item_id, "Comprehensibility")].score == comprehensibility
        assert drafts[(item_id, "Length")].score == length
        assert drafts[(item_id, OVERALL)].score == overall
        draft = drafts[(item_id, "Length")]
        assert draft.conclusion == "The output is judged on Length."
        assert draft.evidence == f'"{items[item_id].output}"'
        # Score lines and bare labels are not sentences to approve; the quote is kept as written, once.
        assert draft.sentences == ("The output is judged on Length.", f'"{items[item_id].output}"')
        assert [(p.kind, p.text) for p in draft.parts] == [
            ("heading", "Conclusion"),
            ("sentence", "The output is judged on Length."),
            ("score", f"Score: I would assign a score of {length} to this answer."),
            ("heading", "Evidence"),
            ("sentence", f'"{items[item_id].output}"'),
        ]
    pair = {name: drafts[("pair", name)] for name in ("Comprehensibility", "Length", OVERALL)}
    assert pair["Length"].score is None and pair["Length"].scores == (1.0, 3.0)
    assert pair[OVERALL].scores == (2.0, 5.0) and pair[OVERALL].verdict == 2
    headings = [p.text for p in pair["Length"].parts if p.kind == "heading"]
    assert headings == ["Response 1", "Conclusion", "Evidence", "Response 2", "Conclusion", "Evidence"]
    assert pair["Length"].sentences == (
        "The output is judged on Length.",
        '"Precipitation results from coalescence."',
        "The output is judged on Length.",
        '"Clouds get heavy and drops fall."',
    )
    assert pair[OVERALL].conclusion.startswith("Response 1:\nWeighing both criteria above.")

    again = run("review", "import", project, judged, "--task", "rain")
    assert "(0 new)" in again and len(store.items()) == 3
    assert store.task_scale("rain") == (1.0, 5.0)

    # The same ids for another task would put its drafts on these outputs: refused, nothing added.
    refused = CliRunner().invoke(cli, ["review", "import", str(project), str(judged), "--task", "snow"])
    assert refused.exit_code == 1
    assert "3 output ids are already in the project for other outputs: 'good' (task 'rain')" in " ".join(
        refused.output.split()
    )
    assert [name for name, _ in store.tasks()] == ["rain"] and len(store.drafts()) == 9

    # Without --task (and no task on the instances) the task takes the judged file's name.
    run("review", "import", tmp_path / "named", judged)
    assert [name for name, _ in ReviewStore.open(tmp_path / "named", create=False).tasks()] == ["outputs"]

    store.add_annotator("ann")
    store.record_sentence_action("good", "Length", "ann", "revise", sentence=0, text="Short: two sentences.")
    store.set_score("good", "Length", "ann", 2)
    out = tmp_path / "final.jsonl"
    run("review", "export", project, "--out", out)
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["scores"] == {"Comprehensibility": None, "Length": 2} and row["llm_scores"]["Length"] == 3
    assert row["explanations"]["Length"][0] == "Short: two sentences."


def test_import_names_what_it_cannot_find(tmp_path: Path) -> None:
    judged = tmp_path / "j.jsonl"
    judged.write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["review", "import", str(tmp_path / "p"), str(judged)])
    assert result.exit_code != 0 and "j.run.json" in result.output and "--input" in result.output
    assert not (tmp_path / "p").exists()  # a failed import leaves no empty project behind
    ReviewStore.open(tmp_path / "kept")
    again = CliRunner().invoke(cli, ["review", "import", str(tmp_path / "kept"), str(judged)])
    assert again.exit_code != 0 and ReviewStore.open(tmp_path / "kept", create=False)  # one made before stays


def test_the_overall_scale_is_the_one_the_run_judged_on(tmp_path: Path) -> None:
    outputs, criteria = inputs(tmp_path)
    judged = tmp_path / "j.jsonl"
    with LLMServer(responder) as server:
        run(
            "judge", outputs, "--method", "coeval", "--criteria", criteria, "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--out", judged, "-q",
        )  # fmt: skip
    record = record_path_for(judged)
    described = json.loads(record.read_text(encoding="utf-8"))
    assert described["method"]["params"]["scale"] == [1.0, 5.0]
    described["method"]["params"]["scale"] = [0, 10]  # as CoEval(scale=(0, 10)) records it
    record.write_text(json.dumps(described), encoding="utf-8")
    run("review", "import", tmp_path / "review", judged, "--task", "rain")
    store = ReviewStore.open(tmp_path / "review", create=False)
    assert store.task_scale("rain") == (0.0, 10.0)
    assert [(c.name, c.scale) for c in store.criteria("rain")] == [
        ("Comprehensibility", (0.0, 10.0)),  # no scale of its own: the run's
        ("Length", (1.0, 3.0)),
    ]

    # A run that records no scale (Fennec sums its criteria): the criteria's span and the LLM's scores.
    del described["method"]["params"]["scale"]
    record.write_text(json.dumps(described), encoding="utf-8")
    rows = [json.loads(line) for line in judged.read_text(encoding="utf-8").splitlines()]
    rows[0]["scores"] = [13.0]
    judged.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run("review", "import", tmp_path / "summed", judged, "--task", "rain")
    summed = ReviewStore.open(tmp_path / "summed", create=False)
    assert summed.task_scale("rain") == (1.0, 13.0)
    assert summed.criteria("rain")[0].scale == (1.0, 5.0)
    rows[0]["scores"] = [15.0]  # a later batch of the same task widens it, rather than being refused
    judged.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run("review", "import", tmp_path / "summed", judged, "--task", "rain")
    assert summed.task_scale("rain") == (1.0, 15.0)

    # Fennec sums its k criteria (1-5 each): its overall scale is k to 5k.
    described["method"] = {"name": "fennec", "params": {"aggregate": "sum"}}
    record.write_text(json.dumps(described), encoding="utf-8")
    run("review", "import", tmp_path / "fennec", judged, "--task", "rain")
    assert ReviewStore.open(tmp_path / "fennec", create=False).task_scale("rain") == (2.0, 10.0)


def test_an_empty_file_or_an_id_judged_twice_is_refused_and_leaves_no_project(tmp_path: Path) -> None:
    outputs, criteria = inputs(tmp_path)
    judged = tmp_path / "j.jsonl"
    with LLMServer(responder) as server:
        run(
            "judge", outputs, "--method", "coeval", "--criteria", criteria, "--model", "openai:judge",
            "--base-url", server.base_url, "--no-cache", "--out", judged, "-q",
        )  # fmt: skip
    lines = judged.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = (json.loads(line)["id"] for line in lines[:2])

    def judgments(name: str, text: str) -> Path:
        """A judgments file beside its run record (that of the run above)."""
        path = tmp_path / f"{name}.jsonl"
        path.write_text(text, encoding="utf-8")
        record_path_for(path).write_bytes(record_path_for(judged).read_bytes())
        return path

    empty = judgments("empty", "")
    twice = judgments("twice", "".join([*lines, "\n", lines[1], lines[0]]))
    failed = judgments("failed", json.dumps({"id": first, "method": "coeval", "status": "error"}) + "\n")
    for path, message in (
        (empty, f"{empty}: no judgments (the file is empty)"),
        (
            twice,
            f"{twice}: 2 judgment ids appear more than once: {first!r} (lines 1, {len(lines) + 3}), "
            f"{second!r} (lines 2, {len(lines) + 2})",
        ),
        (failed, f"{failed}: none of its 1 judgment is ok"),
    ):
        project = tmp_path / f"project-{path.stem}"
        result = CliRunner().invoke(cli, ["review", "import", str(project), str(path)])
        assert result.exit_code == 1, result.output
        assert message in " ".join(result.output.split())
        assert not project.exists()  # nothing left behind

    kept = tmp_path / "kept"
    run("review", "import", kept, judged, "--task", "rain")
    refused = CliRunner().invoke(cli, ["review", "import", str(kept), str(twice), "--task", "snow"])
    assert refused.exit_code == 1 and "appear more than once" in refused.output
    assert [name for name, _ in ReviewStore.open(kept, create=False).tasks()] == ["rain"]
