"""Bias diagnostics and selective accuracy of recorded judges on LLMBar-Adversarial, checked against an
independent computation over LLMBar's raw files (numpy over ``dataset.json`` and ``result.json``)."""

from __future__ import annotations

import itertools
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli

SUBSETS = ("Neighbor", "GPTInst", "GPTOut", "Manual")  # the benchmark's order of its folders
COVERAGES = (0.5, 0.75, 0.9, 1.0)


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def raw(data_dir: Path, strategy: str) -> dict[str, np.ndarray]:
    """Each pair's id, label, lengths, per-order winners (0: none) and ratings (NaN: none), as recorded."""
    rows: list[tuple[Any, ...]] = []
    for subset in SUBSETS:
        folder = data_dir / "llmbar" / "LLMBar" / "Adversarial" / subset
        data = json.loads((folder / "dataset.json").read_text(encoding="utf-8"))
        results = json.loads((folder / "evaluators" / "GPT-4" / strategy / "result.json").read_text("utf-8"))
        for k, (item, result) in enumerate(zip(data, results, strict=True)):
            last = result["results"][-1]
            winners = [int(last[key]["winner"] or 0) for key in ("swap = False", "swap = True")]
            ratings = [_rating(last.get(f"score_{m}")) for m in (1, 2)]
            ident = f"llmbar-adversarial-{subset.lower()}:{k + 1}"
            rows.append(
                (ident, item["label"], len(item["output_1"]), len(item["output_2"]), *winners, *ratings)
            )
    columns = list(zip(*rows, strict=True))
    names = ("id", "label", "len1", "len2", "w12", "w21", "s1", "s2")
    return {name: np.array(column) for name, column in zip(names, columns, strict=True)}


def _rating(value: list[str] | None) -> float:
    return float(value[0]) if value and value[0].strip().isdigit() else math.nan


def meta_eval(data_dir: Path, out: Path, strategy: str) -> tuple[dict[str, Any], str]:
    args = ["meta-eval", "llmbar-adversarial", "--judgments", f"recorded:llmbar/GPT-4/{strategy}"]
    result = CliRunner().invoke(
        cli,
        [*args, "--out", str(out), "--resamples", "0", "--data-dir", str(data_dir)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))["summary"], result.output


def selective(r: dict[str, np.ndarray], ok: np.ndarray, verdict: np.ndarray, conf: np.ndarray) -> list[float]:
    """Agreement at each coverage, abstaining on the least confident (failed first), in expectation over
    the orders of equal confidences: the verdicts above the cut count whole, the tied group at the cut by
    its share of agreeing ones."""
    key = np.where(ok, conf, -np.inf)
    right = (verdict == r["label"]) & ok
    out = []
    for coverage in COVERAGES:
        kept = math.ceil(coverage * len(key))
        cut = np.sort(key)[::-1][kept - 1]
        above, tied = key > cut, key == cut
        out.append(float((right[above].sum() + (kept - above.sum()) * right[tied].mean()) / kept))
    return out


