"""``--batch openai`` on every command that calls an LLM besides judge (meta-eval --method, hdeval
train/apply, criteria generate, correct, bridge): through the local files + batches server, each writes
what its synchronous run writes, every call sent once, all through batches; its run record (each of
its judge runs' for hdeval) counts the batches and half the synchronous run's cost. With a request the
server refuses every time, each ends with status 5 and one line, having written what it can."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support import batch_judging
from tests.support.batch_judging import judgments_in
from tests.support.batch_server import OpenAIBatches
from tests.support.bridge_judge import BridgeJudge
from tests.support.fennec_judge import FennecJudge
from tests.support.hdeval_judge import quality
from tests.support.hdeval_judge import responder as hdeval_responder
from tests.support.llm_server import LLMServer, Status
from tests.support.rule_judge import RuleJudge


def outputs(n: int, prefix: str) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        text = f"{prefix} output {i}"
        flow, grammar = quality(text, "logical flow"), quality(text, "grammar")
        scores = {"coherence": flow + 0.1 * (i % 3), "fluency": grammar - 0.1 * (i % 2)}
        rows.append({"id": f"{prefix}{i}", "query": f"Summarise article {i // 4}.", "candidates": [text],
                     "task": "Summarize a news article.", "scores": scores})  # fmt: skip
    return rows


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


TIMING = batch_judging.TIMING | {"seconds", "started_at", "finished_at"}
"""What differs between a run and the same run again: how replies came, and when (records too)."""
"""What says how and when replies came, not what they were (see test_batch_cli)."""


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


class Served:
    """A local server with the batch endpoints, and the two runs of a command: synchronous, then batched."""

    def __init__(self, responder: Callable[[Mapping[str, Any]], Any], tmp_path: Path) -> None:
        self.server = LLMServer(responder)
        self.batches = OpenAIBatches(self.server, polls_in_progress=1)
        self.tmp_path = tmp_path
        self.quiet = True

    def engine(self, name: str, *, batch: bool) -> list[str]:
        prices = self.tmp_path / "prices.yaml"
        prices.write_text("openai:judge: {input: 2, output: 8}\n", encoding="utf-8")
        flags = ["--model", "openai:judge", "--base-url", self.server.base_url, "--prices", str(prices)]
        flags += ["-q"] if self.quiet else []
        flags += ["--cache", str(self.tmp_path / f"{name}.sqlite")]
        return flags + (["--batch", "openai", "--batch-poll", "0"] if batch else [])

    def both(self, command: Callable[[str, list[str]], list[str | Path]]) -> tuple[int, Result]:
        """``command(name, engine flags)`` run synchronously (``sync``), then with --batch (``batch``):
        the synchronous run's calls, and the batch run's result, checked to have sent them all, once
        each, through batches."""
        base = self.server.request_count
        synchronous = invoke(*command("sync", self.engine("sync", batch=False)))
        assert synchronous.exit_code == 0, synchronous.output
        calls = self.server.request_count - base
        batched = invoke(*command("batch", self.engine("batch", batch=True)))
        assert batched.exit_code == 0, batched.output
        sent = [line["custom_id"] for b in self.batches.created for line in self.batches.input_lines(b["id"])]
        assert len(sent) == len(set(sent)) == calls  # each call once, by batch ...
        assert self.server.request_count - base == 2 * calls  # ... and none made one by one
        assert "requests to submit" in batched.output  # each round told
        return calls, batched


@pytest.fixture
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    made = Served(request.param, tmp_path)
    with made.server:
        yield made


def record_of(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return record


def halved(synchronous: Path, batched: Path, calls: int | None = None) -> None:
    """The batch run's record counts its batches: how they went, their tokens, and the synchronous run's
    cost at half the price (the last pass, all cache hits, adds nothing)."""
    plain, record = record_of(synchronous), record_of(batched)
    assert plain["batch"] is None
    assert record["batch"]["provider"] == "openai" and record["batch"]["rounds"] >= 1
    if calls is not None:
        assert record["batch"]["requests"] == calls
    assert record["spend"]["calls"] == 0
    assert record["spend"]["cached"] == plain["spend"]["calls"] + plain["spend"]["cached"]
    assert record["spend"]["input_tokens"] == plain["spend"]["input_tokens"] > 0
    assert record["spend"]["output_tokens"] == plain["spend"]["output_tokens"]
    assert record["spend"]["cost_usd"] == pytest.approx(plain["spend"]["cost_usd"] / 2)


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, terminal_width=200)


def jsonl(path: Path) -> list[Any]:
    return judgments_in(path, ignoring=TIMING)


def pairs(tmp_path: Path) -> Path:
    rows = [{"id": str(k), "query": f"Q{k}", "candidates": [f"good {k}", f"poor {k}"]} for k in range(6)]
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


FENNEC = FennecJudge(quality={f"{q} {k}": v for k in range(6) for q, v in (("good", 5), ("poor", 2))})


@pytest.mark.parametrize("served", [FENNEC.for_server()], indirect=True)
def test_correct(served: Served, tmp_path: Path) -> None:
    judged = tmp_path / "j.jsonl"
    engine = served.engine("j", batch=False)
    done = invoke("judge", pairs(tmp_path), "--method", "fennec", "--out", judged, *engine)
    assert done.exit_code == 0, done.output

    def correct(name: str, engine: list[str]) -> list[str | Path]:
        return ["correct", judged, "--threshold", "3", "--out", tmp_path / f"{name}.jsonl", *engine]

    calls, _ = served.both(correct)
    assert calls > 0 and jsonl(tmp_path / "batch.jsonl") == jsonl(tmp_path / "sync.jsonl")
    halved(tmp_path / "sync.run.json", tmp_path / "batch.run.json", calls)


RULE = RuleJudge(quality={"good": 8, "poor": 3}, record=False)


@pytest.mark.parametrize("served", [RULE.for_server()], indirect=True)
def test_meta_eval_of_a_method(served: Served, tmp_path: Path, data_dir: Path) -> None:
    row = {"instruction": "Question?", "output_1": "good", "output_2": "poor", "winner": "A"}
    rows = [row | {"qid": f"p{i}", "instruction": f"Question {i}?"} for i in range(6)]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    def meta_eval(name: str, engine: list[str]) -> list[str | Path]:
        out = tmp_path / name
        return ["meta-eval", labels, "--method", "dna", "--swap", "--field", "id=qid", "--out", out, *engine,
                "--data-dir", data_dir]  # fmt: skip

    calls, _ = served.both(meta_eval)
    assert jsonl(tmp_path / "batch" / "judgments.jsonl") == jsonl(tmp_path / "sync" / "judgments.jsonl")
    read = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("sync", "batch")]
    summaries = [record["summary"] for record in read]
    assert summaries[0]["agreement"] == summaries[1]["agreement"]
    assert read[0]["batch"] is None and read[1]["batch"]["requests"] == calls
    assert read[1]["spend"]["input_tokens"] == read[0]["spend"]["input_tokens"]  # the batches' tokens
    assert read[1]["spend"]["cost_usd"] == pytest.approx(read[0]["spend"]["cost_usd"] / 2)


def criteria_reply(body: Mapping[str, Any]) -> str:
    if body["temperature"] == 0:
        return "1. Simplicity: Simple words.\n2. Accuracy: Correct facts."
    return "1. Plain language: Words a child knows.\n2. Correctness: True."


@pytest.mark.parametrize("served", [criteria_reply], indirect=True)
def test_criteria_generate(served: Served, tmp_path: Path) -> None:
    def generate(name: str, engine: list[str]) -> list[str | Path]:
        return ["criteria", "generate", "--task", "Explain to a child.", "--example-input", "Why rain?",
                "--example-output", "Clouds get heavy.", "--samples", "2", "--temperature", "0.7",
                "--out", tmp_path / name, *engine]  # fmt: skip

    served.quiet = False  # (it has no progress bar)
    calls, _ = served.both(generate)
    halved(tmp_path / "sync" / "generation.json", tmp_path / "batch" / "generation.json", calls)
    for path in ("criteria.yaml", "samples/sample-01.yaml", "samples/sample-02.yaml"):
        assert (tmp_path / "batch" / path).read_text() == (tmp_path / "sync" / path).read_text()


BRIDGE = BridgeJudge()


@pytest.mark.parametrize("served", [BRIDGE.for_server()], indirect=True)
def test_bridge(served: Served, tmp_path: Path, data_dir: Path) -> None:
    def bridge(name: str, engine: list[str]) -> list[str | Path]:
        return ["bridge", "autoj-pairwise", "--limit", "3", "--data-dir", data_dir, "--out", tmp_path / name,
                *engine]  # fmt: skip

    calls, _ = served.both(bridge)
    record = "autoj-pairwise.run.json"
    halved(tmp_path / "sync" / record, tmp_path / "batch" / record, calls)
    written = sorted(p.name for p in (tmp_path / "sync").glob("*.jsonl"))
    assert written
    for name in written:
        assert jsonl(tmp_path / "batch" / name) == jsonl(tmp_path / "sync" / name)


@pytest.mark.parametrize("served", [hdeval_responder], indirect=True)
def test_hdeval_train_then_apply(served: Served, tmp_path: Path) -> None:
    labelled = write(tmp_path / "labelled.jsonl", outputs(48, "a"))
    fresh = write(tmp_path / "fresh.jsonl", outputs(8, "b"))

    def train(name: str, engine: list[str]) -> list[str | Path]:
        return ["hdeval", "train", labelled, "--target", "coherence,fluency", "--layers", "3", "--children",
                "2", "--expand", "1", "--aggregator", "lr", "--resamples", "100", "--out", tmp_path / name,
                *engine]  # fmt: skip

    served.both(train)
    trees = [json.loads((tmp_path / n / "summary.json").read_text())["tree"] for n in ("sync", "batch")]
    assert trees[0] == trees[1]
    layers = sorted(p.name for p in (tmp_path / "sync" / "judgments").glob("*.run.json"))
    assert len(layers) == 3
    for name in layers:  # each layer's criteria scored through run_judge, which records its batches
        halved(tmp_path / "sync" / "judgments" / name, tmp_path / "batch" / "judgments" / name)

    def apply(name: str, engine: list[str]) -> list[str | Path]:
        return ["hdeval", "apply", tmp_path / name.replace("-apply", ""), fresh, "--out",
                tmp_path / f"{name}.jsonl", *engine]  # fmt: skip

    served.batches.created.clear()
    served.batches.batches.clear()
    applied, _ = served.both(lambda name, engine: apply(f"{name}-apply", engine))
    assert jsonl(tmp_path / "batch-apply.jsonl") == jsonl(tmp_path / "sync-apply.jsonl")
    judged = [tmp_path / f"{name}-apply.criteria" / "judgments.run.json" for name in ("sync", "batch")]
    halved(*judged, calls=applied)


def refusing(respond: Callable[[Mapping[str, Any]], Any], needle: str) -> Callable[[Mapping[str, Any]], Any]:
    """``respond``, but a request with ``needle`` in a message is refused (400) every time it is asked."""

    def answer(body: Mapping[str, Any]) -> Any:
        if any(needle in str(message.get("content")) for message in body["messages"]):
            return Status(400)
        return respond(body)

    return answer


def given_up(done: Result) -> None:
    """The command ended as a batch run with requests no batch answered ends: status 5, one line saying so,
    no traceback."""
    assert done.exit_code == 5, done.output
    errors = [line for line in done.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in done.output, done.output
    assert "test server says HTTP 400" in errors[0] and "run the same command again" in errors[0], errors[0]


def failures_in(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if "BatchUnanswered" in line]


@pytest.mark.parametrize("served", [FENNEC.for_server()], indirect=True)
def test_the_other_commands_write_what_they_can_when_requests_are_given_up(
    served: Served, tmp_path: Path, data_dir: Path
) -> None:
    """correct, bridge and criteria generate write their outputs, the refused requests' work failed with
    the batch's reason; each exits 5 with one line."""
    judged = tmp_path / "j.jsonl"
    done = invoke(
        "judge", pairs(tmp_path), "--method", "fennec", "--out", judged, *served.engine("j", batch=False)
    )
    assert done.exit_code == 0, done.output
    served.server.responder = refusing(FENNEC.for_server(), "poor 2")
    out = tmp_path / "corrected.jsonl"
    done = invoke("correct", judged, "--threshold", "3", "--out", out, *served.engine("c", batch=True))
    given_up(done)
    assert len(failures_in(out)) == 1 and len(out.read_text().splitlines()) == 12  # every response
    assert record_of(tmp_path / "corrected.run.json")["batch"]["unanswered"] == 1

    served.server.responder = refusing(BRIDGE.for_server(), "")  # every request
    done = invoke("bridge", "autoj-pairwise", "--limit", "3", "--data-dir", data_dir, "--out",
                  tmp_path / "bridged", *served.engine("b", batch=True))  # fmt: skip
    given_up(done)
    assert len(failures_in(tmp_path / "bridged" / "autoj-pairwise.jsonl")) == 6

    served.server.responder = refusing(criteria_reply, "Why rain")
    served.quiet = False  # (it has no progress bar)
    done = invoke("criteria", "generate", "--task", "Explain to a child.", "--example-input", "Why rain?",
                  "--example-output", "Clouds get heavy.", "--samples", "2", "--temperature", "0.7",
                  "--out", tmp_path / "criteria", *served.engine("g", batch=True))  # fmt: skip
    given_up(done)
    generation = record_of(tmp_path / "criteria" / "generation.json")
    assert generation["batch"]["unanswered"] == 3


