"""LLMBar (Natural, Adversarial, CaseStudy) and LLMBar's processed FairEval / LLMEval^2 / MT-Bench
sets, with the recorded GPT-4, ChatGPT and LLaMA-2 judge outputs (every prompting strategy).

Instance ids are ``<benchmark>:<1-based position in dataset.json>``; ``llmbar-adversarial`` is the
four adversarial subsets in a row and keeps the subset ids (``llmbar-adversarial-neighbor:12``).

Recorded outputs (``recorded:llmbar/<judge>/<strategy>``, one per ``evaluators/<judge>/<strategy>``
folder present) are read the way LLMBar's ``evaluate.py`` scored them: the per-order results are the
two orders of the *last* dict of ``results`` (for Swap / Swap_CoT that is the synthesis step when the
first two orders disagreed), ``winner`` already in original numbering. LLMBar counted a null winner
as wrong, and two null winners as agreeing (``equal`` compares ``None == None``): with that rule the
imported orders reproduce every folder's ``statistics.json`` exactly. Here an order with a null winner
has ``verdict=None`` and the judgment is a ``parse_error``.

Rating strategies rate each output alone (0-9); LLMBar then sets the winners to ``1 if s1 > s2 else 2``
(order 1,2) and ``2 if s2 > s1 else 1`` (order 2,1), so equal ratings give disagreeing orders (a tie),
and an unreadable rating gives the fallback winners 1 / 2. Those recorded winners are kept as the
order verdicts (they are what LLMBar's statistics count); an unreadable rating makes the judgment a
``parse_error``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faceteval.core import Criterion, Instance, Judgment, OrderResult, TraceEntry
from faceteval.datasets._benchmark import Benchmark, RecordedSource, RemoteFile
from faceteval.datasets._files import Record, field, json_records, read_json
from faceteval.datasets._mtbench import MTBENCH_CRITERIA, QUESTIONS_FILE, read_questions
from faceteval.errors import InputError

_RAW = (
    "https://raw.githubusercontent.com/princeton-nlp/LLMBar/900616bff90b6c6c8e1681f7d079250637c55992/Dataset/"
)
_URL = "https://github.com/princeton-nlp/LLMBar"
_ORDERS = (("swap = False", [1, 2]), ("swap = True", [2, 1]))
_WINNERS = {"1": 1, "2": 2, None: None}
_JUDGES = {
    "GPT-4": "GPT-4 (OpenAI gpt-4, 2023)",
    "ChatGPT": "ChatGPT (OpenAI gpt-3.5-turbo, 2023)",
    "LLaMA2": "LLaMA-2-70B-Chat (meta-llama/Llama-2-70b-chat-hf)",
}
_STRATEGIES = {
    "Vanilla_NoRules": "the plain comparison prompt",
    "Vanilla": "the comparison prompt with LLMBar's rules",
    "Vanilla_1shot": "rules and one in-context example",
    "Vanilla_2shot": "rules and two in-context examples",
    "CoT": "rules, reasoning before the verdict",
    "Metrics": "rules and LLM-generated evaluation questions",
    "Reference": "rules and an LLM-generated reference output",
    "Metrics_Reference": "rules, LLM-generated evaluation questions and reference output",
    "Swap": "rules; when the two orders disagree, a synthesis step reviews both",
    "Swap_CoT": "rules, reasoning first; a synthesis step when the two orders disagree",
    "Rating_NoRules": "each output rated 0-9 alone, no rules",
    "Rating": "each output rated 0-9 alone, with rules",
    "Rating_Metrics": "0-9 ratings with rules and LLM-generated evaluation questions",
    "Rating_Reference": "0-9 ratings with rules and an LLM-generated reference output",
    "Rating_Metrics_Reference": "0-9 ratings with rules, evaluation questions and reference output",
}
_QUESTION_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+?)\s*$", re.MULTILINE)
_COUNT = re.compile(r"^(\d+) / (\d+) = [0-9.]+%$")
_STAT_KEYS = {
    "correct_False": "agreement_order1",
    "correct_True": "agreement_order2",
    "correct_both": "agreement_consistent",
    "equal": "positional_agreement",
}
_KAPPA_KEYS = {
    "kappa_False": "llmbar_kappa_order1",
    "kappa_True": "llmbar_kappa_order2",
    "kappa_average": "llmbar_kappa_order_avg",
    "kappa_agreement": "llmbar_kappa_orders",
}

_RULES = (
    "(1) You should prioritize evaluating whether the output honestly/precisely/closely executes the "
    "instruction, then consider its helpfulness, accuracy, level of detail, harmlessness, etc.\n"
    "(2) Outputs should NOT contain more/less than what the instruction asks for, as such outputs do NOT "
    "precisely execute the instruction."
)
"""LLMBar's evaluation rules, quoted from the prompt its Swap synthesis step stores in result.json."""
_AFTER = "considered after whether the output executes the instruction (LLMBar rule 1)"
LLMBAR_CRITERIA = (
    Criterion(
        name="instruction following",
        description=(
            "Whether the output honestly, precisely and closely executes the instruction, with no more "
            "and no less than it asks for; evaluated first (LLMBar rules 1-2)."
        ),
        guideline=_RULES,
    ),
    Criterion(name="helpfulness", description=f"How helpful the output is, {_AFTER}."),
    Criterion(name="accuracy", description=f"Whether the output is correct, {_AFTER}."),
    Criterion(name="level of detail", description=f"How detailed the output is, {_AFTER}."),
    Criterion(name="harmlessness", description=f"Whether the output avoids harm, {_AFTER}."),
)


