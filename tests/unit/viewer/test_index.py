"""The index of a run's lines: built once, read a page at a time, kept up to date as the files change."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from faceteval.errors import StoreError
from faceteval.viewer import Filters, Run, RunGone, RunIndex
from faceteval.viewer import _index as index_module
from faceteval.viewer._catalog import fresh
from faceteval.viewer._items import read_line
from faceteval.viewer._lines import Stale
from faceteval.viewer._opened import open_run

EVERY = Filters()


def opened_index(run: Run, folder: Path) -> RunIndex:
    index = RunIndex(run.command, run.lines, run.lines.with_name("pairs.jsonl"), folder)  # type: ignore[arg-type]
    index.refresh()
    return index


def all_rows(index: RunIndex) -> list[tuple[int, str | None, str]]:
    return [(row.line, row.id, row.status) for row in index.page(EVERY, 1, 500).rows]


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The line numbers the index reads fields of, from now on."""
    read: list[int] = []
    real = index_module.line_fields

    def counted(command, path, line_no, raw):  # type: ignore[no-untyped-def]
        read.append(line_no)
        return real(command, path, line_no, raw)

    monkeypatch.setattr(index_module, "line_fields", counted)
    return read


def test_each_line_is_indexed_with_its_instance_s_label_and_place(judged: Run, tmp_path: Path) -> None:
    index = opened_index(judged, tmp_path / "index")

    rows = index.page(EVERY, 1, 50).rows
    assert [(r.line, r.id, r.status, r.verdict, r.consistent) for r in rows] == [
        (1, "p1", "ok", 1, True),
        (2, "p2", "ok", 2, True),
        (3, "p3", "ok", 0, False),
        (4, "p4", "parse_error", None, None),
        (5, "p5", "ok", 2, True),
    ]
    assert [(r.label, r.agrees, r.input_line) for r in rows] == [
        (1, True, 1), (2, True, 2), (1, False, 3), (2, None, 4), (1, False, 5)
    ]  # fmt: skip
    choices = index.choices()
    assert choices.statuses == [("ok", 4), ("parse_error", 1)]
    assert choices.systems == ["A", "B"] and choices.labelled and choices.orders
    assert choices.facets == ["Does the output follow the instruction?", "Is the output correct?"]


def test_bad_lines_are_named_kept_in_their_place_and_counted_apart(judged: Run, tmp_path: Path) -> None:
    assert judged.lines is not None
    with judged.lines.open("a", encoding="utf-8") as out:
        out.write('{"id": "p9", "method": "dna"}\n\nnot json at all\n')
    index = opened_index(judged, tmp_path / "index")

    bad = index.page(Filters(status="bad line"), 1, 50).rows
    assert [(row.line, row.id) for row in bad] == [(6, None), (8, None)]  # line 7 is blank
    assert bad[0].problem == f"{judged.lines}:6: field 'status': Field required"
    assert bad[1].problem is not None and bad[1].problem.startswith(f"{judged.lines}:8: not valid JSON")
    assert ("bad line", 2) in index.choices().statuses
    assert index.page(Filters(status="ok"), 1, 50).total == 4  # skipped by every other count
    opened = open_run(judged, tmp_path / "index")
    shown = read_line(opened, bad[1])
    assert shown.text == "not json at all" and shown.judgment is None


