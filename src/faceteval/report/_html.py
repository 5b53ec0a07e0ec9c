"""Writing a report as one self-contained HTML page: inline CSS, plots as ``data:`` URIs, no scripts."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import jinja2

from faceteval._version import __version__
from faceteval.core import Instance, Judgment
from faceteval.report._build import DEFAULT_EXAMPLES, DEFAULT_TOP_FACETS, build_sections, kind_of
from faceteval.report._evidence import Paired
from faceteval.report._model import Section
from faceteval.report._plots import Plot, render_plots
from faceteval.report._sections import title

TEMPLATE = "report.html.j2"


@functools.cache
def _environment() -> jinja2.Environment:
    """The report's Jinja environment, built on first use; it escapes every value it inserts."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("faceteval.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )


def render_html(
    summary: Mapping[str, Any],
    instances: Sequence[Instance] = (),
    judgments: Sequence[Judgment] = (),
    *,
    examples: int = DEFAULT_EXAMPLES,
    top_facets: int = DEFAULT_TOP_FACETS,
    include_plots: bool = True,
) -> str:
    """The report of a meta-evaluation run as one self-contained HTML page.

    The page holds the tables of `render_markdown` and, with ``include_plots``, the plots as embedded PNG
    images. It loads nothing from elsewhere and runs no script.

    Args:
        summary: The run's ``summary.json``, as a dict; any key may be absent.
        instances: The run's instances, for the examples and distributions (optional).
        judgments: The run's judgments, matched to instances by id (optional).
        examples: How many disagreements to show.
        top_facets: How many facets per category the facet-weight table and plot show.
        include_plots: Whether to draw the plots (the slow part).
    """
    sections = build_sections(summary, instances, judgments, examples=examples, top_facets=top_facets)
    drawn = []
    if include_plots:
        drawn = render_plots(
            summary, Paired.of(instances, judgments), kind_of(summary, instances), top=top_facets
        )
    schema = summary.get("schema_version")
    footer = f"faceteval {__version__}" + (f", summary schema {schema}" if schema is not None else "")
    return render_page(title(summary), sections, drawn, footer)


def render_page(title: str, sections: Sequence[Section], plots: Sequence[Plot], footer: str) -> str:
    """One self-contained HTML page of ``sections`` (their tables) and ``plots``, as a report is written.

    Every value is escaped; the page loads nothing from elsewhere and runs no script.
    """
    template = _environment().get_template(TEMPLATE)
    return template.render(title=title, sections=sections, plots=plots, footer=footer)