@dataclass(frozen=True, slots=True)
class _Set:
    name: str
    folder: str
    """Relative to the data directory."""
    sha256: str
    category: str | None = None

    @property
    def file(self) -> RemoteFile:
        url = _RAW + self.folder.removeprefix("llmbar/").replace("^", "%5E") + "/dataset.json"
        return RemoteFile(url=url, path=f"{self.folder}/dataset.json", sha256=self.sha256)


def _adversarial(subset: str, sha256: str) -> _Set:
    return _Set(f"llmbar-adversarial-{subset.lower()}", f"llmbar/LLMBar/Adversarial/{subset}", sha256, subset)


_NATURAL = _Set(
    "llmbar-natural",
    "llmbar/LLMBar/Natural",
    "f7127b7aa78104cb8e03a2b1b3ac0077e95b125714dd441a8ee63666145a3375",
)
_ADVERSARIAL = (
    _adversarial("Neighbor", "6712c7eda6342602e0bc7c06c282fa95e2110d4e741a284026a62d937f9780a0"),
    _adversarial("GPTInst", "1002425f73c2cf54b6e6de99bce3f6c60fa2a17d13194772e37d7481c1351d42"),
    _adversarial("GPTOut", "1ff56e520d7607750a9866a3be0f5b850392ca4477a1f69d80f32bd3e310f561"),
    _adversarial("Manual", "0d9598769a39cdbbd265778c37e49939d41d5f76dcfb17bd75dcfa07516d3837"),
)
_FAIREVAL = _Set(
    "llmbar-faireval",
    "llmbar/Processed/FairEval",
    "5b4a129258c1efa273a1b10fec399f5462b458facf900e8e1948f4acb1b37dd6",
)
_LLMEVAL2 = _Set(
    "llmbar-llmeval2",
    "llmbar/Processed/LLMEval^2",
    "deffdaeccda39c0fb9337c7e20925ec2b973bfd456832c2f1ba0e9ca4cf107de",
)
_MTBENCH = _Set(
    "llmbar-mtbench",
    "llmbar/Processed/MT-Bench",
    "c152249bc095d152485954bd2abd9ea79528ee5e4c045bfe9ef78755b03c20d8",
)
_CASESTUDY = (
    ("Constraint", 89, "8b702c755bdba59f63cf61e8643a5718799df8ed8f3b93b27dbf1db0e8c3c009"),
    ("Negation", 59, "c4ce566f652606d25445efedcb01d2a359c5ce03c6457e3c518a129dbd608c4e"),
    ("Normal", 59, "f6f2c4833d57ab8aaa8aa51bf521296b6f2e26323aad5c08da5331924af450ba"),
    ("Base_9", 54, "b3989dcdaddb277207ab86631db2185edd15802e27b947a5dacb663895fddd69"),
    ("Base_10", 54, "e36ae2461fd633c51afdbe19d9f62bc77089c7efc8a58e03fc273518a78ab1b0"),
)


