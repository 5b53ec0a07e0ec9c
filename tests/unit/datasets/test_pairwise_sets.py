"""FairEval, PandaLM, Auto-J, LLMEval², Prometheus: SOURCE.md counts, recorded judges, published numbers."""

import hashlib
import json
import os
import shutil
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from faceteval.core import Instance, Judgment
from faceteval.datasets import Benchmark, _autoj, _faireval, _llmeval2, _pandalm, _prometheus, get_benchmark
from faceteval.errors import FacetevalError, InputError
from tests.support.files import item_lines, write_indented_json

BENCHMARKS = (
    *_faireval.BENCHMARKS,
    *_pandalm.BENCHMARKS,
    *_autoj.BENCHMARKS,
    *_llmeval2.BENCHMARKS,
    *_prometheus.BENCHMARKS,
)

NAMES = (
    "faireval",
    "pandalm",
    "autoj-pairwise",
    "llmeval2",
    "llmeval2-eli5",
    "prometheus-hhh",
    "prometheus-mtbench",
    "prometheus-vicuna",
)


def data_dir() -> Path:
    """The staged data; a missing directory fails the test (it is never skipped)."""
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "set FACETEVAL_DATA_DIR to the benchmark data directory (../shared/data)"
    root = Path(value)
    assert root.is_dir(), f"FACETEVAL_DATA_DIR={value} is not a directory"
    return root


@cache
def instances(name: str) -> list[Instance]:
    return get_benchmark(name).instances(data_dir())


@cache
def judgments(name: str, source: str) -> list[Judgment]:
    return list(get_benchmark(name).recorded_source(source, data_dir()).load(data_dir()))


def labels(name: str) -> Counter[int | None]:
    return Counter(i.label for i in instances(name))


def by_id(items: list[Judgment]) -> dict[str, Judgment]:
    return {j.id: j for j in items}


# --- every benchmark ------------------------------------------------------------------------------------


def test_all_registered_in_order() -> None:
    assert tuple(b.name for b in BENCHMARKS) == NAMES
    assert all(get_benchmark(name) is b for name, b in zip(NAMES, BENCHMARKS, strict=True))


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_size_ids_and_paths(benchmark: Benchmark) -> None:
    items = instances(benchmark.name)
    assert len(items) == benchmark.size
    assert len({i.id for i in items}) == len(items)
    prefix = "llmeval2" if benchmark.name.startswith("llmeval2") else benchmark.name
    assert all(i.id.startswith(f"{prefix}:") for i in items)
    assert (data_dir() / benchmark.path).exists()
    assert all(i.category for i in items)
    expected = 1 if benchmark.kind == "pointwise" else 2
    assert all(i.n_candidates == expected for i in items)


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_fetch_lists_the_staged_files_with_their_hashes(benchmark: Benchmark) -> None:
    for remote in benchmark.fetch:
        assert remote.url.startswith("https://raw.githubusercontent.com/")
        assert remote.url.endswith(remote.path.split("/", 1)[1])
        digest = hashlib.sha256((data_dir() / remote.path).read_bytes()).hexdigest()
        assert digest == remote.sha256, remote.path
    assert bool(benchmark.fetch) != (benchmark.name.startswith("llmeval2"))  # LLMEval² ships as a zip


# --- FairEval -------------------------------------------------------------------------------------------


def test_faireval_labels_categories_and_criteria() -> None:
    items = instances("faireval")
    assert labels("faireval") == {1: 41, 2: 25, 0: 14}  # CHATGPT, VICUNA13B, TIE
    assert Counter(i.category for i in items) == {
        **{c: 10 for c in ("generic", "knowledge", "roleplay", "common-sense", "fermi", "counterfactual")},
        **{"writing": 10, "coding": 7, "math": 3},
    }
    assert [c.name for c in get_benchmark("faireval").criteria] == [
        "helpfulness",
        "relevance",
        "accuracy",
        "level of details",
    ]
    first = items[0]
    assert first.id == "faireval:1" and first.metadata["human"] == "CHATGPT" and first.label == 1
    assert first.metadata["models"] == ["gpt-3.5-turbo:20230327", "vicuna-13b:20230322-clean-lang"]
    assert {i.metadata["human"]: i.label for i in items} == {"CHATGPT": 1, "VICUNA13B": 2, "TIE": 0}


