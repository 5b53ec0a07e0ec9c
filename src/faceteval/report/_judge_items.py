"""The items of a judge run worth a look: where the facets disagree with the verdict, where the orders
disagree, and where the judgment failed; each listed with a link to the item shown whole (its query,
candidates, verdict and facets, each cut short).

Every text of an item is the run's data, not ours: it is written as text (escaped by each writer).
"""

from __future__ import annotations

from collections.abc import Sequence

from faceteval.core import Instance, Judgment
from faceteval.report._examples import (
    CANDIDATE_CHARS,
    ERROR_CHARS,
    EXPLANATION_CHARS,
    MAX_CANDIDATES,
    QUERY_CHARS,
)
from faceteval.report._format import DASH, count, decimal, one_line, truncate
from faceteval.report._judge_evidence import Evidence, Listed, facet_conflict
from faceteval.report._model import Section, Table

EXCERPT_CHARS = 80
"""How much of an item's query its row in a list shows."""
_FAILED = {"parse_error": "parse error", "error": "error"}


def anchors(evidence: Evidence) -> dict[str, str]:
    """The anchor of each item listed, by id: ``item-1``, ``item-2`` ... in order of first listing."""
    return {item_id: f"item-{k}" for k, item_id in enumerate(evidence.listed_ids, start=1)}


def item_sections(evidence: Evidence) -> list[Section]:
    """The lists of items, then every item listed, shown whole."""
    links = anchors(evidence)
    lists = (
        _conflicts(evidence, links),
        _orders(evidence, links),
        _failures(evidence, links),
    )
    sections = [section for section in lists if section is not None]
    if links:
        tables = tuple(
            table for item_id in links for table in _item_tables(item_id, evidence, links[item_id])
        )
        note = "Each item listed above, its texts cut short (faceteval view shows them whole)."
        sections.append(Section("items", "Items listed", (note,), tables))
    return sections


def _conflicts(evidence: Evidence, links: dict[str, str]) -> Section | None:
    listed = evidence.conflicts
    if not listed.total:
        return None
    rows = []
    for judgment in listed.items:
        conflict = facet_conflict(judgment)
        assert conflict is not None  # it was listed for one
        instance = evidence.instances.get(judgment.id)
        favoured = candidate(conflict.favoured, instance)
        rows.append(
            (
                judgment.id,
                candidate(conflict.verdict, instance),
                f"{favoured}, but they split" if conflict.split else favoured,
                "; ".join(conflict.against) or DASH,
                "; ".join(conflict.agreeing) or DASH,
                _excerpt(instance),
            )
        )
    columns = ("Item", "Verdict", "Facets favour", "Facets against it", "Facets for it", "Query")
    table = Table(columns, tuple(rows), note=_shown(listed), links=tuple(links[j.id] for j in listed.items))
    note = (
        "Ok judgments whose facets disagree with the verdict: their weighted aggregate puts another "
        "candidate first (or ties), or they split (one facet favours one candidate, another another)."
    )
    return Section("facets-against", "Facets against the verdict", (note,), (table,))


def _orders(evidence: Evidence, links: dict[str, str]) -> Section | None:
    listed = evidence.orders
    if not listed.total:
        return None
    rows = []
    for judgment in listed.items:
        instance = evidence.instances.get(judgment.id)
        each = "; ".join(
            f"shown {','.join(map(str, order.order))}: {candidate(order.verdict, instance)}"
            for order in judgment.orders
        )
        rows.append((judgment.id, candidate(judgment.verdict, instance), each or DASH, _excerpt(instance)))
    table = Table(
        ("Item", "Verdict", "Verdict of each order", "Query"),
        tuple(rows),
        note=_shown(listed),
        links=tuple(links[j.id] for j in listed.items),
    )
    note = (
        "Judgments made in both orders (--swap) whose orders gave different verdicts. The candidates "
        "are numbered as in the input; 'shown 2,1' is the swapped order."
    )
    return Section("orders", "Orders that disagree", (note,), (table,))