def test_a_page_reads_its_own_lines_alone(
    judged: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = open_run(judged, tmp_path / "index")
    assert opened.index is not None
    opened.index.refresh()
    offsets: list[int] = []
    real = index_module.read_at
    monkeypatch.setattr(
        index_module,
        "read_at",
        lambda path, offset, length: offsets.append(offset) or real(path, offset, length),
    )

    page = opened.index.page(EVERY, 2, 2)
    lines = [read_line(opened, row) for row in page.rows]

    assert [line.row.id for line in lines] == ["p3", "p4"] and (page.total, page.pages) == (5, 3)
    assert len(offsets) == 4  # two judgments and their two instances, nothing else


def test_an_appended_file_is_indexed_from_where_it_ended(
    judged: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert judged.lines is not None
    index = opened_index(judged, tmp_path / "index")
    first = json.loads(judged.lines.read_text(encoding="utf-8").splitlines()[0])
    read = count_reads(monkeypatch)
    with judged.lines.open("a", encoding="utf-8") as out:
        out.write(json.dumps({**first, "id": "p6"}) + "\n")

    assert index.refresh()

    assert read == [6]
    assert all_rows(index)[-1] == (6, "p6", "ok")


def test_an_unfinished_last_line_is_read_again_once_it_is_finished(judged: Run, tmp_path: Path) -> None:
    assert judged.lines is not None
    line = json.dumps({**json.loads(judged.lines.read_text().splitlines()[0]), "id": "p6"})
    with judged.lines.open("a", encoding="utf-8") as out:
        out.write(line[:40])
    index = opened_index(judged, tmp_path / "index")
    assert all_rows(index)[-1] == (6, None, "bad line")

    with judged.lines.open("a", encoding="utf-8") as out:
        out.write(line[40:] + "\n")
    index.refresh()

    assert all_rows(index)[-1] == (6, "p6", "ok") and len(all_rows(index)) == 6


def test_a_replaced_file_is_indexed_again_whole(judged: Run, tmp_path: Path) -> None:
    assert judged.lines is not None
    index = opened_index(judged, tmp_path / "index")
    kept = judged.lines.read_text(encoding="utf-8").splitlines()[3:]
    written = tmp_path / "new.jsonl"
    written.write_text("".join(line + "\n" for line in kept), encoding="utf-8")

    os.replace(written, judged.lines)  # as a run writing its output again puts it in place
    index.refresh()

    assert all_rows(index) == [(1, "p4", "parse_error"), (2, "p5", "ok")]


def test_a_line_moved_under_the_index_is_found_again_not_shown_wrong(judged: Run, tmp_path: Path) -> None:
    assert judged.lines is not None
    opened = open_run(judged, tmp_path / "index")
    assert opened.index is not None
    opened.index.refresh()
    row = opened.index.page(EVERY, 1, 50).rows[1]
    before = judged.lines.stat()
    lines = judged.lines.read_text(encoding="utf-8").splitlines()
    judged.lines.write_text("\n".join([lines[1], lines[0], *lines[2:]]) + "\n", encoding="utf-8")
    os.utime(judged.lines, ns=(before.st_atime_ns, before.st_mtime_ns))  # an edit its identity does not show
    assert not opened.index.refresh()

    with pytest.raises(Stale):
        read_line(opened, row)
    second = fresh(opened, lambda: read_line(opened, opened.index.row(2)))  # type: ignore[union-attr, arg-type]

    assert second.row.id == "p1" and second.judgment is not None and second.judgment.id == "p1"


def test_the_index_is_kept_for_the_next_opening(
    judged: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened_index(judged, tmp_path / "index").close()
    read = count_reads(monkeypatch)

    again = opened_index(judged, tmp_path / "index")

    assert read == [] and not again.refresh() and len(all_rows(again)) == 5


def test_an_index_file_that_is_not_one_is_made_anew(judged: Run, tmp_path: Path) -> None:
    folder = tmp_path / "index"
    first = opened_index(judged, folder)
    first.close()
    first.path.write_bytes(b"not a database at all" * 100)

    assert len(all_rows(opened_index(judged, folder))) == 5


def test_a_run_removed_while_viewed_is_named(judged: Run, tmp_path: Path) -> None:
    assert judged.lines is not None
    index = opened_index(judged, tmp_path / "index")
    judged.lines.unlink()

    with pytest.raises(RunGone, match="no longer there"):
        index.refresh()


def test_a_folder_that_cannot_hold_indexes_is_named(judged: Run, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("x", encoding="utf-8")

    with pytest.raises(StoreError, match=r"cannot keep the index of .* there"):
        opened_index(judged, blocked / "index")


def test_an_input_edited_since_it_was_judged_is_said_so(judged: Run, tmp_path: Path) -> None:
    pairs = judged.path.with_name("pairs.jsonl")
    lines = pairs.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace("Explain rain.", "Explain drizzle.")
    pairs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    opened = open_run(judged, tmp_path / "index")
    assert opened.index is not None
    opened.index.refresh()

    line = read_line(opened, opened.index.page(EVERY, 1, 1).rows[0], instance=True)

    assert line.instance is not None and line.instance.query == "Explain drizzle."
    assert line.instance_problem is not None and "was edited since it was judged" in line.instance_problem


def test_a_judge_run_whose_input_is_gone_shows_its_judgments_and_says_why(
    judged: Run, tmp_path: Path
) -> None:
    shutil.move(judged.path.with_name("pairs.jsonl"), tmp_path / "elsewhere.jsonl")
    opened = open_run(judged, tmp_path / "index")
    assert opened.index is not None and opened.input_problem is not None
    opened.index.refresh()

    line = read_line(opened, opened.index.page(EVERY, 1, 1).rows[0], instance=True)

    assert "is not a file" in opened.input_problem and "--input" not in opened.input_problem
    assert (
        line.judgment is not None and line.instance is None and line.instance_problem == opened.input_problem
    )


def test_an_id_given_twice_in_the_input_is_the_first_line_s_instance(judged: Run, tmp_path: Path) -> None:
    pairs = judged.path.with_name("pairs.jsonl")
    with pairs.open("a", encoding="utf-8") as out:
        out.write(
            '{"id": "p1", "query": "Again?", "candidates": ["x", "y"], "label": 2, "systems": ["C", "D"]}\n'
        )
    index = opened_index(judged, tmp_path / "index")

    first = index.page(Filters(id="p1"), 1, 50).rows[0]
    assert (first.label, first.input_line) == (1, 1)
    assert index.choices().systems == ["A", "B"]
