"""What a report is made of, before it is written as Markdown or HTML: sections of plain-text tables."""

from __future__ import annotations

from dataclasses import dataclass, field


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

    def is_numeric(self, index: int) -> bool:
        """Whether column ``index`` holds numbers."""
        return index < len(self.numeric) and self.numeric[index]


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
