"""What a judge is measured against: a built-in benchmark, or a user's own labelled file."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from faceteval._util.text import first_few, plural
from faceteval.core import Instance
from faceteval.datasets import Benchmark, FieldMap, InstanceFile, Kind, Reading, get_benchmark, load_labelled
from faceteval.datasets.internal import PLAIN_READING, SUFFIXES, check_key, group_key, system_key
from faceteval.errors import FacetevalError, InputError
from faceteval.metaeval._slim import Packed, SlimInstances


@dataclass(frozen=True, slots=True)
class Target:
    """Labelled instances and what the harness needs to know about them."""

    name: str
    kind: Kind
    instances: Sequence[Instance]
    """A tuple, or packed (`SlimInstances`) when read slim."""
    benchmark: Benchmark | None = None
    """The built-in benchmark, when the target is one."""
    whole: Callable[[], Iterable[Instance]] | None = field(default=None, compare=False)
    """Its instances read again whole, in order, when ``instances`` are slim (`SlimInstances`)."""
    group_field: str | None = None
    """The field or metadata key its instances are grouped by in place of the benchmark's own
    (``--group-by``; `grouped`)."""
    system_field: str | None = None
    """The field or metadata key naming each output's system in place of the benchmark's own
    (``--system-by``; `grouped`)."""

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
        """The field or metadata key of the unit correlations are computed within (summary level) and a
        ``--limit`` sample keeps whole: ``--group-by``'s, else the benchmark's (a source document)."""
        if self.group_field is not None:
            return self.group_field
        return self.benchmark.group_by if self.benchmark else None

    @property
    def system_by(self) -> str | None:
        """The field or metadata key naming the system of an output (system level): ``--system-by``'s
        (or ``systems``, for a labelled file whose single outputs name their systems), else the
        benchmark's."""
        if self.system_field is not None:
            return self.system_field
        return self.benchmark.system_by if self.benchmark else None

    def group_of(self, instance: Instance) -> str | None:
        """The group ``instance`` is in (`group_by`'s value, as text); None: it has none, or no grouping."""
        return None if self.group_by is None else group_key(instance, self.group_by)

    def system_of(self, instance: Instance) -> str | None:
        """The system behind a single output: its own ``systems``, else `system_by`'s value."""
        return system_key(instance, self.system_by)


def grouped(target: Target, group_by: str | None = None, system_by: str | None = None) -> Target:
    """``target`` grouped by ``group_by`` and with outputs' systems named by ``system_by`` (each in place
    of the benchmark's own; None keeps it).

    Raises:
        ConfigError: No instance has ``group_by`` (or ``system_by``); the message names those they have.
    """
    if group_by is None and system_by is None:
        return target
    if group_by is not None:
        check_key(target.instances, group_by, "group by")
    if system_by is not None:
        check_key(target.instances, system_by, "read the systems from", systems=True)
    return replace(
        target,
        group_field=group_by if group_by is not None else target.group_field,
        system_field=system_by if system_by is not None else target.system_field,
    )


def load_target(
    spec: str,
    data_dir: Path,
    *,
    fields: FieldMap | None = None,
    reading: Reading | None = None,
    slim: bool = False,
    keep: Iterable[str] = (),
) -> Target:
    """The benchmark called ``spec``, or the labelled file (JSONL, JSON, CSV, TSV, Parquet) or Hugging
    Face dataset at that path, read as ``reading`` says (or by the field map ``fields``).

    With ``slim``, the instances are kept as `SlimInstances` keeps them, as they are read: enough to
    measure recorded judgments against, not to judge (no texts, but the fields of ``keep`` that are
    texts: those a run groups by).

    Raises:
        InputError: A row of a user's file is bad (every bad row is listed; nothing is judged).
        FacetevalError: ``spec`` is neither a benchmark name nor a file.
    """
    path = Path(spec)
    if reading is None:
        reading = Reading(fields=fields) if fields is not None else PLAIN_READING
    if reading.format == "hf" or path.suffix.lower() in SUFFIXES or path.is_file() or path.is_dir():
        return _file_target(path, reading, slim=slim, keep=tuple(keep))
    benchmark = get_benchmark(spec)
    if not slim:
        instances = tuple(benchmark.instances(data_dir))
        return Target(name=benchmark.name, kind=benchmark.kind, instances=instances, benchmark=benchmark)
    return Target(
        name=benchmark.name,
        kind=benchmark.kind,
        instances=SlimInstances.of(benchmark.instances(data_dir), texts=keep),
        benchmark=benchmark,
        whole=partial(benchmark.instances, data_dir),
    )


