"""Simulated Annotators (Jung et al., "Trust or Escalate", ICLR 2025): K few-shot variants of the judge.

Each variant judges the instance as the method does, with M labelled examples shown before every
prompt of its judging (`examples_text`; the query's shared work, facets and weights, is done once
as ever). The verdict is the variants' majority (`faceteval.aggregation.majority_verdict`: a split
vote is a tie) and the confidence the share of the K agreeing with it.

The examples come from a file of labelled instances (``shots``, any input format
`faceteval.read_instances` reads) or, by default, from the run's own labelled instances. An
instance's examples never include itself (by id, or by what a judge sees: `Instance.content_hash`):
the pool without it is shuffled by a seed of the run's seed and the instance's id, and variant k
takes the M examples from position k×M on when the pool holds K×M (disjoint sets), else from
position k×⌊P/K⌋ of its P, wrapping around (sets that overlap but differ while P > M and P ≥ K).
The same run picks the same examples again, so the response cache answers it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faceteval._util.checks import whole_number
from faceteval.core import Instance
from faceteval.datasets import read_instances
from faceteval.errors import ConfigError, InputError, InstanceError
from faceteval.methods.internal import candidate_labels
from faceteval.prompts import Prompts

RUN_SHOTS = "run"
"""The ``source`` of examples drawn from the run's own labelled instances."""
GIVEN_SHOTS = "given"
"""The ``source`` of examples given as `Instance` objects."""
EXAMPLES_TEMPLATE = "common/examples"


@dataclass(frozen=True, slots=True)
class Annotators:
    """How ``confidence="simulated-annotators"`` varies the judge.

    Attributes:
        k: How many variants judge each instance (at least 1).
        per_annotator: How many labelled examples each variant is shown (M, at least 1).
        shots: Where the examples come from: a file of labelled instances (read and checked here:
            every instance needs its ``label``), `Instance` objects with labels, or None: the run's
            own labelled instances (which are then read in full before the first is judged).
        seed: The seed of each instance's draw.
    """

    k: int = 3
    per_annotator: int = 2
    shots: str | os.PathLike[str] | Sequence[Instance] | None = None
    seed: int = 0
    pool: tuple[Instance, ...] | None = field(init=False, default=None)
    """The labelled examples read from ``shots``; None for the run's own."""
    source: str = field(init=False, default=RUN_SHOTS)
    """Where the examples come from: the file's path, `GIVEN_SHOTS`, or `RUN_SHOTS`."""

    def __post_init__(self) -> None:
        for name, value in (("k", self.k), ("per_annotator", self.per_annotator)):
            if not whole_number(value, 1):
                raise ConfigError(f"annotators {name} must be a whole number of at least 1, got {value!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ConfigError(f"annotators seed must be a whole number, got {self.seed!r}")
        if self.shots is None:
            return
        if isinstance(self.shots, str | os.PathLike):
            pool, source = read_shots(Path(self.shots)), str(self.shots)
        else:
            pool, source = _given(self.shots), GIVEN_SHOTS
            object.__setattr__(self, "shots", pool)  # kept as read: a tuple, not the caller's list
        if len(pool) < self.per_annotator:
            raise ConfigError(
                f"{source}: {len(pool)} labelled example(s), fewer than the {self.per_annotator} each "
                "annotator is shown: give more examples or a smaller --shots-per-annotator"
            )
        object.__setattr__(self, "pool", pool)
        object.__setattr__(self, "source", source)

    def describe(self, pool: Sequence[Instance] | None = None) -> dict[str, Any]:
        """What a run record's options say: K, M, the seed, the examples' source and their hash."""
        shots = self.pool if pool is None else pool
        described: dict[str, Any] = {"annotators": self.k, "shots_per_annotator": self.per_annotator}
        described |= {"shots_seed": self.seed, "shots_source": self.source}
        if shots is not None:
            described["shots_sha256"] = shots_hash(shots)
        return described


def read_shots(path: Path) -> tuple[Instance, ...]:
    """The labelled instances of the file ``path``.

    Raises:
        InputError: The file cannot be read, a record of it is not an instance, or has no ``label``
            (naming the file, its line (JSONL) or record, and the field).
    """
    if not path.exists():
        raise InputError(str(path), None, None, "no such file of examples (--shots)")
    shots = []
    lines = _record_lines(path)
    for position, item in enumerate(read_instances(path), start=1):
        if isinstance(item, InputError):
            raise item
        if item.label is None:
            line = lines[position - 1] if position <= len(lines) else None
            where = "" if line is not None else f"record {position} "
            raise InputError(
                str(path),
                line,
                "label",
                f"{where}(id {item.id!r}) has no label: an example needs its human verdict",
                record_id=item.id,
            )
        shots.append(item)
    return tuple(shots)


def _record_lines(path: Path) -> list[int]:
    """The numbers of a JSONL file's non-blank lines (its records, in order); empty for other formats."""
    if path.suffix.lower() != ".jsonl":
        return []
    with path.open("rb") as handle:
        return [number for number, line in enumerate(handle, start=1) if line.strip()]


def _given(shots: Sequence[Instance]) -> tuple[Instance, ...]:
    for position, shot in enumerate(shots, start=1):
        if not isinstance(shot, Instance):
            raise ConfigError(f"annotators shots must be Instance objects, got {type(shot).__name__}")
        if shot.label is None:
            raise ConfigError(f"annotators shot {position} (id {shot.id!r}) has no label")
    return tuple(shots)


def shots_hash(shots: Sequence[Instance]) -> str:
    """A SHA-256 of the examples as shown: each one's `Instance.content_hash` and label, in order."""
    text = json.dumps([[shot.content_hash(), shot.label] for shot in shots])
    return hashlib.sha256(text.encode()).hexdigest()


def examples_for(
    instance: Instance, pool: Sequence[Instance], annotators: Annotators
) -> list[list[Instance]]:
    """Each variant's examples for ``instance``: M from ``pool`` apart from the instance itself.

    Raises:
        InstanceError: Fewer than M examples remain once the instance is left out.
    """
    own = instance.content_hash()
    others = [shot for shot in pool if shot.id != instance.id and shot.content_hash() != own]
    m = annotators.per_annotator
    if len(others) < m:
        raise InstanceError(
            f"{len(others)} labelled example(s) other than instance {instance.id!r}, fewer than the {m} "
            "each annotator is shown: give more examples (--shots) or a smaller --shots-per-annotator"
        )
    random.Random(f"{annotators.seed}\0{instance.id}").shuffle(others)
    size = len(others)
    step = m if annotators.k * m <= size else max(1, size // annotators.k)
    return [[others[(k * step + j) % size] for j in range(m)] for k in range(annotators.k)]


def examples_text(examples: Sequence[Instance], prompts: Prompts) -> str:
    """The examples as the ``common/examples`` template shows them, each text fenced, their candidates
    named ``Example Response 1`` ... (never as the instance's own are)."""
    shown = [
        {
            "query": shot.query,
            "candidates": shot.candidates,
            "labels": [f"Example {label}" for label in candidate_labels(shot.n_candidates)],
            "label": shot.label,
        }
        for shot in examples
    ]
    return "\n\n".join(message.content for message in prompts.render(EXAMPLES_TEMPLATE, examples=shown))