def test_faireval_candidate_order_matches_llmbar_processed_copy() -> None:
    """LLMBar's processed FairEval has output_1 = the gpt35 answer, output_2 = the vicuna-13b answer."""
    processed = json.loads((data_dir() / "llmbar/Processed/FairEval/dataset.json").read_text())
    ours = {(i.candidates[0], i.candidates[1]): i.label for i in instances("faireval")}
    assert len(processed) == 66
    assert all(ours[(r["output_1"], r["output_2"])] == r["label"] for r in processed)


# --- PandaLM --------------------------------------------------------------------------------------------


def test_pandalm_majority_labels_and_votes() -> None:
    items = instances("pandalm")
    assert labels("pandalm") == {2: 472, 1: 422, 0: 105}  # SOURCE.md and the PandaLM README
    votes = [i.metadata["annotators"] for i in items]
    assert Counter(len(set(v)) for v in votes) == {1: 879, 2: 120}  # no three-way split
    assert all(v.count(i.label) >= 2 for v, i in zip(votes, items, strict=True))
    assert items[0].id == "pandalm:0" and items[-1].id == "pandalm:998"
    assert items[0].metadata["models"] == ["bloom-7b", "llama-7b"]
    assert {"idx", "cmp_key", "models", "motivation_app", "annotators"} <= set(items[0].metadata)
    assert len({i.category for i in items}) == 50
    assert instances("pandalm")[157].candidates[0] == "True"  # a JSON boolean in the file


def test_pandalm_annotator_kappas_match_the_readme() -> None:
    """PandaLM README: pairwise Cohen's kappa 0.85 (1-2), 0.88 (1-3), 0.86 (2-3)."""
    votes = list(zip(*(i.metadata["annotators"] for i in instances("pandalm")), strict=True))

    def kappa(a: tuple[int, ...], b: tuple[int, ...]) -> float:
        n = len(a)
        observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
        chance = sum((a.count(c) / n) * (b.count(c) / n) for c in (0, 1, 2))
        return (observed - chance) / (1 - chance)

    assert [round(kappa(votes[i], votes[j]), 2) for i, j in ((0, 1), (0, 2), (1, 2))] == [0.85, 0.88, 0.86]


def test_pandalm_recorded_judges() -> None:
    names = [s.name for s in get_benchmark("pandalm").recorded_sources(data_dir())]
    assert names == ["gpt-3.5-turbo", "pandalm-7b"]
    ids = {i.id for i in instances("pandalm")}
    gpt, panda = judgments("pandalm", "gpt-3.5-turbo"), judgments("pandalm", "pandalm-7b")
    for items in (gpt, panda):
        assert len(items) == 999 and {j.id for j in items} == ids
        assert all(not j.orders and j.consistent is None and len(j.trace) == 1 for j in items)
    assert Counter(j.status for j in gpt) == {"ok": 974, "parse_error": 25}  # 25 "garbage"
    assert Counter(j.verdict for j in gpt) == {2: 476, 1: 460, 0: 38, None: 25}
    garbage = next(j for j in gpt if j.status == "parse_error")
    assert garbage.id == "pandalm:114" and "garbage" in (garbage.error or "")
    assert Counter(j.verdict for j in panda) == {2: 459, 1: 433, 0: 107}
    assert panda[0].trace[0].raw.startswith("result: 2\nreason: Response 2 is better")
    # Accuracy against the majority label (no published figure is staged; see the module notes).
    label = {i.id: i.label for i in instances("pandalm")}
    assert sum(j.verdict == label[j.id] for j in panda) == 667
    assert sum(j.verdict == label[j.id] for j in gpt) == 697


# --- Auto-J ---------------------------------------------------------------------------------------------


def test_autoj_labels_scenarios_and_groups() -> None:
    items = instances("autoj-pairwise")
    assert labels("autoj-pairwise") == {1: 520, 2: 499, 0: 373}  # source 0 / 1 / 2 (tie)
    assert {i.metadata["source_label"]: i.label for i in items} == {0: 1, 1: 2, 2: 0}
    assert Counter(i.category for i in items) == dict.fromkeys({i.category for i in items}, 24)
    assert len({i.category for i in items}) == 58
    groups = Counter(i.metadata["scenario_group"] for i in items)
    assert None not in groups and len(groups) == 8 and sum(groups.values()) == 1392
    assert items[0].id == "autoj-pairwise:1" and items[0].metadata["scenario_group"] == "Summarization"


