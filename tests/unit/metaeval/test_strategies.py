"""The ``strategies`` confidence on hand-made recorded judges: the share of one model's recorded
prompting strategies whose votes (one per order) are the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from faceteval.core import Instance, Judgment, OrderResult
from faceteval.datasets import Benchmark, RecordedSource
from faceteval.errors import FacetevalError
from faceteval.metaeval import JudgmentSource, Target
from faceteval.metaeval.internal import measured_sources


def ordered(ident: str, first: int | None, second: int | None, method: str = "m") -> Judgment:
    """A judgment with both orders' verdicts, its verdict as LLMBar's loader makes it."""
    orders = [OrderResult(order=[1, 2], verdict=first), OrderResult(order=[2, 1], verdict=second)]
    if first is None or second is None:
        return Judgment(id=ident, method=method, status="parse_error", error="no verdict", orders=orders)
    verdict = first if first == second else 0
    return Judgment(
        id=ident, method=method, status="ok", verdict=verdict, orders=orders, consistent=verdict != 0
    )


# three strategies of model M on two instances, and one strategy of model N
STRATEGIES: dict[str, list[Judgment]] = {
    "toy/M/Plain": [ordered("a", 1, 1), ordered("b", 1, 2)],
    "toy/M/Rules": [ordered("a", 1, 2), ordered("b", 2, 2)],
    "toy/M/CoT": [ordered("a", 2, None)],  # no judgment of b; a's second order unreadable
    "toy/N/Plain": [ordered("a", 2, 2), ordered("b", 2, 2)],
}


def toy_target() -> Target:
    instances = [Instance(id=i, query="q", candidates=["x", "y"], label=1) for i in "ab"]

    def source(name: str) -> RecordedSource:
        return RecordedSource(name=name, judge="M", description="", load=lambda _: STRATEGIES[name])

    benchmark = Benchmark(
        name="toy",
        title="toy",
        kind="pairwise",
        labels="1/2",
        license="none",
        path="toy",
        load=lambda _: instances,
        size=len(instances),
        url="",
        recorded=lambda _: [source(name) for name in STRATEGIES],
    )
    return Target("toy", "pairwise", instances, benchmark)


def confidences(spec: str) -> list[tuple[str, float | None, str | None]]:
    source, _ = measured_sources(spec, toy_target(), Path("."), confidence="strategies")
    return [(j.id, j.confidence, j.confidence_estimator) for j in source.judgments]


def test_each_verdict_gets_the_share_of_the_family_votes_for_it() -> None:
    # instance a: votes 1, 1 (Plain), 1, 2 (Rules), 2, none (CoT): six votes, three for 1, none for a tie
    # instance b: votes 1, 2 (Plain), 2, 2 (Rules), CoT casts none: four votes, three for 2
    assert confidences("recorded:toy/M/Plain") == [("a", 0.5, "strategies"), ("b", 0.0, "strategies")]
    assert confidences("recorded:toy/M/Rules") == [("a", 0.0, "strategies"), ("b", 0.75, "strategies")]
    # a failed judgment has no verdict, so no confidence, whatever the family says
    assert confidences("recorded:toy/M/CoT") == [("a", None, None)]


def test_another_model_is_not_of_the_family() -> None:
    with pytest.raises(FacetevalError, match=r"toy/N/Plain has no other prompting strategy.*toy/M"):
        confidences("recorded:toy/N/Plain")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("recorded:toy/M/Plain,recorded:toy/M/Rules", "not a panel's"),
        ("judgments.jsonl", "no such judgments file"),
    ],
)
def test_a_panel_or_a_file_is_refused(spec: str, expected: str, tmp_path: Path) -> None:
    with pytest.raises(FacetevalError, match=expected):
        confidences(spec)


def test_a_file_of_judgments_has_no_family(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text(ordered("a", 1, 1).model_dump_json() + "\n", encoding="utf-8")
    with pytest.raises(FacetevalError, match="not a recorded judge"):
        confidences(str(path))


def test_signals_keeps_the_judgments_as_they_are() -> None:
    source, judges = measured_sources("recorded:toy/M/Plain", toy_target(), Path("."))
    assert judges == []
    assert [j.confidence for j in source.judgments] == [None, None]


def votes_of(sources: Sequence[JudgmentSource]) -> list[list[float | None]]:
    return [[j.confidence for j in source.judgments] for source in sources]


def test_a_cascade_re_estimates_each_judge() -> None:
    spec = "recorded:toy/M/Rules,recorded:toy/M/Plain"
    measured, judges = measured_sources(spec, toy_target(), Path("."), confidence="strategies", cascade=True)
    assert [j.name for j in judges] == ["recorded:toy/M/Rules", "recorded:toy/M/Plain"]
    assert measured is judges[-1]
    assert votes_of(judges) == [[0.0, 0.75], [0.5, 0.0]]
    with pytest.raises(FacetevalError, match="names each judge once"):
        measured_sources(f"{spec},recorded:toy/M/Rules", toy_target(), Path("."), cascade=True)
