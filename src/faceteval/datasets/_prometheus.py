"""Prometheus' benchmark files: the HHH-alignment pairs, and the MT-Bench / Vicuna-Bench rubric sets with
GPT-4's three recorded 1-5 scores per output (no human labels).

Query, response and rubric are parsed out of Prometheus' grading prompts; the folder's ``SOURCE.md``
describes the files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean

from faceteval._util.records import Record, json_records
from faceteval.core import Criterion, Instance, Judgment, TraceEntry
from faceteval.datasets._base import github_files
from faceteval.datasets._benchmark import Benchmark, RecordedSource, RemoteFile

_PROMETHEUS_LICENSE = "Apache-2.0 (repository)"
_PROMETHEUS_URL = "https://github.com/prometheus-eval/prometheus-eval"
_PROMPT = re.compile(
    r"###The instruction to evaluate:\n(?P<query>.*)\n\n###Response to evaluate:\n(?P<response>.*?)\n\n"
    r"(?:###Reference Answer \(Score 5\):\n(?P<reference>.*)\n\n)?"
    r"###Score Rubrics:\n\[(?P<rubric>.*?)\]\n(?P<guideline>Score 1: .*)\n\n###Feedback: ?\Z",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class _Prompt:
    """The parts of a Prometheus absolute-grading prompt."""

    query: str
    response: str
    reference: str | None
    criterion: Criterion


def _parse_prompt(record: Record, name: str) -> _Prompt:
    match = _PROMPT.search(record.get(name, str))
    if match is None:
        raise record.error(
            name,
            "not a Prometheus grading prompt (expected the sections '###The instruction to evaluate:', "
            "'###Response to evaluate:', '###Score Rubrics:' with 'Score 1..5' lines, '###Feedback:')",
        )
    # The rubric's first sentence is its question; the rest (often nothing) describes it.
    head, *rest = re.split(r"(?<=[?.])\s+", match["rubric"].strip(), maxsplit=1)
    criterion = Criterion(name=head, description="".join(rest), guideline=match["guideline"], scale=(1, 5))
    return _Prompt(match["query"], match["response"], match["reference"], criterion)


def _chosen_first(instance_id: str) -> bool:
    """Whether the chosen response is candidate 1: the first byte of the id's SHA-256 is even (107 of 221)."""
    return hashlib.sha256(instance_id.encode()).digest()[0] % 2 == 0


def _load_hhh(root: Path) -> Iterator[Instance]:
    for record in json_records(root / "prometheus" / "hhh_alignment_eval.json"):
        chosen = _parse_prompt(record, "chosen_instruction")
        rejected = _parse_prompt(record, "rejected_instruction")
        if (chosen.query, chosen.criterion) != (rejected.query, rejected.criterion):
            raise record.error(
                "rejected_instruction", "instruction or rubric differs from chosen_instruction"
            )
        instance_id = f"prometheus-hhh:{record.position}"
        first = _chosen_first(instance_id)
        pair = (chosen.response, rejected.response) if first else (rejected.response, chosen.response)
        source = record.get("source", str)
        yield Instance(
            id=instance_id,
            query=chosen.query,
            candidates=pair,
            criteria=(chosen.criterion,),
            category=source,
            label=1 if first else 2,
            metadata={"source": source, "position": record.position},
        )


def _load_rubric_set(file: str, prefix: str) -> Callable[[Path], Iterator[Instance]]:
    def load(root: Path) -> Iterator[Instance]:
        for record in json_records(root / "prometheus" / file):
            prompt = _parse_prompt(record, "instruction")
            qid, responder = record.get("idx", int), record.get("response_source", str)
            runs = _gpt4_runs(record)
            yield Instance(
                id=f"{prefix}:{qid}:{responder}",
                query=prompt.query,
                candidates=(prompt.response,),
                reference=prompt.reference,
                criteria=(prompt.criterion,),
                category=record.get("category", str),
                scores={"score": round(fmean(score for score, _ in runs), 9)},
                metadata={
                    "question_id": qid,
                    "response_source": responder,
                    "annotators": {"score": [score for score, _ in runs]},
                },
            )

    return load


def _gpt4_scores(file: str, prefix: str, run: int | None) -> Callable[[Path], Iterator[Judgment]]:
    def load(root: Path) -> Iterator[Judgment]:
        for record in json_records(root / "prometheus" / file):
            yield _gpt4_judgment(record, prefix, run)

    return load


def _gpt4_runs(record: Record) -> list[tuple[int, str]]:
    """GPT-4's recorded (score, feedback) runs of one output, checked."""
    scores = record.get("gpt4_score", list)
    feedback = record.get("gpt4_feedback", list)
    if not scores or len(scores) != len(feedback):
        raise record.error("gpt4_feedback", f"{len(feedback)} feedback texts for {len(scores)} scores")
    for k, (score, text) in enumerate(zip(scores, feedback, strict=True)):
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise record.error(f"gpt4_score[{k}]", f"expected an integer 1-5, got {score!r}")
        if not isinstance(text, str):
            raise record.error(f"gpt4_feedback[{k}]", f"expected str, got {type(text).__name__}")
    return list(zip(scores, feedback, strict=True))


