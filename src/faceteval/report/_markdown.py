"""Writing a report as Markdown: every piece of text escaped for a table cell."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval._version import __version__
from faceteval.core import Instance, Judgment
from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS, build_sections
from faceteval.report._format import escape_markdown
from faceteval.report._model import Section, Table
from faceteval.report._sections import title


def render_markdown(
    summary: Mapping[str, Any],
    instances: Sequence[Instance] = (),
    judgments: Sequence[Judgment] = (),
    *,
    examples: int = DEFAULT_EXAMPLES,
    top_facets: int = DEFAULT_TOP_FACETS,
) -> str:
    """The report of a meta-evaluation run as Markdown.

    Args:
        summary: The run's ``summary.json``, as a dict; any key may be absent.
        instances: The run's instances, for the examples and distributions (optional).
        judgments: The run's judgments, matched to instances by id (optional).
        examples: How many disagreements to show.
        top_facets: How many facets per category the facet-weight table lists.

    Examples:
        >>> print(render_markdown({"benchmark": "llmbar", "judge": "gpt-4"}).splitlines()[0])
        # llmbar × gpt-4
    """
    lines = [f"# {escape_markdown(title(summary))}", ""]
    for section in build_sections(summary, instances, judgments, examples=examples, top_facets=top_facets):
        lines += section_lines(section)
    schema = summary.get("schema_version")
    footer = f"faceteval {__version__}" + (f", summary schema {schema}" if schema is not None else "")
    lines.append(f"*{escape_markdown(footer)}*")
    return "\n".join(lines) + "\n"


def section_lines(section: Section) -> list[str]:
    """A section: its heading, notes and tables, each followed by a blank line."""
    lines = [f"## {escape_markdown(section.title)}", ""]
    for note in section.notes:
        lines += [escape_markdown(note), ""]
    for table in section.tables:
        lines += table_lines(table)
    return lines


def table_lines(table: Table) -> list[str]:
    r"""A GitHub-flavoured Markdown table, with its title, anchor, links and note when it has them.

    Examples:
        >>> table = Table(("Item", "Why"), (("a]b", "x"),), title="T", anchor="t", links=("item-1",))
        >>> print("\n".join(table_lines(table)[:5]))
        ### <a id="t"></a>T
        <BLANKLINE>
        | Item | Why |
        |---|---|
        | [a\]b](#item-1) | x |
    """
    anchor = f'<a id="{table.anchor}"></a>' if table.anchor else ""
    lines = [f"### {anchor}{escape_markdown(table.title)}", ""] if table.title else []
    if anchor and not table.title:
        lines += [anchor, ""]
    lines.append(_row(table.columns))
    lines.append(
        "|" + "|".join("--:" if table.is_numeric(i) else "---" for i in range(len(table.columns))) + "|"
    )
    lines += [_row(row, table.link(index)) for index, row in enumerate(table.rows)]
    lines.append("")
    if table.note:
        lines += [f"*{escape_markdown(table.note)}*", ""]
    return lines


def _row(cells: Sequence[str], link: str | None = None) -> str:
    shown = [escape_markdown(cell) or " " for cell in cells]
    if link is not None and shown:
        text = shown[0].replace("[", "\\[").replace("]", "\\]")
        shown[0] = f"[{text}](#{link})"
    return "| " + " | ".join(shown) + " |"
