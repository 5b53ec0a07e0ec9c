"""The offline demo behind `make demo`: real LLM judges measured against humans, published numbers reproduced.

No LLM is called. The benchmarks in the data directory (FACETEVAL_DATA_DIR, else faceteval.toml's
data-dir, as the faceteval command finds it) ship recorded judgments of real LLMs (GPT-4, ChatGPT,
LLaMA-2-70B, Auto-J-13B); this imports them and measures them like any faceteval run:

1. three published results reproduced (Auto-J's leaderboard row, the MT-Bench paper's GPT-4 vs
   expert agreement, LLMBar's GPT-4 numbers);
2. the agreement of every recorded judge and prompting strategy on LLMBar-Adversarial, with 95% CIs;
3. position and length bias of recorded judges on LLMBar-Adversarial next to the humans' rates, and
   their agreement when abstaining on their least confident half (selective accuracy);
4. judge panels of recorded judges on LLMBar-Adversarial, next to their members: their majority
   verdict's agreement with the humans, and how far the judges agree (Krippendorff's alpha);
5. a cascade of recorded judges on LLMBar-Natural (ChatGPT, then GPT-4 where ChatGPT is not
   confident enough): the agreement it guarantees, and how often the guarantee held on held-out halves;
6. HD-Eval on CoEval's recorded ChatGPT criterion scores: a learned aggregator of the criteria,
   tested on held-out outputs against people's scores, next to the plain mean and ChatGPT's own score;
7. reports (Markdown and self-contained HTML with plots) written to runs/demo/.
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

from rich.console import Console
from rich.table import Table

from faceteval import MetaEvalOptions, meta_evaluate
from faceteval.datasets import DATA_DIR_ENV, DEFAULT_DATA_DIR, get_benchmark
from faceteval.metaeval import (
    CascadeSettings,
    Settings,
    join,
    load_judgments,
    load_target,
    measure,
    select,
    summarize,
)
from faceteval.report import write_report
from faceteval.workflows import hdeval

OUT = Path("runs/demo")
console = Console(highlight=False)

# (run directory, benchmark, recorded judge, --turn, where published, [(summary key, published value)])
REPRODUCTIONS = [
    (
        "autoj-pairwise",
        "autoj-pairwise",
        "recorded:auto-j-13b",
        None,
        "Fennec Table 2",
        [("agreement_consistent", "54.96%"), ("consistency", "83.41%")],
    ),
    (
        "mtbench-turn1",
        "mtbench-human",
        "recorded:gpt4-pair",
        1,
        "the MT-Bench paper",
        [("votes.with_ties", "886 / 1343"), ("votes.without_ties", "727 / 859")],
    ),
    (
        "mtbench-turn2",
        "mtbench-human",
        "recorded:gpt4-pair",
        2,
        "the MT-Bench paper",
        [("votes.with_ties", "871 / 1325"), ("votes.without_ties", "731 / 864")],
    ),
    (
        "llmbar-natural-gpt4-vanilla",
        "llmbar-natural",
        "recorded:llmbar/GPT-4/Vanilla",
        None,
        "LLMBar's statistics.json",
        [("accuracy_order_avg", "95.50%"), ("positional_agreement", "95.00%")],
    ),
]


def measure_recorded(
    data_dir: Path, name: str, benchmark: str, judge: str, turn: int | None, resamples: int
) -> dict:
    target = load_target(benchmark, data_dir)
    instances = select(target.instances, turn=turn)
    source = load_judgments(judge, target, data_dir)
    extra = {"reported": source.reported} if source.reported else {}
    summary = measure(
        OUT / name,
        target,
        instances,
        source.judgments,
        judge=source.name,
        settings=Settings(resamples),
        extra=extra,
    )
    write_report(OUT / name)
    return summary.summary.model_dump(mode="json", exclude_unset=True)  # the record's numbers


def lookup(summary: dict, key: str) -> dict:
    for part in key.split("."):
        summary = summary[part]
    return summary


def reproductions(data_dir: Path) -> None:
    """One small table per published source, so that an 80-column terminal shows every name whole."""
    console.print("Published numbers, reproduced from recorded judgments", style="bold")
    for name, benchmark, judge, turn, where, checks in REPRODUCTIONS:
        summary = measure_recorded(data_dir, name, benchmark, judge, turn, resamples=1000)
        label = benchmark + (f" turn {turn}" if turn else "")
        console.print(f"\n[italic]{label}, {judge}, against {where}[/]")
        table = Table()
        table.add_column("metric")
        for column in ("measured", "published", "match"):
            table.add_column(column, justify="right", no_wrap=True)
        for key, published in checks:
            rate = lookup(summary, key)
            measured = f"{rate['hits']} / {rate['n']}" if "/" in published else f"{100 * rate['value']:.2f}%"
            table.add_row(key, measured, published, "yes" if measured == published else "NO")
        console.print(table)


def adversarial(data_dir: Path) -> None:
    benchmark = get_benchmark("llmbar-adversarial")
    target = load_target(benchmark.name, data_dir)
    rows = []
    for source in benchmark.recorded_sources(data_dir):
        loaded = load_judgments(f"recorded:{source.name}", target, data_dir)
        summary = summarize(
            target,
            join(target.instances, loaded.judgments),
            judge=loaded.name,
            settings=Settings(resamples=500),
        )
        rows.append((source.name.removeprefix("llmbar/"), summary))
    rows.sort(key=lambda row: -row[1]["accuracy_order_avg"]["value"])
    console.print()
    table = Table(
        title=f"Every recorded judge on LLMBar-Adversarial ({len(target.instances)} pairs, both orders)",
        title_justify="left",
        caption="accuracy: averaged over the two orders; consistency: the same verdict in both orders; "
        "both right: right in both orders",
        caption_justify="left",
    )
    # The strategies differ only in their ends: their names are never wrapped, and the figures'
    # columns are as narrow as their contents, so that the table fits 80 columns.
    table.add_column("judge / strategy", no_wrap=True)
    for column, width in (("accuracy", 8), ("95% CI", 9), ("consistency", 11), ("both right", 6)):
        table.add_column(column, justify="right", width=width)
    for name, summary in rows:
        accuracy = summary["accuracy_order_avg"]
        low, high = accuracy["ci"]
        table.add_row(
            name,
            f"{100 * accuracy['value']:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}",
            f"{100 * summary['consistency']['value']:.1f}%",
            f"{100 * summary['agreement_consistent']['value']:.1f}%",
        )
    console.print(table)
    best = rows[0][0]
    measure_recorded(
        data_dir, "llmbar-adversarial-best", "llmbar-adversarial", f"recorded:llmbar/{best}", None, 1000
    )


# -- bias diagnostics and selective accuracy ---------------------------------------------------------------
BIAS_JUDGES = (
    "GPT-4/Vanilla",
    "GPT-4/CoT",
    "GPT-4/Metrics_Reference",
    "GPT-4/Swap",
    "GPT-4/Rating",
    "ChatGPT/Vanilla",
    "ChatGPT/Rating",
    "LLaMA2/Vanilla",
    "LLaMA2/CoT",
)


def biases(data_dir: Path) -> None:
    """Position and length bias of recorded judges on LLMBar-Adversarial next to the humans' rates, and
    their agreement when they abstain on their least confident half."""
    target = load_target("llmbar-adversarial", data_dir)
    table = Table(
        title="Biases and selective accuracy on LLMBar-Adversarial (both orders)",
        title_justify="left",
        caption="shown first / longer: the share of decisive verdicts choosing the candidate shown first "
        "(both orders pooled) / the longer one (characters); agree 50%: agreement on the most confident "
        "half, in expectation over the orders of tied confidences (tie orders: the range they give); "
        "agree 100%: on all",
        caption_justify="left",
    )
    table.add_column("judge / strategy", no_wrap=True)
    for column in ("shown first", "longer", "agree 50%", "tie orders", "agree 100%"):
        table.add_column(column, justify="right")
    for name in BIAS_JUDGES:
        loaded = load_judgments(f"recorded:llmbar/{name}", target, data_dir)
        summary = summarize(
            target, join(target.instances, loaded.judgments), judge=name, settings=Settings(0)
        )
        position, length = summary["bias"]["position"]["pooled"], summary["bias"]["length"]
        selective = {row["coverage"]: row["agreement"] for row in summary["selective_accuracy"]["coverages"]}
        half = selective[0.5]
        table.add_row(
            name,
            *(f"{100 * rate['value']:.1f}%" for rate in (position["judge"], length["judge"])),
            f"{100 * half['value']:.1f}%",
            f"{100 * half['low']:.0f}%"
            if half["low"] == half["high"]
            else f"{100 * half['low']:.0f}-{100 * half['high']:.0f}%",
            f"{100 * selective[1.0]['value']:.1f}%",
        )
    # The humans, over every pair: each candidate is shown first in one of the two orders (50%); the
    # longer one is the better in a minority of pairs (the benchmark is built against length preference).
    pairs = [(i.label, len(i.candidates[0]), len(i.candidates[1])) for i in target.instances if i.label]
    uneven = [(label, a > b) for label, a, b in pairs if a != b]
    longer = sum((label == 1) == first_longer for label, first_longer in uneven) / len(uneven)
    table.add_row("humans", "50.0%", f"{100 * longer:.1f}%", "", "", "", style="italic")
    console.print()
    console.print(table)


# -- judge panels of recorded judges -------------------------------------------------------------------

PANELS = [
    ("three LLMs, one strategy", ["GPT-4/CoT", "ChatGPT/CoT", "LLaMA2/CoT"]),
    ("GPT-4, three strategies", ["GPT-4/CoT", "GPT-4/Metrics_Reference", "GPT-4/Swap_CoT"]),
]
"""Panels to show: recorded LLMBar judges (``recorded:llmbar/<judge>/<strategy>``) voting by majority."""


def recorded_panels(data_dir: Path) -> None:
    """Each panel's majority verdict beside its members' own, against the humans' labels."""
    target = load_target("llmbar-adversarial", data_dir)
    for title, members in PANELS:
        spec = ",".join(f"recorded:llmbar/{member}" for member in members)
        panel = load_judgments(spec, target, data_dir, vote="majority")
        summary = summarize(target, join(target.instances, panel.judgments), judge=panel.name,
                            settings=Settings(resamples=500))  # fmt: skip
        console.print()
        table = Table(
            title=f"A judge panel on LLMBar-Adversarial: {title}",
            title_justify="left",
            caption="agreement: the verdict (both orders; disagreeing orders are a tie) is the human "
            "label; majority: the verdict most judges gave, a tie when none has the most",
            caption_justify="left",
        )
        table.add_column("judge", no_wrap=True)
        for column in ("agreement", "95% CI", "ties"):
            table.add_column(column, justify="right")
        for member, entry in zip(members, summary["panel"]["judges"], strict=True):
            table.add_row(
                member, *_agreement_cells(entry["agreement"], _tie_rate(panel.judgments, entry["judge"]))
            )
        ties = sum(j.verdict == 0 for j in panel.judgments) / len(panel.judgments)
        table.add_row("[bold]panel (majority)[/]", *_agreement_cells(summary["agreement"], ties))
        console.print(table)
        alpha, unanimous = summary["panel"]["alpha"], summary["panel"]["unanimous"]
        console.print(
            f"Agreement among the judges: Krippendorff's alpha (nominal) {alpha['value']:.3f}; "
            f"unanimous on {100 * unanimous['value']:.1f}% of {unanimous['n']} pairs"
        )