@pytest.mark.parametrize("served", [hdeval_responder], indirect=True)
def test_hdeval_stops_or_writes_what_it_can_when_requests_are_given_up(
    served: Served, tmp_path: Path
) -> None:
    """train stops at the layer whose judging lost requests (its judgments written): an evaluator learned
    without them is not the one asked for; apply writes the scores, the output that lost one failed;
    decompose, which needs every reply, stops. Each exits 5 with one line."""
    labelled = write(tmp_path / "labelled.jsonl", outputs(48, "a"))
    train = ["hdeval", "train", labelled, "--target", "coherence,fluency", "--layers", "2", "--children", "2",
             "--expand", "1", "--aggregator", "lr", "--resamples", "100"]  # fmt: skip
    served.server.responder = refusing(hdeval_responder, "a output 3")
    done = invoke(*train, "--out", tmp_path / "stopped", *served.engine("t", batch=True))
    given_up(done)
    assert failures_in(tmp_path / "stopped" / "judgments" / "layer-1.jsonl")
    assert not (tmp_path / "stopped" / "evaluator.json").exists()

    served.server.responder = hdeval_responder
    done = invoke(*train, "--out", tmp_path / "trained", *served.engine("a", batch=True))
    assert done.exit_code == 0, done.output
    served.server.responder = refusing(hdeval_responder, "b output 3")
    fresh = write(tmp_path / "fresh.jsonl", outputs(8, "b"))
    scored = tmp_path / "scored.jsonl"
    done = invoke(
        "hdeval", "apply", tmp_path / "trained", fresh, "--out", scored, *served.engine("a", batch=True)
    )
    given_up(done)
    rows = [json.loads(line) for line in scored.read_text(encoding="utf-8").splitlines()]
    assert [row["status"] for row in rows].count("failed") == 1 and len(rows) == 8

    served.server.responder = refusing(hdeval_responder, "")
    tree = tmp_path / "tree.yaml"
    done = invoke("hdeval", "decompose", "--task", "Summarize a news article.", "--criteria", "coherence",
                  "--children", "2", "--out", tree, *served.engine("d", batch=True))  # fmt: skip
    given_up(done)
    assert not tree.exists()
