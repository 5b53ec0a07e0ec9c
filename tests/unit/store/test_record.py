"""The run record: one schema for every command, written and read back, old records included."""

from __future__ import annotations

import functools
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from faceteval.core import Instance, JudgeResult, Judgment, Usage
from faceteval.errors import FacetevalError, InputError
from faceteval.results import compute_result
from faceteval.store import (
    RECORD_SCHEMA,
    RUN_RECORDS,
    BridgeRunRecord,
    BridgeRunSummary,
    CorrectionGain,
    CorrectRecord,
    CorrectSummary,
    Demonstration,
    FileEntry,
    GeneratedSet,
    GenerationFailure,
    GenerationRecord,
    GenerationSummary,
    InputFile,
    JudgeRecord,
    JudgeSummary,
    LLMRecord,
    MetaEvalRecord,
    MetaEvalSummary,
    MethodRecord,
    RunRecord,
    SpendRecord,
    TrainRecord,
    TrainSummary,
    read_record,
    read_run,
)
from faceteval.store.internal import header
from faceteval.workflows.coeval._records import GENERATION
from faceteval.workflows.hdeval._records import EVALUATOR

OLD = Path(__file__).parents[2] / "fixtures" / "records" / "v1"
THREE = ("A", "B", "C")
PAIRS = [
    Instance(id=str(k), query="q", candidates=["x", "y"], systems=[THREE[k % 3], THREE[(k + 1) % 3]])
    for k in range(9)
]


@functools.cache
def result() -> JudgeResult:
    """A result with every part: systems, positions, a matrix and a Bradley-Terry ranking (computed once,
    when a test first asks)."""
    return compute_result(
        [
            Judgment(id=p.id, method="dna", status="ok", verdict=1 + k % 2, scores=[4, 6])
            for k, p in enumerate(PAIRS)
        ],
        PAIRS,
    )


LLM = LLMRecord(model="openai:judge", identity="openai@http://x/v1", config={"temperature": 0.0})
SPEND = SpendRecord(calls=3, cached=1, input_tokens=10, output_tokens=2, cost_usd=None, seconds=0.5)


def common(command: str) -> dict[str, object]:
    return header(command, datetime(2025, 1, 2, tzinfo=UTC)) | {
        "llm": LLM,
        "spend": SPEND,
        "prompts": {"dna/score": "ab" * 32},
        "written": {"o.jsonl": FileEntry(lines=2, sha256="cd" * 32)},
    }


COMMANDS = ("judge", "correct", "bridge", "meta-eval", "hdeval train", "criteria generate")
"""The command of each record of `records`, in order."""


@functools.cache
def records() -> list[RunRecord]:
    """A record of every command, each with every part of its summary."""
    return [_judge_record(), *_other_records()]


def _judge_record() -> JudgeRecord:
    return JudgeRecord(
        **common("judge"),
        inputs={"input": InputFile(path="p.jsonl", absolute="/w/p.jsonl", sha256="ef" * 32)},
        output="o.jsonl",
        method=MethodRecord(name="dna", params={"aspects": 3, "scale": [1.0, 10.0]}),
        options={"swap": True, "strict": False, "trace": True},
        summary=JudgeSummary(
            judgments={"ok": 9}, reused=1, orders_agreed=2, start_seconds=0.1, result=result()
        ),
    )


