"""Recorded judgments measured slim (read line by line, without their traces) give the numbers and the
``judgments.jsonl`` that measuring them whole gave, on a real benchmark (MT-Bench's GPT-4 pairwise
verdicts, each given a long trace whose calls are partly cached and name the judge's model)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from faceteval._runner._metaeval import measure_source, measured_instances
from faceteval._runner._metaeval_runs import MetaEvalOptions
from faceteval.core import Instance
from faceteval.datasets import read_instances, read_judgments
from faceteval.metaeval import load_judgments, load_target, measure
from faceteval.metaeval.internal import INSTANCES, JUDGMENTS, SlimJudgments
from faceteval.report import load_run, render_html, render_markdown, write_report

PAD = "x" * 16_384


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def traced(line: str, k: int) -> str:
    """A judgment with three more trace entries: a call made, a cached one, one reused (the usage counts
    the judgment's own calls, so ``usage.made`` is computed); every 7th names no model."""
    record = json.loads(line)
    model = None if k % 7 == 0 else "gpt-4"
    entries = [
        {"stage": "pad", "messages": [{"role": "user", "content": PAD}], "raw": "1", "model": model,
         "input_tokens": 4000 + k, "output_tokens": 3, "cost_usd": 0.001 * (k % 5), "cached": cached,
         "reused": reused}
        for cached, reused in ((False, False), (True, False), (False, True))
    ]  # fmt: skip
    record["trace"] = [*record.get("trace", []), *entries]
    own = sum(not entry.get("reused", False) for entry in record["trace"])
    record["usage"] = {**record.get("usage", {}), "calls": own, "cost_usd": 0.002}
    return json.dumps(record)


def test_slim_measure_is_the_whole_measure(data_dir: Path, tmp_path: Path) -> None:
    target = load_target("mtbench-human", data_dir)
    options = MetaEvalOptions(resamples=20, report=False)
    instances = measured_instances(target, options)
    recorded = load_judgments("recorded:gpt4-pair", target, data_dir)
    path = tmp_path / "gpt4.jsonl"
    lines = [traced(judgment.model_dump_json(), k) for k, judgment in enumerate(recorded.judgments)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    whole = measure(
        tmp_path / "whole", target, instances, list(read_judgments(path)), judge=str(path),
        settings=options.settings, source=str(path),
    )  # fmt: skip
    source = load_judgments(str(path), target, data_dir)
    assert isinstance(source.judgments, SlimJudgments)
    assert all(not judgment.trace for judgment in source.judgments)
    slim = measure_source(target, instances, source, tmp_path / "slim", options)

    expected = whole.summary.model_dump(mode="json")
    assert slim.summary.model_dump(mode="json") == expected
    assert expected["usage"]["made"]["calls"] > 0
    written = (tmp_path / "slim" / JUDGMENTS).read_bytes()
    assert written == (tmp_path / "whole" / JUDGMENTS).read_bytes()
    assert b'"stage":"pad"' in written


def test_a_report_reads_one_reply_of_each_trace_and_says_what_the_whole_judgments_say(
    data_dir: Path, tmp_path: Path
) -> None:
    target = load_target("mtbench-human", data_dir)
    options = MetaEvalOptions(resamples=20, report=False)
    recorded = load_judgments("recorded:gpt4-pair", target, data_dir)
    path = tmp_path / "gpt4.jsonl"
    lines = [traced(judgment.model_dump_json(), k) for k, judgment in enumerate(recorded.judgments)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    measure_source(target, measured_instances(target, options), load_judgments(str(path), target, data_dir),
                   out, options)  # fmt: skip

    markdown, html = write_report(out)
    run = load_run(out)  # kept packed, without traces or texts: the examples shown are read again
    assert isinstance(run.judgments, SlimJudgments) and not any(j.trace for j in run.judgments)
    assert not any(instance.query for instance in run.instances)
    whole = tuple(read_judgments(out / JUDGMENTS))
    texts = tuple(i for i in read_instances(out / INSTANCES) if isinstance(i, Instance))
    assert texts[0].query and len(texts) == len(run.instances)
    assert markdown.read_text(encoding="utf-8") == render_markdown(run.summary, texts, whole)
    assert html.read_text(encoding="utf-8") == render_html(run.summary, texts, whole)
    shown = markdown.read_text(encoding="utf-8")
    assert "Judge's reply" in shown and any(i.query[:40] in shown for i in texts)
