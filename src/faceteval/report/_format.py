"""How numbers, labels and untrusted text are written into report tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from faceteval._util.numbers import NO_SPREAD, NO_SPREAD_NOTE, flat, number

DASH = "—"
"""What an absent number is shown as."""
BINOMIAL_MARK = "‡"
"""Marks a rate's CI that is the exact binomial interval, not the bootstrap one."""
CLOPPER_PEARSON = "clopper-pearson"
"""A rate's ``ci_method`` when its CI is the exact binomial one (`faceteval.metrics.Rate.ci_method`)."""

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_|~]|(?<=\])[(\[:])")
_WHITESPACE = re.compile(r"\s+")
_ENTITY_START = re.compile(r"&(?=[A-Za-z#])")
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
"""Where raw HTML, an autolink or an entity could start; a ``<`` before a digit (``<0.001``) cannot."""
_NON_FRACTION_WORDS = ("kappa", "pearson", "spearman", "kendall", "alpha", "correlation", "tau", "rho")
_METRIC_NAMES = {
    "agreement": "Agreement",
    "agreement_without_ties": "Agreement without ties",
    "cohen_kappa": "Cohen's κ",
    "agreement_order1": "Agreement, original order",
    "agreement_order2": "Agreement, swapped order",
    "accuracy_order_avg": "Accuracy, mean of both orders",
    "consistency": "Swap consistency",
    "consistency_without_ties": "Swap consistency without ties",
    "rotation_consistency": "Consistency across rotations (3+ candidates)",
    "positional_agreement": "Positional agreement (LLMBar: unreadable in both orders counts as agreeing)",
    "agreement_consistent": "Agreement where consistent",
    "agreement_consistent_without_ties": "Agreement where consistent, without ties",
    "votes.with_ties": "MT-Bench votes, with ties",
    "votes.without_ties": "MT-Bench votes, without ties",
}


def value_of(entry: Any) -> float | None:
    """The number behind a summary entry: ``{"value": x, ...}`` or a bare number."""
    if isinstance(entry, Mapping):
        return number(entry.get("value"))
    return number(entry)


def interval(entry: Any) -> tuple[float, float] | None:
    """The ``ci`` of a summary entry as ``(low, high)``, when it has a usable one."""
    ci = entry.get("ci") if isinstance(entry, Mapping) else None
    if not isinstance(ci, Sequence) or isinstance(ci, str) or len(ci) != 2:
        return None
    low, high = number(ci[0]), number(ci[1])
    return None if low is None or high is None else (low, high)


def percent(value: Any, digits: int = 1) -> str:
    """A fraction written as a percentage.

    Examples:
        >>> percent(0.72549), percent(0.72549, 2), percent(None)
        ('72.5%', '72.55%', '—')
    """
    x = number(value)
    return DASH if x is None else f"{100 * x:.{digits}f}%"


def decimal(value: Any, digits: int = 3) -> str:
    """A number with a fixed count of decimals, or a dash."""
    x = number(value)
    return DASH if x is None else f"{x:.{digits}f}"


def is_fraction(metric: str) -> bool:
    """Whether the metric named ``metric`` is a rate (shown as a percentage) rather than a coefficient."""
    lowered = metric.lower()
    return not any(word in lowered for word in _NON_FRACTION_WORDS)


def metric_value(metric: str, value: Any, digits: int = 1) -> str:
    """A metric's value: a percentage for rates, three decimals for coefficients."""
    return percent(value, digits) if is_fraction(metric) else decimal(value, digits + 2)


def metric_interval(metric: str, entry: Any, digits: int = 1) -> str:
    """A metric's 95% CI written like its value, ``[low, high]``, marked ``‡`` when it is binomial."""
    ci = interval(entry)
    if ci is None:
        return DASH
    if flat(ci):
        return f"[{NO_SPREAD}]"
    text = f"[{metric_value(metric, ci[0], digits)}, {metric_value(metric, ci[1], digits)}]"
    return f"{text} {BINOMIAL_MARK}" if is_binomial(entry) else text


def is_binomial(entry: Any) -> bool:
    """Whether a rate's CI is the exact binomial one (where its bootstrap collapsed to a point)."""
    return isinstance(entry, Mapping) and entry.get("ci_method") == CLOPPER_PEARSON


def interval_note(entries: Iterable[Any]) -> str | None:
    """What ``‡`` means, when one of ``entries`` has such a CI, and what `NO_SPREAD` means, when one has
    a CI of zero width."""
    entries = list(entries)
    notes = []
    if any(is_binomial(entry) for entry in entries):
        notes.append(
            f"{BINOMIAL_MARK} Exact binomial (Clopper-Pearson) 95% CI: every bootstrap resample gave the "
            "same rate (all hits or all misses), which is no sign of certainty."
        )
    if any(flat(interval(entry)) for entry in entries):
        notes.append(NO_SPREAD_NOTE[0].upper() + NO_SPREAD_NOTE[1:])
    return " ".join(notes) or None


def metric_name(key: str) -> str:
    """A metric key as a table label.

    Examples:
        >>> metric_name("cohen_kappa"), metric_name("mean_abs_error")
        ("Cohen's κ", 'Mean abs error')
    """
    if key in _METRIC_NAMES:
        return _METRIC_NAMES[key]
    words = key.replace(".", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else key


def count(value: Any, digits: int = 1) -> str:
    """A count: integers with thousands separators, averages with ``digits`` decimals.

    Examples:
        >>> count(12345), count(2.25), count(None)
        ('12,345', '2.2', '—')
    """
    x = number(value)
    if x is None:
        return DASH
    return f"{int(x):,}" if x.is_integer() and isinstance(value, int) else f"{x:,.{digits}f}"


def dollars(value: Any, digits: int = 4) -> str:
    """A price in US dollars; ``unknown`` when the model has no known price."""
    x = number(value)
    return "unknown" if x is None else f"${x:,.{digits}f}"


def p_value(value: Any) -> str:
    """A p-value with three decimals, or ``<0.001``."""
    x = number(value)
    if x is None:
        return DASH
    return "<0.001" if x < 0.001 else f"{x:.3f}"


def hits(entry: Any) -> str:
    """``hits / n`` of a rate entry, or a dash."""
    if not isinstance(entry, Mapping):
        return DASH
    hit, total = number(entry.get("hits")), number(entry.get("n"))
    if total is None:
        return DASH
    return f"{count(int(total))}" if hit is None else f"{count(int(hit))} / {count(int(total))}"


def label_name(label: Any) -> str:
    """A human label or judge verdict in words: ``1``, ``2``, ``tie``, ``no verdict``.

    Examples:
        >>> label_name(0), label_name("2"), label_name(None), label_name("null")
        ('tie', '2', 'no verdict', 'no verdict')
    """
    if label is None or (isinstance(label, str) and label.strip().lower() in ("", "none", "null")):
        return "no verdict"
    text = str(label).strip()
    if text in ("0", "0.0"):
        return "tie"
    return text


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut.

    Examples:
        >>> truncate("abcdef", 4)
        'abc…'
    """
    return text if len(text) <= limit else text[: max(limit - 1, 0)].rstrip() + "…"


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) collapsed to one space."""
    return _WHITESPACE.sub(" ", text).strip()


def escape_markdown(text: str) -> str:
    r"""Untrusted text made safe for a Markdown table cell or heading: one line, no markup, no HTML.

    Emphasis, code, pipes and link targets are backslash-escaped and HTML is written as entities;
    ``[`` alone and ``<`` before a digit stay as they are, so ``[0.40, 0.61]`` and ``<0.001`` read
    the same in the source and on the page.

    Examples:
        >>> print(escape_markdown("a|b\n<i>c</i> *d*"))
        a\|b &lt;i&gt;c&lt;/i&gt; \*d\*
        >>> print(escape_markdown("[click](http://x) [1, 2] p<0.001 AT&T &amp;"))
        [click]\(http://x) [1, 2] p<0.001 AT&amp;T &amp;amp;
    """
    line = _ENTITY_START.sub("&amp;", one_line(text))
    line = _TAG_START.sub("&lt;", line).replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", line)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when a summary's entry is a mapping, else an empty one (a hand-edited or older record)."""
    return value if isinstance(value, Mapping) else {}