# ----- instances -----------------------------------------------------------------------------------


Annotate = Callable[[Record, str], tuple[str | None, dict[str, Any]]]
"""``(dataset record, input) -> (category, extra metadata)`` for one record."""


def _set_instances(root: Path, spec: _Set, annotate: Annotate | None = None) -> Iterator[Instance]:
    path = root / spec.folder / "dataset.json"
    for record in json_records(path):
        pos = record.position
        query = record.get("input", str)
        label = record.get("label", int)
        if label not in (1, 2):
            raise record.error("label", f"expected 1 or 2, got {label}")
        category, extra = annotate(record, query) if annotate else (spec.category, {})
        yield Instance(
            id=f"{spec.name}:{pos}",
            query=query,
            candidates=(record.get("output_1", str), record.get("output_2", str)),
            label=label,
            category=category,
            metadata={"llmbar_set": spec.folder.removeprefix("llmbar/"), "position": pos, **extra},
        )


def _mtbench_instances(root: Path) -> Iterator[Instance]:
    """LLMBar's MT-Bench pairs, with the MT-Bench question id and category found by the turn-1 text."""
    by_text = {q.turns[0]: q for q in read_questions(root).values()}

    def annotate(record: Record, query: str) -> tuple[str | None, dict[str, Any]]:
        question = by_text.get(query)
        if question is None:
            raise record.error("input", f"not the turn-1 text of a question in {QUESTIONS_FILE.path}")
        return question.category, {"question_id": question.question_id, "category": question.category}

    return _set_instances(root, _MTBENCH, annotate)


# ----- recorded judgments ----------------------------------------------------------------------------


def _completion(value: Any, where: str, record: Record) -> tuple[str, str | None]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
        raise record.error(where, "expected [text, finish_reason]")
    return value[0], value[1] or None


def _chatml(prompt: str) -> list[dict[str, str]]:
    messages = []
    for part in prompt.split("<|im_start|>")[1:]:
        role, _, content = part.partition("\n")
        messages.append({"role": role.strip(), "content": content.split("<|im_end|>", 1)[0].strip()})
    return messages or [{"role": "user", "content": prompt}]


def _auxiliary(strategy: str, items: Sequence[Any], record: Record) -> list[TraceEntry]:
    """The generations before the verdicts: LLM-written evaluation questions, then a reference output."""
    stages = ["metrics"] * ("Metrics" in strategy) + ["reference"] * ("Reference" in strategy)
    if len(items) != len(stages):
        expected = f"{len(stages)} generations ({', '.join(stages) or 'none'})"
        raise record.error("results", f"expected {expected} before the verdicts, got {len(items)}")
    entries = []
    for i, (stage, item) in enumerate(zip(stages, items, strict=True)):
        text, finish = _completion(item, f"results[{i}]", record)
        parsed: Any = (_QUESTION_LINE.findall(text) or None) if stage == "metrics" else text
        problem = "no numbered questions found" if parsed is None else None
        entry = TraceEntry(
            stage=f"recorded:{stage}",
            messages=[],
            raw=text,
            parsed=parsed,
            problem=problem,
            finish_reason=finish,
        )
        entries.append(entry)
    return entries


