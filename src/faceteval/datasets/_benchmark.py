"""The benchmark registry: what each benchmark is, where it is read from, and how it becomes Instances."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from faceteval._util.text import did_you_mean, plural
from faceteval.core import Criterion, Instance, Judgment
from faceteval.errors import FacetevalError

DATA_DIR_ENV = "FACETEVAL_DATA_DIR"
"""The environment variable the command line reads the data directory from."""
DEFAULT_DATA_DIR = Path("data")
"""The data directory when neither ``--data-dir``, `DATA_DIR_ENV` nor faceteval.toml names one."""

Kind = Literal["pairwise", "pointwise"]


@dataclass(frozen=True, kw_only=True)
class RemoteFile:
    """One file of a benchmark's public source, for ``faceteval datasets fetch``."""

    url: str
    path: str
    """Where it goes, relative to the data directory."""
    sha256: str


@dataclass(frozen=True, kw_only=True)
class RecordedSource:
    """Recorded outputs of a real LLM judge on a benchmark, named ``recorded:<name>``."""

    name: str
    """The part after ``recorded:``, e.g. ``auto-j-13b`` or ``llmbar/GPT-4/Vanilla``."""
    judge: str
    """The model that judged, e.g. ``GPT-4 (gpt-4, 2023)``."""
    description: str
    load: Callable[[Path], Iterable[Judgment]]
    """Judgments from the data directory, with ids matching the benchmark's instances."""
    reported: Callable[[Path], dict[str, float]] | None = None
    """Numbers the source itself reports (fractions in [0, 1]), keyed like ``summary.json``."""


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    """A benchmark with human labels, loadable offline from the data directory."""

    name: str
    title: str
    """One line: what it is."""
    kind: Kind
    """``pairwise`` (a preferred candidate per instance) or ``pointwise`` (human scores per output)."""
    labels: str
    """The human label in words, e.g. ``better output 1/2, no ties``."""
    license: str
    path: str
    """Where it is read from, relative to the data directory."""
    load: Callable[[Path], Iterable[Instance]]
    """Instances from the data directory (ids stable across releases of this package)."""
    size: int
    """Number of instances ``load`` yields."""
    url: str
    """The public source."""
    criteria: tuple[Criterion, ...] = ()
    """Predefined criteria of the benchmark, when it has them. The benchmarks whose human annotators were
    given them (FairEval's four perspectives, MT-Bench's six factors) also attach them to every instance."""
    prompt_style: str | None = None
    """The family of its own judging prompts (``llmbar``, ``faireval``, ``mtbench``): the baselines
    (``direct``, ``cot``) judge with the templates of that name when ``meta-eval`` runs on the benchmark."""
    aspects: tuple[str, ...] = ()
    """Human score aspects (keys of ``Instance.scores``) of a pointwise benchmark."""
    group_by: str | None = None
    """Metadata key of the unit correlations are computed within (summary level), e.g. a source document."""
    system_by: str | None = None
    """Metadata key naming the system that produced an output (system-level correlation)."""
    level: Literal["sample", "summary"] | None = None
    """The level its published correlations are read at; by default ``summary`` when it has ``group_by``."""
    texts: bool = True
    """False when the benchmark ships labels only (the outputs cannot be judged again)."""
    task_type: str | None = None
    """The kind of generation task its outputs do, as HD-Eval names its evaluation domains
    (``summarization``, ``dialogue``, ``data-to-text``): the wording of HD-Eval's prompts on it; None
    for any other task (the generic wording)."""
    reference: str = "humans"
    """Who gave the labels a judge is measured against (``humans`` unless the benchmark has none)."""
    recorded: Callable[[Path], Sequence[RecordedSource]] = field(default=lambda _: ())
    """The recorded judges available in a data directory."""
    fetch: tuple[RemoteFile, ...] = ()
    notes: str = ""

    def instances(self, data_dir: str | Path) -> list[Instance]:
        """Every instance, read from the data directory.

        Raises:
            FacetevalError: The benchmark is not there, or has not its stated size: a file cut short
                or edited would otherwise shift recorded judgments that are matched by position.
        """
        root = Path(data_dir)
        self._check_present(root)
        instances = list(self.load(root))
        if len(instances) != self.size:
            raise FacetevalError(
                f"{self.name}: {root / self.path} holds {plural(len(instances), 'instance')}, but the "
                f"benchmark has {self.size:,}; a file is cut short or edited. "
                f"`faceteval datasets fetch {self.name}` restores it, or see its SOURCE.md"
            )
        return instances

    def recorded_sources(self, data_dir: str | Path) -> list[RecordedSource]:
        """The recorded judges of this benchmark present in the data directory."""
        return list(self.recorded(Path(data_dir)))

    def recorded_source(self, name: str, data_dir: str | Path) -> RecordedSource:
        """The recorded judge ``name`` (the part after ``recorded:``)."""
        sources = self.recorded_sources(data_dir)
        for source in sources:
            if source.name == name:
                return source
        known = ", ".join(f"recorded:{s.name}" for s in sources) or "none"
        hint = did_you_mean(name, [s.name for s in sources])
        raise FacetevalError(f"{self.name} has no recorded judge {name!r}{hint}; available: {known}")

    def _check_present(self, root: Path) -> None:
        if not (root / self.path).exists():
            raise FacetevalError(
                f"{self.name}: {root / self.path} not found. Set --data-dir, {DATA_DIR_ENV} or data-dir in "
                "faceteval.toml to the directory holding the benchmarks, or run "
                f"`faceteval datasets fetch {self.name}`."
            )
