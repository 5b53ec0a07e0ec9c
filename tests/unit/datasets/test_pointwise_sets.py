"""SummEval, the UniEval sets, CoEval: SOURCE.md counts, recorded ChatGPT, the numbers CoEval ships."""

import hashlib
import json
import os
import re
import shutil
from collections import Counter
from functools import cache
from pathlib import Path
from statistics import fmean

import pytest

from faceteval.core import Instance, Judgment
from faceteval.datasets import Benchmark, _coeval, _summeval, _unieval, get_benchmark
from faceteval.datasets._coeval_recorded import CoevalAction, coeval_actions
from faceteval.errors import FacetevalError, InputError
from tests.support.files import item_lines, write_indented_json

BENCHMARKS = (*_summeval.BENCHMARKS, *_unieval.BENCHMARKS, *_coeval.BENCHMARKS)

NAMES = (
    "summeval",
    "topical-chat",
    "sfres",
    "sfhot",
    "qags-cnndm",
    "qags-xsum",
    "coeval-eli5",
    "coeval-rocstories",
    "coeval-selfinstruct",
)
COEVAL = ("coeval-eli5", "coeval-rocstories", "coeval-selfinstruct")
COEVAL_FILES = {  # benchmark -> (folder, file prefix, key in combine_data.json)
    "coeval-eli5": ("ELI5", "eli5", "eli5"),
    "coeval-rocstories": ("ROCStories", "roc", "roc"),
    "coeval-selfinstruct": ("Self-Instruct", "self_instruct", "self_instruct"),
}


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
def chatgpt(name: str) -> list[Judgment]:
    return list(get_benchmark(name).recorded_source("chatgpt", data_dir()).load(data_dir()))


@cache
def actions(name: str) -> list[CoevalAction]:
    return coeval_actions(data_dir(), name)


def coeval_file(name: str, part: str) -> dict:
    folder, prefix, _ = COEVAL_FILES[name]
    return json.loads((data_dir() / f"coeval/evaluation_data/{folder}/{prefix}_{part}.json").read_text())


def key_text(name: str, criterion: str, description: str) -> str:
    """How the files write a criterion (after its number): ELI5's are bare sentences."""
    return description if name == "coeval-eli5" else f"{criterion}: {description}"


# --- every benchmark ------------------------------------------------------------------------------------


def test_all_registered_in_order() -> None:
    assert tuple(b.name for b in BENCHMARKS) == NAMES
    assert all(get_benchmark(name) is b for name, b in zip(NAMES, BENCHMARKS, strict=True))


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_size_ids_scores_and_keys(benchmark: Benchmark) -> None:
    items = instances(benchmark.name)
    assert benchmark.kind == "pointwise"
    assert len(items) == benchmark.size
    assert len({i.id for i in items}) == len(items)
    assert all(i.id.startswith(f"{benchmark.name}:") for i in items)
    assert (data_dir() / benchmark.path).exists()
    assert all(i.n_candidates == 1 and i.query and i.task for i in items)
    assert benchmark.criteria and benchmark.aspects
    scales = {c.name: c.scale for c in benchmark.criteria}
    scales.setdefault("overall", (1, 6) if benchmark.name in ("sfres", "sfhot") else (1, 5))  # no criterion
    for item in items:
        assert item.scores is not None and tuple(item.scores) == benchmark.aspects
        for key in (benchmark.group_by, benchmark.system_by):
            assert key is None or key in item.metadata
    for aspect in benchmark.aspects:
        values = [i.scores[aspect] for i in items if i.scores]
        low, high = scales[aspect] or (0, 0)
        assert low <= min(values) and max(values) <= high, aspect
        assert benchmark.name in COEVAL or (min(values), max(values)) == (low, high)  # SOURCE.md ranges


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_fetch_lists_the_staged_files_with_their_hashes(benchmark: Benchmark) -> None:
    assert benchmark.fetch
    assert benchmark.path in {remote.path for remote in benchmark.fetch}
    for remote in benchmark.fetch:
        assert remote.url.startswith("https://raw.githubusercontent.com/")
        assert remote.url.endswith(remote.path.split("/", 1)[1])
        digest = hashlib.sha256((data_dir() / remote.path).read_bytes()).hexdigest()
        assert digest == remote.sha256, remote.path


# --- SummEval -------------------------------------------------------------------------------------------