def _verdicts(
    step: Mapping[str, Any], stage: str, index: int, record: Record
) -> tuple[list[int | None], list[TraceEntry]]:
    """Both orders' winners of one ``{"swap = False": ..., "swap = True": ...}`` dict, and their trace."""
    verdicts: list[int | None] = []
    entries = []
    for key, order in _ORDERS:
        where = f"results[{index}].{key}"
        result = step.get(key)
        if not isinstance(result, dict) or result.get("winner", "") not in _WINNERS:
            raise record.error(f"{where}.winner", 'expected "1", "2" or null')
        verdict = _WINNERS[result["winner"]]
        verdicts.append(verdict)
        if "completion" not in result:  # Rating: the winners are computed from the ratings
            continue
        text, finish = _completion(result["completion"], f"{where}.completion", record)
        prompt = result.get("prompt")
        entry = TraceEntry(
            stage=f"recorded:{stage}",
            messages=_chatml(prompt) if isinstance(prompt, str) else [],
            raw=text,
            parsed=verdict,
            problem=None if verdict is not None else "LLMBar's parser found no verdict",
            order=order,
            finish_reason=finish,
        )
        entries.append(entry)
    return verdicts, entries


def _rating(text: str) -> int | None:
    """A rating as LLMBar read it (``int(text)``), or None."""
    try:
        return int(text)
    except ValueError:
        return None


def _ratings(
    step: Mapping[str, Any], index: int, record: Record
) -> tuple[list[float] | None, list[str], list[TraceEntry]]:
    """The 0-9 rating of each output (``score_1``, ``score_2``), problems, and their trace."""
    scores: list[float] = []
    problems = []
    entries = []
    for i in (1, 2):
        text, finish = _completion(step.get(f"score_{i}"), f"results[{index}].score_{i}", record)
        score = _rating(text)
        if score is None:
            problems.append(f"score_{i} {text[:40]!r} (finish_reason {finish!r}) is not an integer rating")
        else:
            scores.append(float(score))
        problem = None if score is not None else "not an integer rating"
        entry = TraceEntry(
            stage="recorded:rating",
            messages=[],
            raw=text,
            parsed=score,
            problem=problem,
            order=[i],
            finish_reason=finish,
        )
        entries.append(entry)
    return (scores if len(scores) == 2 else None), problems, entries


def _judgment(record: Record, ident: str, method: str) -> Judgment:
    results = record.get("results", list)
    steps = [(i, r) for i, r in enumerate(results) if isinstance(r, dict)]
    if not steps or steps[0][0] + len(steps) != len(results):
        raise record.error("results", "expected generations (lists) followed by verdict dicts")
    trace = _auxiliary(method.rsplit("/", 1)[-1], results[: steps[0][0]], record)
    for index, step in steps[:-1]:  # Swap: the first two orders, before the synthesis step
        trace += _verdicts(step, "verdict", index, record)[1]
    index, last = steps[-1]
    verdicts, entries = _verdicts(last, "synthesis" if len(steps) > 1 else "verdict", index, record)
    trace += entries
    scores: list[float] | None = None
    problems: list[str] = []
    if "score_1" in last:
        scores, problems, entries = _ratings(last, index, record)
        trace += entries
    orders = [
        OrderResult(order=order, verdict=v, scores=scores)
        for (_, order), v in zip(_ORDERS, verdicts, strict=True)
    ]
    problems += [
        f"order {','.join(map(str, o.order))}: the recorded output has no readable verdict"
        for o in orders
        if o.verdict is None
    ]
    if problems:
        error = "; ".join(problems)
        return Judgment(
            id=ident, method=method, status="parse_error", error=error, orders=orders, trace=trace
        )
    v1, v2 = verdicts
    return Judgment(
        id=ident,
        method=method,
        status="ok",
        verdict=v1 if v1 == v2 else 0,
        scores=scores,
        consistent=v1 == v2,
        orders=orders,
        trace=trace,
    )


def _set_judgments(root: Path, spec: _Set, judge: str, strategy: str) -> Iterator[Judgment]:
    path = root / spec.folder / "evaluators" / judge / strategy / "result.json"
    records = json_records(path)
    queries = [r.data.get("input") for r in json_records(root / spec.folder / "dataset.json")]
    if len(records) != len(queries):
        raise InputError(
            str(path), None, None, f"{len(records)} records, but dataset.json has {len(queries)}"
        )
    method = f"recorded:llmbar/{judge}/{strategy}"
    for pos, record in enumerate(records, start=1):
        if record.data.get("input") != queries[pos - 1]:
            raise record.error("input", f"differs from dataset.json record {pos}")
        yield _judgment(record, f"{spec.name}:{pos}", method)


