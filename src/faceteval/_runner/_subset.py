"""Which of the input's instances a run judges: all of them, the first N (``--limit``), or a seeded
random sample of N (``--sample N --seed S``), judged in input order."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from typing import Any, TypeVar

from faceteval._runner._options import JudgeOptions

T = TypeVar("T")


def selected(items: Iterable[T], options: JudgeOptions) -> Iterable[T]:
    """The items ``options`` ask to judge, in input order.

    A sample is uniform over the input (reservoir sampling, Algorithm R, seeded with
    ``options.sample_seed``): the same input and seed give the same sample, so a re-run resumes it;
    it reads the whole input before the first instance is judged, and holds the sample only.

    Examples:
        >>> list(selected(range(10), JudgeOptions(limit=3)))
        [0, 1, 2]
        >>> list(selected(range(10), JudgeOptions(sample=3, sample_seed=1)))
        [5, 6, 7]
    """
    if options.limit is not None:
        return itertools.islice(items, options.limit)
    if options.sample is not None:
        return _sample(items, options.sample, random.Random(options.sample_seed))
    return items


def _sample(items: Iterable[T], size: int, rng: random.Random) -> list[T]:
    reservoir: list[tuple[int, T]] = []
    for k, item in enumerate(items):
        if k < size:
            reservoir.append((k, item))
        elif (j := rng.randrange(k + 1)) < size:
            reservoir[j] = (k, item)
    return [item for _, item in sorted(reservoir, key=lambda pair: pair[0])]


def selected_count(count: int, options: JudgeOptions) -> int:
    """How many of ``count`` instances the run judges."""
    wanted = options.limit if options.limit is not None else options.sample
    return count if wanted is None else min(count, wanted)


def subset_options(options: JudgeOptions) -> dict[str, Any]:
    """What a run record's ``options`` say of the subset judged: nothing when it is the whole input."""
    if options.limit is not None:
        return {"limit": options.limit}
    if options.sample is not None:
        return {"sample": options.sample, "seed": options.sample_seed}
    return {}