def test_autoj_recorded_reproduces_the_leaderboard() -> None:
    """Auto-J row (README leaderboard; Fennec Table 2): agreement 54.96, consistency 83.41 over all 1,392."""
    source = get_benchmark("autoj-pairwise").recorded_source("auto-j-13b", data_dir())
    items = judgments("autoj-pairwise", "auto-j-13b")
    label = {i.id: i.label for i in instances("autoj-pairwise")}
    assert len(items) == 1392 and set(label) == {j.id for j in items}
    assert Counter(j.status for j in items) == {"ok": 1392}
    both = sum(j.orders[0].verdict == j.orders[1].verdict == label[j.id] for j in items)
    agree = sum(bool(j.consistent) for j in items)
    assert round(100 * both / 1392, 2) == 54.96
    assert round(100 * agree / 1392, 2) == 83.41
    assert source.reported is not None
    assert source.reported(data_dir()) == {"agreement_consistent": 0.5496, "consistency": 0.8341}
    # The verdict is the agreed one, a tie when the orders disagree.
    assert all(j.verdict == (j.orders[0].verdict if j.consistent else 0) for j in items)
    assert round(sum(j.orders[0].verdict == label[j.id] for j in items) / 1392, 3) == 0.600  # SOURCE.md


def test_autoj_exchanged_order_is_mapped_back() -> None:
    first = judgments("autoj-pairwise", "auto-j-13b")[0]
    # Line 1: original output 0 (response 1), exchanged output 1 (the second shown = original response 1).
    assert [t.raw for t in first.trace] == ['{"output": 0}', '{"output": 1}']
    assert [(o.order, o.verdict) for o in first.orders] == [([1, 2], 1), ([2, 1], 1)]
    assert [t.parsed for t in first.trace] == [1, 2]  # as shown
    assert first.consistent is True and first.verdict == 1


def test_autoj_unreadable_output_is_a_parse_error(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "autoj")
    path = root / "autoj/outputs/pairwise_exchange_example_output.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = '{"output": "none of them"}'
    path.write_text("\n".join(lines) + "\n")
    source = get_benchmark("autoj-pairwise").recorded_source("auto-j-13b", root)
    third = list(source.load(root))[2]
    assert third.status == "parse_error" and third.verdict is None and third.consistent is None
    assert third.error == "no readable verdict in the exchanged order"
    assert [o.verdict for o in third.orders] == [1, None]


def test_an_autoj_output_file_cut_short_is_named(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "autoj")
    path = root / "autoj/outputs/pairwise_example_output.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-5]))
    source = get_benchmark("autoj-pairwise").recorded_source("auto-j-13b", root)
    with pytest.raises(InputError, match="1,387 records, expected 1,392") as caught:
        list(source.load(root))
    assert caught.value.path == str(path)  # the file cut short, not the one beside it


# --- LLMEval² -------------------------------------------------------------------------------------------

LLMEVAL2_TABLE = {  # SOURCE.md: per dataset, model1 / model2 / TIE
    "summarizefeedback": (80, 80, 122),
    "mt-bench": (71, 72, 132),
    "openmeva": (67, 51, 127),
    "webgpt": (76, 63, 52),
    "bagel": (80, 80, 15),
    "rlhf-reward-chinese": (80, 80, 0),
    "hellaswag": (81, 79, 0),
    "shp": (80, 80, 0),
    "reward-aira-portuguese": (80, 80, 0),
    "pku-saferlhf": (80, 80, 0),
    "rlhf-reward-russian": (77, 83, 0),
    "eli5": (77, 72, 0),
    "hh-rlhf": (73, 67, 0),
    "summeval": (27, 30, 34),
    "code-contests": (21, 24, 0),
}


def test_llmeval2_labels_per_dataset() -> None:
    items = instances("llmeval2")
    assert labels("llmeval2") == {1: 1050, 2: 1021, 0: 482}
    table = {
        name: (counts[1], counts[2], counts[0])
        for name in LLMEVAL2_TABLE
        for counts in [Counter(i.label for i in items if i.category == name)]
    }
    assert table == LLMEVAL2_TABLE
    assert {i.metadata["human"]: i.label for i in items} == {"model1": 1, "model2": 2, "TIE": 0}
    assert sum(i.query == "" for i in items) == 275  # the mt-bench items
    assert items[0].id == "llmeval2:1" and items[0].metadata["line"] == 1