def _statistics(path: Path) -> tuple[dict[str, float], dict[str, tuple[int, int]]]:
    """The fractions of a statistics.json, and the counts (hits, n) behind its count-valued keys."""
    stats = read_json(path)
    if not isinstance(stats, dict):
        raise InputError(str(path), None, None, "expected a JSON object")
    found: dict[str, float] = {}
    counts: dict[str, tuple[int, int]] = {}
    for key, name in _STAT_KEYS.items():
        value = field(stats, key, str, path=path, line=None)
        match = _COUNT.match(value)
        if match is None:
            raise InputError(
                str(path), None, key, f'expected "<count> / <total> = <percent>%", got {value!r}'
            )
        counts[name] = (int(match[1]), int(match[2]))
        found[name] = counts[name][0] / counts[name][1]
    average = field(stats, "correct_average", str, path=path, line=None)
    try:
        found["accuracy_order_avg"] = float(average.removesuffix("%")) / 100
    except ValueError:
        raise InputError(
            str(path), None, "correct_average", f'expected "<percent>%", got {average!r}'
        ) from None
    for key, name in _KAPPA_KEYS.items():
        if key in stats:
            found[name] = float(field(stats, key, (int, float), path=path, line=None))
    return found, counts


def _reported(sets: Sequence[_Set], judge: str, strategy: str) -> Callable[[Path], dict[str, float]]:
    def reported(root: Path) -> dict[str, float]:
        stats = [
            _statistics(root / s.folder / "evaluators" / judge / strategy / "statistics.json") for s in sets
        ]
        if len(stats) == 1:
            return stats[0][0]
        # Several subsets judged as one set: their published counts pooled. (The LLMBar paper's
        # Adversarial column is instead the plain mean of the subsets; per-subset numbers are in
        # each subset's own recorded source.)
        pooled = {
            key: (sum(c[key][0] for _, c in stats), sum(c[key][1] for _, c in stats))
            for key in _STAT_KEYS.values()
        }
        found = {key: hits / n for key, (hits, n) in pooled.items()}
        first, second = pooled["agreement_order1"], pooled["agreement_order2"]
        found["accuracy_order_avg"] = (first[0] + second[0]) / (first[1] + second[1])
        return found

    return reported


def _source(sets: Sequence[_Set], judge: str, strategy: str) -> RecordedSource:
    how = _STRATEGIES.get(strategy, f"the {strategy} strategy")
    if len(sets) > 1:
        how += "; the four subsets' outputs in a row, reported numbers are their published counts pooled"
    return RecordedSource(
        name=f"llmbar/{judge}/{strategy}",
        judge=_JUDGES.get(judge, judge),
        description=f"LLMBar's recorded {judge} judgments, both orders, {how}",
        load=lambda root: (j for s in sets for j in _set_judgments(root, s, judge, strategy)),
        reported=_reported(sets, judge, strategy),
    )


def _discover(sets: Sequence[_Set]) -> Callable[[Path], tuple[RecordedSource, ...]]:
    def recorded(root: Path) -> tuple[RecordedSource, ...]:
        common: set[tuple[str, str]] | None = None
        for spec in sets:
            found = {
                (p.parent.parent.name, p.parent.name)
                for p in (root / spec.folder).glob("evaluators/*/*/result.json")
            }
            common = found if common is None else common & found
        rank = {name: i for i, name in enumerate([*_JUDGES, *_STRATEGIES])}
        ordered = sorted(
            common or (), key=lambda js: (rank.get(js[0], 99), js[0], rank.get(js[1], 99), js[1])
        )
        return tuple(_source(sets, judge, strategy) for judge, strategy in ordered)

    return recorded


