"""Judge panels in a meta-evaluation: a panel built from recorded judges, and what a panel's report adds.

A panel's report shows each judge's agreement with the humans beside the panel's (the run's own
``agreement``), and how far the judges agree among themselves: Krippendorff's alpha, nominal, over
their verdicts (a tie is a verdict like the others; a judge's failed or missing judgment is a
missing rating).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from faceteval import metrics
from faceteval.aggregation import combine_panel
from faceteval.core import Judgment, PanelVote
from faceteval.errors import FacetevalError

if TYPE_CHECKING:
    from faceteval.metaeval._judgments import Joined

PANEL_SEPARATOR = ","
"""What separates the judges of a panel in ``--judgments`` (``recorded:a,recorded:b``)."""
NOT_JUDGED = "no judgment of this instance"
"""The error of a panel member that has no judgment of an instance another member judged."""


def panel_specs(spec: str) -> list[str]:
    """The judges a ``--judgments`` value names: one, or a panel's (comma-separated).

    Examples:
        >>> panel_specs("recorded:llmbar/GPT-4/CoT, recorded:llmbar/ChatGPT/CoT")
        ['recorded:llmbar/GPT-4/CoT', 'recorded:llmbar/ChatGPT/CoT']
    """
    return [part.strip() for part in spec.split(PANEL_SEPARATOR) if part.strip()]


def panel_name(judges: Sequence[str], vote: PanelVote) -> str:
    """How a panel is named in reports: ``panel (majority): a, b, c``."""
    return f"panel ({vote}): {', '.join(judges)}"


def panel_judgments(
    judges: Sequence[tuple[str, Sequence[Judgment]]], candidates: Mapping[str, int], vote: PanelVote
) -> list[Judgment]:
    """The panel's judgments, combined per instance from each judge's (`combine_panel`).

    ``judges`` are each judge's name and judgments; ``candidates`` the number of candidates of each
    instance id. An instance some judges judged and others did not gets a failed panel judgment
    that names the judge without one (`NOT_JUDGED`): never a verdict of fewer judges than the
    panel has.

    Raises:
        FacetevalError: Fewer than two judges, a judge named twice, or an id a judge judged twice.
    """
    names = [name for name, _ in judges]
    if len(names) < 2:
        raise FacetevalError("a panel needs at least two judges (--judgments a,b)")
    if len(set(names)) < len(names):
        raise FacetevalError(f"a panel names each judge once, got {', '.join(names)}")
    tables = [_by_id(name, judgments) for name, judgments in judges]
    ids = list(dict.fromkeys(judgment_id for table in tables for judgment_id in table))
    combined = []
    for judgment_id in ids:
        given = [table.get(judgment_id) for table in tables]
        method = next(j.method for j in given if j is not None)
        members = [j if j is not None else _absent(judgment_id, method) for j in given]
        combined.append(combine_panel(names, members, vote, candidates=candidates.get(judgment_id, 2)))
    return combined


def _by_id(name: str, judgments: Sequence[Judgment]) -> dict[str, Judgment]:
    table: dict[str, Judgment] = {}
    for judgment in judgments:
        if judgment.id in table:
            raise FacetevalError(f"{name}: judgment id {judgment.id!r} appears twice")
        table[judgment.id] = judgment
    return table


def _absent(judgment_id: str, method: str) -> Judgment:
    return Judgment(id=judgment_id, method=method, status="error", error=NOT_JUDGED)


def panel_summary(joined: Joined, rate: Callable[..., dict[str, Any]]) -> dict[str, Any] | None:
    """Each judge's agreement with the humans and the judges' agreement among themselves (pairwise).

    None when no judgment is a panel's. ``rate(metric, *columns)`` computes a rate (with its CI).
    """
    panels = [j for _, j in joined.pairs if j is not None and j.panel]
    if not panels:
        return None
    judges = [member.judge for member in panels[0].panel]
    labelled = [(i, j) for i, j in joined.pairs if i.label is not None]
    labels = [i.label for i, _ in labelled if i.label is not None]
    columns = {judge: [_member_verdict(j, judge) for _, j in labelled] for judge in judges}
    out: dict[str, Any] = {"vote": panels[0].panel_vote, "judges": []}
    for judge, verdicts in columns.items():
        entry: dict[str, Any] = {"judge": judge, "agreement": rate(metrics.agreement, verdicts, labels)}
        if any(label == 0 for label in labels):
            entry["agreement_without_ties"] = rate(metrics.agreement_without_ties, verdicts, labels)
        out["judges"].append(entry)
    every = [[_member_verdict(j, judge) for _, j in joined.pairs] for judge in judges]
    out["alpha"] = {
        "value": metrics.krippendorff_alpha(every, level="nominal"),
        "level": "nominal",
        "of": "verdicts",
        "n": sum(sum(v is not None for v in column) >= 2 for column in zip(*every, strict=True)),
    }
    out["unanimous"] = _unanimous(every)
    return out


def _member_verdict(judgment: Judgment | None, judge: str) -> int | None:
    """``judge``'s verdict in a panel's judgment; None where it has none (failed, or not a member)."""
    if judgment is None:
        return None
    for member in judgment.panel:
        if member.judge == judge:
            return member.verdict if member.status == "ok" else None
    return None


def _unanimous(every: Sequence[Sequence[int | None]]) -> dict[str, Any]:
    """How often every judge gave the same verdict, of the instances every judge judged."""
    rows = [column for column in zip(*every, strict=True) if all(v is not None for v in column)]
    hits = sum(len(set(row)) == 1 for row in rows)
    return {"value": hits / len(rows) if rows else None, "hits": hits, "n": len(rows)}
