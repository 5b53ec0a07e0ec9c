"""Fennec's training data: judgments and corrections as chat-format SFT sets (Section 4.1, Table 6).

Each step of the branching workflow becomes one supervised set: the prompt the step is asked with
(its Table 7 system message and Table 9 user message), then the reply a judge model should learn to
give. One record per line, ``{"messages": [system, user, assistant]}``, the format TRL's SFTTrainer
takes:

- D_criteria (``criteria.jsonl``): the criteria prompt -> the numbered criteria, once per query whose
  criteria were generated (predefined criteria were never the judge's reply);
- D_score (``score.jsonl``): the guideline prompt -> the scoring guideline, once per query and criterion;
- D_judge (``judge.jsonl``): the pairwise prompt, responses in the order shown -> the judge result
  (``Response A Score: 4`` / ``Explanation: ...`` / ... / ``Comparison: ...``), per criterion and
  order; or the single-eval prompt -> ``Response Score: 4`` / ``Explanation: ...`` per response;
- D_correction (``correction.jsonl``): the correction prompt -> the corrected response, for each
  response `faceteval correct` corrected.

Pairwise samples are swap-augmented (Section 4.1): a judgment made in one order gains the swapped
sample (responses, scores and explanations exchanged, and the labels named in the texts exchanged),
and a judgment made in both orders gives each order's own sample. A criterion whose preferred response
(or tie) differs between the orders is swap-inconsistent: its samples are dropped, as the paper filters
samples whose predictions are inconsistent. Failed judgments are skipped; identical samples (for
criteria and guidelines: the same prompt) are written once.

Deviations: judge replies are rebuilt from the parsed scores and texts in the format the prompts ask
for, not copied from the raw replies; a criterion judgment without a score, an explanation, a
comparison or a guideline gives no sample. With more than two responses, the augmented sample shows
them in reverse order. Predefined criteria with their own guideline still give D_score samples.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from faceteval.core import FacetScore, Instance, Judgment
from faceteval.datasets import judged_instances, read_judgments, run_record
from faceteval.datasets._files import read_jsonl
from faceteval.datasets._judged import changed_since, why_missing
from faceteval.errors import FacetevalError, InputError
from faceteval.methods.fennec._judged import either, per_criterion_methods
from faceteval.methods.fennec._method import response_labels
from faceteval.parsing._numbers import fmt
from faceteval.prompts import render
from faceteval.store import RunFiles

__all__ = [
    "SET_FILES",
    "SFT_SETS",
    "STATS_FILE",
    "Correction",
    "Repeats",
    "Sample",
    "SftData",
    "SftSet",
    "SftStats",
    "build_sft",
    "export_sft",
    "preference",
    "read_corrections",
    "swap_labels",
    "write_sft",
]

SftSet = Literal["criteria", "score", "judge", "correction"]
SFT_SETS: tuple[SftSet, ...] = ("criteria", "score", "judge", "correction")
SET_FILES: Mapping[SftSet, str] = {
    "criteria": "criteria.jsonl",
    "score": "score.jsonl",
    "judge": "judge.jsonl",
    "correction": "correction.jsonl",
}
STATS_FILE = "stats.json"

Chat = tuple[tuple[str, str], ...]
"""Messages as ``(role, content)`` pairs."""

_LABEL = re.compile(r"\b(Response|response|RESPONSE) ([A-Za-z])\b")


@dataclass(frozen=True, slots=True)
class Sample:
    """One training conversation: the prompt's messages, then the reply to learn.

    Attributes:
        messages: ``(role, content)`` pairs: system, user, then assistant.
        augmented: Made by swapping the responses of a judgment made in one order (not compared).
    """

    messages: Chat
    augmented: bool = field(default=False, compare=False)

    @property
    def prompt(self) -> Chat:
        """The messages before the reply."""
        return self.messages[:-1]

    def to_record(self) -> dict[str, list[dict[str, str]]]:
        """The sample as one JSONL record: ``{"messages": [{"role", "content"}, ...]}``."""
        return {"messages": [{"role": role, "content": content} for role, content in self.messages]}


class Repeats:
    """Which chats were seen, and how many came again: how a training set leaves out repeats.

    Attributes:
        seen: Every chat seen.
        count: Chats seen again (the repeats left out).

    Examples:
        >>> repeats = Repeats()
        >>> chat = (("user", "Hi"), ("assistant", "Hello"))
        >>> repeats.first(chat), repeats.first(chat), repeats.count
        (True, False, 1)
    """

    __slots__ = ("count", "seen")

    def __init__(self) -> None:
        self.seen: set[Chat] = set()
        self.count = 0

    def first(self, chat: Chat) -> bool:
        """Whether ``chat`` is seen for the first time (it is remembered); a repeat is counted."""
        if chat in self.seen:
            self.count += 1
            return False
        self.seen.add(chat)
        return True


@dataclass(frozen=True, slots=True)
class Correction:
    """One line of a corrections file (`faceteval correct`), as far as an export reads it.

    Attributes:
        status: ``kept``, ``corrected``, ``parse_error`` or ``error``.
        query: The user query.
        original: The response that was corrected.
        correction: The corrected response (``corrected`` lines only).
        judgments: ``(criterion as shown, score, explanation)`` per criterion the correction was given.
    """

    status: str
    query: str = ""
    original: str = ""
    correction: str | None = None
    judgments: tuple[tuple[str, float, str], ...] = ()


@dataclass(frozen=True, slots=True)
class SftStats:
    """What an export wrote and what it left out.

    Attributes:
        samples: Samples written, per set.
        duplicates: Samples left out as repeats (the same sample, or the same criteria or guideline
            prompt), per set.
        augmented: Swapped judge samples among those written.
        inconsistent: Judge samples dropped because their criterion's preference changed with the order.
        incomplete: Judge samples left out for a missing score, explanation, comparison or guideline.
        judgments: Judgments read.
        failed: Judgments skipped because they failed.
        predefined: Judgments whose criteria were predefined (no criteria sample).
        single: Judgments made with single-eval.
        corrections: Correction lines read.
        not_corrected: Correction lines without a correction, by status.
        augment: Whether one-order judgments were swap-augmented.
    """

    samples: Mapping[SftSet, int]
    duplicates: Mapping[SftSet, int]
    augmented: int = 0
    inconsistent: int = 0
    incomplete: int = 0
    judgments: int = 0
    failed: int = 0
    predefined: int = 0
    single: int = 0
    corrections: int = 0
    not_corrected: Mapping[str, int] = field(default_factory=dict)
    augment: bool = True

    @property
    def total(self) -> int:
        """Samples written, over every set."""
        return sum(self.samples.values())

    def skipped(self, name: SftSet) -> int:
        """Inputs of set ``name`` left out: failed judgments, or correction lines without a correction."""
        return sum(self.not_corrected.values()) if name == "correction" else self.failed

    def to_dict(self) -> dict[str, Any]:
        """The statistics as ``stats.json`` holds them."""
        sets: dict[str, dict[str, Any]] = {}
        for name in SFT_SETS:
            entry: dict[str, Any] = {
                "file": SET_FILES[name],
                "samples": self.samples[name],
                "duplicates": self.duplicates[name],
                "skipped": self.skipped(name),
            }
            if name == "judge":
                entry |= {
                    "augmented": self.augmented,
                    "inconsistent": self.inconsistent,
                    "incomplete": self.incomplete,
                }
            sets[name] = entry
        inputs = {
            "judgments": self.judgments,
            "failed": self.failed,
            "predefined_criteria": self.predefined,
            "single_eval": self.single,
            "corrections": self.corrections,
            "corrected": self.corrections - sum(self.not_corrected.values()),
            "not_corrected": dict(self.not_corrected),
        }
        return {"augment": self.augment, "sets": sets, "total": self.total, "inputs": inputs}


@dataclass(frozen=True, slots=True)
class SftData:
    """The four SFT sets and their statistics."""

    sets: Mapping[SftSet, tuple[Sample, ...]]
    stats: SftStats


def swap_labels(text: str, n: int = 2) -> str:
    """``text`` with the response labels of ``n`` responses exchanged as reversing their order does.

    Examples:
        >>> swap_labels("Response A is longer than Response B; response b is right.")
        'Response B is longer than Response A; response a is right.'
        >>> swap_labels("Response A beats Response C", 3)
        'Response C beats Response A'
    """
    letters = string.ascii_uppercase[:n]

    def exchange(match: re.Match[str]) -> str:
        word, letter = match[1], match[2]
        k = letters.find(letter.upper())
        if k < 0:
            return match[0]
        other = letters[n - 1 - k]
        return f"{word} {other if letter.isupper() else other.lower()}"

    return _LABEL.sub(exchange, text)


def preference(scores: Sequence[float | None]) -> int | None:
    """The preferred candidate (1-based) by ``scores``, 0 for a tie at the top, None when one is missing.

    Examples:
        >>> preference([4, 2]), preference([3, 3]), preference([2, None])
        (1, 0, None)
    """
    known = [s for s in scores if s is not None]
    if len(known) < len(scores) or not known:
        return None
    best = max(known)
    top = [m for m, s in enumerate(known, start=1) if s == best]
    return top[0] if len(top) == 1 else 0


def read_corrections(path: Path) -> list[Correction]:
    """The lines of a corrections file (what `faceteval correct` writes).

    Raises:
        InputError: A line is not JSON, or a field an export needs is missing or of the wrong type
            (file, line and field named).
    """
    return [_correction(record, path, line) for line, record in read_jsonl(path)]


def build_sft(
    judgments: Iterable[Judgment],
    instances: Mapping[str, Instance],
    corrections: Iterable[Correction] = (),
    *,
    criteria_given: bool = False,
    single: bool | None = None,
    augment: bool = True,
) -> SftData:
    """The SFT sets from Fennec judgments of ``instances`` (by id) and corrections.

    Args:
        judgments: Fennec judgments (failed ones are skipped and counted).
        instances: The judged instances, by id.
        corrections: Lines of a corrections file; those with status ``corrected`` give samples.
        criteria_given: The method was given criteria (``--criteria``): none were generated.
        single: Judged with single-eval; None to tell from each judgment (no comparison written).
        augment: Add the swapped sample of each pairwise judgment made in one order.

    Raises:
        FacetevalError: A judgment is not a Fennec judgment, or names an instance not in ``instances``.
    """
    builder = _Builder(augment=augment)
    for judgment in judgments:
        builder.judgment(judgment, instances, criteria_given=criteria_given, single=single)
    for correction in corrections:
        builder.correction(correction)
    return builder.data()


def write_sft(data: SftData, out: Path) -> dict[str, Path]:
    """Write the four sets (one JSON record a line; an empty set gives an empty file) and stats.json.

    The files are put in place together when all are written (stats.json last, with each set's
    line count and SHA-256): a crash or a full disk leaves the earlier ones as they were.

    Returns:
        Each written file by set name, and ``stats`` for the statistics.

    Raises:
        StoreError: A file could not be written (a full disk is named as such).
    """
    written: dict[str, Path] = {}
    with RunFiles([out / SET_FILES[name] for name in SFT_SETS], out / STATS_FILE) as files:
        for name in SFT_SETS:
            written[name] = out / SET_FILES[name]
            for sample in data.sets[name]:
                files[written[name]].write(json.dumps(sample.to_record(), ensure_ascii=False) + "\n")
        written["stats"] = files.finish(data.stats.to_dict())
    return written


def export_sft(
    judgments_path: Path,
    out: Path,
    corrections_path: Path | None = None,
    *,
    input_path: Path | None = None,
    augment: bool = True,
) -> SftData:
    """Build the SFT sets from a Fennec judgments file (and a corrections file) and write them to ``out``.

    How the run was made (predefined criteria, single-eval) is read from the run record beside the
    judgments; the instances from ``input_path`` or the input the record names.

    Raises:
        FacetevalError: The judgments are not Fennec's, or their input cannot be found or lacks one.
        InputError: A line of an input file is malformed (file, line and field named).
    """
    record = run_record(judgments_path)
    params = _fennec_params(record, judgments_path)
    data = build_sft(
        read_judgments(judgments_path),
        judged_instances(judgments_path, input_path),
        read_corrections(corrections_path) if corrections_path is not None else (),
        criteria_given=params.get("criteria") is not None,
        single=bool(params.get("single")) if record else None,
        augment=augment,
    )
    write_sft(data, out)
    return data


@dataclass(frozen=True, slots=True)
class _View:
    """One presentation order of a judgment: 0-based original indices as shown, and its facets."""

    order: tuple[int, ...]
    facets: Sequence[FacetScore]


class _Builder:
    """Collects samples set by set, leaving out repeats, and counts what it leaves out."""

    def __init__(self, *, augment: bool) -> None:
        self.augment = augment
        self.sets: dict[SftSet, list[Sample]] = {name: [] for name in SFT_SETS}
        self.repeats: dict[SftSet, Repeats] = {name: Repeats() for name in SFT_SETS}
        self.counts: Counter[str] = Counter()
        self.not_corrected: Counter[str] = Counter()

    def add(self, name: SftSet, sample: Sample) -> None:
        """Keep ``sample`` unless its set has it (for criteria and guidelines: has its prompt)."""
        key = sample.prompt if name in ("criteria", "score") else sample.messages
        if self.repeats[name].first(key):
            self.sets[name].append(sample)

    def judgment(
        self,
        judgment: Judgment,
        instances: Mapping[str, Instance],
        *,
        criteria_given: bool,
        single: bool | None,
    ) -> None:
        """Criteria, guideline and judge samples of one judgment."""
        if judgment.method not in (methods := per_criterion_methods()):
            raise FacetevalError(
                f"judgment {judgment.id!r} was made by {judgment.method!r}, not {either(methods)}"
            )
        self.counts["judgments"] += 1
        if judgment.status != "ok":
            self.counts["failed"] += 1
            return
        instance = instances.get(judgment.id)
        if instance is None:
            raise FacetevalError(
                f"judgment {judgment.id!r} has no instance: {why_missing(instances, judgment.id)}"
            )
        if (changed := changed_since(instance, judgment)) is not None:
            raise FacetevalError(f"judgment {judgment.id!r}: {changed}")
        if criteria_given or instance.criteria:
            self.counts["predefined"] += 1
        elif judgment.facets:
            self.add("criteria", _criteria_sample(instance.query, judgment.facets))
        for facet in judgment.facets:
            if facet.guideline:
                self.add("score", _guideline_sample(instance.query, facet))
        views = _views(judgment, instance)
        if _is_single(judgment, instance, single):
            self.counts["single"] += 1
            self._singles(instance, views)
        else:
            self._pairwise(instance, views)

    def _singles(self, instance: Instance, views: list[_View]) -> None:
        for view in views:
            for facet in view.facets:
                for m, text in enumerate(instance.candidates):
                    sample = _single_sample(instance, facet, m, text)
                    if sample is None:
                        self.counts["incomplete"] += 1
                    else:
                        self.add("judge", sample)

    def _pairwise(self, instance: Instance, views: list[_View]) -> None:
        for j in range(len(views[0].facets)):
            facets = [view.facets[j] for view in views]
            if len(views) > 1 and len({preference(f.scores) for f in facets}) > 1:
                self.counts["inconsistent"] += len(views)
                continue
            for view, facet in zip(views, facets, strict=True):
                sample = _pairwise_sample(instance, facet, view.order)
                if sample is None:
                    self.counts["incomplete"] += 1
                    continue
                self.add("judge", sample)
                if self.augment and len(views) == 1:
                    swapped = _pairwise_sample(instance, facet, view.order[::-1], relabel=True)
                    if swapped is not None:
                        self.add("judge", swapped)

    def correction(self, correction: Correction) -> None:
        """The correction sample of one corrections line, when it holds a correction."""
        self.counts["corrections"] += 1
        if correction.status != "corrected" or not correction.correction:
            self.not_corrected[correction.status] += 1
            return
        judgments = [
            {"criterion": criterion, "score": fmt(score), "explanation": explanation}
            for criterion, score, explanation in correction.judgments
        ]
        chat = _chat(
            "fennec/correction",
            correction.correction,
            query=correction.query,
            response=correction.original,
            judgments=judgments,
        )
        self.add("correction", Sample(chat))

    def data(self) -> SftData:
        """The sets collected so far and their statistics."""
        sets = {name: tuple(self.sets[name]) for name in SFT_SETS}
        stats = SftStats(
            samples={name: len(sets[name]) for name in SFT_SETS},
            duplicates={name: self.repeats[name].count for name in SFT_SETS},
            augmented=sum(s.augmented for s in sets["judge"]),
            inconsistent=self.counts["inconsistent"],
            incomplete=self.counts["incomplete"],
            judgments=self.counts["judgments"],
            failed=self.counts["failed"],
            predefined=self.counts["predefined"],
            single=self.counts["single"],
            corrections=self.counts["corrections"],
            not_corrected=dict(sorted(self.not_corrected.items())),
            augment=self.augment,
        )
        return SftData(sets=sets, stats=stats)


def _views(judgment: Judgment, instance: Instance) -> list[_View]:
    """Each order a judgment was made in; without orders, the instance's own order."""
    if judgment.orders:
        return [_View(tuple(i - 1 for i in r.order), r.facets) for r in judgment.orders]
    return [_View(tuple(range(instance.n_candidates)), judgment.facets)]


