"""`review import` adds a run's items in chunks, each in its own transaction, holding one chunk at a time
and looking its instances up in a staging file: an import killed between chunks is finished by running
it again (no item twice), and its memory does not hold the judgments' traces nor grow with the run."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from faceteval.review import ReviewStore, import_run
from faceteval.review import _io as review_io

TRACE_KB = 64


def write_run(folder: Path, n: int, trace_kb: int = 0) -> tuple[Path, Path]:
    """A run of ``n`` outputs judged on two criteria (each judgment with a trace of ``trace_kb`` kB), and
    its input."""
    inputs, judgments = folder / "outputs.jsonl", folder / "judgments.jsonl"
    pad = [{"stage": "pad", "messages": [{"role": "user", "content": "p" * trace_kb * 1024}], "raw": ""}]
    with inputs.open("w", encoding="utf-8") as given, judgments.open("w", encoding="utf-8") as judged:
        for k in range(n):
            given.write(
                json.dumps({"id": f"o{k}", "query": f"Question {k}?", "candidates": [f"Answer {k}."]})
            )
            facets = [
                {"name": name, "scores": [float(1 + (k + shift) % 5)], "explanation": f"It is {name} {k}."}
                for shift, name in enumerate(("Clarity", "Accuracy"))
            ]
            status = "ok" if k % 50 else "error"
            trace = pad if trace_kb else []
            judgment = {"id": f"o{k}", "method": "rubric", "status": status, "scores": [float(1 + k % 5)],
                        "facets": facets, "trace": trace}  # fmt: skip
            judged.write(json.dumps(judgment) + "\n")
            given.write("\n")
    return judgments, inputs


class Killed(Exception):
    """The import's process stopped between two chunks."""


def test_an_import_killed_between_chunks_is_finished_by_running_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judgments, inputs = write_run(tmp_path, 250)
    whole = ReviewStore.open(tmp_path / "whole")
    first = import_run(whole, judgments, input_path=inputs, task="t")

    monkeypatch.setattr(review_io, "CHUNK", 40)
    added = ReviewStore.add_items
    calls = []

    def stops_after_three(store: ReviewStore, *args: object, **kwargs: object) -> int:
        if len(calls) == 3:
            raise Killed
        calls.append(1)
        return added(store, *args, **kwargs)  # type: ignore[arg-type]

    store = ReviewStore.open(tmp_path / "chunked")
    monkeypatch.setattr(ReviewStore, "add_items", stops_after_three)
    with pytest.raises(Killed):
        import_run(store, judgments, input_path=inputs, task="t")
    assert len(store.items("t")) == 120  # three chunks of 40 in place
    monkeypatch.setattr(ReviewStore, "add_items", added)
    again = import_run(store, judgments, input_path=inputs, task="t")

    assert (again.items, again.new, again.skipped) == (first.items, first.items - 120, first.skipped)
    assert store.items("t") == whole.items("t")
    assert store.drafts() == whole.drafts()
    assert import_run(store, judgments, input_path=inputs, task="t").new == 0
    assert store.items("t") == whole.items("t") and store.drafts() == whole.drafts()


def peak_of_import(folder: Path, n: int, trace_kb: int) -> int:
    """The peak of the memory Python allocated while importing a run of ``n`` judgments."""
    folder.mkdir()
    judgments, inputs = write_run(folder, n, trace_kb)
    store = ReviewStore.open(folder / "project")
    tracemalloc.start()
    try:
        summary = import_run(store, judgments, input_path=inputs, task="t")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.new == n - n // 50
    return peak


def test_an_import_holds_no_trace_and_one_chunk_of_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_io, "CHUNK", 100)
    peak_of_import(tmp_path / "first", 100, 0)  # what the first import loads once (modules, caches)
    small = peak_of_import(tmp_path / "small", 2_000, 0)
    traced = peak_of_import(tmp_path / "traced", 2_000, TRACE_KB)
    bigger = peak_of_import(tmp_path / "bigger", 6_000, 0)
    traces = 2_000 * TRACE_KB * 1024
    assert traced - small < traces / 64, f"{(traced - small) / 2**20:.1f} MB more with traces"
    # Its items and drafts are added 100 at a time, its instances and ids looked up in a staging file.
    assert bigger - small < 4_000 * 512, f"{(bigger - small) / 4_000:.0f} bytes more per judgment"
