"""The labelling queue: the order in which an import's items meet the annotators.

An import ranks its items by one of `ORDERS`: ``input`` (as the run lists them), ``uncertainty``
(the judge's least confident verdicts first; a judgment without a confidence counts as the least
sure), ``disagreement`` (the judgments whose orders or panel members disagree most first) or
``random`` (a shuffle). Ties are broken at random, and the shuffle is random, by one seeded
generator drawn once per item in the run's order: the same run, order and seed give the same queue.
No I/O here: the items take their places in the project as they are added (``_content.py``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # the command line reads ORDERS without loading the data model
    from faceteval.core import Judgment

__all__ = ["ORDERS", "Ordering", "Queue", "disagreement", "queue_key", "ranked", "sampling_of"]

Ordering = Literal["input", "uncertainty", "disagreement", "random"]
ORDERS: tuple[Ordering, ...] = ("input", "uncertainty", "disagreement", "random")
_UNSURE = -1.0
"""The confidence a judgment without one is ranked with: below every confidence (which are 0 to 1)."""


@dataclass(frozen=True, slots=True)
class Queue:
    """An import's queue: its order, its seed, and each item's place in it."""

    ordering: Ordering
    seed: int
    ranks: Mapping[str, int]
    """Each item's place (from 0), by id."""
    start: int = 0
    """The project position of the queue's first place: its items come after those already there."""


def queue_key(judgment: Judgment, ordering: Ordering) -> float:
    """Where ``judgment``'s item goes in an ``ordering`` queue: lower first (ties broken at random).

    Examples:
        >>> from faceteval.core import Judgment
        >>> sure = Judgment(id="a", method="direct", status="ok", verdict=1, confidence=0.8)
        >>> unsure = sure.model_copy(update={"confidence": None})
        >>> queue_key(sure, "uncertainty"), queue_key(unsure, "uncertainty")
        (0.8, -1.0)
    """
    if ordering == "uncertainty":
        return _UNSURE if judgment.confidence is None else judgment.confidence
    if ordering == "disagreement":
        return -disagreement(judgment)
    return 0.0  # input keeps the run's order; random is all ties


def disagreement(judgment: Judgment) -> float:
    """How much the judgment disagrees with itself: the share of its orders not with their most common
    verdict (a half at least when it is marked inconsistent), plus the share of its panel members not
    with theirs (a member's vote: its verdict, else its first overall score). 0 for one judge, one order.

    Examples:
        >>> from faceteval.core import Judgment, PanelMember
        >>> panel = [PanelMember(judge=j, status="ok", verdict=v) for j, v in (("a", 1), ("b", 1), ("c", 2))]
        >>> round(disagreement(Judgment(id="x", method="direct", status="ok", verdict=1, panel=panel)), 3)
        0.333
    """
    orders = _minority(order.verdict for order in judgment.orders)
    if judgment.consistent is False:
        orders = max(orders, 0.5)
    votes = (
        member.verdict if member.verdict is not None else (member.scores[0] if member.scores else None)
        for member in judgment.panel
        if member.status == "ok"
    )
    return orders + _minority(votes)


def _minority(votes: Iterable[float | None]) -> float:
    """The share of the votes (None left out) that are not the most common one; 0 with fewer than two."""
    given = [vote for vote in votes if vote is not None]
    if len(given) < 2:
        return 0.0
    return 1 - Counter(given).most_common(1)[0][1] / len(given)


def ranked(keys: Sequence[tuple[str, float]], ordering: Ordering, seed: int) -> dict[str, int]:
    """Each id's place (from 0) in the ``ordering`` queue of ``keys`` (``(id, queue_key)`` in the run's
    order); ties, and every place of a ``random`` queue, are drawn from ``seed``.

    Examples:
        >>> ranked([("a", 0.9), ("b", 0.2), ("c", -1.0)], "uncertainty", 0)
        {'c': 0, 'b': 1, 'a': 2}
    """
    if ordering == "input":
        return {item_id: place for place, (item_id, _) in enumerate(keys)}
    draw = random.Random(seed)
    drawn = [(key, draw.random(), item_id) for item_id, key in keys]
    return {item_id: place for place, (_, _, item_id) in enumerate(sorted(drawn))}


def sampling_of(ordering: str | None) -> Literal["random", "uncertainty", "disagreement"] | None:
    """How an item of an ``ordering`` queue came to be labelled, as a labels file says it
    (`faceteval.datasets.SAMPLINGS`): None for ``input`` order or none recorded (the user's own sample)."""
    if ordering == "random":
        return "random"
    if ordering == "uncertainty":
        return "uncertainty"
    if ordering == "disagreement":
        return "disagreement"
    return None
