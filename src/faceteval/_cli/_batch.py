"""``--batch``, ``--batch-poll``, ``--batch-dir`` and ``--batch-window``: a command's calls sent through a
provider's batch API, in rounds, with their progress on stderr.

The kinds are `faceteval.batch.BATCH_KINDS`; the SDK a kind drives is imported only when it is used.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import click
from rich.progress import Progress, TaskID

from faceteval._cli._console import err_console, escape
from faceteval._cli._numbers import FiniteFloat
from faceteval._runner import BatchDone, collect_in_rounds, from_cache
from faceteval._util.text import plural
from faceteval.batch import BATCH_KINDS, DEFAULT_BATCH_WINDOW, DEFAULT_POLL, BatchRun, rounds_for
from faceteval.batch.internal import close_rounds
from faceteval.errors import ConfigError
from faceteval.llm import LLM, Judge
from faceteval.store.internal import BATCH_DONE as DONE

if TYPE_CHECKING:
    from faceteval._runner import JudgeJob
    from faceteval.store import BatchRow

T = TypeVar("T")


RESUME = (
    "[bold yellow]Interrupted.[/] The batches keep running at the provider (they are recorded in the "
    "response cache); run the same command again to pick up their results, without submitting them again."
)

BATCH_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "--batch": click.option(
        "--batch",
        type=click.Choice(tuple(BATCH_KINDS)),
        help="Send the calls in batches: through a provider's batch API at half the price (openai: "
        "OpenAI's, or a compatible server's; anthropic: Message Batches), or on your own GPUs (files: "
        "request files in --batch-dir for vllm run-batch, the command exiting 4 with what to run, then "
        "faceteval batch import; ray: Ray Data jobs against --base-url, faceteval[ray]). Runs in "
        "rounds, one per level of the method's calls; a killed run re-run picks up its batches "
        "(docs/batch.md, docs/batch-clusters.md). Needs the response cache.",
    ),
    "--batch-poll": click.option(
        "--batch-poll",
        type=FiniteFloat(min=0.0),
        default=DEFAULT_POLL,
        show_default=True,
        help="With --batch: seconds between two looks at the batches still running.",
    ),
    "--batch-dir": click.option(
        "--batch-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="With --batch files: where each round's request files are written.",
    ),
    "--batch-endpoint": click.option(
        "--batch-endpoint",
        "batch_endpoints",
        metavar="URL",
        multiple=True,
        help="With --batch ray: an OpenAI-compatible API root (http://gpu-1:8000/v1) that answers a part "
        "of each round; repeatable (default: --base-url, whose identity the replies are cached under).",
    ),
    "--batch-window": click.option(
        "--batch-window",
        type=click.IntRange(1),
        default=DEFAULT_BATCH_WINDOW,
        show_default=True,
        help="With --batch: instances whose calls one round collects at most (the rest wait for later "
        "rounds).",
    ),
}
"""The batch flags, added by `faceteval._cli._options.engine_options` to every command that calls an LLM."""


def check_batch_flags(flags: dict[str, Any]) -> None:
    """UsageError, before anything is opened, for batch flags that cannot go together."""
    kind = flags.get("batch")
    if kind is None:
        if flags.get("batch_dir") is not None:
            raise click.UsageError("--batch-dir is used with --batch files")
        if flags.get("batch_endpoints"):
            raise click.UsageError("--batch-endpoint is used with --batch ray")
        return
    if flags.get("batch_endpoints") and kind != "ray":
        raise click.UsageError("--batch-endpoint is used with --batch ray")
    if flags.get("no_cache"):
        raise click.UsageError(
            "--batch needs the response cache: the batches' replies reach the method through it, and its "
            "ledger of batches lets a killed run pick them up; drop --no-cache"
        )
    if flags.get("dry_run"):
        raise click.UsageError("--dry-run makes no call, and --batch sends them in batches: use one of them")
    if len(flags.get("judges") or ()) > 1:
        raise click.UsageError("--batch sends one model's calls; a judge panel is judged without it")
    if kind == "files" and flags.get("batch_dir") is None:
        raise click.UsageError(
            "--batch files writes each round's request files into --batch-dir DIR: give it"
        )


async def batched(
    llm: Judge,
    kind: str,
    *,
    poll: float,
    directory: Path | None,
    endpoints: tuple[str, ...] = (),
    window: int = DEFAULT_BATCH_WINDOW,
    progress: Progress | None,
    run: Callable[[BatchRun], Awaitable[T]],
) -> T:
    """``run(batch)`` with the rounds of batch API ``kind`` for ``llm``, shown on ``progress``; the batch
    client is closed after.

    Raises:
        ConfigError: An unknown kind, or one that does not serve ``llm``'s provider.
    """
    if not isinstance(llm, LLM) or llm.cache is None:
        raise ConfigError("--batch needs one model and the response cache")
    shown = BatchProgress(progress)
    cache: Any = llm.cache
    rounds = rounds_for(
        kind, llm, cache, poll=poll, directory=directory, watch=shown.watch, endpoints=endpoints
    )
    try:
        return await run(BatchRun(rounds, kind, window=window, on_round=shown.round, backoff=poll))
    except (KeyboardInterrupt, anyio.get_cancelled_exc_class()):
        if any(row.status != DONE for row in cache.batches.all()):
            err_console.print(RESUME)
        raise
    finally:
        await close_rounds(rounds)


def batch_first(
    job: JudgeJob,
    llm: Judge,
    progress: Progress | None,
    collect: Callable[[int], Awaitable[object]],
    work: Callable[[], Awaitable[T]],
    *,
    told: Callable[[BatchDone], None] | None = None,
    raise_incomplete: bool = True,
) -> Callable[[], Awaitable[T]]:
    """``work``; with ``--batch``, once collecting passes of ``collect(window)`` (the work without its
    outputs, holding ``window`` items waiting at once) have brought every reply into the cache through
    the batch API: ``work`` then makes no call. What the batches did is told on stderr, and to ``told``
    (for the run record) before ``work`` starts. When the rounds gave up on requests, ``work`` fails
    what needed them and writes the rest, then `faceteval.errors.BatchIncomplete` is raised (exit 5);
    a command that writes or shows more once ``work`` returns passes ``raise_incomplete=False`` and
    raises ``done.incomplete()`` (of ``told``) itself once it has.
    """
    mode = job.mode
    if mode.kind != "batch":
        return work
    kind = mode.api

    async def rounds(batch: BatchRun) -> T:
        done = await collect_in_rounds(llm, batch, lambda: collect(batch.window))
        show_batches(done)
        if told is not None:
            told(done)
        with from_cache(llm, done):
            result = await work()
        if raise_incomplete and (incomplete := done.incomplete()) is not None:  # written: not a success
            raise incomplete
        return result

    async def run() -> T:
        return await batched(
            llm,
            kind,
            poll=mode.poll,
            directory=mode.directory,
            endpoints=mode.endpoints,
            window=mode.window,
            progress=None if progress is None or progress.disable else progress,
            run=rounds,
        )

    return run


def batches_line(done: BatchDone) -> str:
    """What a batch run's rounds did, in one line."""
    record, imported = done.record, done.imported
    cost = "unknown" if imported.cost_usd is None else f"${imported.cost_usd:,.4f}"
    unanswered = f", {record.unanswered:,} given up unanswered" if record.unanswered else ""
    return (
        f"{record.provider}: {plural(record.rounds, 'round')}, {plural(record.batches, 'batch')}, "
        f"{plural(record.requests, 'request')} answered{unanswered}; {imported.input_tokens:,} in, "
        f"{imported.output_tokens:,} out; {cost} at the batch rate"
    )


def show_batches(done: BatchDone) -> None:
    """`batches_line` on stderr."""
    err_console.print(f"batches: {batches_line(done)}")


class BatchProgress:
    """Each round and its batches (the provider's status and requests done), on stderr."""

    def __init__(self, progress: Progress | None) -> None:
        self.progress = progress
        self.task: TaskID | None = None
        self.batches: dict[int, str] = {}

    def round(self, number: int, requests: int) -> None:
        """A round is about to be submitted."""
        self.batches.clear()
        err_console.print(f"round {number}: {plural(requests, 'request')} to submit")
        if self.progress is not None:
            if self.task is None:
                self.task = self.progress.add_task(f"round {number}", total=None)
            self.progress.update(self.task, description=f"round {number}: submitting")

    def watch(self, row: BatchRow, status: str, done: int, total: int) -> None:
        """A look at one batch."""
        self.batches[row.row] = f"{escape(row.batch_id or '?')} {status} {done:,}/{total:,}"
        if self.progress is None:
            return
        if self.task is None:
            self.task = self.progress.add_task("", total=None)
        described = f"round {row.round}: " + ", ".join(self.batches.values())
        self.progress.update(self.task, description=described)