def _agreement_cells(rate: dict, ties: float) -> tuple[str, str, str]:
    low, high = rate["ci"]
    return f"{100 * rate['value']:.1f}%", f"{100 * low:.1f}-{100 * high:.1f}", f"{100 * ties:.1f}%"


def _tie_rate(judgments: tuple, judge: str) -> float:
    """How often ``judge`` (a member of the panel) gave a tie."""
    verdicts = [m.verdict for j in judgments for m in j.panel if m.judge == judge]
    return sum(v == 0 for v in verdicts) / len(verdicts)


def recorded_cascade(data_dir: Path) -> None:
    """ChatGPT's verdict where it is confident enough, else GPT-4's (`meta-eval --cascade`), its
    confidence the share of the model's recorded prompting strategies agreeing."""
    judges = "recorded:llmbar/ChatGPT/Vanilla,recorded:llmbar/GPT-4/Vanilla"
    settings = CascadeSettings(target_agreement=0.9, delta=0.1, splits=200, seed=0)
    options = MetaEvalOptions(resamples=0, report=False, confidence="strategies", cascade=settings)
    out = OUT / "cascade-llmbar-natural"
    block = meta_evaluate("llmbar-natural", judgments=judges, out=out, options=options, data_dir=data_dir,
                          force=True).cascade  # fmt: skip
    assert block is not None
    gpt4 = block["judges"][-1]["share_decided"]
    console.print()
    console.print(
        f"Cascade on LLMBar-Natural, ChatGPT then GPT-4 (Vanilla, strategies confidence): agreement "
        f">= 90% with probability >= 90%; over {block['splits']} calibration/test splits the target was "
        f"missed in {100 * block['violation_rate']:.1f}% (at most 10% allowed), coverage "
        f"{100 * block['coverage']:.1f}%, agreement on kept {100 * block['agreement']:.1f}%, GPT-4 "
        f"decided {100 * gpt4:.0f}% of the kept verdicts"
    )