# ----- the benchmarks ----------------------------------------------------------------------------------


def _benchmark(
    sets: Sequence[_Set],
    title: str,
    size: int,
    *,
    name: str | None = None,
    folder: str | None = None,
    criteria: tuple[Criterion, ...] = LLMBAR_CRITERIA,
    load: Callable[[Path], Iterator[Instance]] | None = None,
    license: str = "MIT License (LLMBar)",
    also_fetch: tuple[RemoteFile, ...] = (),
    notes: str = "",
) -> Benchmark:
    return Benchmark(
        name=name or sets[0].name,
        title=title,
        kind="pairwise",
        labels="better output 1/2, no ties",
        license=license,
        path=folder or sets[0].folder,
        load=load or (lambda root: (i for s in sets for i in _set_instances(root, s))),
        size=size,
        url=_URL,
        criteria=criteria,
        recorded=_discover(sets),
        fetch=(*(s.file for s in sets), *also_fetch),
        notes=notes,
    )


_NOTES = (
    "Criteria: LLMBar's evaluation rules, quoted from its prompts. Recorded judges: every "
    "evaluators/<judge>/<strategy> folder present; fetch lists the dataset files only (the evaluator "
    "outputs are in the same repository commit under Dataset/.../evaluators/)."
)
_PROCESSED = "MIT License (LLMBar); derived from {} human judgments, whose own terms apply"

BENCHMARKS: tuple[Benchmark, ...] = (
    _benchmark(
        [_NATURAL],
        "LLMBar Natural: instruction-following output pairs from existing preference data",
        100,
        notes=_NOTES,
    ),
    _benchmark(
        _ADVERSARIAL,
        "LLMBar Adversarial: pairs where the worse output looks better (Neighbor, GPTInst, GPTOut, Manual)",
        319,
        name="llmbar-adversarial",
        folder="llmbar/LLMBar/Adversarial",
        notes=_NOTES + " Instance ids are the subsets' ids; category is the subset.",
    ),
    _benchmark([_ADVERSARIAL[0]], "LLMBar Adversarial, Neighbor subset", 134, notes=_NOTES),
    _benchmark([_ADVERSARIAL[1]], "LLMBar Adversarial, GPTInst subset", 92, notes=_NOTES),
    _benchmark([_ADVERSARIAL[2]], "LLMBar Adversarial, GPTOut subset", 47, notes=_NOTES),
    _benchmark([_ADVERSARIAL[3]], "LLMBar Adversarial, Manual subset", 46, notes=_NOTES),
    _benchmark(
        [_FAIREVAL],
        "FairEval as processed by LLMBar: the 66 non-tie ChatGPT vs Vicuna-13B questions",
        66,
        criteria=(),
        license=_PROCESSED.format("FairEval"),
    ),
    _benchmark(
        [_LLMEVAL2],
        "LLMEval^2 as processed by LLMBar: 200 non-tie English items",
        200,
        criteria=(),
        license=_PROCESSED.format("LLMEval^2"),
        notes="One record has identical outputs and one has an empty field (kept as is).",
    ),
    _benchmark(
        [_MTBENCH],
        "MT-Bench as processed by LLMBar: 200 non-tie turn-1 pairs, majority human vote",
        200,
        criteria=MTBENCH_CRITERIA,
        load=_mtbench_instances,
        license=_PROCESSED.format("MT-Bench") + "; questions Apache-2.0 (FastChat)",
        also_fetch=(QUESTIONS_FILE,),
        notes=(
            "category and metadata question_id/category come from matching the input to "
            "mt_bench/question.jsonl turns[0] (all 200 match); model names were not kept."
        ),
    ),
    *(
        _benchmark(
            [_Set(f"llmbar-casestudy-{case.lower().replace('_', '-')}", f"llmbar/CaseStudy/{case}", sha256)],
            f"LLMBar case study set {case}",
            size,
            notes="No recorded judge outputs are staged for the case study sets.",
        )
        for case, size, sha256 in _CASESTUDY
    ),
)