def _is_single(judgment: Judgment, instance: Instance, single: bool | None) -> bool:
    if instance.n_candidates == 1:
        return True
    if single is not None:
        return single
    return all(facet.explanation is None for facet in judgment.facets)


def _shown(facet: FacetScore) -> str:
    """The criterion as the prompts show it: ``name: description`` (`Criterion.describe`)."""
    return _describe(facet.name, facet.description)


def _describe(name: str, description: str | None) -> str:
    return f"{name}: {description}" if description else name


def _chat(template: str, reply: str, **variables: Any) -> Chat:
    """The rendered prompt ``template``, then ``reply`` as the assistant's message."""
    prompt = tuple((m.role, m.content) for m in render(template, **variables))
    return (*prompt, ("assistant", reply))


def _criteria_sample(query: str, facets: Sequence[FacetScore]) -> Sample:
    reply = "\n".join(f"{k}. {_shown(facet)}" for k, facet in enumerate(facets, start=1))
    return Sample(_chat("fennec/criteria", reply, query=query, count=len(facets)))


def _guideline_sample(query: str, facet: FacetScore) -> Sample:
    return Sample(_chat("fennec/guideline", facet.guideline or "", query=query, criterion=_shown(facet)))


def _single_sample(instance: Instance, facet: FacetScore, m: int, text: str) -> Sample | None:
    shown = _shown_results(facet, [m])
    if shown is None or not facet.guideline:
        return None
    ((score, explanation),) = shown
    reply = f"Response Score: {fmt(score)}\nExplanation: {explanation}"
    chat = _chat(
        "fennec/single",
        reply,
        query=instance.query,
        criterion=_shown(facet),
        guideline=facet.guideline,
        response=text,
        reference=instance.reference,
    )
    return Sample(chat)


