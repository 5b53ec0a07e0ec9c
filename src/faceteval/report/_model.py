"""What a report is made of, before it is written as Markdown or HTML: sections of plain-text tables."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ANCHOR = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Table:
    """A table of plain (unescaped) text cells; each writer escapes them its own way."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    title: str | None = None
    note: str | None = None
    """A line under the table."""
    numeric: tuple[bool, ...] = ()
    """Per column: right-align (numbers). Missing entries mean left-aligned."""
    prose: bool = False
    """The cells hold free text (queries, explanations): HTML keeps their line breaks."""
    anchor: str | None = None
    """An id to link to the table by (``item-3``): letters, digits and ``-`` only."""
    links: tuple[str | None, ...] = ()
    """Per row: the anchor its first cell links to (None: no link). Missing entries mean no link."""

    def __post_init__(self) -> None:
        for anchor in (self.anchor, *self.links):
            if anchor is not None and not _ANCHOR.fullmatch(anchor):
                raise ValueError(f"anchor {anchor!r}: letters, digits and '-' only")

    def is_numeric(self, index: int) -> bool:
        """Whether column ``index`` holds numbers."""
        return index < len(self.numeric) and self.numeric[index]

    def link(self, row: int) -> str | None:
        """The anchor row ``row``'s first cell links to, if it links to one."""
        return self.links[row] if row < len(self.links) else None


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of the report."""

    key: str
    """A stable identifier: the HTML anchor, and which plot belongs here."""
    title: str
    notes: tuple[str, ...] = ()
    """Paragraphs shown before the tables."""
    tables: tuple[Table, ...] = field(default=())


def numeric_columns(n_text: int, n_numbers: int) -> tuple[bool, ...]:
    """Alignment for ``n_text`` text columns followed by ``n_numbers`` number columns."""
    return (False,) * n_text + (True,) * n_numbers