def test_summeval_counts_and_distribution() -> None:
    items = instances("summeval")
    assert Counter(i.metadata["doc_id"] for i in items) == {f"A{k}": 16 for k in range(100)}
    assert Counter(i.metadata["system"] for i in items) == {f"S{k}": 100 for k in range(16)}
    assert sum(i.scores["fluency"] == 5 for i in items) == 1150  # SOURCE.md
    assert sum(i.scores["consistency"] == 5 for i in items) == 1306
    assert all(abs(v * 3 - round(v * 3)) < 1e-6 for i in items for v in i.scores.values())  # means of 3
    assert items[0].id == "summeval:A0:S0" and items[0].reference is None
    assert [c.name for c in get_benchmark("summeval").criteria] == list(get_benchmark("summeval").aspects)
    texts = Counter((i.metadata["doc_id"], i.candidates[0]) for i in items)
    assert (
        len({doc for (doc, _), n in texts.items() if n > 1}) == 37
    )  # SOURCE.md: articles with a duplicated summary text


def test_summeval_position_names_the_same_system_in_every_article() -> None:
    """The only outputs that keep their case are S8 and S12, in all 100 articles: positions are systems."""
    cased = Counter(
        i.metadata["system"] for i in instances("summeval") if i.candidates[0] != i.candidates[0].lower()
    )
    assert cased == {"S8": 100, "S12": 100}


# --- UniEval sets ---------------------------------------------------------------------------------------


def test_topical_chat_contexts_systems_and_facts() -> None:
    items = instances("topical-chat")
    assert Counter(i.metadata["context_id"] for i in items) == {k: 6 for k in range(1, 61)}
    assert Counter(i.metadata["system"] for i in items) == {
        name: 60
        for name in (
            "Original Ground Truth",
            "New Human Generated",
            "Argmax Decoding",
            "Nucleus Decoding (p = 0.3)",
            "Nucleus Decoding (p = 0.5)",
            "Nucleus Decoding (p = 0.7)",
        )
    }
    assert len({i.metadata["fact"] for i in items}) == 50 and all(i.reference is None for i in items)
    first = items[0]
    assert first.id == "topical-chat:1" and first.metadata["system"] == "Original Ground Truth"
    assert first.scores == pytest.approx(
        {"naturalness": 3, "coherence": 7 / 3, "engagingness": 3, "groundedness": 2 / 3}
        | {"understandability": 1, "overall": 14 / 3}
    )
    assert [c.name for c in get_benchmark("topical-chat").criteria] == list(
        get_benchmark("topical-chat").aspects[:5]
    )


@pytest.mark.parametrize(("name", "mrs", "duplicates"), [("sfres", 580, 38), ("sfhot", 398, 34)])
def test_data_to_text_sets(name: str, mrs: int, duplicates: int) -> None:
    items = instances(name)
    assert max(i.metadata["mr_id"] for i in items) == len({i.query for i in items}) == mrs
    pairs = Counter((i.query, i.candidates[0]) for i in items)
    assert sum(n - 1 for n in pairs.values()) == duplicates  # SOURCE.md: duplicate (source, output) pairs
    assert all(i.reference for i in items)
    assert all((v * 2).is_integer() for i in items for v in i.scores.values())  # half steps
    assert [i.id for i in items[:2]] == [f"{name}:0", f"{name}:1"]


@pytest.mark.parametrize(("name", "values"), [("qags-cnndm", 4), ("qags-xsum", 2)])
def test_qags_sets(name: str, values: int) -> None:
    items = instances(name)
    scores = {round(i.scores["consistency"] * 3) / 3 for i in items}
    assert len(scores) == values  # CNNDM: mean of 3 binary votes; XSum: 0 or 1
    assert all(i.reference is None and i.metadata["doc_id"] == int(i.id.split(":")[1]) for i in items)


# --- CoEval ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "n_criteria"), [("coeval-eli5", 5), ("coeval-rocstories", 7), ("coeval-selfinstruct", 5)]
)
def test_coeval_outputs_criteria_and_annotators(name: str, n_criteria: int) -> None:
    items, benchmark = instances(name), get_benchmark(name)
    assert Counter(i.metadata["system"] for i in items) == {
        "turbo": 50,
        "davinci_002": 50,
        "curie_001": 50,
        "human": 50,
    }
    assert len({i.metadata["question_id"] for i in items}) == 50
    assert len(benchmark.criteria) == n_criteria and all(
        c.description and c.scale == (1, 5) for c in benchmark.criteria
    )
    assert all(i.criteria == benchmark.criteria for i in items)
    combined = json.loads((data_dir() / "coeval/data/combine_data.json").read_text())[COEVAL_FILES[name][2]]
    assert {i.task for i in items} == set(combined["task_info"])
    assert [f"{k}. " for k in range(1, n_criteria + 1)] == [c[:3] for c in combined["criteria"]]
    assert [c[3:] for c in combined["criteria"]] == [
        key_text(name, c.name, c.description) for c in benchmark.criteria
    ]
    raw = coeval_file(name, "annotator_scores")
    for item in items:
        assert sum(len(v) == 5 for v in item.metadata["annotators"].values()) == n_criteria  # 5 per criterion
        assert item.scores == {k: fmean(v) for k, v in item.metadata["annotators"].items()}
        source = raw[item.query][item.metadata["system"]]
        assert source["prediction"] == item.candidates[0]
        for criterion, key in zip(benchmark.criteria, combined["criteria"], strict=True):
            expected = [source[key][a] for a in item.metadata["annotator_ids"]]
            assert item.metadata["annotators"][criterion.name] == expected