def file_instances(
    path: Path, items: Iterable[Instance | InputError], *, slim: bool = False, keep: Iterable[str] = ()
) -> Sequence[Instance]:
    """The instances read from the file ``path`` (packed as they are read with ``slim``: `SlimInstances`,
    keeping the texts of ``keep``).

    Raises:
        InputError: Some rows are bad (every one is listed, the first ten in full), or there are none.
    """
    instances: SlimInstances | list[Instance] = SlimInstances(texts=keep) if slim else []
    problems: list[InputError] = []
    for item in items:
        if isinstance(item, InputError):
            problems.append(item)
        elif isinstance(instances, SlimInstances):
            instances.add(item)
        else:
            instances.append(item)
    if problems:
        shown = first_few([str(problem) for problem in problems], limit=10, separator="\n  ")
        raise InputError(str(path), None, None, f"{plural(len(problems), 'bad row')}:\n  {shown}")
    if not instances:
        raise InputError(str(path), None, None, "no instances")
    return instances if slim else tuple(instances)


def _file_target(path: Path, reading: Reading, *, slim: bool, keep: tuple[str, ...] = ()) -> Target:
    hf = reading.format_of(path) == "hf"
    if not hf and not path.is_file():
        raise FacetevalError(f"{path}: no such file (and not a benchmark name)")
    items = _file_items(path, reading, hf=hf)
    name = path.name if hf else path.stem
    if not slim:
        return labelled_target(file_instances(path, items), name=name, source=str(path))
    target = labelled_target(file_instances(path, items, slim=True, keep=keep), name=name, source=str(path))
    return replace(target, whole=partial(_file_instances, path, reading, hf))


def _file_items(path: Path, reading: Reading, *, hf: bool) -> Iterable[Instance | InputError]:
    return InstanceFile(path, reading=reading) if hf or not reading.plain else load_labelled(path)


def _file_instances(path: Path, reading: Reading, hf: bool) -> Iterator[Instance]:
    """The instances of the file ``path``, read again (its bad rows were refused when first read)."""
    return (item for item in _file_items(path, reading, hf=hf) if isinstance(item, Instance))


def labelled_target(instances: Iterable[Instance], *, name: str, source: str | None = None) -> Target:
    """Labelled instances as a target: pairwise when they have labels, else pointwise (human scores),
    whose outputs' systems are their own ``systems`` when they name them.

    Raises:
        InputError: They have neither labels nor scores (``source`` names them; their ``name`` if None).
    """
    listed = instances if isinstance(instances, Packed) else tuple(instances)
    kind: Kind = "pairwise" if any(i.label is not None for i in listed) else "pointwise"
    if kind == "pointwise" and not any(i.scores for i in listed):
        raise InputError(
            source or name,
            None,
            "label",
            "no human labels: rows need a 'label' (pairwise) or 'scores' (pointwise)",
        )
    named = kind == "pointwise" and any(i.systems is not None and len(i.systems) == 1 for i in listed)
    return Target(name=name, kind=kind, instances=listed, system_field="systems" if named else None)