def _failures(evidence: Evidence, links: dict[str, str]) -> Section | None:
    listed = evidence.failures
    if not listed.total:
        return None
    rows = tuple(
        (j.id, _FAILED.get(j.status, j.status), truncate(one_line(j.error or ""), ERROR_CHARS) or DASH)
        for j in listed.items
    )
    table = Table(
        ("Item", "Status", "Error"), rows, note=_shown(listed), links=tuple(links[j.id] for j in listed.items)
    )
    return Section("failures", "Failures", (), (table,))


def _shown(listed: Listed) -> str:
    if listed.total <= len(listed.items):
        return f"{count(listed.total)} in all."
    return f"The first {count(len(listed.items))} of {count(listed.total)} (faceteval view lists them all)."


def candidate(number: int | None, instance: Instance | None) -> str:
    """A candidate's number (and its system, when the instance names it); ``tie``; ``no verdict``.

    Examples:
        >>> from faceteval.core import Instance
        >>> pair = Instance(id="1", query="q", candidates=["x", "y"], systems=["A", "B"])
        >>> candidate(2, pair), candidate(0, pair), candidate(None, None)
        ('2 (B)', 'tie', 'no verdict')
    """
    if number is None:
        return "no verdict"
    if number == 0:
        return "tie"
    systems = instance.systems if instance is not None else None
    return f"{number} ({systems[number - 1]})" if systems and number <= len(systems) else str(number)


def _excerpt(instance: Instance | None) -> str:
    return truncate(one_line(instance.query), EXCERPT_CHARS) if instance is not None else DASH


def _item_tables(item_id: str, evidence: Evidence, anchor: str) -> list[Table]:
    judgment = _find(item_id, evidence)
    instance = evidence.instances.get(item_id)
    rows = [("Item", item_id), *_instance_rows(instance)]
    rows += _judgment_rows(judgment, instance)
    tables = [Table(("Field", "Value"), tuple(rows), title=f"Item {item_id}", prose=True, anchor=anchor)]
    if judgment.facets:
        tables.append(_facet_table(judgment))
    return tables


def _find(item_id: str, evidence: Evidence) -> Judgment:
    lists = (evidence.conflicts, evidence.orders, evidence.failures)
    return next(j for listed in lists for j in listed.items if j.id == item_id)


def _instance_rows(instance: Instance | None) -> list[tuple[str, str]]:
    if instance is None:
        return [("Query", "(the judged input was not found)")]
    rows = [("Query", truncate(instance.query, QUERY_CHARS))]
    for k, text in enumerate(instance.candidates[:MAX_CANDIDATES], start=1):
        label = f"Candidate {candidate(k, instance)}" if instance.n_candidates > 1 else "Output"
        rows.append((label, truncate(text, CANDIDATE_CHARS)))
    if instance.n_candidates > MAX_CANDIDATES:
        rows.append(("More candidates", count(instance.n_candidates - MAX_CANDIDATES)))
    return rows


def _judgment_rows(judgment: Judgment, instance: Instance | None) -> list[tuple[str, str]]:
    if judgment.status != "ok":
        error = truncate(judgment.error or "", EXPLANATION_CHARS) or DASH
        return [("Status", _FAILED.get(judgment.status, judgment.status)), ("Error", error)]
    rows = [("Verdict", candidate(judgment.verdict, instance))]
    if judgment.scores:
        rows.append(("Overall scores", _scores(judgment.scores)))
    if judgment.consistent is not None:
        rows.append(("Same verdict in both orders", "yes" if judgment.consistent else "no"))
    if judgment.explanation:
        rows.append(("Explanation", truncate(judgment.explanation, EXPLANATION_CHARS)))
    return rows


def _scores(scores: Sequence[float | None]) -> str:
    return ", ".join(DASH if score is None else decimal(score, 2) for score in scores)


def _facet_table(judgment: Judgment) -> Table:
    rows = tuple(
        (
            facet.name,
            decimal(facet.weight, 2),
            _scores(facet.scores),
            truncate(facet.explanation or "", EXPLANATION_CHARS) or DASH,
        )
        for facet in judgment.facets
    )
    return Table(
        ("Facet", "Weight", "Scores", "Explanation"),
        rows,
        prose=True,
        numeric=(False, True, True, False),
    )