def test_coeval_rocstories_length_is_scored_1_or_5_by_humans() -> None:
    votes = Counter(v for i in instances("coeval-rocstories") for v in i.metadata["annotators"]["Length"])
    assert votes == {1: 385, 5: 615}


@pytest.mark.parametrize("name", COEVAL)
def test_coeval_chatgpt_judgments_join_and_carry_facets(name: str) -> None:
    items, judged = instances(name), chatgpt(name)
    benchmark = get_benchmark(name)
    assert [j.id for j in judged] == [i.id for i in items]
    assert Counter(j.status for j in judged) == {"ok": 200}
    raw = coeval_file(name, "annotator_scores")
    combined = json.loads((data_dir() / "coeval/data/combine_data.json").read_text())[COEVAL_FILES[name][2]]
    for item, judgment in zip(items, judged, strict=True):
        assert (
            judgment.method == "recorded:chatgpt" and judgment.verdict is None and judgment.usage.calls == 0
        )
        assert [f.name for f in judgment.facets] == list(benchmark.aspects)
        source = raw[item.query][item.metadata["system"]]
        assert [f.scores for f in judgment.facets] == [[source[k]["chatgpt"]] for k in combined["criteria"]]
        assert judgment.scores == [pytest.approx(fmean(f.scores[0] for f in judgment.facets))]
        assert all(f.explanation for f in judgment.facets)
        assert judgment.trace[-1].stage == "recorded:overall" and "mean" in judgment.trace[-1].raw


@pytest.mark.parametrize(
    ("name", "agree", "stated"),
    [("coeval-eli5", 999, 1000), ("coeval-rocstories", 1400, 1400), ("coeval-selfinstruct", 960, 998)],
)
def test_coeval_chatgpt_scores_match_their_texts_as_source_md_counts(
    name: str, agree: int, stated: int
) -> None:
    """SOURCE.md: the 'chatgpt' score equals the one its text states in 979/980 ELI5, 1400/1400 ROC, 960/998
    Self-Instruct. It joined on the input text, which misses the ELI5 input whose copy in combine_data.json
    lost its first characters ("k haired people..."): its 4 outputs x 5 criteria make 999/1000 here."""
    entries = [e for j in chatgpt(name) for e in j.trace if e.stage != "recorded:overall"]
    facets = [f for j in chatgpt(name) for f in j.facets]
    assert len(entries) == len(facets) == 200 * len(get_benchmark(name).criteria)
    read = [(e.parsed, f.scores[0]) for e, f in zip(entries, facets, strict=True) if e.parsed is not None]
    assert (sum(p == s for p, s in read), len(read)) == (agree, stated)
    assert sum(e.problem is not None for e in entries) == len(entries) - agree
    if name == "coeval-eli5":
        typo = {i.id for i in instances(name) if i.query.startswith("dark haired")}
        kept = [
            (e.parsed, f.scores[0])
            for j in chatgpt(name)
            if j.id not in typo
            for e, f in zip(j.trace, j.facets, strict=False)
            if e.parsed is not None
        ]
        assert (sum(p == s for p, s in kept), len(kept)) == (979, 980)


@pytest.mark.parametrize("name", COEVAL)
def test_coeval_score_change_files_are_reproduced(name: str) -> None:
    """CoEval's <task>_score_change.json: per criterion, how many final human scores rose above, fell below or
    kept ChatGPT's. 'improve' and 'decrease' match exactly; 'unchange' is 200 higher in the file (one more
    unchanged comparison per output: ChatGPT's own score counted as a rater)."""
    published = coeval_file(name, "score_change")
    keys = json.loads((data_dir() / "coeval/data/combine_data.json").read_text())[COEVAL_FILES[name][2]][
        "criteria"
    ]
    names = dict(zip(get_benchmark(name).aspects, keys, strict=True))
    counted = Counter((a.criterion, a.change) for a in actions(name))
    assert published.pop("prediction") == {"improve": 0, "decrease": 0, "unchange": 0}
    assert set(published) == set(keys)
    for criterion, key in names.items():
        assert published[key]["improve"] == counted[criterion, "improve"]
        assert published[key]["decrease"] == counted[criterion, "decrease"]
        assert published[key]["unchange"] == counted[criterion, "unchange"] + 200