def auroc(conf: np.ndarray, right: np.ndarray) -> float:
    """The chance a right verdict is more confident than a wrong one, ties half (every pair compared)."""
    diff = conf[right][:, None] - conf[~right][None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def test_gpt4_vanilla_position_length_and_selective_accuracy(data_dir: Path, tmp_path: Path) -> None:
    r = raw(data_dir, "Vanilla")
    summary, printed = meta_eval(data_dir, tmp_path / "vanilla", "Vanilla")
    ok = (r["w12"] > 0) & (r["w21"] > 0)  # a null winner makes the judgment a parse error
    verdict = np.where(r["w12"] == r["w21"], r["w12"], 0)
    position = summary["bias"]["position"]
    assert position["1,2"]["judge"]["value"] == pytest.approx(np.mean(r["w12"][ok] == 1))
    assert position["2,1"]["judge"]["value"] == pytest.approx(np.mean(r["w21"][ok] == 2))
    assert position["1,2"]["human"]["value"] == pytest.approx(np.mean(r["label"][ok] == 1))
    assert position["pooled"]["judge"]["value"] == pytest.approx(
        (np.sum(r["w12"][ok] == 1) + np.sum(r["w21"][ok] == 2)) / (2 * ok.sum())
    )
    longer = np.where(r["len1"] > r["len2"], 1, 2)
    uneven = ok & (r["len1"] != r["len2"])
    decisive = uneven & (verdict > 0)
    length = summary["bias"]["length"]
    assert length["judge"]["value"] == pytest.approx(np.mean(verdict[decisive] == longer[decisive]))
    assert length["judge"]["n"] == decisive.sum()
    assert length["human"]["value"] == pytest.approx(np.mean(r["label"][uneven] == longer[uneven]))
    # the finding: GPT-4 prefers the longer output more often than the humans do (LLMBar's design)
    assert length["judge"]["value"] > length["human"]["value"] + 0.05
    gaps = np.abs(r["len1"] - r["len2"])
    edges = [-1, *np.unique(np.quantile(gaps, [0.25, 0.5, 0.75, 1.0]))]
    right = (verdict == r["label"]) & ok
    expected = [right[(gaps > lo) & (gaps <= hi)].mean() for lo, hi in itertools.pairwise(edges)]
    assert [b["agreement"]["value"] for b in length["bins"]] == pytest.approx(expected)
    # verdict-only in two orders: confidence 1 where the orders agree, 0 where they do not
    conf = (r["w12"] == r["w21"]).astype(float)
    rows = summary["selective_accuracy"]["coverages"]
    assert [row["agreement"]["value"] for row in rows] == pytest.approx(selective(r, ok, verdict, conf))
    assert rows[-1]["agreement"]["value"] == pytest.approx(summary["agreement"]["value"])
    # 294 of its 319 verdicts are at confidence 1, so the most confident half is a draw among them:
    # any order of the ties gives 70% to 100% (the old SHA-256 tie-break gave 85.6%)
    half = rows[0]
    assert half["tied_at_cut"] == 294 and half["min_confidence"] == 1.0
    assert (half["agreement"]["low"], half["agreement"]["high"]) == pytest.approx((0.7, 1.0))
    assert half["agreement"]["value"] == pytest.approx(246 / 294)
    calibration = summary["calibration"]
    assert calibration["estimator"] == "signals" and calibration["n"] == 319
    assert calibration["tied_shares"][0] == {"confidence": 1.0, "n": 294, "share": 294 / 319}
    assert calibration["largest_tied_share"] == pytest.approx(294 / 319)
    assert calibration["auroc"] == pytest.approx(auroc(conf[ok], right[ok]))
    # two bins hold every verdict: confidence 0 (the orders disagree) and 1 (they agree)
    ece = (np.abs(right[conf == 1].mean() - 1) * 294 + right[conf == 0].mean() * 25) / 319
    assert calibration["ece"] == pytest.approx(ece)
    assert "self_preference" not in summary["bias"]  # LLMBar names no systems
    for shown in ("bias: preference rates", "agreement by length gap", "selective accuracy"):
        assert shown in printed
    assert "70.0-100.0" in printed  # the range of the most confident half over the orders of its ties
    assert "confidence (signals): AUROC 0.671, ECE 0.150; 294 of 319 verdicts tied at 1.000" in printed
    report = (tmp_path / "vanilla" / "report.md").read_text(encoding="utf-8")
    assert "## Bias diagnostics" in report and "## Selective accuracy" in report
    assert "| 50% | 160 | 1.000 | 83.7% | 70.0%-100.0% | 294 |" in report
    assert "## Calibration of confidence" in report and "AUROC 0.671" in report
    assert "294 of 319 verdicts (92.2%) share the confidence 1.000" in report
    html = (tmp_path / "vanilla" / "report.html").read_text(encoding="utf-8")
    assert "Bias diagnostics" in html and "Selective accuracy" in html
    calibration = html[html.index('<section id="calibration">') :]
    assert calibration[: calibration.index("</section>")].count("data:image/png;base64,") == 1


def test_gpt4_rating_selective_accuracy_uses_the_margin_of_its_ratings(
    data_dir: Path, tmp_path: Path
) -> None:
    r = raw(data_dir, "Rating")
    summary, _ = meta_eval(data_dir, tmp_path / "rating", "Rating")
    ok = ~np.isnan(r["s1"]) & ~np.isnan(r["s2"]) & (r["w12"] > 0) & (r["w21"] > 0)
    verdict = np.where(r["w12"] == r["w21"], r["w12"], 0)
    scores = np.stack([r["s1"], r["s2"]], axis=1)
    low, high = np.nanmin(scores[ok]), np.nanmax(scores[ok])  # the run's score range
    winner = np.where(verdict == 2, r["s2"], r["s1"])
    other = np.where(verdict == 2, r["s1"], r["s2"])
    margin = np.where(verdict > 0, (winner - other) / (high - low), 0.0)
    orders = ((r["w12"] == verdict).astype(float) + (r["w21"] == verdict)) / 2
    conf = np.where(ok, (margin + orders) / 2, 0.0)
    rows = summary["selective_accuracy"]["coverages"]
    measured = [row["agreement"]["value"] for row in rows]
    assert measured == pytest.approx(selective(r, ok, verdict, conf))
    assert summary["selective_accuracy"]["mean_confidence"] == pytest.approx(conf[ok].mean())
    right = (verdict == r["label"]) & ok
    calibration = summary["calibration"]
    assert calibration["with_confidence"] == ok.sum()
    assert calibration["auroc"] == pytest.approx(auroc(np.where(ok, conf, -1.0), right))
    assert calibration["largest_tied_share"] < 0.25  # its margins spread the confidences
    # abstaining on the least confident half raises agreement well above the whole set's
    assert measured[0] > measured[-1] + 0.1
