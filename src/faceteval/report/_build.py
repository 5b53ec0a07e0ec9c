"""A report's sections, in the order shown, from a summary and (optionally) its instances and judgments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from faceteval.core import Instance, Judgment
from faceteval.report import (
    _calibration,
    _cascade,
    _diagnostics,
    _examples,
    _panel,
    _pointwise,
    _ppi,
    _sections,
)
from faceteval.report._evidence import Paired
from faceteval.report._model import Section

DEFAULT_EXAMPLES = 3
"""How many disagreements a report shows."""
DEFAULT_TOP_FACETS = 5
"""How many facets per category the facet-weight table and plot show."""


def kind_of(summary: Mapping[str, Any], instances: Sequence[Instance]) -> str | None:
    """``pairwise`` or ``pointwise``: as the summary says, else as the instances suggest."""
    kind = summary.get("kind")
    if isinstance(kind, str):
        return kind
    if any(instance.label is not None for instance in instances):
        return "pairwise"
    if any(instance.scores for instance in instances):
        return "pointwise"
    return None


def build_sections(
    summary: Mapping[str, Any],
    instances: Sequence[Instance] = (),
    judgments: Sequence[Judgment] = (),
    *,
    examples: int = DEFAULT_EXAMPLES,
    top_facets: int = DEFAULT_TOP_FACETS,
) -> list[Section]:
    """Every section the inputs have something for."""
    paired = Paired.of(instances, judgments)
    kind = kind_of(summary, instances)
    candidates = (
        _sections.overview(summary),
        _sections.status(summary),
        _examples.failures(paired, kind),
        _sections.reported(summary),
        _panel.panel(summary),
        _sections.categories(summary),
        _sections.confusion(summary),
        _diagnostics.bias(summary),
        _diagnostics.selective(summary),
        _calibration.calibration(summary),
        _cascade.cascade(summary),
        _ppi.ppi(summary),
        _pointwise.correlations(summary),
        _pointwise.systems(summary),
        _pointwise.alpha(summary),
        _examples.distributions(paired, kind),
        _sections.facet_weights(summary, top_facets),
        _sections.weight_rankings(summary),
        _sections.usage(summary),
        _sections.sweep(summary),
        _sections.repeats(summary),
        _examples.examples(paired, kind, examples),
    )
    return [section for section in candidates if section is not None]