@pytest.mark.parametrize("name", COEVAL)
def test_coeval_action_rates_are_reproduced(name: str) -> None:
    """CoEval's <task>_criteria_to_action.json: the share of each action among the sentence-level actions of
    a criterion, written "0.87%" for 0.87 (two decimals)."""
    published = coeval_file(name, "criteria_to_action")
    per_criterion: dict[str, Counter[str]] = {}
    for record in actions(name):
        per_criterion.setdefault(record.criterion, Counter()).update(record.actions)
    by_key = {key_text(name, c.name, c.description): c.name for c in get_benchmark(name).criteria}
    logged = {by_key[key[3:]]: rates for key, rates in published.items()}
    assert set(logged) == set(get_benchmark(name).aspects)
    if name == "coeval-rocstories":  # no actions were logged for Length: its row comes from the score changes
        length = logged.pop("Length")
        changes = Counter(r.change for r in actions(name) if r.criterion == "Length")
        total = 1000 + 200  # ChatGPT counted as a rater, as in the score_change file
        changed, kept = changes["improve"] + changes["decrease"], changes["unchange"] + 200
        assert length["pass"] == f"{changed / total:.2f}%" and length["revise"] == f"{kept / total:.2f}%"
        assert length["delete"] == length["add"] == "0.00%"
    for criterion, rates in logged.items():
        counts = per_criterion[criterion]
        total = sum(counts.values())
        assert {a: f"{counts[a] / total:.2f}%" for a in ("pass", "delete", "revise", "add")} == rates


@pytest.mark.parametrize(
    ("name", "records", "counts"),
    [
        ("coeval-eli5", 5000, {"pass": 17651, "revise": 3177, "delete": 783, "add": 137}),
        ("coeval-rocstories", 7000, {"pass": 34450, "revise": 895, "delete": 401, "add": 127}),
        ("coeval-selfinstruct", 5000, {"pass": 26625, "revise": 1453, "delete": 858, "add": 165}),
    ],
)
def test_coeval_actions_counts(name: str, records: int, counts: dict[str, int]) -> None:
    logged = actions(name)
    assert len(logged) == records  # 200 outputs x criteria x 5 annotators
    assert Counter(a for record in logged for a in record.actions) == counts
    instance_ids = {i.id for i in instances(name)}
    assert {record.id for record in logged} == instance_ids
    by_output = {(i.id, c): v for i in instances(name) for c, v in i.metadata["annotators"].items()}
    annotators = instances(name)[0].metadata["annotator_ids"]
    assert all(by_output[r.id, r.criterion][annotators.index(r.annotator)] == r.score for r in logged)
    if name == "coeval-rocstories":
        assert {r.actions for r in logged if r.criterion == "Length"} == {()}
        assert all(r.actions for r in logged if r.criterion != "Length")


def test_coeval_actions_unknown_task() -> None:
    with pytest.raises(
        FacetevalError,
        match=r"unknown CoEval task 'eli5' \(did you mean 'coeval-eli5'\?\); one of coeval-eli5",
    ):
        coeval_actions(data_dir(), "eli5")


# --- broken copies --------------------------------------------------------------------------------------


def copy_files(tmp_path: Path, *paths: str) -> Path:
    root = tmp_path / "data"
    for path in paths:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_dir() / path, target)
        target.chmod(0o644)
    return root


def test_bad_summeval_line_names_file_line_and_field(tmp_path: Path) -> None:
    root = copy_files(tmp_path, "summeval/summeval.jsonl")
    path = root / "summeval/summeval.jsonl"
    lines = path.read_text().splitlines()
    record = json.loads(lines[6])
    record["fluency"] = "high"
    lines[6] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        get_benchmark("summeval").instances(root)
    assert (caught.value.path, caught.value.line, caught.value.field) == (str(path), 7, "fluency")
    assert "expected int or float, got str" in str(caught.value)


