"""DataFrames of judgments and of a judge run's result."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faceteval.core import Instance, JudgeResult, Judgment
from faceteval.errors import InputError
from faceteval.frames._judgments import long_columns, long_rows, lookup, wide_columns, wide_row
from faceteval.frames._pandas import import_pandas
from faceteval.frames._read import judgments_in

if TYPE_CHECKING:
    import pandas as pd

Judgments = Iterable[Judgment] | str | os.PathLike[str]
"""Judgments, or the path of a Judgment JSONL file (what ``faceteval judge`` writes)."""

_WIDE_TYPES = {"verdict": "Int64", "label": "Int64", "consistent": "boolean", "cost_usd": "Float64"}
_LONG_TYPES = {"weight": "Float64", "candidate": "int64", "score": "Float64"}


def judgments_to_pandas(
    judgments: Judgments,
    *,
    instances: Iterable[Instance | InputError] | None = None,
    systems: Sequence[str] | None = None,
    facets: bool = False,
) -> pd.DataFrame:
    """Judgments as a pandas DataFrame: one row per judgment, or with ``facets`` one per facet score.

    One row per judgment (in their order) has the columns ``id``, ``method``, ``status``, ``error``,
    ``verdict`` (1-based winner, 0 a tie), ``consistent`` (orders agreed, with ``--swap``);
    ``score_1``, ``score_2``... (overall score per candidate) and ``rank_1``...; ``calls``,
    ``cached_calls``, ``input_tokens``, ``output_tokens``, ``cost_usd``; ``explanation``; and per facet
    ``weight/<facet>`` and ``facet/<facet>/<k>`` (its score for candidate k). With ``instances``
    (matched by id; `faceteval.read_instances` gives them) or ``systems`` (the systems behind the
    candidates of instances that name none), ``system_1``... and ``winner`` (the winning system's
    name, ``tie``), and with ``instances`` the human ``label``. A failed judgment keeps its row,
    its scores missing (NA), never a default.

    With ``facets``, the long table instead: one row per judgment, facet and candidate, with ``id``,
    ``method``, ``status``, ``facet``, ``description``, ``weight``, ``candidate`` (1-based),
    ``system`` (when known), ``score`` and ``explanation``: ready for ``groupby("facet")``, or
    ``pivot_table``.

    Raises:
        MissingDependencyError: pandas is not installed (``pip install 'faceteval[pandas]'``).
        InputError: ``judgments`` is a file that cannot be read, or a line of it is not a judgment.

    Examples:
        >>> from faceteval import Judgment
        >>> table = judgments_to_pandas(
        ...     [Judgment(id="1", method="direct", status="ok", verdict=2, scores=[3.0, 8.0])],
        ...     systems=["base", "tuned"],
        ... )
        >>> table[["id", "verdict", "score_1", "score_2", "winner"]].to_dict("records")
        [{'id': '1', 'verdict': 2, 'score_1': 3.0, 'score_2': 8.0, 'winner': 'tuned'}]
    """
    pd = import_pandas("judgments_to_pandas")
    known = lookup(instances, systems)
    labelled = instances is not None
    named = labelled or systems is not None
    given = judgments_in(Path(judgments)) if isinstance(judgments, str | os.PathLike) else judgments
    items = map(_checked, given)
    if facets:
        rows = [row for judgment in items for row in long_rows(judgment, known(judgment))]
        return pd.DataFrame(rows, columns=long_columns(known=named)).astype(_LONG_TYPES)
    wide = [wide_row(judgment, known(judgment)) for judgment in items]
    columns = wide_columns(wide, known=named, labelled=labelled)
    types = {c: t for c, t in _WIDE_TYPES.items() if c in columns}
    types |= {c: "Int64" for c in columns if c.startswith("rank_")}
    types |= {c: "Float64" for c in columns if c.startswith(("score_", "facet/", "weight/"))}
    return pd.DataFrame(wide, columns=columns).astype(types)


def _checked(judgment: Any) -> Judgment:
    if not isinstance(judgment, Judgment):
        kind = type(judgment).__name__
        raise TypeError(f"judgments_to_pandas takes Judgments or the path of their file, got a {kind}")
    return judgment


def result_to_pandas(result: JudgeResult) -> pd.DataFrame:
    """A judge run's result per system: one row per system and kind (``pairwise``, ``pointwise``).

    Pairwise rows: ``wins``, ``ties``, ``losses``, ``failed``, ``win_rate`` with ``win_rate_low`` /
    ``win_rate_high`` (its confidence interval), ``win_rate_without_ties``, the mean ``score`` and,
    when the run was ranked, the Bradley-Terry ``rank`` and ``strength``. Pointwise rows: ``score``
    with ``score_low`` / ``score_high``, ``n`` and ``failed``.

    Raises:
        MissingDependencyError: pandas is not installed (``pip install 'faceteval[pandas]'``).
    """
    pd = import_pandas("a run's summary table")
    rows: list[dict[str, Any]] = []
    if (pairwise := result.pairwise) is not None:
        ranks = {s.system: s for s in pairwise.ranking.strengths} if pairwise.ranking is not None else {}
        for standing in pairwise.systems:
            rate, score = standing.win_rate, standing.score
            strength = ranks.get(standing.name)
            rows.append(
                {
                    "kind": "pairwise",
                    "system": standing.name,
                    "wins": standing.wins,
                    "ties": standing.ties,
                    "losses": standing.losses,
                    "failed": standing.failed,
                    "win_rate": rate.value,
                    **_interval("win_rate", rate.ci),
                    "win_rate_without_ties": standing.win_rate_without_ties.value,
                    "score": None if score is None else score.value,
                    "n": rate.n,
                    "rank": None if strength is None else strength.rank,
                    "strength": None if strength is None else strength.strength,
                }
            )
    if (pointwise := result.pointwise) is not None:
        for mean in pointwise.systems:
            score = mean.score
            rows.append(
                {"kind": "pointwise", "system": mean.name, "failed": mean.failed, "score": score.value}
                | _interval("score", score.ci)
                | {"n": score.n}
            )
    return pd.DataFrame(rows).convert_dtypes()


def _interval(name: str, ci: tuple[float, float] | None) -> dict[str, float | None]:
    low, high = ci if ci is not None else (None, None)
    return {f"{name}_low": low, f"{name}_high": high}


def summary_to_pandas(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """``rows`` (a run summary, the runs of a sweep) as a DataFrame, nested fields as dotted columns.

    Raises:
        MissingDependencyError: pandas is not installed (``pip install 'faceteval[pandas]'``).

    Examples:
        >>> summary_to_pandas([{"n": 2, "agreement": {"value": 0.5, "n": 2}}]).columns.tolist()
        ['n', 'agreement.value', 'agreement.n']
    """
    pd = import_pandas("a run's summary table")
    return pd.json_normalize(list(rows)).convert_dtypes()
