"""`JudgeJob`: the command line and Python build the same job, and every flag of ``judge`` lands in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval import (
    BatchMode,
    DnA,
    FileInstances,
    JobOutputs,
    JudgeJob,
    JudgeOptions,
    JudgeSpec,
    SyncMode,
    Templates,
)
from faceteval._cli._judge import job_from_cli, judge
from faceteval.datasets import Reading
from faceteval.llm import GenerateConfig, RetryPolicy
from faceteval.methods.fennec import Fennec
from faceteval.results import CalibratedThreshold, CalibrationData, JudgeIdentity

MINE = "### user\n{{ query }} {{ candidates }} {{ labels }} {{ aspect }} {{ scale }} {{ reference }}\n"


@pytest.fixture(autouse=True)
def _no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No faceteval.toml, no model or cache from the environment."""
    monkeypatch.chdir(tmp_path)
    for name in ("FACETEVAL_MODEL", "FACETEVAL_BASE_URL", "FACETEVAL_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def test_a_dna_run_with_swap_is_the_same_job_from_the_command_line_and_from_python(tmp_path: Path) -> None:
    argv = ["pairs.jsonl", "--method", "dna", "--swap", "--model", "openai:gpt-4o-mini", "--out", "j.jsonl"]
    python = JudgeJob(
        FileInstances(Path("pairs.jsonl")),
        DnA(),
        JudgeSpec("openai:gpt-4o-mini"),
        options=JudgeOptions(swap=True),
        outputs=JobOutputs(out=Path("j.jsonl"), cache=tmp_path / "xdg" / "faceteval" / "responses.sqlite"),
    )
    assert job_from_cli(argv) == python


def test_every_part_of_a_job_is_the_same_from_the_command_line_and_from_python(tmp_path: Path) -> None:
    (tmp_path / "mine" / "dna").mkdir(parents=True)
    (tmp_path / "mine" / "dna" / "score.j2").write_text(MINE, encoding="utf-8")
    argv = [
        *("in.csv", "--method", "fennec", "--criteria-count", "4", "--strict", "--order", "finish"),
        *("--field", "query=prompt", "--field", "candidates=a,b", "--systems", "base,tuned"),
        *("--model", "openai:m@http://127.0.0.1:9/v1", "--model", "openai:n@http://127.0.0.1:8/v1"),
        *("--panel-vote", "mean"),
        *("--endpoint-id", "lab", "--prefix-cache", "--api-key", "k", "--templates", str(tmp_path / "mine")),
        *("--concurrency", "3", "--timeout", "7", "--retries", "2", "--max-retry-after", "9"),
        *("--max-reply-bytes", "1000", "--temperature", "0.5", "--max-tokens", "99", "--seed", "4"),
        *("--rpm", "30", "--tpm", "50000"),
        *(
            "--cache",
            "c.sqlite",
            "--retry-unreadable",
            "--no-trace",
            "--quiet",
            "--force",
            "--out",
            "o.jsonl",
        ),
    ]
    python = JudgeJob(
        FileInstances(
            Path("in.csv"),
            Reading(fields={"query": "prompt", "candidates": ["a", "b"]}),
            systems=("base", "tuned"),
        ),
        Fennec(criteria_count=4),
        JudgeSpec(
            "openai:m",
            base_url="http://127.0.0.1:9/v1",
            api_key="k",
            endpoint_id="lab",
            config=GenerateConfig(temperature=0.5, max_tokens=99, seed=4),
            concurrency=3,
            timeout=7.0,
            retry=RetryPolicy(max_retries=2, max_retry_after=9.0),
            retry_unreadable=True,
            max_reply_bytes=1000,
            panel=(("openai:m", "http://127.0.0.1:9/v1"), ("openai:n", "http://127.0.0.1:8/v1")),
            panel_vote="mean",
            rpm=30,
            tpm=50_000,
        ),
        options=JudgeOptions(
            order="finish",
            strict=True,
            trace=False,
            prefix_cache=True,
            templates=Templates.from_dir(tmp_path / "mine"),
        ),
        outputs=JobOutputs(out=Path("o.jsonl"), force=True, cache=Path("c.sqlite"), progress=False),
    )
    assert job_from_cli(argv) == python


def test_a_batch_run_is_the_same_job_from_the_command_line_and_from_python() -> None:
    argv = [
        *("pairs.jsonl", "--model", "openai:m", "--cache", "c.sqlite", "--batch", "files"),
        *("--batch-dir", "rounds", "--batch-poll", "2", "--batch-window", "10"),
    ]
    python = JudgeJob(
        FileInstances(Path("pairs.jsonl")),
        DnA(),
        JudgeSpec("openai:m"),
        outputs=JobOutputs(cache=Path("c.sqlite")),
        mode=BatchMode(api="files", poll=2.0, directory=Path("rounds"), window=10),
    )
    assert job_from_cli(argv) == python
    assert job_from_cli(argv[:5]).mode == SyncMode()


CALIBRATION = CalibratedThreshold(
    threshold=0.5,
    target_agreement=0.9,
    delta=0.1,
    judge=JudgeIdentity(model="openai:m", method="dna", estimator="signals"),
    data=CalibrationData(source="runs/x.jsonl", sha256="0" * 64, n=10),
    kept=5,
)
BASE = ["pairs.jsonl", "--model", "openai:m", "--cache", "c.sqlite"]
FLAGS: dict[str, list[str]] = {
    "method": ["--method", "cot"],
    "out": ["--out", "o.jsonl"],
    "force": ["--force"],
    "aspects": ["--aspects", "5"],
    "aggregate": ["--aggregate", "mean"],
    "criteria_count": ["--method", "fennec", "--criteria-count", "3"],
    "single": ["--method", "fennec", "--single"],
    "method_args": ["-M", "aspects=4"],
    "order": ["--order", "finish"],
    "strict": ["--strict"],
    "limit": ["--limit", "3"],
    "sample": ["--sample", "3"],
    "fields": ["--field", "query=prompt"],
    "label_map": ["--field", "label=winner", "--label-map", "a=0,b=1"],
    "preset": ["--preset", "alpacaeval"],
    "input_format": ["--format", "csv"],
    "hf_dataset": ["--hf-dataset", "./arena"],
    "split": ["--hf-dataset", "./arena", "--split", "test"],
    "systems": ["--systems", "a,b"],
    "id_fields": ["--id", "doc,system"],
    "system_by": ["--system-by", "model"],
    "group_by": ["--group-by", "category"],
    "panel": ["--panel", "openai:a,openai:b"],
    "panel_vote": ["--panel", "openai:a,openai:b", "--panel-vote", "median"],
    "model": ["--model", "openai:other"],
    "base_url": ["--base-url", "http://127.0.0.1:9/v1"],
    "endpoint_id": ["--endpoint-id", "lab"],
    "prefix_cache": ["--prefix-cache"],
    "api_key": ["--api-key", "k"],
    "criteria_path": ["--criteria", "criteria.yaml"],
    "swap": ["--swap"],
    "templates": ["--templates", "mine"],
    "dry_run": ["--dry-run"],
    "concurrency": ["--concurrency", "2"],
    "timeout": ["--timeout", "3"],
    "retries": ["--retries", "1"],
    "max_retry_after": ["--max-retry-after", "5"],
    "max_reply_bytes": ["--max-reply-bytes", "99"],
    "rpm": ["--rpm", "60"],
    "tpm": ["--tpm", "90000"],
    "temperature": ["--temperature", "0.3"],
    "max_tokens": ["--max-tokens", "9"],
    "seed": ["--seed", "1"],
    "structured": ["--structured"],
    "cache_path": ["--cache", "other.sqlite"],
    "no_cache": ["--no-cache"],
    "retry_unreadable": ["--retry-unreadable"],
    "prices_path": ["--prices", "prices.yaml"],
    "trace": ["--no-trace"],
    "batch": ["--batch", "openai"],
    "batch_poll": ["--batch", "openai", "--batch-poll", "1"],
    "batch_dir": ["--batch", "files", "--batch-dir", "rounds"],
    "batch_endpoints": ["--batch", "ray", "--batch-endpoint", "http://127.0.0.1:9/v1"],
    "batch_window": ["--batch", "openai", "--batch-window", "3"],
    "quiet": ["--quiet"],
    "otel": ["--otel"],
    "score_mode": ["--score-mode", "logprobs"],
    "top_logprobs": ["--score-mode", "logprobs", "--top-logprobs", "3"],
    "calibration": ["--calibration", "cal.json"],
    "human_labels": ["--human-labels", "labels.jsonl"],
    "confidence": ["--confidence", "simulated-annotators"],
    "annotators": ["--confidence", "simulated-annotators", "--annotators", "5"],
    "shots": ["--confidence", "simulated-annotators", "--shots", "shots.jsonl"],
    "shots_per_annotator": ["--confidence", "simulated-annotators", "--shots-per-annotator", "1"],
}
NOT_THE_JOBS = {
    "input_path": "the job's input, given in BASE",
    "fail_under": "a check of the run's result once it is over, not of the run",
    "max_failures": "the command's exit status once the run is over, not the run",
    "cascade": "a cascade runs one job per judge (faceteval.cascade), each built from these flags",
    "calibration_set": "the cascade's, not one job's",
    "target_agreement": "the cascade's, not one job's",
    "delta": "the cascade's, not one job's",
}
"""The parameters of ``judge`` that are not one of the job's settings."""
NO_MODEL = [BASE[0], *BASE[3:]]
BEFORE: dict[str, list[str]] = {
    "criteria_count": ["--method", "fennec"],
    "single": ["--method", "fennec"],
    "panel_vote": ["--panel", "openai:a,openai:b"],
    "label_map": ["--field", "label=winner"],
    "batch_poll": ["--batch", "openai"],
    "batch_dir": ["--batch", "files", "--batch-dir", "other"],
    "batch_endpoints": ["--batch", "ray"],
    "batch_window": ["--batch", "openai"],
    "top_logprobs": ["--score-mode", "logprobs"],
    "annotators": ["--confidence", "simulated-annotators"],
    "shots": ["--confidence", "simulated-annotators"],
    "shots_per_annotator": ["--confidence", "simulated-annotators"],
}
"""For a flag given with the one it goes with, the job it is compared with (else BASE's)."""


def test_the_table_names_every_parameter_of_the_judge_command() -> None:
    names = {param.name for param in judge.params}
    assert names == set(FLAGS) | set(NOT_THE_JOBS)


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_every_flag_of_judge_lands_in_the_job(name: str, tmp_path: Path) -> None:
    (tmp_path / "mine" / "dna").mkdir(parents=True)
    (tmp_path / "mine" / "dna" / "score.j2").write_text(MINE, encoding="utf-8")
    (tmp_path / "criteria.yaml").write_text(
        "- name: clarity\n  description: Is it clear?\n", encoding="utf-8"
    )
    (tmp_path / "prices.yaml").write_text("openai:m: {input: 1.0, output: 2.0}\n", encoding="utf-8")
    (tmp_path / "cal.json").write_text(CALIBRATION.model_dump_json(), encoding="utf-8")
    (tmp_path / "labels.jsonl").write_text('{"id": "1", "label": 1}\n', encoding="utf-8")
    shot = '{{"id": "s{}", "query": "q{}", "candidates": ["a", "b"], "label": 1}}\n'
    (tmp_path / "shots.jsonl").write_text("".join(shot.format(i, i) for i in range(3)), encoding="utf-8")
    flags, base = FLAGS[name], BASE
    if name in ("panel", "panel_vote"):  # the judges in place of --model
        base = NO_MODEL
    elif name == "no_cache":
        base = BASE[:3]
    elif name in ("hf_dataset", "split"):  # in place of INPUT
        base = BASE[1:]
    typed = {"panel": BASE, "hf_dataset": ["./arena", *base], "split": [*base, "--hf-dataset", "./arena"]}
    before = typed.get(name) or ([*base, *BEFORE[name]] if name in BEFORE else base)
    assert job_from_cli([*base, *flags]) != job_from_cli(before)