def _gpt4_judgment(record: Record, prefix: str, run: int | None) -> Judgment:
    """All runs (scores = their mean, one trace entry per run) or run ``run`` (1-based) alone."""
    runs = _gpt4_runs(record)
    if run is not None:
        if run > len(runs):
            raise record.error("gpt4_score", f"{len(runs)} recorded runs, no run {run}")
        runs = [runs[run - 1]]
    method = "recorded:gpt-4" if run is None else f"recorded:gpt-4-run{run}"
    trace = [TraceEntry(stage=method, messages=[], raw=text, parsed=score) for score, text in runs]
    qid, responder = record.get("idx", int), record.get("response_source", str)
    return Judgment(
        id=f"{prefix}:{qid}:{responder}",
        method=method,
        status="ok",
        scores=[round(fmean(score for score, _ in runs), 9)],
        trace=trace,
    )


_GPT4_RUNS = 3


def _prometheus_recorded(file: str, prefix: str) -> Callable[[Path], list[RecordedSource]]:
    def recorded(root: Path) -> list[RecordedSource]:
        judge = "GPT-4 (2023, as recorded by Prometheus)"
        runs = [
            RecordedSource(
                name=f"gpt-4-run{run}",
                judge=f"{judge}, run {run}",
                description=f"GPT-4's recorded run {run} of {_GPT4_RUNS}: its 1-5 rubric score and feedback.",
                load=_gpt4_scores(file, prefix, run),
            )
            for run in range(1, _GPT4_RUNS + 1)
        ]
        mean = RecordedSource(
            name="gpt-4",
            judge=judge,
            description=(
                "Three sampled GPT-4 1-5 rubric scores with feedback per output; scores = [their mean], "
                "each run is a trace entry (parsed = its score, raw = its feedback). Measured against this "
                "benchmark's reference (the same mean) it correlates perfectly: measure a single run instead."
            ),
            load=_gpt4_scores(file, prefix, None),
        )
        return [mean, *runs]

    return recorded


def _prometheus_fetch(file: str, sha: str) -> tuple[RemoteFile, ...]:
    commit = "dcfb44272d5d0414832f5dbb8c2a05ebc2614234"
    return github_files(
        "prometheus-eval/prometheus-eval", commit, "eval/benchmark/data/", "prometheus", {file: sha}
    )


_HHH = Benchmark(
    name="prometheus-hhh",
    title="HHH-alignment (BIG-bench) pairs as packaged by Prometheus: human-preferred vs other response",
    kind="pairwise",
    labels="preferred response 1/2, no ties (order set by a hash of the id)",
    license=_PROMETHEUS_LICENSE + "; HHH-alignment from BIG-bench (Askell et al.)",
    path="prometheus/hhh_alignment_eval.json",
    load=_load_hhh,
    size=221,
    url=_PROMETHEUS_URL,
    fetch=_prometheus_fetch(
        "hhh_alignment_eval.json", "fe6655dfeec99d04d582692767c736f2385b5e067f0b894d1b73a32af7be9c9e"
    ),
    notes=(
        "The source lists chosen before rejected; here the chosen response is candidate 1 when the first "
        "byte of sha256('prometheus-hhh:<position>') is even (107 pairs, label 1) and candidate 2 otherwise "
        "(114, label 2). Query, response and the 1-5 rubric are parsed out of Prometheus' grading prompts; "
        "the rubric (one per HHH subset) is the instance's criterion. Category = HHH subset."
    ),
)


def _rubric_benchmark(name: str, file: str, sha: str, title: str) -> Benchmark:
    return Benchmark(
        name=name,
        title=title,
        kind="pointwise",
        labels="no human labels: the reference is GPT-4's 1-5 score (mean of 3 recorded runs)",
        reference="GPT-4 (mean of 3 recorded runs)",
        aspects=("score",),
        license=_PROMETHEUS_LICENSE,
        path=f"prometheus/{file}",
        load=_load_rubric_set(file, name),
        size=320,
        url=_PROMETHEUS_URL,
        group_by="question_id",
        system_by="response_source",
        recorded=_prometheus_recorded(file, name),
        fetch=_prometheus_fetch(file, sha),
        notes=(
            "Ids are <name>:<question idx>:<response_source>. Each output has its own 1-5 rubric (the "
            "instance's criterion, with the score descriptions as guideline) and a score-5 reference answer. "
            "No human scores: a judge is measured against GPT-4 (Instance.scores['score'] = the mean of its "
            "three runs, the runs are the annotators behind Krippendorff's alpha), as in Prometheus' "
            "correlation-with-GPT-4 protocol. recorded:gpt-4-run1..3 are the single runs."
        ),
    )


_MTBENCH_RUBRIC = _rubric_benchmark(
    "prometheus-mtbench",
    "mt_bench_eval.json",
    "5bf33413c34173c3b94f008499fd9098fb6338d5d1cf64f341e8e0c9b9f105cf",
    "MT-Bench second turns x 4 responders with Prometheus' per-question rubrics and 3 recorded GPT-4 scores",
)
_VICUNA_RUBRIC = _rubric_benchmark(
    "prometheus-vicuna",
    "vicuna_eval.json",
    "131550a5815f75014a3ea71b0f534fb7ef0ca49b714c4e66935c35fdee1daacc",
    "Vicuna-Bench x 4 responders with Prometheus' per-question rubrics and 3 recorded GPT-4 scores",
)


BENCHMARKS: tuple[Benchmark, ...] = (_HHH, _MTBENCH_RUBRIC, _VICUNA_RUBRIC)
