"""Which methods' judgments correction and SFT export read: those whose specs say their judgments carry,
per criterion, a guideline and each response's score and explanation (Fennec's do)."""

from __future__ import annotations

from faceteval.methods import method_specs


def per_criterion_methods() -> list[str]:
    """The registered methods whose judgments carry per-criterion judgments, Fennec first."""
    return [spec.name for spec in method_specs() if spec.per_criterion_judgments]


def either(names: list[str]) -> str:
    """``fennec``, or ``fennec or x``: the methods as a message names them."""
    return " or ".join(names)