def learned_aggregators(data_dir: Path) -> None:
    """HD-Eval's aggregator learned from CoEval's recorded ChatGPT criterion scores (no LLM call)."""
    for benchmark in ("coeval-eli5", "coeval-rocstories", "coeval-selfinstruct"):
        target = load_target(benchmark, data_dir)
        recorded = load_judgments("recorded:chatgpt", target, data_dir).judgments
        names = [criterion.name for criterion in target.benchmark.criteria]
        aspects = tuple(sorted({aspect for i in target.instances for aspect in i.scores or {}}))
        config = hdeval.TrainConfig(targets=aspects, layers=1, aggregator="lr", seed=0)
        trained = hdeval.train(
            hdeval.initial_tree(target.instances[0].task or benchmark, names),
            target.instances,
            config,
            hdeval.recorded_scorer(recorded),
        )
        described = dict(
            benchmark=benchmark,
            origin="ChatGPT (recorded criterion scores)",
            group_by=target.group_by,
            system_by=target.system_by,
            level=target.benchmark.level,
        )
        summary = hdeval.evaluator_summary(trained, **described)
        out = OUT / f"hdeval-{benchmark}"
        hdeval.save_evaluator(out, trained, summary=summary, info=hdeval.evaluator_info(trained, **described))
        experiments = hdeval.run_experiments(out, ["ablations", "aggregators", "importance"])
        (out / "experiments.json").write_text(json.dumps(experiments, indent=2) + "\n", encoding="utf-8")
        hdeval.write_evaluator_report(out)
        console.print()
        table = Table(
            title=f"HD-Eval, {benchmark}: held-out Pearson with people [95% CI]",
            title_justify="left",
        )
        table.add_column("aspect")  # wrapped at spaces; the intervals leave room for the longest word
        for column in ("learned (lr)", "mean of criteria", "ChatGPT on it"):
            table.add_column(column, justify="right", no_wrap=True)
        for aspect, scorers in summary["held_out"].items():
            table.add_row(
                aspect,
                *(
                    _with_ci(scorers.get(name))
                    for name in ("aggregator", "mean_of_criteria", "judge_on_aspect")
                ),
            )
        console.print(table)


