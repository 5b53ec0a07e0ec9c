"""What a failed assertion shows: the verdict, the scores and margin, each order, each facet, the replies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from faceteval import FacetScore, Judgment, OrderResult
from faceteval._util.numbers import fmt
from faceteval._util.text import plural

SHOWN_CHARS = 240
"""Longest excerpt of a text (a query, an output, an explanation, a reply) a message quotes."""
SHOWN_PROBLEMS = 3
"""Most kinds of unreadable reply or failed call a message lists."""


def excerpt(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` on one line, cut to about ``limit`` characters, quoted.

    Examples:
        >>> excerpt("two\\nlines")
        "'two lines'"
        >>> excerpt("x" * 10, limit=4)
        "'xxxx…' (10 characters)"
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return repr(flat)
    return f"{flat[:limit]!r}"[:-1] + f"…' ({len(flat)} characters)"


def verdict_words(verdict: int | None, labels: Sequence[str]) -> str:
    """A verdict in words: which output won, or a tie.

    Examples:
        >>> verdict_words(1, ["candidate", "baseline"]), verdict_words(0, ["candidate", "baseline"])
        ('candidate preferred', 'tie')
    """
    if verdict is None:
        return "no verdict"
    if verdict == 0:
        return "tie"
    return f"{labels[verdict - 1]} preferred"


def scores_words(scores: Sequence[float | None] | None, labels: Sequence[str]) -> str:
    """Each output's score, named: ``candidate 7, baseline 5.5``."""
    if scores is None:
        return "no scores"
    return ", ".join(
        f"{label} {'unscored' if s is None else fmt(s)}" for label, s in zip(labels, scores, strict=True)
    )


def details(judgment: Judgment, labels: Sequence[str], texts: Sequence[str], query: str) -> list[str]:
    """The lines under a failure's headline: what was judged, and everything the judge said about it."""
    lines = [f"  query: {excerpt(query)}"]
    lines += [f"  {label}: {excerpt(text)}" for label, text in zip(labels, texts, strict=True)]
    if judgment.status == "ok":
        lines.append(
            f"  verdict: {verdict_words(judgment.verdict, labels)}; scores: "
            f"{scores_words(judgment.scores, labels)}"
        )
    if judgment.orders:
        lines.append("  orders (as shown to the judge):")
        lines += [f"    {_order_line(order, labels)}" for order in judgment.orders]
    if judgment.facets:
        lines.append(f"  facets ({' vs '.join(labels)}):")
        lines += [f"    {line}" for facet in judgment.facets for line in _facet_lines(facet, labels)]
    if judgment.explanation:
        lines.append(f"  explanation: {excerpt(judgment.explanation)}")
    lines += _problems(judgment)
    return lines


def _order_line(order: OrderResult, labels: Sequence[str]) -> str:
    shown = " then ".join(labels[i - 1] for i in order.order)
    return f"{shown}: {verdict_words(order.verdict, labels)} ({scores_words(order.scores, labels)})"


def _facet_lines(facet: FacetScore, labels: Sequence[str]) -> list[str]:
    weight = "" if facet.weight is None else f" (weight {fmt(round(facet.weight, 3))})"
    scores = " vs ".join("unscored" if s is None else fmt(s) for s in facet.scores)
    lines = [f"{facet.name}{weight}: {scores}"]
    if facet.explanation:
        lines.append(f"  {excerpt(facet.explanation)}")
    for label, said in zip(labels, facet.explanations or (), strict=False):
        if said:
            lines.append(f"  {label}: {excerpt(said)}")
    return lines


def _problems(judgment: Judgment) -> list[str]:
    """The exchanges that went wrong (unreadable replies, failed calls), each kind once, with its count."""
    seen: Counter[tuple[str, str, str | None]] = Counter()
    for entry in judgment.trace:
        if entry.problem is not None:
            seen[(f"unreadable reply at {entry.stage}", entry.problem, entry.raw)] += 1
        elif entry.error is not None:
            seen[(f"failed call at {entry.stage}", entry.error, None)] += 1
    lines = []
    for (what, why, reply), count in list(seen.items())[:SHOWN_PROBLEMS]:
        lines.append(f"  {what}{f' ({count} times)' if count > 1 else ''}: {why}")
        if reply is not None:
            lines.append(f"    the reply: {excerpt(reply)}")
    if len(seen) > SHOWN_PROBLEMS:
        lines.append(f"  and {plural(len(seen) - SHOWN_PROBLEMS, 'other problem')} (in the judgment's trace)")
    return lines
