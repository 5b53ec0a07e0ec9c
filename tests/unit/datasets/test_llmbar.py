"""LLMBar loaders and recorded judges, checked against SOURCE.md and LLMBar's own statistics.json."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from faceteval.core import Instance, Judgment
from faceteval.datasets import Benchmark, get_benchmark
from faceteval.datasets._faireval import FAIREVAL_CRITERIA
from faceteval.datasets._llmbar import BENCHMARKS, LLMBAR_CRITERIA
from faceteval.datasets._mtbench import MTBENCH_CRITERIA
from faceteval.errors import FacetevalError, InputError
from tests.support.files import item_lines, write_indented_json

SETS = {  # benchmark: (size, label 1, label 2, recorded sources) per SOURCE.md
    "llmbar-natural": (100, 42, 58, 37),
    "llmbar-adversarial": (319, 164, 155, 37),
    "llmbar-adversarial-neighbor": (134, 75, 59, 37),
    "llmbar-adversarial-gptinst": (92, 45, 47, 37),
    "llmbar-adversarial-gptout": (47, 22, 25, 37),
    "llmbar-adversarial-manual": (46, 22, 24, 37),
    "llmbar-faireval": (66, 41, 25, 6),
    "llmbar-llmeval2": (200, 92, 108, 6),
    "llmbar-mtbench": (200, 101, 99, 6),
    "llmbar-casestudy-constraint": (89, 43, 46, 0),
    "llmbar-casestudy-negation": (59, 26, 33, 0),
    "llmbar-casestudy-normal": (59, 33, 26, 0),
    "llmbar-casestudy-base-9": (54, 25, 29, 0),
    "llmbar-casestudy-base-10": (54, 29, 25, 0),
}
SUBSETS = ["neighbor", "gptinst", "gptout", "manual"]
WITH_OUTPUTS = [name for name, spec in SETS.items() if spec[3] and name != "llmbar-adversarial"]


@pytest.fixture(scope="module")
def root() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    if not value or not (Path(value) / "llmbar").is_dir():
        pytest.fail("FACETEVAL_DATA_DIR must point at the staged data (with llmbar/); these tests need it")
    return Path(value)


@pytest.fixture(scope="module")
def instances(root: Path) -> dict[str, list[Instance]]:
    return {b.name: b.instances(root) for b in BENCHMARKS}


@pytest.fixture(scope="module")
def recorded(root: Path) -> dict[tuple[str, str], list[Judgment]]:
    """Every recorded source of every single-folder benchmark, loaded once."""
    return {
        (name, source.name): list(source.load(root))
        for name in WITH_OUTPUTS
        for source in get_benchmark(name).recorded_sources(root)
    }


def _llmbar_format(count: int, total: int) -> str:
    return f"{count} / {total} = {count / total * 100}%"


def test_every_benchmark_is_registered_with_the_source_counts(instances: dict[str, list[Instance]]) -> None:
    assert sorted(SETS) == sorted(b.name for b in BENCHMARKS)
    for bench in BENCHMARKS:
        size, ones, twos, _ = SETS[bench.name]
        items = instances[bench.name]
        assert bench.size == size == len(items)
        assert Counter(i.label for i in items) == {1: ones, 2: twos}
        assert len({i.id for i in items}) == size
        assert all(len(i.candidates) == 2 and i.query for i in items)
        assert all({"llmbar_set", "position"} <= i.metadata.keys() for i in items)
        assert bench.kind == "pairwise" and bench.texts


def test_ids_and_categories(instances: dict[str, list[Instance]]) -> None:
    assert instances["llmbar-natural"][16].id == "llmbar-natural:17"
    union = instances["llmbar-adversarial"]
    assert [i.id for i in union] == [i.id for s in SUBSETS for i in instances[f"llmbar-adversarial-{s}"]]
    assert Counter(i.category for i in union) == {"Neighbor": 134, "GPTInst": 92, "GPTOut": 47, "Manual": 46}
    assert union[0].id == "llmbar-adversarial-neighbor:1"
    assert {i.category for i in instances["llmbar-natural"]} == {None}


def test_criteria_are_llmbar_rules_quoted_from_the_data(root: Path) -> None:
    for bench in BENCHMARKS:
        if bench.name == "llmbar-llmeval2":
            assert bench.criteria == ()
        elif bench.name == "llmbar-faireval":
            assert bench.criteria == FAIREVAL_CRITERIA
        elif bench.name == "llmbar-mtbench":
            assert bench.criteria == MTBENCH_CRITERIA
        else:
            assert bench.criteria == LLMBAR_CRITERIA
    result = root / "llmbar/LLMBar/Natural/evaluators/GPT-4/Swap/result.json"
    prompts = [
        r["results"][-1]["swap = False"]["prompt"]
        for r in json.loads(result.read_text())
        if len(r["results"]) > 1
    ]
    rules = LLMBAR_CRITERIA[0].guideline
    assert rules and all(rules in p for p in prompts)


def test_llmbar_mtbench_carries_question_ids(instances: dict[str, list[Instance]], root: Path) -> None:
    items = instances["llmbar-mtbench"]
    questions = {
        q["question_id"]: q
        for q in map(json.loads, (root / "mt_bench/question.jsonl").read_text().splitlines())
    }
    for item in items:
        question = questions[item.metadata["question_id"]]
        assert item.query == question["turns"][0]
        assert item.category == item.metadata["category"] == question["category"]
    assert Counter(i.category for i in items)["humanities"] == 34
    assert len({i.metadata["question_id"] for i in items}) == 75  # 125 repeated inputs


def test_recorded_sources_are_discovered_from_the_folders(root: Path) -> None:
    for name, (_, _, _, count) in SETS.items():
        sources = get_benchmark(name).recorded_sources(root)
        assert len(sources) == count
        assert all(s.name.startswith("llmbar/") and s.reported for s in sources)
    names = [s.name for s in get_benchmark("llmbar-natural").recorded_sources(root)]
    assert names[:2] == ["llmbar/GPT-4/Vanilla_NoRules", "llmbar/GPT-4/Vanilla"]
    assert sum(n.startswith("llmbar/LLaMA2/Rating") for n in names) == 0
    processed = {s.name for s in get_benchmark("llmbar-mtbench").recorded_sources(root)}
    assert processed == {
        f"llmbar/{j}/{s}"
        for j in ("GPT-4", "ChatGPT", "LLaMA2")
        for s in ("Vanilla_NoRules", "Metrics_Reference")
    }


def test_every_folder_reproduces_its_statistics(
    root: Path, recorded: dict[tuple[str, str], list[Judgment]], instances: dict[str, list[Instance]]
) -> None:
    """A null winner is wrong; two null winners count as agreeing (LLMBar's ``None == None``)."""
    assert len(recorded) == 203
    for (name, source), judgments in recorded.items():
        labels = {i.id: i.label for i in instances[name]}
        assert [j.id for j in judgments] == list(labels)
        assert all(j.method == f"recorded:{source}" and len(j.orders) == 2 for j in judgments)
        first = [j.orders[0].verdict == labels[j.id] for j in judgments]
        second = [j.orders[1].verdict == labels[j.id] for j in judgments]
        n = len(judgments)
        mine = {
            "correct_False": _llmbar_format(sum(first), n),
            "correct_True": _llmbar_format(sum(second), n),
            "correct_average": f"{(sum(first) + sum(second)) / 2 / n * 100}%",
            "correct_both": _llmbar_format(sum(a and b for a, b in zip(first, second, strict=True)), n),
            "equal": _llmbar_format(sum(j.orders[0].verdict == j.orders[1].verdict for j in judgments), n),
        }
        folder = root / get_benchmark(name).path / "evaluators" / source.removeprefix("llmbar/")
        statistics = json.loads((folder / "statistics.json").read_text())
        assert {k: statistics[k] for k in mine} == mine, (name, source)
        reported = get_benchmark(name).recorded_source(source, root).reported
        assert reported is not None
        numbers = reported(root)
        assert numbers["agreement_order1"] == sum(first) / n
        assert numbers["accuracy_order_avg"] == pytest.approx((sum(first) + sum(second)) / 2 / n, abs=1e-12)


def test_gpt4_vanilla_on_natural_matches_the_paper(
    recorded: dict[tuple[str, str], list[Judgment]], root: Path
) -> None:
    judgments = recorded["llmbar-natural", "llmbar/GPT-4/Vanilla"]
    labels = {i.id: i.label for i in get_benchmark("llmbar-natural").instances(root)}
    correct = sum(o.verdict == labels[j.id] for j in judgments for o in j.orders)
    assert correct / 200 == 0.955
    assert sum(bool(j.consistent) for j in judgments) / 100 == 0.95
    source = get_benchmark("llmbar-natural").recorded_source("llmbar/GPT-4/Vanilla", root)
    assert source.reported is not None
    assert source.reported(root) == {
        "agreement_order1": 0.95,
        "agreement_order2": 0.96,
        "accuracy_order_avg": 0.955,
        "agreement_consistent": 0.93,
        "positional_agreement": 0.95,
        "llmbar_kappa_order1": 0.26775689528923596,
        "llmbar_kappa_order2": 0.2714910150558524,
        "llmbar_kappa_order_avg": 0.26962395517254417,
        "llmbar_kappa_orders": 0.897708674304419,
    }


def test_status_counts_match_the_null_winners(recorded: dict[tuple[str, str], list[Judgment]]) -> None:
    statuses: Counter[tuple[str, str]] = Counter()
    first_stage_nulls: Counter[str] = Counter()
    for (_, source), judgments in recorded.items():
        judge = source.split("/")[1]
        for j in judgments:
            statuses[judge, j.status] += 1
            first_stage_nulls[judge] += sum(
                t.stage == "recorded:verdict" and t.parsed is None for t in j.trace
            )
            if j.status == "parse_error":
                assert j.verdict is None and j.consistent is None and j.error
            else:
                assert j.verdict == (j.orders[0].verdict if j.consistent else 0)
    # SOURCE.md: 22 / 37 / 35 order-level null winners in the first swap dict.
    assert first_stage_nulls == {"GPT-4": 22, "ChatGPT": 37, "LLaMA2": 35}
    # Judgments whose final orders hold a null winner, plus 5 unreadable GPT-4 ratings.
    assert statuses == {
        ("GPT-4", "ok"): 7200,
        ("GPT-4", "parse_error"): 17,
        ("ChatGPT", "ok"): 5933,
        ("ChatGPT", "parse_error"): 27,
        ("LLaMA2", "ok"): 5096,
        ("LLaMA2", "parse_error"): 26,
    }


def test_rating_strategies_keep_scores_and_ties(recorded: dict[tuple[str, str], list[Judgment]]) -> None:
    judgments = recorded["llmbar-natural", "llmbar/GPT-4/Rating"]
    first = judgments[0]
    assert first.scores == [6.0, 1.0] and first.verdict == 1
    assert [e.parsed for e in first.trace] == [6, 1] and first.trace[0].stage == "recorded:rating"
    assert all(o.scores == [6.0, 1.0] for o in first.orders)
    ties = [j for j in judgments if j.scores and j.scores[0] == j.scores[1]]
    assert ties and all(j.verdict == 0 and j.consistent is False for j in ties)
    assert all([o.verdict for o in j.orders] == [2, 1] for j in ties)  # LLMBar's tie-break
    broken = [j for j in recorded["llmbar-adversarial-neighbor", "llmbar/GPT-4/Rating"] if j.status != "ok"]
    assert len(broken) == 1 and "score_" in (broken[0].error or "")
    assert [o.verdict for o in broken[0].orders] == [1, 2]  # the fallback winners LLMBar counted


def test_auxiliary_generations_are_in_the_trace(recorded: dict[tuple[str, str], list[Judgment]]) -> None:
    judgment = recorded["llmbar-natural", "llmbar/GPT-4/Metrics_Reference"][3]
    stages = [t.stage for t in judgment.trace]
    assert stages == ["recorded:metrics", "recorded:reference", "recorded:verdict", "recorded:verdict"]
    questions = judgment.trace[0].parsed
    assert isinstance(questions, list) and len(questions) == 3
    assert questions[0].startswith("Does the output accurately explain")
    assert "bone conduction" in judgment.trace[1].raw
    assert [t.order for t in judgment.trace[2:]] == [[1, 2], [2, 1]]
    swap = [j for j in recorded["llmbar-natural", "llmbar/GPT-4/Swap"] if len(j.trace) == 4]
    assert swap and all(j.trace[2].stage == "recorded:synthesis" and j.trace[2].messages for j in swap)
    assert all(j.trace[2].messages[0]["role"] == "system" for j in swap)


def test_adversarial_union_uses_subset_ids_and_pools_the_published_counts(root: Path) -> None:
    bench = get_benchmark("llmbar-adversarial")
    source = bench.recorded_source("llmbar/GPT-4/Metrics_Reference", root)
    judgments = list(source.load(root))
    assert [j.id for j in judgments] == [i.id for i in bench.instances(root)]
    labels = {i.id: i.label for i in bench.instances(root)}
    hits = [o.verdict == labels[j.id] for j in judgments for o in j.orders]
    subset_accuracies = []
    for subset in SUBSETS:
        ids = {i.id for i in get_benchmark(f"llmbar-adversarial-{subset}").instances(root)}
        mine = [o.verdict == labels[j.id] for j in judgments if j.id in ids for o in j.orders]
        subset_accuracies.append(sum(mine) / len(mine))
    assert source.reported is not None
    reported = source.reported(root)
    assert reported["accuracy_order_avg"] == pytest.approx(sum(hits) / len(hits), abs=1e-12)
    # The LLMBar paper's Adversarial column (GPT-4 Rules+Metrics+Reference, 82.8) is the subset mean.
    assert round(sum(subset_accuracies) / 4 * 100, 1) == 82.8
    assert not any(key.startswith("llmbar_kappa") for key in reported)


def _staged_copy(root: Path, tmp_path: Path, *relative: str) -> Path:
    for rel in relative:
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / rel, target)
    return tmp_path


