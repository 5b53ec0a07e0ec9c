"""A target read slim to measure recorded judgments: no texts held, the same run directory written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from faceteval.core import Judgment
from faceteval.errors import FacetevalError
from faceteval.metaeval import INSTANCES, JUDGMENTS, SUMMARY, Settings, load_target, measure, read_slim
from faceteval.metaeval._slim import slim as slim_judgment

LONG = "x" * 5_000


def write_pairs(folder: Path, n: int = 60) -> tuple[Path, Path]:
    """``n`` labelled pairs with long texts, and a judgment of each."""
    pairs, judgments = folder / "pairs.jsonl", folder / "judged.jsonl"
    rows = [{"id": f"p{k}", "query": f"q{k} {LONG}", "candidates": [LONG[: 10 + k], LONG[: 90 - k]],
             "reference": LONG, "label": k % 3, "category": "c" if k % 2 else "d",
             "metadata": {"turn": 1}, "systems": ["gpt-4", "claude"]} for k in range(n)]  # fmt: skip
    pairs.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    lines = [json.dumps({"id": f"p{k}", "method": "direct", "status": "ok", "verdict": (k * 7) % 3,
                         "usage": {"calls": 1}}) for k in range(n)]  # fmt: skip
    judgments.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return pairs, judgments


def test_slim_target_keeps_lengths_not_texts(tmp_path: Path) -> None:
    pairs, _ = write_pairs(tmp_path)
    whole = load_target(str(pairs), tmp_path)
    slim = load_target(str(pairs), tmp_path, slim=True)
    assert slim.kind == whole.kind
    assert [i.id for i in slim.instances] == [i.id for i in whole.instances]
    for kept, full in zip(slim.instances, whole.instances, strict=True):
        assert [len(text) for text in kept.candidates] == [len(text) for text in full.candidates]
        assert (kept.label, kept.category, kept.systems, kept.metadata) == (
            full.label, full.category, full.systems, full.metadata)  # fmt: skip
        assert kept.query == "" and kept.reference is None and not kept.candidates[0].strip()


def test_slim_target_writes_the_same_run(tmp_path: Path) -> None:
    pairs, judged = write_pairs(tmp_path)
    settings = Settings(resamples=10)
    outputs = {}
    for slim in (False, True):
        target = load_target(str(pairs), tmp_path, slim=slim)
        read = read_slim(judged)
        out = tmp_path / f"run-{slim}"
        record = measure(out, target, target.instances[5:50], read.judgments, judge="j", settings=settings,
                         facts=read.facts, read_from=judged)  # fmt: skip
        outputs[slim] = (record.summary, (out / INSTANCES).read_bytes(), (out / JUDGMENTS).read_bytes())
    assert outputs[True] == outputs[False]
    assert json.loads(outputs[True][1].splitlines()[0])["query"].endswith(LONG)


def test_slim_target_refuses_a_file_changed_while_measured(tmp_path: Path) -> None:
    pairs, judged = write_pairs(tmp_path)
    target = load_target(str(pairs), tmp_path, slim=True)
    pairs.write_text(pairs.read_text(encoding="utf-8").replace('"p3"', '"moved"'), encoding="utf-8")
    read = read_slim(judged)
    with pytest.raises(FacetevalError, match="changed while they were measured"):
        measure(tmp_path / "run", target, target.instances, read.judgments, judge="j",
                settings=Settings(resamples=0), facts=read.facts, read_from=judged)  # fmt: skip
    assert not (tmp_path / "run" / SUMMARY).exists()


def test_slim_judgments_share_values_not_their_signs() -> None:
    facet = {"name": "f", "weight": 0.5, "scores": [8.5, None], "explanation": "e"}
    judged = {
        "id": "1",
        "method": "direct",
        "status": "ok",
        "verdict": 1,
        "scores": [8.5, -0.0],
        "facets": [facet],
    }
    first, second = (slim_judgment(Judgment.model_validate_json(json.dumps(judged))) for _ in range(2))
    assert first.scores is not None and second.scores is not None
    assert first.scores[0] is second.scores[0] and first.facets[0].scores[0] is first.scores[0]
    assert str(first.scores[1]) == "-0.0" and first.facets[0].scores[1] is None
    whole = Judgment.model_validate(judged)
    kept = {"scores": True, "facets": {0: {"name", "weight", "scores"}}}
    assert first.model_dump_json(include=kept) == whole.model_dump_json(include=kept)