def _pairwise_sample(
    instance: Instance, facet: FacetScore, order: Sequence[int], *, relabel: bool = False
) -> Sample | None:
    """The pairwise sample of ``facet`` with the candidates shown in ``order`` (0-based).

    With ``relabel`` the texts were written for the reverse of ``order``: their labels are exchanged.
    """
    shown = _shown_results(facet, order)
    if shown is None or not facet.guideline or not facet.explanation:
        return None
    n = len(order)
    labels = response_labels(n)
    parts = [
        f"{label} Score: {fmt(score)}\nExplanation: {swap_labels(text, n) if relabel else text}"
        for label, (score, text) in zip(labels, shown, strict=True)
    ]
    comparison = swap_labels(facet.explanation, n) if relabel else facet.explanation
    parts.append(f"Comparison: {comparison}")
    chat = _chat(
        "fennec/pairwise",
        "\n".join(parts),
        query=instance.query,
        criterion=_shown(facet),
        guideline=facet.guideline,
        candidates=[instance.candidates[i] for i in order],
        labels=labels,
        letters=[label.rsplit(" ", 1)[-1] for label in labels],
        reference=instance.reference,
    )
    return Sample(chat, augmented=relabel)


def _shown_results(facet: FacetScore, order: Sequence[int]) -> list[tuple[float, str]] | None:
    """``(score, explanation)`` of each candidate in ``order``; None when one is missing or empty."""
    explanations = facet.explanations or []
    shown = []
    for i in order:
        score = facet.scores[i] if i < len(facet.scores) else None
        text = explanations[i] if i < len(explanations) else None
        if score is None or not text:
            return None
        shown.append((score, text))
    return shown


