"""Reading the recorded judgments Fennec's bridging starts from.

Each recorded judge output of a bridgeable benchmark becomes a `BridgeSource`: the query, the
response(s) in the order the judge saw them, the recorded verdict (pairwise) or 1-5 score (single),
and the judgment brought to the bridging prompt's answer format (Auto-J: the decision sentence alone;
PandaLM: its recorded reason, then the decision sentence; Prometheus GPT-4: ``Response Score: n`` and
its feedback). An output without a readable verdict or score is kept with the ``problem`` that stops
it from being bridged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Literal

from faceteval._util.numbers import fmt
from faceteval._util.replies import quote
from faceteval.core import Instance, Judgment, TraceEntry
from faceteval.datasets import get_benchmark
from faceteval.errors import ConfigError, FacetevalError
from faceteval.methods.fennec import FENNEC_SCALE

BridgeKind = Literal["pairwise", "single"]

PAIRWISE_LABELS = ("Response 1", "Response 2")
SINGLE_LABELS = ("Response",)
_DECISIONS = {1: "Response 1", 2: "Response 2", 0: "Tie"}


def decision_text(verdict: int) -> str:
    """The bridging prompt's decision sentence for a verdict (1, 2, or 0 for a tie).

    Examples:
        >>> decision_text(0)
        'So, the final decision is Tie.'
    """
    return f"So, the final decision is {_DECISIONS[verdict]}."


@dataclass(frozen=True, slots=True)
class BridgeSource:
    """One recorded judge output to bridge.

    Attributes:
        id: The instance id, with ``#k`` appended when its judgment holds several outputs.
        benchmark: The benchmark it comes from.
        judge: The recorded judge (the part after ``recorded:``).
        kind: ``pairwise`` (two responses, a verdict) or ``single`` (one response, a 1-5 score).
        query: The user query.
        responses: The responses in the order the judge saw them.
        reference: The reference answer the judge was given, when there is one.
        order: Pairwise: the 1-based instance candidates in the order shown.
        judgment: The recorded judgment in the bridging prompt's answer format (the training target).
        recorded: The recorded output, verbatim.
        verdict: Pairwise: 1 or 2 for the better response as shown, 0 for a tie.
        score: Single: the recorded 1-5 score.
        problem: Why the output cannot be bridged (no readable verdict or score), when it cannot.
    """

    id: str
    benchmark: str
    judge: str
    kind: BridgeKind
    query: str
    responses: tuple[str, ...]
    judgment: str
    recorded: str
    reference: str | None = None
    order: tuple[int, ...] | None = None
    verdict: int | None = None
    score: float | None = None
    problem: str | None = None

    @property
    def labels(self) -> tuple[str, ...]:
        """How the prompts name the responses."""
        return PAIRWISE_LABELS if self.kind == "pairwise" else SINGLE_LABELS


JudgmentText = Callable[[str, float], str]
"""The judgment in the bridging prompt's answer format, from a recorded output and its verdict or score."""


def _verdict_only(raw: str, verdict: float) -> str:
    """Auto-J's released outputs are bare verdict codes: the judgment is the decision sentence."""
    return decision_text(int(verdict))


_PANDALM = re.compile(r"\Aresult: [^\n]*\nreason: (?P<reason>.*)\nreference: ", re.DOTALL)


def _pandalm_reason(raw: str, verdict: float) -> str:
    """PandaLM's recorded reason, then the decision sentence."""
    found = _PANDALM.match(raw)
    if found is None:
        raise FacetevalError(f"not a recorded PandaLM output (result, reason, reference): {quote(raw)}")
    reason = found["reason"].strip()
    decision = decision_text(int(verdict))
    return f"{reason}\n\n{decision}" if reason else decision


def _feedback(raw: str, score: float) -> str:
    """A Prometheus GPT-4 run as Fennec's single-eval result: the score, then the feedback."""
    return f"Response Score: {fmt(score)}\nExplanation: {raw.strip()}"


@dataclass(frozen=True, slots=True)
class Bridgeable:
    """How a benchmark's recorded judgments are bridged.

    Attributes:
        judge: The recorded judge used when none is named.
        judgment: The judgment text in the bridging prompt's answer format.
    """

    judge: str
    judgment: JudgmentText