def test_bad_unieval_record_names_file_record_and_nested_field(tmp_path: Path) -> None:
    root = copy_files(tmp_path, "unieval/data/data2text/sfres.json")
    path = root / "unieval/data/data2text/sfres.json"
    records = json.loads(path.read_text())
    del records[11]["scores"]["naturalness"]
    records[20]["scores"]["overall"] = 7.0
    write_indented_json(path, records)
    with pytest.raises(InputError) as caught:
        get_benchmark("sfres").instances(root)
    line = item_lines(path)[11]  # the record's line in the file, not its position
    assert (caught.value.path, caught.value.line, caught.value.field) == (
        str(path),
        line,
        "scores.naturalness",
    )
    assert str(caught.value) == f"{path}:{line}: field 'scores.naturalness': record 12: missing"
    records[11]["scores"]["naturalness"] = 3.0
    write_indented_json(path, records)
    line = item_lines(path)[20]
    expected = rf"sfres.json:{line}: field 'scores.overall': record 21: expected a score in \[1, 6\], got 7.0"
    with pytest.raises(InputError, match=expected):
        get_benchmark("sfres").instances(root)


def test_unieval_file_of_the_wrong_shape(tmp_path: Path) -> None:
    root = copy_files(tmp_path, "unieval/data/fact/qags_xsum.json")
    path = root / "unieval/data/fact/qags_xsum.json"
    path.write_text(json.dumps({"records": []}))
    with pytest.raises(InputError, match="expected a JSON list of records, got dict"):
        get_benchmark("qags-xsum").instances(root)
    write_indented_json(path, [{"doc_id": 0}, "oops"])
    line = item_lines(path)[1]
    with pytest.raises(
        InputError, match=rf"qags_xsum.json:{line}: record 2: expected a JSON object, got str"
    ):
        get_benchmark("qags-xsum").instances(root)
    write_indented_json(path, [{"doc_id": 0}])
    with pytest.raises(InputError, match=r"qags_xsum.json:2: field 'source': record 1: missing"):
        get_benchmark("qags-xsum").instances(root)


ELI5_SCORES = "coeval/evaluation_data/ELI5/eli5_annotator_scores.json"
ELI5_ACTIONS = "coeval/evaluation_data/ELI5/eli5_action.json"
COMBINED = "coeval/data/combine_data.json"
CRITERION = "2. Use examples or analogies that are relatable to a five-year-old’s experience."


def test_bad_coeval_score_names_file_input_and_field(tmp_path: Path) -> None:
    root = copy_files(tmp_path, ELI5_SCORES)
    path = root / ELI5_SCORES
    data = json.loads(path.read_text())
    third = list(data)[2]
    data[third]["human"][CRITERION]["A03"] = 6
    write_indented_json(path, data)
    with pytest.raises(InputError) as caught:
        get_benchmark("coeval-eli5").instances(root)
    assert (caught.value.path, caught.value.line) == (str(path), item_lines(path)[2])
    assert caught.value.field == f"human.{CRITERION}.A03"
    assert "input 3: expected an integer score 1-5, got 6" in str(caught.value)
    del data[third]["human"][CRITERION]["A03"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="input 3: missing"):
        get_benchmark("coeval-eli5").instances(root)


def test_coeval_recorded_needs_combine_data_and_checks_the_join(tmp_path: Path) -> None:
    root = copy_files(tmp_path, ELI5_SCORES)
    assert get_benchmark("coeval-eli5").recorded_sources(root) == []
    root = copy_files(tmp_path, ELI5_SCORES, COMBINED)
    path = root / COMBINED
    data = json.loads(path.read_text())
    data["eli5"]["target"][5] = "a different answer"
    path.write_text(json.dumps(data))
    source = get_benchmark("coeval-eli5").recorded_source("chatgpt", root)
    with pytest.raises(InputError, match=r"field 'eli5.target': no output of \w+ for input 2 matching"):
        list(source.load(root))
    data = json.loads((data_dir() / COMBINED).read_text())
    data["eli5"]["criteria_kv"][CRITERION][7] = None
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"field 'eli5.criteria_kv.2. Use examples .*\[7\]': expected str"):
        list(source.load(root))


def test_bad_coeval_action_names_the_field(tmp_path: Path) -> None:
    root = copy_files(tmp_path, ELI5_SCORES, ELI5_ACTIONS)
    path = root / ELI5_ACTIONS
    data = json.loads(path.read_text())
    data[list(data)[1]]["turbo"][CRITERION]["A02"] = ["pass", "approve"]
    write_indented_json(path, data)
    with pytest.raises(InputError) as caught:
        coeval_actions(root, "coeval-eli5")
    assert (caught.value.line, caught.value.field) == (item_lines(path)[1], f"turbo.{CRITERION}.A02")
    assert re.search(
        r"input 2: expected actions among \['add', 'delete', 'pass', 'revise'\]", str(caught.value)
    )


def test_missing_data_dir_says_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(FacetevalError, match="FACETEVAL_DATA_DIR"):
        get_benchmark("topical-chat").instances(tmp_path)