def _rewrite(path: Path, edit: Callable[[list[dict[str, Any]]], object]) -> None:
    records = json.loads(path.read_text())
    edit(records)
    write_indented_json(path, records)


def test_a_broken_dataset_record_names_file_record_and_field(root: Path, tmp_path: Path) -> None:
    data = _staged_copy(root, tmp_path, "llmbar/LLMBar/Natural/dataset.json")
    path = data / "llmbar/LLMBar/Natural/dataset.json"
    _rewrite(path, lambda records: records[11].update(label="two"))
    with pytest.raises(InputError) as caught:
        get_benchmark("llmbar-natural").instances(data)
    error = caught.value
    assert (error.path, error.line, error.field) == (str(path), item_lines(path)[11], "label")
    assert error.line > 12  # the record's line in the file, not its position
    assert "record 12: expected int" in str(error) and "dataset.json" in str(error)


def test_a_broken_recorded_output_names_file_record_and_field(root: Path, tmp_path: Path) -> None:
    folder = "llmbar/LLMBar/Natural/evaluators/GPT-4/Vanilla"
    data = _staged_copy(
        root,
        tmp_path,
        "llmbar/LLMBar/Natural/dataset.json",
        f"{folder}/result.json",
        f"{folder}/statistics.json",
    )
    result = data / folder / "result.json"
    _rewrite(result, lambda records: records[4]["results"][-1]["swap = True"].update(winner="3"))
    source = get_benchmark("llmbar-natural").recorded_source("llmbar/GPT-4/Vanilla", data)
    with pytest.raises(InputError) as caught:
        list(source.load(data))
    assert (caught.value.path, caught.value.line, caught.value.field) == (
        str(result),
        item_lines(result)[4],
        "results[0].swap = True.winner",
    )
    statistics = data / folder / "statistics.json"
    statistics.write_text(json.dumps({**json.loads(statistics.read_text()), "equal": "ninety-five"}))
    assert source.reported is not None
    with pytest.raises(InputError, match=re.escape("statistics.json: field 'equal'")):
        source.reported(data)