def _other_records() -> list[RunRecord]:
    return [
        CorrectRecord(
            **common("correct"),
            inputs={"judgments": InputFile(path="j.jsonl"), "input": InputFile(path="p.jsonl")},
            options={"threshold": 3.0, "rejudge": True, "trace": True},
            summary=CorrectSummary(
                judgments=2,
                responses=4,
                kept=3,
                corrected=1,
                rejudged={"ok": 1},
                improvement=CorrectionGain(responses=1, before=1.0, after=4.0, gain=3.0, wins=1),
            ),
        ),
        BridgeRunRecord(
            **common("bridge"),
            options={"benchmark": "pandalm", "judge": "recorded:pandalm-7b", "limit": None},
            summary=BridgeRunSummary(
                sources=2, records=2, kept=1, usage=Usage(calls=4), files={"sft": "p.jsonl"}
            ),
        ),
        MetaEvalRecord(
            **common("meta-eval"),
            method=MethodRecord(name="direct", params={}),
            options={"swap": False},
            summary=MetaEvalSummary(
                benchmark="b",
                kind="pairwise",
                reference=None,
                judge="direct (openai:judge)",
                n=2,
                agreement={"value": 0.5, "n": 2, "ci": [0.0, 1.0]},
                variant={"aspects": None, "seed": None},
            ),
        ),
        TrainRecord(
            **common("hdeval train"),
            options={"layers": 1},
            summary=TrainSummary(targets=["t"], features=["a"], background=[3.0], aggregator="lr"),
        ),
        GenerationRecord(
            **common("criteria generate"),
            summary=GenerationSummary(
                task="Explain.",
                example=Demonstration(input="x", output="y"),
                temperature=0.7,
                samples=1,
                sets=[GeneratedSet(index=0, temperature=0.0, status="ok", file="criteria.yaml", criteria=2)],
                failures=[GenerationFailure(index=1, status="parse_error", error="no list", replies=["no"])],
            ),
        ),
    ]


def test_the_records_are_of_the_commands_named() -> None:
    assert tuple(record.command for record in records()) == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_commands_record_round_trips_through_its_file(command: str, tmp_path: Path) -> None:
    record = records()[COMMANDS.index(command)]
    path = tmp_path / "r.run.json"
    path.write_text(record.to_json(), encoding="utf-8")
    assert read_record(path, type(record)) == record
    assert RUN_RECORDS.validate_json(path.read_bytes()) == record  # told apart by its command
    data = json.loads(path.read_text())
    assert (data["schema_version"], data["command"]) == (RECORD_SCHEMA, record.command)
    assert list(data)[:3] == ["schema_version", "faceteval_version", "command"]


def test_a_summary_is_written_as_it_was_given() -> None:
    record = MetaEvalRecord(summary=MetaEvalSummary(benchmark="b", reference=None))
    assert json.loads(record.to_json())["summary"] == {"benchmark": "b", "reference": None}
    with pytest.raises(ValueError, match=r"Out of range float values are not JSON compliant"):
        JudgeRecord(summary=JudgeSummary(start_seconds=0.1)).model_copy(
            update={"spend": SpendRecord.model_construct(cost_usd=float("nan"))}
        ).to_json()


def test_another_commands_record_a_newer_one_and_a_wrong_field_are_named(tmp_path: Path) -> None:
    path = tmp_path / "r.run.json"
    path.write_text(records()[0].to_json(), encoding="utf-8")
    with pytest.raises(InputError, match=r"field 'command': a run record of 'judge', not of 'correct'"):
        read_record(path, CorrectRecord)
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data | {"schema_version": RECORD_SCHEMA + 1}), encoding="utf-8")
    with pytest.raises(InputError, match=rf"written by a newer faceteval \(schema {RECORD_SCHEMA + 1}\)"):
        read_record(path, JudgeRecord)
    data["summary"]["reused"] = "many"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=rf"{path}: field 'summary.reused': Input should be a valid integer"):
        read_record(path, JudgeRecord)
    data["summary"]["reused"] = 1
    path.write_text(json.dumps(data | {"colour": "red"}), encoding="utf-8")
    with pytest.raises(InputError, match="field 'colour': Extra inputs are not permitted"):
        read_record(path, JudgeRecord)
    path.write_text("[1]", encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON object, got list"):
        read_record(path, JudgeRecord)
    with pytest.raises(FacetevalError, match=r"missing\.run\.json: cannot read: No such file"):
        read_record(tmp_path / "missing.run.json", JudgeRecord)


def test_a_judge_records_result_is_written_whole_and_read_back_as_its_model(tmp_path: Path) -> None:
    assert result().pairwise is not None and result().pairwise.ranking is not None
    path = tmp_path / "j.run.json"
    path.write_text(records()[0].to_json(), encoding="utf-8")
    stored = json.loads(path.read_text())["summary"]["result"]
    assert stored["schema_version"] == 1 and stored["level"] == 0.95  # named in the file, not left out
    record = read_run(path)
    assert isinstance(record.summary.result, JudgeResult) and record.summary.result == result()
    assert read_run(tmp_path / "j.jsonl") == record  # by its judgments file, the record beside it


def test_a_result_not_of_its_model_is_named_by_its_field(tmp_path: Path) -> None:
    path = tmp_path / "j.run.json"
    data = json.loads(records()[0].to_json())
    data["summary"]["result"]["pairwise"]["systems"][0]["wins"] = "many"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"j\.run\.json: field 'summary\.result\.pairwise\.systems\.0\.wins'"
    ):
        read_run(path)


