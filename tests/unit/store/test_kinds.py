"""The kinds of file every command writes are told from others; targets are refused before any work
where a file stands in for a folder, or where two options name one file."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from faceteval.errors import ConfigError
from faceteval.store import OutputKind
from faceteval.store import internal as store_internal
from faceteval.store.internal import (
    COMPARISON,
    COST_TABLE,
    JUDGMENTS,
    REPORT,
    check_distinct,
    check_outputs,
)
from faceteval.workflows.coeval import _records as coeval_kinds
from faceteval.workflows.fennec import _records as fennec_kinds
from faceteval.workflows.hdeval import _records as hdeval_kinds
from faceteval.workflows.hdeval._records import SCORED

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(20)
)
TREE = "task: Summarize.\ncriteria:\n- name: coherence\n  children:\n  - name: flow\n"


def archive(*members: str) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as made:
        for member in members:
            made.writestr(member, "{}")
    return data.getvalue()


KIND_HOMES = (store_internal, fennec_kinds, hdeval_kinds, coeval_kinds)
"""Where each kind of output is: the store's own, and the families' workflows'."""


@pytest.mark.parametrize(
    ("name", "ours", "not_ours"),
    [
        ("TREE", TREE, "criteria:\n- name: coherence\n"),
        ("TREE", '{"task": "T", "criteria": [{"name": "a"}]}', ALIAS_BOMB),
        ("CRITERIA_SET", "# CoEval criteria\ncriteria:\n- name: Clarity\n", "name: Clarity\n"),
        ("AGGREGATOR", archive("1.npy", "schema.json"), archive("notes.txt")),
        (
            "SCORED",
            '{"id": "a", "status": "ok", "scores": {}, "contributions": {}}\n',
            '{"id": "a", "method": "dna", "status": "ok"}\n',
        ),
        (
            "SCORED",
            '{"id": "a", "status": "incomplete", "missing_criteria": ["x"]}\n',
            '{"id": "a", "status": "ok"}',
        ),
        ("EXPERIMENTS", '{"shap": {}}', '{"schema_version": 1}'),
        (
            "EVALUATOR",
            '{"format": "faceteval-hdeval-evaluator", "version": 1, "features": []}',
            '{"format": 1}',
        ),
        (
            "CRITERION_SCORES",
            '{"id": "a", "split": "train", "features": {}, "targets": {}}\n',
            '{"id": "a"}\n',
        ),
        ("EVALUATOR_SUMMARY", '{"held_out": {}, "split": {}, "tree": []}', '{"held_out": {}}'),
        ("GENERATION", '{"schema_version": 1, "task": "t", "sets": []}', '{"schema_version": 1}'),
        ("CONSISTENCY", '{"cc": 0.5, "icc": null, "per_sample": []}', '{"cc": 0.5}'),
        ("COMPARISON", '{"a": {}, "b": {}, "metrics": {}, "unjudged": {}}', '{"a": {}, "b": {}}'),
        (
            "COST_TABLE",
            "| Method | Benchmark | Instances | Calls | Cached calls | Input tokens |\n",
            "| Method | Notes |\n",
        ),
        (
            "REVIEW_SCORES",
            '{"id": "q1", "annotator": "al", "scores": {}, "llm_scores": {}}\n',
            '{"id": "q1"}\n',
        ),
        ("REVIEW_ACTIONS", '{"stage": "score", "annotator": "al", "created_at": 1.5}\n', '{"stage": "x"}\n'),
        ("REVIEW_STATS", '{"annotators": [], "tasks": {}}', '{"tasks": {}}'),
        ("REVIEW_TABLES", "# Review statistics\n\n### Sentence actions\n", "# Statistics\n"),
    ],
)
def test_each_kind_of_output_is_told_from_others(
    tmp_path: Path, name: str, ours: str | bytes, not_ours: str | bytes
) -> None:
    kind = next(getattr(home, name) for home in KIND_HOMES if hasattr(home, name))
    assert isinstance(kind, OutputKind)
    path = tmp_path / "f"
    for content, expected in (
        (ours, True),
        (not_ours, False),
        ("", True),
        (b"SQLite format 3\x00...", False),
    ):
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        assert kind.holds(path) is expected, content


def test_a_yaml_alias_bomb_where_a_tree_goes_is_told_not_ours_at_once(tmp_path: Path) -> None:
    path = tmp_path / "tree.yaml"
    path.write_text(ALIAS_BOMB)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match="a file of something else, not a criteria tree"):
        check_outputs([(path, hdeval_kinds.TREE)], given=path)
    assert time.perf_counter() - started < 5  # expanded, it would hold 9 * 4**20 items


def test_a_file_where_a_folder_goes_is_refused_even_when_forced(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    target = notes / "deeper" / "cost.md"
    with pytest.raises(ConfigError) as refused:
        check_outputs([(target, COST_TABLE)], given=target, option="--markdown", force=True)
    assert str(refused.value) == (
        f"--markdown {target} would write {target}, but {notes} is a file, not a directory; "
        "write the output to another file"
    )
    assert notes.read_text() == "mine"


def test_files_at_names_the_user_did_not_choose_are_named_by_their_folder(tmp_path: Path) -> None:
    (tmp_path / "report.md").write_text("# my own notes\n")
    with pytest.raises(ConfigError) as refused:
        check_outputs([(tmp_path / "report.md", REPORT)], given=tmp_path, option=None)
    assert str(refused.value) == (
        f"{tmp_path} would overwrite {tmp_path / 'report.md'}, a file of something else, not a faceteval "
        "report; move it away, or pass --force to overwrite it"
    )


def test_a_target_inside_another_target_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "x.criteria"
    with pytest.raises(ConfigError, match="inside a file it also writes"):
        check_outputs([(out, SCORED), (out / "judgments.jsonl", JUDGMENTS)], given=out)


def test_two_options_naming_one_file_are_refused(tmp_path: Path) -> None:
    check_distinct(("--json", tmp_path / "s.json"), ("--markdown", None), ("--csv", tmp_path / "s.csv"))
    with pytest.raises(ConfigError, match=r"^--markdown .* is the file --json names too; give each its own$"):
        check_distinct(("--json", tmp_path / "s.json"), ("--markdown", tmp_path / "d" / ".." / "s.json"))


def test_a_kind_never_raises_on_a_file_it_cannot_read(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    assert not COMPARISON.holds(deep)
    deep.write_text("- " * 10_000 + "x")
    assert not hdeval_kinds.TREE.holds(deep)
    assert not hdeval_kinds.TREE.holds(tmp_path / "missing.yaml")
