"""Agreement of pairwise verdicts with human labels.

A verdict is the 1-based index of the preferred candidate (1 or 2 for a pair), ``TIE`` (0) for a tie, or
None when the judge produced no verdict. Human labels use the same coding and are never None.

None policy (every function here): a None verdict counts as wrong. The item stays in ``n`` with no hit
and is also counted in `Rate.missing`. Where two presentation orders are compared, an item with a None
verdict in either order is missing and counts as inconsistent and wrong.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from faceteval.metrics._checks import check_lengths
from faceteval.metrics._types import Rate

TIE = 0
"""The verdict and label coding of a tie."""

NO_VERDICT_CLASS = -1
"""The class a None verdict is mapped to by `cohen_kappa`; it never equals a human label."""

DEFAULT_CLASSES = (1, 2, TIE)
"""The pairwise classes, in the order `confusion` lists them."""

Verdict = int | None
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)


def _check_labels(labels: Sequence[int | None], *verdicts: Sequence[Verdict]) -> None:
    """ValueError unless every human label is a class (an integer, 0 = tie) and every verdict one or None.

    Anything else (a None label: only the judge may fail to give a verdict; ``"1"`` read from a text
    file) would silently count as a disagreement.
    """
    _check_codes(labels, "human labels must be integers (0 = tie)", none=False)
    for column in verdicts:
        _check_codes(column, "verdicts must be integers (0 = tie) or None", none=True)


def _check_codes(values: Sequence[object], rule: str, *, none: bool) -> None:
    kinds = set(map(type, values))
    if all(_is_code_type(kind, none) for kind in kinds) and (
        float not in kinds or all(v.is_integer() for v in values if isinstance(v, float))
    ):
        return
    for index, value in enumerate(values):
        if not (_is_code_type(type(value), none) and (not isinstance(value, float) or value.is_integer())):
            raise ValueError(f"{rule}, got {value!r} (item {index + 1})")


def _is_code_type(kind: type, none: bool) -> bool:
    """Whether values of ``kind`` can be classes: integers, floats (whole ones), None where allowed."""
    if kind is type(None):
        return none
    return kind is not bool and (issubclass(kind, numbers.Integral) or issubclass(kind, float))


def correct(verdicts: Sequence[Verdict], labels: Sequence[int]) -> list[bool]:
    """Per item, whether the verdict equals the human label (a None verdict is wrong).

    This is the input `mcnemar_exact` takes.

    Examples:
        >>> correct([1, 2, None, 0], [1, 1, 2, 0])
        [True, False, False, True]
    """
    check_lengths(verdicts, labels)
    _check_labels(labels, verdicts)
    return [verdict is not None and verdict == label for verdict, label in zip(verdicts, labels, strict=True)]


def agreement(verdicts: Sequence[Verdict], labels: Sequence[int]) -> Rate:
    """Fraction of items whose verdict equals the human label; a tie is a class like any other.

    Examples:
        >>> agreement([1, 2, 0, None], [1, 1, 0, 2])
        Rate(value=0.5, hits=2, n=4, missing=1, excluded=0, ci=None, ci_method=None)
    """
    hits = correct(verdicts, labels)
    return Rate.from_counts(sum(hits), len(hits), missing=sum(v is None for v in verdicts))


def agreement_without_ties(verdicts: Sequence[Verdict], labels: Sequence[int]) -> Rate:
    """`agreement` over the items whose human label is not a tie.

    Items labelled a tie are left out (counted in `Rate.excluded`); a judge's tie on a kept item is
    simply wrong. This is the "without ties" number of DnA-Eval's Table 2.

    Examples:
        >>> agreement_without_ties([1, 0, 2, 1], [1, 2, 0, 0])
        Rate(value=0.5, hits=1, n=2, missing=0, excluded=2, ci=None, ci_method=None)
    """
    check_lengths(verdicts, labels)
    _check_labels(labels)
    kept = [(verdict, label) for verdict, label in zip(verdicts, labels, strict=True) if label != TIE]
    rate = agreement([v for v, _ in kept], [label for _, label in kept])
    return Rate.from_counts(rate.hits, rate.n, missing=rate.missing, excluded=len(labels) - len(kept))


def _either_missing(first: Sequence[Verdict], second: Sequence[Verdict]) -> int:
    return sum(a is None or b is None for a, b in zip(first, second, strict=True))


def consistency(first: Sequence[Verdict], second: Sequence[Verdict]) -> Rate:
    """Fraction of items whose verdicts in the two presentation orders agree.

    Both verdicts must already be in the original candidate numbering (the swapped order's verdict
    mapped back). Two ties agree. An item with a None verdict in either order is inconsistent.

    Examples:
        >>> consistency([1, 2, 0, 1], [1, 1, 0, None])
        Rate(value=0.5, hits=2, n=4, missing=1, excluded=0, ci=None, ci_method=None)
    """
    n = check_lengths(first, second)
    _check_labels((), first, second)
    hits = sum(a is not None and a == b for a, b in zip(first, second, strict=True))
    return Rate.from_counts(hits, n, missing=_either_missing(first, second))


def agreement_consistent(first: Sequence[Verdict], second: Sequence[Verdict], labels: Sequence[int]) -> Rate:
    """Fraction of all items where both orders give the same verdict and it equals the label.

    This is the Auto-J / Fennec protocol: an inconsistent item is wrong, never dropped.

    Examples:
        >>> agreement_consistent([1, 2, 1, None], [1, 1, 1, 2], [1, 2, 2, 2])
        Rate(value=0.25, hits=1, n=4, missing=1, excluded=0, ci=None, ci_method=None)
    """
    n = check_lengths(first, second, labels)
    _check_labels(labels, first, second)
    rows = zip(first, second, labels, strict=True)
    hits = sum(a is not None and a == b == label for a, b, label in rows)
    return Rate.from_counts(hits, n, missing=_either_missing(first, second))


def _not_tied(labels: Sequence[int]) -> list[int]:
    """The indices of the items whose human label is not a tie."""
    _check_labels(labels)
    return [index for index, label in enumerate(labels) if label != TIE]


def _excluding(rate: Rate, excluded: int) -> Rate:
    return Rate.from_counts(rate.hits, rate.n, missing=rate.missing, excluded=excluded)


def consistency_without_ties(
    first: Sequence[Verdict], second: Sequence[Verdict], labels: Sequence[int]
) -> Rate:
    """`consistency` over the items whose human label is not a tie.

    Items labelled a tie are left out (counted in `Rate.excluded`), as in Fennec's numbers recalculated
    "excluding samples labeled as tie".

    Examples:
        >>> consistency_without_ties([1, 2, 0, 1], [1, 1, 0, None], [1, 2, 0, 2])
        Rate(value=0.3333333333333333, hits=1, n=3, missing=1, excluded=1, ci=None, ci_method=None)
    """
    check_lengths(first, second, labels)
    kept = _not_tied(labels)
    rate = consistency([first[i] for i in kept], [second[i] for i in kept])
    return _excluding(rate, len(labels) - len(kept))


def agreement_consistent_without_ties(
    first: Sequence[Verdict], second: Sequence[Verdict], labels: Sequence[int]
) -> Rate:
    """`agreement_consistent` over the items whose human label is not a tie.

    Items labelled a tie are left out (counted in `Rate.excluded`); a consistent tie verdict on a kept
    item is wrong.

    Examples:
        >>> agreement_consistent_without_ties([1, 2, 0, 0], [1, 1, 0, 0], [1, 2, 0, 2])
        Rate(value=0.3333333333333333, hits=1, n=3, missing=0, excluded=1, ci=None, ci_method=None)
    """
    check_lengths(first, second, labels)
    kept = _not_tied(labels)
    rate = agreement_consistent(
        [first[i] for i in kept], [second[i] for i in kept], [labels[i] for i in kept]
    )
    return _excluding(rate, len(labels) - len(kept))


def accuracy_order_avg(first: Sequence[Verdict], second: Sequence[Verdict], labels: Sequence[int]) -> Rate:
    """The mean of the accuracies of the two presentation orders (LLMBar's ``correct_average``).

    Each order's verdicts are scored against the labels, so the result counts ``2 * len(labels)``
    verdicts: ``hits`` is the total over both orders and ``missing`` the None verdicts in either.

    Examples:
        >>> accuracy_order_avg([1, 2, 1], [1, 1, None], [1, 2, 2])
        Rate(value=0.5, hits=3, n=6, missing=1, excluded=0, ci=None, ci_method=None)
    """
    check_lengths(first, second, labels)
    a, b = agreement(first, labels), agreement(second, labels)
    return Rate.from_counts(a.hits + b.hits, a.n + b.n, missing=a.missing + b.missing)


def cohen_kappa(verdicts: Sequence[Verdict], labels: Sequence[int]) -> float | None:
    """Cohen's kappa between judge verdicts and human labels (unweighted, ties a class): scikit-learn's
    ``cohen_kappa_score``.

    A None verdict becomes its own class (`NO_VERDICT_CLASS`), which agrees with no label. The result
    is None for no items, and when chance agreement is 1 (both sides use one and the same class),
    where kappa is undefined.

    Examples:
        >>> cohen_kappa([1, 2, 1, 2], [1, 2, 2, 2])
        0.5
        >>> cohen_kappa([1, None], [1, 1]), cohen_kappa([2, 2], [2, 2])
        (0.0, None)
    """
    n = check_lengths(verdicts, labels)
    _check_labels(labels, verdicts)
    coded = [NO_VERDICT_CLASS if v is None else int(v) for v in verdicts]
    human = [int(label) for label in labels]
    if n == 0 or len(set(coded) | set(human)) == 1:  # one class on both sides: chance agreement is 1
        return None
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(human, coded))  # a float, not numpy's


def confusion(
    verdicts: Sequence[Verdict], labels: Sequence[int], classes: Sequence[int] = DEFAULT_CLASSES
) -> dict[str, dict[str, int]]:
    """Counts of (human label, judge verdict) pairs: ``result[str(label)][str(verdict)]``.

    Rows are the human labels, columns the judge's verdicts plus a ``"none"`` column for None
    verdicts; both follow the order of ``classes``. A label or verdict outside ``classes`` is an error.

    Examples:
        >>> confusion([1, 0, None], [1, 2, 2])["2"]
        {'1': 0, '2': 0, '0': 1, 'none': 1}
    """
    check_lengths(verdicts, labels)
    _check_labels(labels)
    table = {str(row): {str(col): 0 for col in classes} | {"none": 0} for row in classes}
    for verdict, label in zip(verdicts, labels, strict=True):
        if label not in classes or (verdict is not None and verdict not in classes):
            raise ValueError(f"label {label!r} or verdict {verdict!r} is not one of the classes {classes}")
        table[str(label)]["none" if verdict is None else str(verdict)] += 1
    return table


def by_group(metric: Callable[..., R], groups: Sequence[Hashable], *columns: Sequence[Any]) -> dict[str, R]:
    """Apply ``metric`` to the items of each group separately.

    Args:
        metric: Any metric of this package (use `functools.partial` to fix options).
        groups: One group value per item (e.g. a task category); keys are ``str(group)``, in order of
            first appearance.
        *columns: The metric's positional inputs, each with one entry per item.

    Examples:
        >>> rates = by_group(agreement, ["math", "code", "math"], [1, 2, 2], [1, 2, 1])
        >>> {group: rate.value for group, rate in rates.items()}
        {'math': 0.5, 'code': 1.0}
    """
    check_lengths(groups, *columns)
    members: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(str(group), []).append(index)
    return {
        group: metric(*([column[i] for i in indices] for column in columns))
        for group, indices in members.items()
    }


def vote_agreement(judge: Mapping[K, Verdict], votes: Iterable[tuple[K, int]], *, ties: bool = True) -> Rate:
    """Agreement of individual human votes with the judge's verdict on the same comparison (MT-Bench).

    Each vote ``(key, label)`` is compared with ``judge[key]``, so a comparison with several votes
    counts several times. Keys must be built the same way on both sides (e.g. question, unordered
    model pair and turn, with the vote flipped to match the pair's order).

    Args:
        judge: The judge's verdict per comparison.
        votes: Human votes as ``(key, label)``; 0 is a tie.
        ties: With False, every vote where the human or the judge says tie is left out.

    Votes whose key the judge lacks are left out and counted in `Rate.excluded`, together with the
    ties left out when ``ties`` is False. A None verdict counts as wrong (it is not known to be a tie).

    Examples:
        >>> judge = {"q1": 1, "q2": 0, "q3": None}
        >>> vote_agreement(judge, [("q1", 1), ("q1", 2), ("q2", 0), ("q3", 1), ("q4", 1)])
        Rate(value=0.5, hits=2, n=4, missing=1, excluded=1, ci=None, ci_method=None)
        >>> vote_agreement(judge, [("q1", 1), ("q1", 2), ("q2", 0), ("q3", 1)], ties=False)
        Rate(value=0.3333333333333333, hits=1, n=3, missing=1, excluded=1, ci=None, ci_method=None)
    """
    hits = n = missing = excluded = 0
    for key, label in votes:
        if key not in judge:
            excluded += 1
            continue
        verdict = judge[key]
        if not ties and TIE in (label, verdict):
            excluded += 1
            continue
        n += 1
        if verdict is None:
            missing += 1
        elif verdict == label:
            hits += 1
    return Rate.from_counts(hits, n, missing=missing, excluded=excluded)