def test_judgments_without_a_record_beside_them_are_named(tmp_path: Path) -> None:
    (tmp_path / "j.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"j\.jsonl: no run record beside it \(j\.run\.json\)"):
        read_run(tmp_path / "j.jsonl")
    with pytest.raises(InputError, match=r"missing\.run\.json: cannot"):
        read_run(tmp_path / "missing.jsonl")


# -- records of schema 1, and unversioned ones, as the faceteval before this schema wrote them ----------


def test_an_old_judge_record_moves_its_input_and_llm_use() -> None:
    old = json.loads((OLD / "judge" / "j.run.json").read_text())
    record = read_record(OLD / "judge" / "j.run.json", JudgeRecord)
    assert (record.schema_version, record.command, record.argv) == (1, "judge", old["command"])
    assert record.inputs["input"] == InputFile(
        path=old["input"], absolute=old["input_path"], sha256=old["input_sha256"]
    )
    assert record.output == "j.jsonl" and record.method == MethodRecord.model_validate(old["method"])
    assert record.llm is not None
    assert record.llm.model_dump() == {**old["llm"], "rpm": None, "tpm": None, "structured_fallback": None}
    assert record.options == old["options"] and record.prompts == old["prompts"]
    spend = {key: old["summary"][key] for key in SpendRecord.model_fields if key in old["summary"]}
    assert record.spend == SpendRecord(**spend)
    assert record.summary == JudgeSummary(
        judgments={"ok": 4}, reused=0, invalid_input=0, orders_agreed=4, orders_disagreed=0,
        start_seconds=old["summary"]["start_seconds"],
    )  # fmt: skip
    assert record.written["j.jsonl"].lines == 4
    assert read_run(OLD / "judge" / "j.jsonl") == record and record.summary.result is None  # none recorded


def test_an_old_correct_record_moves_its_inputs_and_gain() -> None:
    old = json.loads((OLD / "correct" / "corrected.run.json").read_text())
    record = read_record(OLD / "correct" / "corrected.run.json", CorrectRecord)
    assert {role: given.path for role, given in record.inputs.items()} == {
        "judgments": old["judgments"],
        "input": old["input"],
    }
    assert record.llm is not None and record.llm.model == old["model"]
    assert record.options["threshold"] == old["threshold"]
    assert record.summary.improvement == CorrectionGain.model_validate(old["improvement"])
    assert (record.summary.corrected, record.summary.rejudged) == (3, {"ok": 3})
    assert record.spend is not None and record.spend.calls == old["summary"]["calls"]


@pytest.mark.parametrize("name", ["autoj-pairwise.run.json", "pandalm.run.json"])
def test_old_bridge_records_move_what_was_bridged_into_options(name: str) -> None:
    old = json.loads((OLD / "bridge" / name).read_text())
    record = read_record(OLD / "bridge" / name, BridgeRunRecord)
    assert record.options == {key: old[key] for key in ("benchmark", "judge", "limit")}
    assert record.summary.files == old["files"] and record.summary.sources == old.get("sources")
    assert record.summary.usage == Usage.model_validate(old["summary"]["usage"])
    assert (record.spend is None) == ("spent" not in old)
    if record.spend is not None:
        assert record.spend.model_dump(exclude={"cached_input_tokens"}) == old["spent"]


SUMMARIES = [
    "sweep/summary.json",
    "sweep/aspects-2/summary.json",
    "measured/summary.json",
    "pointwise/summary.json",
]


@pytest.mark.parametrize("name", [*SUMMARIES, "pointwise/summary.json"])
def test_old_meta_evaluation_summaries_keep_their_numbers_in_the_summary(name: str) -> None:
    old = json.loads((OLD / "meta-eval" / name).read_text())
    record = read_record(OLD / "meta-eval" / name, MetaEvalRecord)
    numbers = {k: v for k, v in old.items() if k not in ("schema_version", "method", "written")}
    assert record.summary.model_dump(exclude_unset=True) == numbers
    if "method" in old:
        assert record.method == MethodRecord(name=old["method"]["name"], params=old["method"]["params"])
        assert record.llm == LLMRecord(model=old["method"]["model"])
        assert record.options == {"swap": old["method"]["swap"]}
    else:
        assert record.method is None and record.llm is None
    assert {name: entry.model_dump() for name, entry in record.written.items()} == old.get("written", {})


def test_an_old_evaluator_file_is_a_training_record() -> None:
    old = json.loads((OLD / "hdeval" / "evaluator.json").read_text())
    record = read_record(OLD / "hdeval" / "evaluator.json", TrainRecord)
    assert (record.schema_version, record.faceteval_version) == (None, old["faceteval"])
    kept = {k: v for k, v in old.items() if k not in ("format", "version", "faceteval")}
    assert record.summary.model_dump(exclude_unset=True) == kept


def test_an_old_evaluator_file_of_another_format_or_a_newer_version_is_refused(tmp_path: Path) -> None:
    old = json.loads((OLD / "hdeval" / "evaluator.json").read_text())
    path = tmp_path / "evaluator.json"
    path.write_text(json.dumps(old | {"version": 2}))
    with pytest.raises(InputError, match="field 'version': evaluator format version 2"):
        read_record(path, TrainRecord)
    path.write_text(json.dumps(old | {"format": "other"}))
    with pytest.raises(InputError, match="field 'format': not an HD-Eval evaluator file"):
        read_record(path, TrainRecord)


def test_an_old_generation_summary_moves_its_model_and_template() -> None:
    old = json.loads((OLD / "criteria" / "generation.json").read_text())
    record = read_record(OLD / "criteria" / "generation.json", GenerationRecord)
    assert record.llm == LLMRecord(model=old["model"])
    assert record.prompts == {old["template"]["name"]: old["template"]["sha256"]}
    assert [s.model_dump() for s in record.summary.sets] == old["sets"]
    assert (record.summary.task, record.summary.samples) == (old["task"], old["samples"])


def test_a_commands_record_file_is_of_its_output_kind_in_either_shape(tmp_path: Path) -> None:
    """A file a command may replace: its record as written now, or in the shape written before it."""
    kinds = {
        "hdeval train": (EVALUATOR, "hdeval/evaluator.json"),
        "criteria generate": (GENERATION, "criteria/generation.json"),
    }
    for record in records():
        path = tmp_path / f"{record.command}.json"
        path.write_text(record.to_json(), encoding="utf-8")
        for command, (kind, old) in kinds.items():
            assert kind.holds(path) == (record.command == command), (record.command, kind.what)
            assert kind.holds(OLD / old)


def test_no_record_keeps_the_value_of_an_api_key_given_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    argv = ["faceteval", "judge", "in.jsonl", "--api-key", "sk-secret-1", "--api-key=sk-secret-2", "--swap"]
    monkeypatch.setattr(sys, "argv", argv)
    record = JudgeRecord(**header("judge", datetime.now(UTC)))
    path = tmp_path / "j.run.json"
    path.write_text(record.to_json(), encoding="utf-8")

    text = path.read_text(encoding="utf-8")
    assert "sk-secret" not in text
    assert read_record(path, JudgeRecord).argv == [
        "faceteval",
        "judge",
        "in.jsonl",
        "--api-key",
        "***",
        "--api-key=***",
        "--swap",
    ]
