"""A ``bridge`` run into a directory: the records and chats, put in place with their run record
however it ends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from faceteval._runner import BatchDone, Started, ending, note_ending, put_in_place, spent_since, with_batch
from faceteval.errors import FacetevalError
from faceteval.llm import LLM, Spend
from faceteval.prompts import Prompts
from faceteval.store.internal import RUN_RECORD, check_outputs, spend_of
from faceteval.workflows.fennec._bridge import BridgeRecord, bridge_each
from faceteval.workflows.fennec._bridge_files import (
    BridgeFiles,
    BridgeSummary,
    BridgeWriter,
    bridge_files,
    bridge_record,
    summarize,
)
from faceteval.workflows.fennec._bridge_sources import BridgeSource
from faceteval.workflows.fennec._records import BRIDGE_RECORDS, CHATS, BridgeRunRecord


@dataclass(slots=True)
class BridgeRun:
    """What a ``bridge`` run did; filled in as it goes, so it is current however it ends."""

    sources: int
    """Recorded outputs to bridge (what the run would write if not stopped)."""
    files: BridgeFiles
    summary: BridgeSummary = field(default_factory=lambda: summarize(()))
    """The records written, counted."""
    interrupted: bool = False
    stopped: FacetevalError | None = None
    """The error that stopped the run early, if one did."""
    elapsed: float = 0.0
    kept: bool = False
    """The run bridged no record, and the earlier files were left as they were."""
    spent: Spend = field(default_factory=Spend)
    """Every call the run made, including those of records an interruption left unfinished."""
    batch: BatchDone | None = None
    """With ``--batch``: what its rounds did, once they are done (the record counts their spend)."""


def check_bridge_outputs(
    out: Path, benchmark: str, *, cache: Path | None, force: bool = False
) -> BridgeFiles:
    """The files of ``benchmark``'s bridging into ``out``, once checked before anything is opened: each may
    replace only a file of its kind (but with ``force``), never the response ``cache``.

    Raises:
        ConfigError: A file would overwrite the cache, or a file not ours.
    """
    files = bridge_files(out, benchmark)
    targets = ((files.records, BRIDGE_RECORDS), (files.sft, CHATS), (files.run, RUN_RECORD))
    check_outputs(targets, given=out, cache=cache, force=force)
    return files


async def bridge_into(
    sources: Sequence[BridgeSource],
    llm: LLM,
    run: BridgeRun,
    *,
    benchmark: str,
    judge: str,
    limit: int | None,
    bridged: Callable[[BridgeRecord], None] | None = None,
    started: Started | None = None,
    prompts: Prompts | None = None,
) -> None:
    """Bridge ``sources`` into ``run.files``, each record written as it finishes, in the recorded order,
    then the run record (`faceteval.store.BridgeRunRecord`).

    What finished is put in place with the record however the run ends (``run`` then says how), but
    for a run that bridged no record, which leaves the earlier files as they were (``run.kept``); an
    interruption or an error is raised again once it is. ``bridged`` is told of each record written.

    Raises:
        FacetevalError: What stopped the run, once the files are in place.
    """
    started = started or Started.now()
    before = replace(llm.spent)
    with BridgeWriter(run.files.records.parent, benchmark, prompts) as writer:

        def sink(record: BridgeRecord) -> None:
            writer.write(record)
            if bridged is not None:
                bridged(record)

        failure: BaseException | None = None
        try:
            await bridge_each(sources, llm, sink=sink, prompts=writer.prompts)
        except BaseException as exc:
            failure = exc
            note_ending(run, exc)
            raise
        finally:
            run.elapsed = started.elapsed()
            run.spent = spent_since(llm.spent, before)
            run.summary = writer.summary()
            description = bridge_record(
                run.summary, run.files, benchmark=benchmark, judge=judge, llm=llm.describe(), limit=limit,
                sources=run.sources, prompts=writer.prompts,
            )  # fmt: skip
            record = _ended(description, run, started, failure)
            if run.files.records.exists() and not (run.summary.kept + run.summary.inconsistent):
                run.kept = True  # nothing bridged to put in place of the earlier files: they stay
            else:
                put_in_place(run, lambda: writer.finish(record), failure)


def _ended(
    description: BridgeRunRecord, run: BridgeRun, started: Started, failure: BaseException | None
) -> BridgeRunRecord:
    spend = spend_of(with_batch(run.spent, run.batch), run.elapsed)
    batch = None if run.batch is None else run.batch.record
    ended = ending("bridge", run, started.at, failure)
    return description.model_copy(update={**ended, "spend": spend, "batch": batch})
