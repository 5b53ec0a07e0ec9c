"""Finding what a judgments file was judged from: the run record's input, wherever the command runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.datasets.internal import judged_input, judged_instances
from faceteval.errors import FacetevalError


def pairs(path: Path, query: str, *, bad_line: bool = False) -> Path:
    rows = [json.dumps({"id": f"p{i}", "query": f"{query} {i}", "candidates": ["a", "b"]}) for i in range(3)]
    if bad_line:
        rows.insert(1, json.dumps({"id": "bad", "query": "q", "candidates": "not a list"}))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row + "\n" for row in rows), encoding="utf-8")
    return path


def judged(folder: Path, record: dict[str, str]) -> Path:
    judgments = folder / "j.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    judgments.write_text("", encoding="utf-8")
    (folder / "j.run.json").write_text(json.dumps(record), encoding="utf-8")
    return judgments


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory holding another file of the same name and ids."""
    other = tmp_path / "other"
    pairs(other / "pairs.jsonl", "A different question")
    monkeypatch.chdir(other)
    return other


def test_the_record_names_the_input_where_it_was_judged_not_where_the_command_runs(
    tmp_path: Path, elsewhere: Path
) -> None:
    original = pairs(tmp_path / "run" / "pairs.jsonl", "Name a prime number")
    judgments = judged(tmp_path / "run", {"input": "pairs.jsonl", "input_path": str(original)})
    assert judged_input(judgments) == original
    assert judged_instances(judgments)["p0"].query == "Name a prime number 0"


def test_an_older_record_is_read_from_its_own_folder_first(tmp_path: Path, elsewhere: Path) -> None:
    original = pairs(tmp_path / "run" / "pairs.jsonl", "Name a prime number")
    judgments = judged(tmp_path / "run", {"input": "pairs.jsonl"})
    assert judged_input(judgments).resolve() == original.resolve()


def test_a_moved_input_is_found_beside_the_judgments_and_a_lost_one_is_an_error(
    tmp_path: Path, elsewhere: Path
) -> None:
    moved = pairs(tmp_path / "run" / "data" / "pairs.jsonl", "Moved")
    judgments = judged(
        tmp_path / "run", {"input": "data/pairs.jsonl", "input_path": "/gone/data/pairs.jsonl"}
    )
    assert judged_input(judgments) == judgments.parent / "data" / "pairs.jsonl" and moved.is_file()
    lost = judged(tmp_path / "lost", {"input": "pairs.jsonl", "input_path": "/gone/pairs.jsonl"})
    with pytest.raises(FacetevalError) as caught:
        judged_input(lost)  # not the working directory's pairs.jsonl
    message = str(caught.value)
    assert message.startswith(
        f"{lost.with_name('j.run.json')}: its input 'pairs.jsonl' is not a file (looked for "
    )
    assert f"/gone/pairs.jsonl, {lost.parent / 'pairs.jsonl'}); name it with --input" in message


def test_a_project_that_moved_is_read_where_its_input_lies_from_the_judgments(
    tmp_path: Path, elsewhere: Path
) -> None:
    # Judged from the project root as `judge data/pairs.jsonl --out runs/j.jsonl`; then moved.
    moved = pairs(tmp_path / "moved" / "data" / "pairs.jsonl", "Name a prime number")
    record = {"input": "data/pairs.jsonl", "output": "runs/j.jsonl", "input_path": "/old/data/pairs.jsonl"}
    judgments = judged(tmp_path / "moved" / "runs", record)
    assert judged_input(judgments).resolve() == moved.resolve()
    beside = pairs(tmp_path / "flat" / "pairs.jsonl", "Flat")  # moved into one folder together
    assert judged_input(judged(tmp_path / "flat", record)) == beside


def test_a_malformed_input_line_is_left_out_not_fatal(tmp_path: Path) -> None:
    source = pairs(tmp_path / "pairs.jsonl", "Q", bad_line=True)
    judgments = judged(tmp_path, {"input": str(source), "input_path": str(source)})
    assert sorted(judged_instances(judgments)) == ["p0", "p1", "p2"]


def test_a_judgment_whose_line_is_no_longer_valid_is_told_why(tmp_path: Path) -> None:
    from faceteval.datasets._judged import why_missing

    source = pairs(tmp_path / "pairs.jsonl", "Q", bad_line=True)
    instances = judged_instances(judged(tmp_path, {"input": str(source), "input_path": str(source)}))
    assert why_missing(instances, "p9") == "it is not in the judged input"
    assert why_missing(instances, "bad").startswith("its line in the judged input is not valid: ")
    assert "field 'candidates'" in why_missing(instances, "bad")


def test_where_the_input_lay_does_not_depend_on_where_the_reader_runs(
    tmp_path: Path, elsewhere: Path
) -> None:
    # Judged from proj/sub as `judge x.jsonl --out ../runs/j.jsonl`; proj then moved.
    moved = pairs(tmp_path / "new" / "proj" / "sub" / "x.jsonl", "Q")
    record = {"input": "x.jsonl", "output": "../runs/j.jsonl", "input_path": "/old/proj/sub/x.jsonl"}
    judgments = judged(tmp_path / "new" / "proj" / "runs", record)
    assert judged_input(judgments).resolve() == moved.resolve()


def test_a_line_without_an_id_is_told_by_its_line_number(tmp_path: Path) -> None:
    from faceteval.datasets._judged import why_missing

    source = tmp_path / "p.jsonl"
    source.write_text('{"query": "q", "candidates": "not a list"}\n', encoding="utf-8")
    instances = judged_instances(judged(tmp_path, {"input": str(source), "input_path": str(source)}))
    assert why_missing(instances, "1").startswith("its line in the judged input is not valid: ")
