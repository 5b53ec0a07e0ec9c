"""The filters of a run's table of items, as a page's query string gives them and as the index asks them.

Every filter is a GET parameter (a form with no script sends them), checked here: a value a filter
cannot take is refused with what it can take, never ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from urllib.parse import urlencode

from faceteval.errors import FilterError

__all__ = ["AGREEMENTS", "CONSISTENCIES", "FilterError", "Filters"]

AGREEMENTS = {
    "agree": "the verdict is the human label",
    "disagree": "the verdict is not the human label",
    "no-verdict": "labelled, but no verdict",
    "unlabelled": "no human label",
}
"""The values of the ``agreement`` filter, and what each keeps."""
CONSISTENCIES = {
    "yes": "the orders agreed",
    "no": "the orders disagreed",
    "one-order": "judged in one order",
}
"""The values of the ``consistent`` filter, and what each keeps."""
NO_VERDICT = "none"
"""The ``verdict`` filter's value for lines with no verdict."""


@dataclass(frozen=True, slots=True)
class Filters:
    """Which lines of a run a table shows; None (or "") keeps every line.

    Attributes:
        status: Lines of this status (``ok``, ``parse_error``, ``error``, ``bad line`` ...).
        verdict: Lines with this verdict: a candidate's number, ``0`` for a tie, ``none`` for none.
        consistent: ``yes`` / ``no`` (the orders agreed or not, under ``--swap``) / ``one-order``.
        agreement: ``agree`` / ``disagree`` with the human label, ``no-verdict``, ``unlabelled``.
        facet: Lines that score this facet.
        system: Lines whose instance has a candidate of this system.
        winner: Lines whose verdict is this system's candidate.
        id: Lines whose id holds this text.
    """

    status: str = ""
    verdict: str = ""
    consistent: str = ""
    agreement: str = ""
    facet: str = ""
    system: str = ""
    winner: str = ""
    id: str = ""

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> Filters:
        """The filters a query string sets (other parameters are the page's own).

        Raises:
            FilterError: A filter's value is not one it takes.

        Examples:
            >>> Filters.from_query({"verdict": "2", "page": "3"}).query()
            'verdict=2'
            >>> Filters.from_query({"consistent": "maybe"})
            Traceback (most recent call last):
            ...
            faceteval.errors.FilterError: consistent: 'maybe' is not one of yes, no, one-order
        """
        given = {f.name: query.get(f.name, "").strip() for f in fields(cls)}
        verdict = given["verdict"]
        if verdict and verdict != NO_VERDICT and not (verdict.isdigit() and len(verdict) < 6):
            raise FilterError(f"verdict: {verdict!r} is a candidate's number, 0 for a tie, or {NO_VERDICT}")
        for name, allowed in (("consistent", CONSISTENCIES), ("agreement", AGREEMENTS)):
            if given[name] and given[name] not in allowed:
                raise FilterError(f"{name}: {given[name]!r} is not one of {', '.join(allowed)}")
        return cls(**given)

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return any(asdict(self).values())

    def query(self, **extra: object) -> str:
        """The query string of these filters (those set), with ``extra`` parameters.

        Examples:
            >>> Filters(status="ok", facet="Is it right?").query(page=2)
            'status=ok&facet=Is+it+right%3F&page=2'
        """
        pairs = [(k, v) for k, v in asdict(self).items() if v]
        return urlencode(pairs + [(k, str(v)) for k, v in extra.items() if v not in (None, "")])

    def clauses(self) -> tuple[list[str], list[object]]:
        """SQL conditions on the index's ``rows r`` joined with ``inputs i``, and their parameters; a
        facet or system is a ``(kind, name)`` pair, for the index to put its id in place of."""
        clauses: list[str] = []
        params: list[object] = []
        if self.status:
            clauses.append("r.status = ?")
            params.append(self.status)
        if self.verdict == NO_VERDICT:
            clauses.append("r.verdict IS NULL")
        elif self.verdict:
            clauses.append("r.verdict = ?")
            params.append(int(self.verdict))
        if self.consistent:
            clauses.append(
                {"yes": "r.consistent = 1", "no": "r.consistent = 0"}.get(
                    self.consistent, "r.consistent IS NULL"
                )
            )
        if self.agreement:
            clauses.append(_AGREEMENT_SQL[self.agreement])
        if self.facet:
            clauses.append("EXISTS (SELECT 1 FROM row_facets f WHERE f.name_id = ? AND f.line = r.line)")
            params.append(("facet", self.facet))
        for value, position in ((self.system, ""), (self.winner, " AND s.position = r.verdict")):
            if value:
                clauses.append(
                    f"EXISTS (SELECT 1 FROM input_systems s WHERE s.name_id = ? AND s.id = r.id{position})"
                )
                params.append(("system", value))
        if self.id:
            clauses.append("instr(r.id, ?) > 0")
            params.append(self.id)
        return clauses, params


_AGREEMENT_SQL = {
    "agree": "i.label IS NOT NULL AND r.verdict = i.label",
    "disagree": "i.label IS NOT NULL AND r.verdict IS NOT NULL AND r.verdict != i.label",
    "no-verdict": "i.label IS NOT NULL AND r.verdict IS NULL",
    "unlabelled": "i.label IS NULL",
}