def _with_ci(levels: dict | None) -> str:
    if not levels:
        return "-"
    entry = levels["sample"]["pearson"]
    low, high = entry["ci"]
    return f"{entry['value']:.2f} [{low:.2f},{high:.2f}]"


def find_data_dir() -> Path:
    """Where the benchmarks are, found as the faceteval command finds them (short of its --data-dir flag):
    FACETEVAL_DATA_DIR, else data-dir in faceteval.toml, else ./data."""
    if value := os.environ.get(DATA_DIR_ENV):
        return Path(value)
    config = Path("faceteval.toml")
    settings = tomllib.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
    setting = settings.get("data-dir") or settings.get("data_dir")
    return Path(setting) if setting else DEFAULT_DATA_DIR


def main() -> int:
    data_dir = find_data_dir()
    if not (data_dir / "llmbar").is_dir():
        console.print(
            f"[red]No benchmarks in {data_dir}[/]: set {DATA_DIR_ENV} (or data-dir in faceteval.toml) "
            "to the data directory."
        )
        return 1
    reproductions(data_dir)
    adversarial(data_dir)
    biases(data_dir)
    recorded_panels(data_dir)
    recorded_cascade(data_dir)
    learned_aggregators(data_dir)
    reports = sorted(str(p) for p in OUT.glob("*/report.html"))
    console.print("Reports (Markdown and HTML with plots):\n  " + "\n  ".join(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
