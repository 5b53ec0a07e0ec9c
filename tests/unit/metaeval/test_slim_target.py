"""A target read slim to measure recorded judgments: no texts held, the same run directory written."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from faceteval.core import Instance, Judgment, Usage
from faceteval.errors import FacetevalError
from faceteval.metaeval import Settings, load_target, measure
from faceteval.metaeval._slim import SlimInstances, SlimJudgments, trace_facts
from faceteval.metaeval.internal import INSTANCES, JUDGMENTS, SUMMARY, read_slim

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
        record = measure(out, target, target.instances[5:50], read, judge="j", settings=settings)
        outputs[slim] = (record.summary, (out / INSTANCES).read_bytes(), (out / JUDGMENTS).read_bytes())
    assert outputs[True] == outputs[False]
    assert json.loads(outputs[True][1].splitlines()[0])["query"].endswith(LONG)


def test_slim_target_refuses_a_file_changed_while_measured(tmp_path: Path) -> None:
    pairs, judged = write_pairs(tmp_path)
    target = load_target(str(pairs), tmp_path, slim=True)
    pairs.write_text(pairs.read_text(encoding="utf-8").replace('"p3"', '"moved"'), encoding="utf-8")
    read = read_slim(judged)
    with pytest.raises(FacetevalError, match="changed while they were measured"):
        measure(tmp_path / "run", target, target.instances, read, judge="j", settings=Settings(resamples=0))
    assert not (tmp_path / "run" / SUMMARY).exists()


WHOLE = {
    "id": "1", "method": "dna", "status": "ok", "verdict": 1, "scores": [8.5, -0.0], "ranks": [1, 2],
    "explanation": "because", "consistent": True, "confidence": 0.75, "confidence_estimator": "strategies",
    "decided_by": "openai:gpt-4o",
    "input_hash": "h",
    "score_modes": ["logprobs", None],
    "facets": [{"name": "f", "weight": 0.5, "scores": [8.5, None], "explanation": "e",
                "score_modes": ["parse", None]}],
    "orders": [{"order": [2, 1], "verdict": 2, "scores": [3, 7.25], "explanation": "o",
                "facets": [{"name": "f", "weight": 0.5, "scores": [3.0, 7.25]}]}],
    "panel": [{"judge": "recorded:a", "status": "ok", "verdict": 1, "scores": [1.0, 2.0],
               "facets": [{"name": "g", "scores": [1.0, 2.0]}], "usage": {"calls": 2}}],
    "panel_vote": "mean",
    "usage": {"calls": 3, "cached_calls": 1, "input_tokens": 90, "output_tokens": 9, "cost_usd": None},
    "trace": [{"stage": "score", "messages": [], "raw": "r", "model": "openai:gpt-4o", "input_tokens": 30,
               "cached": True},
              {"stage": "score", "messages": [], "raw": "r", "model": "openai:gpt-4o", "input_tokens": 60,
               "output_tokens": 9},
              {"stage": "score", "messages": [], "raw": "r", "model": "x", "reused": True},
              {"stage": "score", "messages": [], "raw": "r", "planned": True}],
}  # fmt: skip
"""A judgment with every field measuring reads, and some it does not."""
FACET = {"name": True, "weight": True, "scores": True, "score_modes": True}
READ = {"id": True, "method": True, "status": True, "error": True, "verdict": True, "scores": True,
        "facets": {"__all__": FACET}, "consistent": True, "panel": True, "panel_vote": True, "usage": True,
        "orders": {"__all__": {"order": True, "verdict": True, "scores": True, "facets": {"__all__": FACET},
                               "score_modes": True}},
        "confidence": True, "confidence_estimator": True, "confidence_missing": True, "decided_by": True,
        "score_modes": True}  # fmt: skip
"""What measuring reads of a judgment."""


def test_packed_judgments_read_back_what_measuring_reads() -> None:
    whole = Judgment.model_validate(WHOLE)
    packed = SlimJudgments()
    packed.add(whole, line=7)
    packed.add(whole.model_copy(update={"id": "2", "status": "error", "error": "boom", "verdict": None}))
    kept = packed[0]
    dropped = {"ranks", "explanation", "input_hash", "trace"}
    assert kept.model_dump(include=READ) == whole.model_dump(include=READ)
    assert kept.model_dump_json(include=READ) == whole.model_dump_json(include=READ)  # -0.0 keeps its sign
    assert not kept.trace and kept.ranks is None and kept.explanation is None and kept.input_hash is None
    assert kept.facets[0].explanation is None and kept.orders[0].explanation is None
    assert not dropped & set(READ)
    assert [j.id for j in packed] == ["1", "2"] and list(packed.ids()) == ["1", "2"]
    assert (packed[1].status, packed[1].error, packed[-1].id) == ("error", "boom", "2")
    assert packed.facts_at(0) == trace_facts(whole, 7)
    assert packed.facts_at(0).made == Usage(calls=1, input_tokens=60, output_tokens=9)
    assert packed.facts_at(0).models == {"openai:gpt-4o", "x"}
    assert [j.id for j in packed.take([1, 0, 1])] == ["2", "1", "2"]


def test_packed_items_are_laid_out_as_pydantic_builds_them() -> None:
    """Packed items are built without `model_construct`: the same fields, in the model's order."""
    packed = SlimJudgments()
    packed.add(Judgment.model_validate(WHOLE))
    kept = packed[0]
    instances = SlimInstances.of([Instance(id="a", query="q", candidates=["x"], label=1)])
    for model in (kept, kept.facets[0], kept.orders[0], kept.orders[0].facets[0], kept.usage, instances[0]):
        built = type(model).model_construct(model.model_fields_set, **model.__dict__)
        assert list(model.__dict__) == list(type(model).model_fields)
        assert model == built and model.model_dump_json() == built.model_dump_json()
        assert model.model_fields_set == built.model_fields_set and model.model_extra is None


def test_packed_instances_keep_values_marshal_cannot() -> None:
    when = datetime(2026, 11, 26, tzinfo=UTC)
    instances = [
        Instance(id="a", query="q", candidates=["xyz", "w"], label=2, metadata={"at": when, "n": [1, 2.5]}),
        Instance(id="b", query="q", candidates=["", "long" * 9], scores={"x": 4.5}, category="c",
                 systems=("s1", "s2")),
    ]  # fmt: skip
    packed = SlimInstances.of(instances)
    for kept, given in zip(packed, instances, strict=True):
        assert (kept.id, kept.label, kept.scores, kept.category, kept.metadata, kept.systems) == (
            given.id, given.label, given.scores, given.category, given.metadata, given.systems)  # fmt: skip
        assert [len(text) for text in kept.candidates] == [len(text) for text in given.candidates]
    assert packed[0].metadata["at"] is not when and packed[0].metadata["at"] == when
    assert [i.id for i in packed[::-1]] == ["b", "a"]
