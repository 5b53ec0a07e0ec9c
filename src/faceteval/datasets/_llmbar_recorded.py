"""LLMBar's folders and the judge outputs recorded in them: every ``evaluators/<judge>/<strategy>``.

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

from faceteval._util.files import read_json
from faceteval._util.records import Record, field, json_records
from faceteval._util.text import plural
from faceteval.core import Judgment, OrderResult, TraceEntry
from faceteval.datasets._benchmark import RecordedSource, RemoteFile
from faceteval.errors import InputError

_RAW = (
    "https://raw.githubusercontent.com/princeton-nlp/LLMBar/900616bff90b6c6c8e1681f7d079250637c55992/Dataset/"
)
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


@dataclass(frozen=True, slots=True)
class LlmbarSet:
    """One LLMBar folder: its ``dataset.json`` and the ``evaluators/`` outputs beside it."""

    name: str
    """The benchmark whose ids its instances take (``<name>:<position>``)."""
    folder: str
    """Relative to the data directory."""
    sha256: str
    category: str | None = None

    @property
    def file(self) -> RemoteFile:
        """Its ``dataset.json`` at the pinned LLMBar commit, for ``faceteval datasets fetch``."""
        url = _RAW + self.folder.removeprefix("llmbar/").replace("^", "%5E") + "/dataset.json"
        return RemoteFile(url=url, path=f"{self.folder}/dataset.json", sha256=self.sha256)


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
        expected = f"{plural(len(stages), 'generation')} ({', '.join(stages) or 'none'})"
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


def _set_judgments(root: Path, spec: LlmbarSet, judge: str, strategy: str) -> Iterator[Judgment]:
    path = root / spec.folder / "evaluators" / judge / strategy / "result.json"
    records = json_records(path)
    queries = [r.data.get("input") for r in json_records(root / spec.folder / "dataset.json")]
    if len(records) != len(queries):
        raise InputError(
            str(path), None, None, f"{plural(len(records), 'record')}, but dataset.json has {len(queries):,}"
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


def _reported(sets: Sequence[LlmbarSet], judge: str, strategy: str) -> Callable[[Path], dict[str, float]]:
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


def _source(sets: Sequence[LlmbarSet], judge: str, strategy: str) -> RecordedSource:
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


def discover(sets: Sequence[LlmbarSet]) -> Callable[[Path], tuple[RecordedSource, ...]]:
    """The recorded judges of ``sets`` judged as one: each judge and strategy present in every folder."""

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