BRIDGEABLE: Mapping[str, Bridgeable] = {
    "autoj-pairwise": Bridgeable("auto-j-13b", _verdict_only),
    "pandalm": Bridgeable("pandalm-7b", _pandalm_reason),
    "prometheus-mtbench": Bridgeable("gpt-4-run1", _feedback),
    "prometheus-vicuna": Bridgeable("gpt-4-run1", _feedback),
}
"""The benchmarks whose recorded judgments can be bridged."""


def load_sources(
    benchmark: str, data_dir: str | Path, *, judge: str | None = None, limit: int | None = None
) -> list[BridgeSource]:
    """The recorded outputs of ``judge`` on ``benchmark`` (its first ``limit`` judgments), ready to bridge.

    Raises:
        ConfigError: The benchmark cannot be bridged.
        FacetevalError: The data is missing, the judge unknown, or a judgment has no instance.
    """
    spec = BRIDGEABLE.get(benchmark)
    if spec is None:
        known = ", ".join(BRIDGEABLE)
        raise ConfigError(f"{benchmark!r} cannot be bridged; bridgeable benchmarks: {known}")
    bench = get_benchmark(benchmark)
    source = bench.recorded_source(judge or spec.judge, data_dir)
    instances = {instance.id: instance for instance in bench.instances(data_dir)}
    sources: list[BridgeSource] = []
    for judgment in islice(source.load(Path(data_dir)), limit):
        instance = instances.get(judgment.id)
        if instance is None:
            raise FacetevalError(f"recorded:{source.name} judges {judgment.id!r}, which {benchmark} lacks")
        sources.extend(_sources_of(judgment, instance, benchmark, source.name, spec.judgment))
    return sources


def _sources_of(
    judgment: Judgment, instance: Instance, benchmark: str, judge: str, text: JudgmentText
) -> Iterator[BridgeSource]:
    """One source per recorded output of ``judgment``."""
    if not judgment.trace:
        problem = judgment.error or "nothing recorded"
        empty = TraceEntry(stage=judgment.method, messages=[], raw="", problem=problem)
        yield _source(instance, empty, judgment.id, benchmark, judge, text)
        return
    many = len(judgment.trace) > 1
    for k, entry in enumerate(judgment.trace, 1):
        source_id = f"{judgment.id}#{k}" if many else judgment.id
        yield _source(instance, entry, source_id, benchmark, judge, text)


def _source(
    instance: Instance, entry: TraceEntry, source_id: str, benchmark: str, judge: str, text: JudgmentText
) -> BridgeSource:
    if instance.n_candidates not in (1, 2):
        raise FacetevalError(
            f"{instance.id}: bridging takes one or two responses, not {instance.n_candidates}"
        )
    pairwise = instance.n_candidates == 2
    order = tuple(entry.order or (1, 2)) if pairwise else None
    value, problem = _recorded_value(entry, pairwise)
    return BridgeSource(
        id=source_id,
        benchmark=benchmark,
        judge=judge,
        kind="pairwise" if pairwise else "single",
        query=instance.query,
        responses=tuple(instance.candidates[i - 1] for i in order) if order else instance.candidates,
        judgment="" if value is None else text(entry.raw, value),
        recorded=entry.raw,
        reference=instance.reference,
        order=order,
        verdict=int(value) if pairwise and value is not None else None,
        score=None if pairwise else value,
        problem=problem,
    )


def _recorded_value(entry: TraceEntry, pairwise: bool) -> tuple[float | None, str | None]:
    """The recorded verdict (pairwise) or 1-5 score, or why there is none."""
    value = entry.parsed
    if entry.problem or entry.error or value is None:
        return None, entry.problem or entry.error or "no verdict or score recorded"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"the recorded value {value!r} is not a number"
    if pairwise and value not in _DECISIONS:
        return None, f"the recorded verdict {value!r} is not 1, 2 or 0 (tie)"
    low, high = FENNEC_SCALE
    if not pairwise and not low <= value <= high:
        return None, f"the recorded score {fmt(value)} is outside 1-5"
    return float(value), None