def test_llmeval2_eli5_shares_ids() -> None:
    eli5 = instances("llmeval2-eli5")
    assert labels("llmeval2-eli5") == {1: 77, 2: 72}
    full = {i.id: i for i in instances("llmeval2")}
    assert all(full[i.id] == i for i in eli5)
    assert {i.category for i in eli5} == {"eli5"}


# --- Prometheus -----------------------------------------------------------------------------------------


def test_hhh_pairs_order_and_rubrics() -> None:
    items = instances("prometheus-hhh")
    assert Counter(i.category for i in items) == {"harmless": 58, "helpful": 59, "honest": 61, "other": 43}
    assert labels("prometheus-hhh") == {1: 107, 2: 114}
    raw = json.loads((data_dir() / "prometheus/hhh_alignment_eval.json").read_text())
    for instance, record in zip(items, raw, strict=True):
        first = hashlib.sha256(instance.id.encode()).digest()[0] % 2 == 0
        chosen = instance.candidates[0 if first else 1]
        assert instance.label == (1 if first else 2)
        assert f"###Response to evaluate:\n{chosen}\n\n###Score Rubrics:" in record["chosen_instruction"]
        assert instance.query in record["rejected_instruction"]
    rubrics = {i.category: i.criteria for i in items}
    assert len({i.criteria for i in items}) == 4  # one rubric per subset
    harmless = rubrics["harmless"]
    assert harmless is not None
    assert harmless[0].name.startswith("Does the model's response avoid causing any potential harm")
    assert harmless[0].scale == (1, 5) and (harmless[0].guideline or "").count("\nScore ") == 4


@pytest.mark.parametrize(
    ("name", "responders", "categories"),
    [
        ("prometheus-mtbench", {"llama2_chat_13b", "chatgpt", "vicuna_13b", "wizardlm_13b"}, 8),
        ("prometheus-vicuna", {"vicuna", "chat_gpt", "wizard", "llama-2-chat"}, 9),
    ],
)
def test_rubric_sets_and_their_gpt4_scores(name: str, responders: set[str], categories: int) -> None:
    benchmark = get_benchmark(name)
    assert benchmark.kind == "pointwise" and benchmark.aspects == ("score",)
    assert "no human labels" in benchmark.labels and benchmark.reference.startswith("GPT-4")
    items = instances(name)
    assert Counter(i.metadata["response_source"] for i in items) == dict.fromkeys(responders, 80)
    assert (
        len({i.metadata["question_id"] for i in items}) == 80
        and len({i.category for i in items}) == categories
    )
    assert all(i.label is None and i.reference for i in items)
    assert all(i.criteria and i.criteria[0].guideline and i.criteria[0].scale == (1, 5) for i in items)
    sources = [s.name for s in benchmark.recorded_sources(data_dir())]
    assert sources == ["gpt-4", "gpt-4-run1", "gpt-4-run2", "gpt-4-run3"]
    scored = judgments(name, "gpt-4")
    raw = json.loads((data_dir() / benchmark.path).read_text())
    assert len(scored) == 320 and [j.id for j in scored] == [i.id for i in items]
    for item, record in zip(items, raw, strict=True):
        # The reference is GPT-4: the mean of its runs, the runs as annotators.
        assert item.scores == {"score": pytest.approx(sum(record["gpt4_score"]) / 3)}
        assert item.metadata["annotators"] == {"score": record["gpt4_score"]}
    for run in (1, 2, 3):
        single = judgments(name, f"gpt-4-run{run}")
        assert [j.scores for j in single] == [[r["gpt4_score"][run - 1]] for r in raw]
        assert [j.trace[0].raw for j in single] == [r["gpt4_feedback"][run - 1] for r in raw]
        assert {j.method for j in single} == {f"recorded:gpt-4-run{run}"}
    for judgment, record in zip(scored, raw, strict=True):
        assert judgment.status == "ok" and judgment.method == "recorded:gpt-4"
        assert [t.parsed for t in judgment.trace] == record["gpt4_score"]
        assert [t.raw for t in judgment.trace] == record["gpt4_feedback"]
        assert {t.stage for t in judgment.trace} == {"recorded:gpt-4"}
        assert judgment.scores is not None
        assert judgment.scores[0] == pytest.approx(sum(record["gpt4_score"]) / 3)


# --- corrupted copies -----------------------------------------------------------------------------------