def test_llmbar_mtbench_rejects_an_input_that_is_not_an_mtbench_question(root: Path, tmp_path: Path) -> None:
    data = _staged_copy(root, tmp_path, "llmbar/Processed/MT-Bench/dataset.json", "mt_bench/question.jsonl")
    path = data / "llmbar/Processed/MT-Bench/dataset.json"
    _rewrite(path, lambda records: records[2].update(input="Not an MT-Bench question"))
    with pytest.raises(InputError) as caught:
        get_benchmark("llmbar-mtbench").instances(data)
    assert (caught.value.line, caught.value.field) == (item_lines(path)[2], "input")


def test_fetch_lists_the_staged_dataset_files(root: Path) -> None:
    for bench in BENCHMARKS:
        assert bench.fetch
        for remote in bench.fetch:
            assert remote.url.startswith("https://raw.githubusercontent.com/")
            assert hashlib.sha256((root / remote.path).read_bytes()).hexdigest() == remote.sha256
        assert isinstance(bench, Benchmark) and (root / bench.path).exists()


def test_a_benchmark_file_missing_a_record_is_refused_not_misaligned(root: Path, tmp_path: Path) -> None:
    # Recorded judgments are matched by position: one record less would shift every one after it.
    data = _staged_copy(root, tmp_path, "llmbar/LLMBar/Natural/dataset.json")
    _rewrite(data / "llmbar/LLMBar/Natural/dataset.json", lambda records: records.pop(40))
    with pytest.raises(
        FacetevalError, match="holds 99 instances, but the benchmark has 100; a file is cut short"
    ):
        get_benchmark("llmbar-natural").instances(data)
