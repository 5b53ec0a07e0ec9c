"""What a judge is measured against: a built-in benchmark, or a user's own labelled file."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from faceteval.core import Instance
from faceteval.datasets import Benchmark, get_benchmark
from faceteval.datasets._benchmark import Kind
from faceteval.datasets._generic import FieldMap, load_labelled
from faceteval.errors import FacetevalError, InputError


@dataclass(frozen=True, slots=True)
class Target:
    """Labelled instances and what the harness needs to know about them."""

    name: str
    kind: Kind
    instances: tuple[Instance, ...]
    benchmark: Benchmark | None = None
    """The built-in benchmark, when the target is one."""

    @property
    def aspects(self) -> tuple[str, ...]:
        if self.benchmark is not None and self.benchmark.aspects:
            return self.benchmark.aspects
        names: dict[str, None] = {}
        for instance in self.instances:
            names.update(dict.fromkeys(instance.scores or {}))
        return tuple(names)

    @property
    def reference(self) -> str:
        """Who gave the labels: ``humans``, or e.g. a recorded LLM on a benchmark without human labels."""
        return self.benchmark.reference if self.benchmark else "humans"

    @property
    def group_by(self) -> str | None:
        return self.benchmark.group_by if self.benchmark else None

    @property
    def system_by(self) -> str | None:
        return self.benchmark.system_by if self.benchmark else None


def load_target(spec: str, data_dir: Path, *, fields: FieldMap | None = None) -> Target:
    """The benchmark called ``spec``, or the labelled JSONL / CSV file at that path.

    Raises:
        InputError: A row of a user's file is bad (every bad row is listed; nothing is judged).
        FacetevalError: ``spec`` is neither a benchmark name nor a file.
    """
    path = Path(spec)
    if path.suffix in {".jsonl", ".json", ".csv", ".tsv"} or path.is_file():
        return _file_target(path, fields)
    benchmark = get_benchmark(spec)
    instances = tuple(benchmark.instances(data_dir))
    return Target(name=benchmark.name, kind=benchmark.kind, instances=instances, benchmark=benchmark)


def _file_target(path: Path, fields: FieldMap | None) -> Target:
    if not path.is_file():
        raise FacetevalError(f"{path}: no such file (and not a benchmark name)")
    items = list(load_labelled(path, fields))
    problems = [item for item in items if isinstance(item, InputError)]
    if problems:
        shown = "\n  ".join(str(problem) for problem in problems[:10])
        more = f"\n  and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise InputError(str(path), None, None, f"{len(problems)} bad row(s):\n  {shown}{more}")
    instances = tuple(item for item in items if isinstance(item, Instance))
    if not instances:
        raise InputError(str(path), None, None, "no instances")
    kind: Kind = "pairwise" if any(i.label is not None for i in instances) else "pointwise"
    if kind == "pointwise" and not any(i.scores for i in instances):
        raise InputError(
            str(path),
            None,
            "label",
            "no human labels: rows need a 'label' (pairwise) or 'scores' (pointwise)",
        )
    return Target(name=path.stem, kind=kind, instances=instances)


def select(
    instances: Sequence[Instance],
    *,
    limit: int | None = None,
    seed: int = 0,
    turn: int | None = None,
    categories: Iterable[str] = (),
) -> list[Instance]:
    """The instances to measure: filtered by turn and category, then a stratified sample of ``limit``.

    The sample keeps the proportions of each (label, category) stratum, each stratum rounded by the
    largest-remainder rule, and is the same for the same ``seed``. Order follows the input.
    """
    wanted = set(categories)
    chosen = [
        instance
        for instance in instances
        if (turn is None or instance.metadata.get("turn") == turn)
        and (not wanted or instance.category in wanted)
    ]
    if turn is not None and not chosen and instances:
        raise FacetevalError(f"no instance has turn {turn} (--turn applies to multi-turn benchmarks)")
    if limit is None or limit >= len(chosen):
        return chosen
    strata: dict[tuple[object, object], list[int]] = defaultdict(list)
    for index, instance in enumerate(chosen):
        strata[(instance.label, instance.category)].append(index)
    quotas = _largest_remainder({key: len(members) for key, members in strata.items()}, limit)
    rng = random.Random(seed)
    keep: set[int] = set()
    for key in sorted(strata, key=repr):
        keep.update(rng.sample(strata[key], quotas[key]))
    return [chosen[index] for index in sorted(keep)]


def _largest_remainder(
    sizes: dict[tuple[object, object], int], total: int
) -> dict[tuple[object, object], int]:
    whole = sum(sizes.values())
    exact = {key: size * total / whole for key, size in sizes.items()}
    quotas = {key: int(value) for key, value in exact.items()}
    by_remainder = sorted(exact, key=lambda key: (-(exact[key] - quotas[key]), repr(key)))
    for key in by_remainder[: total - sum(quotas.values())]:
        quotas[key] += 1
    return quotas