def copy_folder(tmp_path: Path, folder: str) -> Path:
    root = tmp_path / "data"
    shutil.copytree(data_dir() / folder, root / folder)
    return root


def edit_json_list(path: Path, position: int, key: str, value: object) -> None:
    records = json.loads(path.read_text())
    if value is None:
        del records[position - 1][key]
    else:
        records[position - 1][key] = value
    write_indented_json(path, records)


def edit_jsonl(path: Path, line: int, key: str, value: object) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[line - 1])
    if value is None:
        del record[key]
    else:
        record[key] = value
    lines[line - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_bad_pandalm_vote_names_file_record_and_field(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "pandalm")
    path = root / "pandalm/testset-v1.json"
    edit_json_list(path, 12, "annotator2", "tie")
    with pytest.raises(InputError) as caught:
        get_benchmark("pandalm").instances(root)
    error = caught.value
    line = item_lines(path)[11]  # the record's line in the file, not its position
    assert (error.path, error.line, error.field) == (str(path), line, "annotator2")
    assert str(error) == f"{path}:{line}: field 'annotator2': record 12: expected one of 0, 1, 2, got 'tie'"


def test_missing_recorded_field_names_file_record_and_field(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "pandalm")
    path = root / "pandalm/pandalm-7b-testset-v1.json"
    edit_json_list(path, 5, "pandalm_reason", None)
    source = get_benchmark("pandalm").recorded_source("pandalm-7b", root)
    line = item_lines(path)[4]
    with pytest.raises(
        InputError, match=rf"pandalm-7b-testset-v1.json:{line}: field 'pandalm_reason': record 5: missing"
    ):
        list(source.load(root))


def test_bad_autoj_label_names_line_and_field(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "autoj")
    path = root / "autoj/test/testdata_pairwise.jsonl"
    edit_jsonl(path, 7, "label", 3)
    with pytest.raises(InputError) as caught:
        get_benchmark("autoj-pairwise").instances(root)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 7, "label")
    assert "expected one of 0, 1, 2, got 3" in str(caught.value)


def test_bad_faireval_label_and_misaligned_answer(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "faireval")
    review = root / "faireval/review/review_gpt35_vicuna-13b_human.txt"
    lines = review.read_text().splitlines()
    review.write_text("\n".join([*lines[:3], "DRAW", *lines[4:]]))
    with pytest.raises(InputError, match=r"review_gpt35_vicuna-13b_human.txt:4: expected CHATGPT"):
        get_benchmark("faireval").instances(root)
    review.write_text("\n".join(lines))
    answers = root / "faireval/answer/answer_vicuna-13b.jsonl"
    edit_jsonl(answers, 9, "question_id", 10)
    with pytest.raises(InputError) as caught:
        get_benchmark("faireval").instances(root)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(answers), 9, "question_id")


def test_bad_llmeval2_label(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "llmeval2")
    path = root / "llmeval2/LLMEval2_benchmark.json"
    edit_jsonl(path, 20, "human", None)
    with pytest.raises(InputError, match=r"LLMEval2_benchmark.json:20: field 'human': missing"):
        get_benchmark("llmeval2").instances(root)


def test_broken_prometheus_prompt_and_score(tmp_path: Path) -> None:
    root = copy_folder(tmp_path, "prometheus")
    hhh = root / "prometheus/hhh_alignment_eval.json"
    records = json.loads(hhh.read_text())
    edit_json_list(
        hhh, 3, "rejected_instruction", records[2]["rejected_instruction"].replace("###Response", "#R")
    )
    with pytest.raises(InputError) as caught:
        get_benchmark("prometheus-hhh").instances(root)
    assert (caught.value.path, caught.value.line, caught.value.field) == (
        str(hhh),
        item_lines(hhh)[2],
        "rejected_instruction",
    )
    assert "record 3: not a Prometheus grading prompt" in str(caught.value)
    mt = root / "prometheus/mt_bench_eval.json"
    edit_json_list(mt, 40, "gpt4_score", [4, 9, 4])
    source = get_benchmark("prometheus-mtbench").recorded_source("gpt-4", root)
    line = item_lines(mt)[39]
    with pytest.raises(
        InputError, match=rf"mt_bench_eval.json:{line}: field 'gpt4_score\[1\]': record 40: expected"
    ):
        list(source.load(root))


def test_missing_data_dir_says_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(FacetevalError, match="FACETEVAL_DATA_DIR"):
        get_benchmark("faireval").instances(tmp_path)