def select(
    instances: Sequence[Instance],
    *,
    limit: int | None = None,
    seed: int = 0,
    turn: int | None = None,
    categories: Iterable[str] = (),
    group_by: str | None = None,
) -> Sequence[Instance]:
    """The instances to measure: filtered by turn and category, then a sample of ``limit``.

    The sample is stratified: each human label keeps its share (largest-remainder rounding), and
    within a label each category its share, the seats left over drawn by the ``seed`` with chances in
    proportion to what each category is owed. With ``group_by`` (a field or metadata key whose groups
    the correlations are computed within, as SummEval's documents), whole groups are drawn instead, in
    an order the ``seed`` decides, the last one cut to make ``limit``. The same ``seed`` gives the same
    sample; order follows the input. Packed instances (`SlimInstances`) are chosen packed.
    """
    wanted = set(categories)
    chosen = _take(
        instances,
        [
            index
            for index, instance in enumerate(instances)
            if (turn is None or instance.metadata.get("turn") == turn)
            and (not wanted or instance.category in wanted)
        ],
    )
    if turn is not None and not chosen and instances:
        raise FacetevalError(f"no instance has turn {turn} (--turn applies to multi-turn benchmarks)")
    if limit is None or limit >= len(chosen):
        return chosen
    rng = random.Random(seed)
    keep = _whole_groups(chosen, limit, group_by, rng) if group_by else _stratified(chosen, limit, rng)
    return _take(chosen, sorted(keep))


def _take(instances: Sequence[Instance], indices: list[int]) -> Sequence[Instance]:
    """The instances at ``indices``: packed still when they are, else a list."""
    if isinstance(instances, Packed):
        return instances.take(indices)
    return [instances[index] for index in indices]


def _stratified(chosen: Sequence[Instance], limit: int, rng: random.Random) -> set[int]:
    by_label: dict[object, dict[object, list[int]]] = defaultdict(lambda: defaultdict(list))
    for index, instance in enumerate(chosen):
        by_label[instance.label][instance.category].append(index)
    label_quotas = _apportion(
        {label: sum(map(len, strata.values())) for label, strata in by_label.items()}, limit, rng, drawn=False
    )
    keep: set[int] = set()
    for label in sorted(by_label, key=repr):
        strata = by_label[label]
        sizes = {key: len(members) for key, members in strata.items()}
        quotas = _apportion(sizes, label_quotas[label], rng, drawn=True)
        for key in sorted(strata, key=repr):
            keep.update(rng.sample(strata[key], quotas[key]))
    return keep


def _whole_groups(chosen: Sequence[Instance], limit: int, group_by: str, rng: random.Random) -> set[int]:
    groups: dict[str, list[int]] = defaultdict(list)
    for index, instance in enumerate(chosen):
        value = group_key(instance, group_by)
        groups[f"group:{value}" if value is not None else f"alone:{index}"].append(index)  # no group: its own
    order = sorted(groups)
    rng.shuffle(order)
    keep: set[int] = set()
    for name in order:
        room = limit - len(keep)
        if room <= 0:
            break
        members = groups[name]
        keep.update(members if len(members) <= room else rng.sample(members, room))
    return keep


def _apportion(sizes: Mapping[Any, int], total: int, rng: random.Random, *, drawn: bool) -> dict[Any, int]:
    """Whole shares of ``total`` in proportion to ``sizes``: each its whole part, then the seats left.

    The seats left go by largest remainder (equal ones in an order ``rng`` decides), or, ``drawn``,
    by systematic sampling over the remainders in an order ``rng`` shuffles: each stratum gets a seat
    with a chance equal to its remainder, so strata too small for a seat of their own are drawn as
    often as their size deserves.
    """
    whole = sum(sizes.values())
    exact = {key: size * total / whole for key, size in sizes.items()}
    quotas = {key: int(value) for key, value in exact.items()}
    remainder = {key: exact[key] - quotas[key] for key in exact}
    left = total - sum(quotas.values())
    keys = sorted(exact, key=repr)
    if drawn:
        rng.shuffle(keys)
        start, reached = rng.random(), 0.0
        for key in keys:
            below, reached = reached, reached + remainder[key]
            if math.floor(reached - start) > math.floor(below - start) and sum(quotas.values()) < total:
                quotas[key] += 1
        left = total - sum(quotas.values())  # a rounding shortfall at the very end: largest remainders
    draw = {key: rng.random() for key in sorted(exact, key=repr)}
    order = sorted(exact, key=lambda key: (-round(remainder[key], 9), draw[key]))
    for key in [key for key in order if quotas[key] == int(exact[key])][:left]:
        quotas[key] += 1
    return quotas
