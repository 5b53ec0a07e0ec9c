"""A judge run as one value (`JudgeJob`): what is judged, how, by whom, into what, in which mode.

``faceteval judge``, `faceteval.judge` / `faceteval.judge_async` and the integrations each build a
`JudgeJob`; `faceteval._runner._run_job.run_job` runs it. A new engine option is one field here (of
the job or of its `JudgeOptions`, `JudgeSpec`, `JobOutputs` or mode) and its flag.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from faceteval._runner._file import RunHooks
from faceteval._runner._options import DEFAULT_JUDGE_OPTIONS, JudgeOptions
from faceteval.batch import DEFAULT_BATCH_WINDOW, DEFAULT_POLL, BatchRun
from faceteval.core import Instance, PanelVote
from faceteval.datasets import InstanceFile, Reading
from faceteval.datasets.internal import PLAIN_READING
from faceteval.errors import InputError
from faceteval.llm import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_RETRY,
    DEFAULT_TIMEOUT,
    LLM,
    GenerateConfig,
    Judge,
    PriceTable,
    RetryPolicy,
)
from faceteval.methods import Method

if TYPE_CHECKING:
    from faceteval.store import BatchRow, SQLiteCache


@dataclass(frozen=True, slots=True)
class FileInstances:
    """Instances read from a file (or a Hugging Face dataset: ``reading.hf_dataset``).

    Attributes:
        path: The input file.
        reading: How it is read (`faceteval.datasets.Reading`: format, preset, field map).
        systems: The systems behind the candidates of every instance that names none.
    """

    path: Path
    reading: Reading = PLAIN_READING
    systems: tuple[str, ...] | None = None

    def read(self) -> InstanceFile:
        """The instances, read as they are judged (each call reads the file anew)."""
        return InstanceFile(self.path, systems=self.systems, reading=self.reading)

    @classmethod
    def of(cls, file: InstanceFile) -> FileInstances:
        """The file a `faceteval.read_instances` result reads."""
        systems = None if file.systems is None else tuple(file.systems)
        return cls(Path(file.path), file.reading, systems)


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """The judge to open for the run: a model spec at an endpoint, or a panel of them, with the
    settings of its calls (those of `faceteval.LLM`). Opened when the run starts, closed when it ends.

    Attributes:
        model: ``provider:model`` (``openai:gpt-4o-mini``); for a panel, its first judge.
        base_url: The endpoint (None: the provider's own).
        panel: A judge panel's judges (two or more), each a model spec and its endpoint; empty: ``model``.
        panel_vote: How a panel's verdicts are combined.
        dry_run: Make no call; plan the run.
        rpm: Requests a minute at most, over every judge that sends with the same key to the same
            endpoint (`faceteval.LLM`'s ``rpm``); None: no limit.
        tpm: Tokens a minute at most, each request counted as its estimated prompt plus its
            ``max_tokens``, shared as ``rpm`` is; None: no limit.
    """

    model: str
    base_url: str | None = None
    api_key: str | None = None
    endpoint_id: str | None = None
    config: GenerateConfig = field(default_factory=GenerateConfig)
    concurrency: int = DEFAULT_CONCURRENCY
    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy = DEFAULT_RETRY
    prices: PriceTable = field(default_factory=PriceTable.default)
    retry_unreadable: bool = False
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES
    dry_run: bool = False
    panel: tuple[tuple[str, str | None], ...] = ()
    panel_vote: PanelVote = "majority"
    rpm: int | None = None
    tpm: int | None = None

    @property
    def name(self) -> str:
        """The judge as a run's summary names it: its model spec, or ``panel (vote): a, b``."""
        if not self.panel:
            return self.model
        return f"panel ({self.panel_vote}): {', '.join(spec for spec, _ in self.panel)}"


@dataclass(frozen=True, slots=True)
class JobOutputs:
    """Where a run's work goes.

    Attributes:
        out: The judgments file, with its run record beside it (None: standard output from the
            command, nowhere in Python, where the judgments are returned).
        force: ``out`` may replace any file but the input or the cache, not only an earlier output.
        cache: The response cache of a `JudgeSpec` judge (None: no cache; an opened judge has its own).
        progress: A progress bar on stderr (the command's; off with ``--quiet``).
        otel: Spans of the work sent to an OpenTelemetry collector (the command's ``--otel``).
    """

    out: Path | None = None
    force: bool = False
    cache: Path | None = None
    progress: bool = True
    otel: bool = False


@dataclass(frozen=True, slots=True)
class SyncMode:
    """The calls made one by one as the instances are judged (the default)."""

    kind: Literal["sync"] = "sync"


@dataclass(frozen=True, slots=True)
class BatchMode:
    """The calls sent through a batch API first, in rounds, then the run answered from the cache.

    Attributes:
        api: The batch kind (`faceteval.batch.BATCH_KINDS`: ``openai``, ``anthropic``, ``files``, ``ray``).
        poll: Seconds between two looks at the running batches.
        directory: Where a ``files`` round's request files are written.
        endpoints: The API roots a ``ray`` round is answered by.
        window: Instances one collecting pass holds waiting at most.
        rounds: Rounds built already (`faceteval.batch.rounds_for`), in place of those of ``api``.
    """

    api: str = ""
    poll: float = DEFAULT_POLL
    directory: Path | None = None
    endpoints: tuple[str, ...] = ()
    window: int = DEFAULT_BATCH_WINDOW
    rounds: BatchRun | None = field(default=None, compare=False)
    kind: Literal["batch"] = "batch"


Mode = SyncMode | BatchMode
"""How a run's calls are made; a mode is one more member (a cascade of judges, say)."""
SYNC = SyncMode()


@dataclass(frozen=True, slots=True)
class JudgeJob:
    """One judge run: what the command line and the Python API both build, and `run_job` runs.

    Attributes:
        instances: What is judged: a file (`FileInstances`; a `faceteval.read_instances` result is
            one too), or instances given in Python.
        method: How they are judged.
        judge: Who judges: an opened `faceteval.LLM` or `faceteval.Panel` (left open for the caller),
            or a `JudgeSpec` to open for the run.
        options: How the run is carried out (`JudgeOptions`: swap, strict, order, templates, prefix
            cache, score mode ...).
        outputs: Where the work goes (`JobOutputs`).
        mode: How the calls are made (`SyncMode`, `BatchMode`).

    Examples:
        >>> from faceteval import DnA, JudgeOptions
        >>> job = JudgeJob(
        ...     FileInstances(Path("pairs.jsonl")),
        ...     DnA(),
        ...     JudgeSpec("openai:gpt-4o-mini"),
        ...     options=JudgeOptions(swap=True),
        ...     outputs=JobOutputs(out=Path("judgments.jsonl")),
        ... )
        >>> job.mode.kind, job.options.swap
        ('sync', True)
    """

    instances: FileInstances | Iterable[Instance | InputError]
    method: Method
    judge: Judge | JudgeSpec
    options: JudgeOptions = DEFAULT_JUDGE_OPTIONS
    outputs: JobOutputs = field(default_factory=JobOutputs)
    mode: Mode = SYNC

    @property
    def input_path(self) -> Path | None:
        """The input file, when the instances are read from one."""
        return self.instances.path if isinstance(self.instances, FileInstances) else None

    @property
    def dry_run(self) -> bool:
        """Whether the run plans and makes no call."""
        return self.judge.dry_run


def file_instances(instances: FileInstances | Iterable[Instance | InputError]) -> FileInstances | None:
    """The file ``instances`` are read from, if they are (a `faceteval.read_instances` result too)."""
    if isinstance(instances, FileInstances):
        return instances
    return FileInstances.of(instances) if isinstance(instances, InstanceFile) else None


@dataclass(frozen=True, slots=True)
class JobHooks:
    """What a caller is told, and lends, as a job runs (the command shows progress, opens spans).

    Attributes:
        run: What the judging tells (`RunHooks`).
        measured: The input's instances counted (for a progress bar's total), before any call.
        opening: Around opening a `JudgeSpec`'s models (their SDKs imported, their clients made).
        exporting: Spans exported for the run, when ``outputs.otel`` asks for them.
        opened: The models opened, and their cache, once the run is over.
        batch_round: A batch round about to be submitted (its number, its requests).
        batch_watch: A look at one running batch (its row, status, requests done, requests).
        stopped_with_batches: Called when the run is interrupted with batches still at the provider.
    """

    run: RunHooks = field(default_factory=RunHooks)
    measured: Callable[[int], None] | None = None
    opening: Callable[[], AbstractContextManager[object]] = nullcontext
    exporting: Callable[[], AbstractContextManager[object]] | None = None
    opened: Callable[[Sequence[LLM], SQLiteCache], None] | None = None
    batch_round: Callable[[int, int], None] | None = None
    batch_watch: Callable[[BatchRow, str, int, int], None] | None = None
    stopped_with_batches: Callable[[], None] | None = None