def _fennec_params(record: Mapping[str, Any], judgments_path: Path) -> dict[str, Any]:
    """The method parameters of a run record; empty without one."""
    method = record.get("method")
    if not isinstance(method, dict):
        return {}
    if method.get("name") not in (methods := per_criterion_methods()):
        raise FacetevalError(f"{judgments_path}: judged with {method.get('name')!r}, not {either(methods)}")
    params = method.get("params")
    return params if isinstance(params, dict) else {}


def _correction(record: Mapping[str, Any], path: Path, line: int) -> Correction:
    status = _get(record, "status", str, path, line)
    if status != "corrected":
        return Correction(status=status)
    items = _get(record, "judgments", list, path, line)
    return Correction(
        status=status,
        query=_get(record, "query", str, path, line),
        original=_get(record, "original", str, path, line),
        correction=_get(record, "correction", str, path, line),
        judgments=tuple(_judged(item, path, line, f"judgments[{k}]") for k, item in enumerate(items)),
    )


def _judged(item: Any, path: Path, line: int, where: str) -> tuple[str, float, str]:
    if not isinstance(item, dict):
        raise InputError(str(path), line, where, f"expected an object, got {type(item).__name__}")
    name = _get(item, "criterion", str, path, line, where)
    description = item.get("description") or ""
    if not isinstance(description, str):
        raise InputError(str(path), line, f"{where}.description", "expected str")
    score = float(_get(item, "score", (int, float), path, line, where))
    explanation = _get(item, "explanation", str, path, line, where)
    return _describe(name, description), score, explanation


def _get(
    record: Mapping[str, Any],
    name: str,
    kind: type | tuple[type, ...],
    path: Path,
    line: int,
    where: str = "",
) -> Any:
    """``record[name]`` of type ``kind`` (not a bool); else an `InputError` naming file, line and field."""
    dotted = f"{where}.{name}" if where else name
    if name not in record:
        raise InputError(str(path), line, dotted, "missing")
    value = record[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds) or isinstance(value, bool):
        expected = " or ".join(k.__name__ for k in kinds)
        raise InputError(str(path), line, dotted, f"expected {expected}, got {type(value).__name__}")
    return value
