"""``faceteval batch import``: the replies a cluster wrote for ``--batch files`` request files
(``vllm run-batch``'s output, OpenAI's batch output format) put into the response cache."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from faceteval.batch._files import PROVIDER, present, shard_ids
from faceteval.batch._results import ImportTally, read_result, store_result
from faceteval.errors import BadResponseError, InputError
from faceteval.llm import Price
from faceteval.store import BatchRow, SQLiteCache


@dataclass(slots=True)
class ImportReport:
    """What importing output files did.

    Attributes:
        tally: The replies put into the cache (``failed``: the lines the cluster answered with an error,
            which the next pass asks again), and their tokens. A self-hosted cluster has no provider
            price: ``cost_usd`` is None unless a price was given.
        already: Lines of requests whose replies were already in the cache (an output imported again).
        problems: Lines that could not be imported, each ``file:line: why``; they were skipped.
        completed: The request files every request of which is now answered (or refused): done.
        waiting: The request files still waiting, with how many of their requests have no reply yet.
    """

    tally: ImportTally = field(default_factory=ImportTally)
    already: int = 0
    problems: list[str] = field(default_factory=list)
    completed: list[BatchRow] = field(default_factory=list)
    waiting: list[tuple[BatchRow, int]] = field(default_factory=list)
    _done: set[str] | None = None

    def done_ids(self, cache: SQLiteCache) -> set[str]:
        """The custom ids of the request files imported before (read once, when a line is no waiting
        file's: an output imported again)."""
        if self._done is None:
            waiting = {row.row for row in cache.batches.pending(PROVIDER)}
            rows = [r for r in cache.batches.all() if r.provider == PROVIDER and r.row not in waiting]
            self._done = {k for row in rows if Path(row.input_file_id).is_file() for k in shard_ids(row)}
        return self._done


def import_outputs(
    cache: SQLiteCache, paths: Iterable[str | Path], *, price: Price | None = None
) -> ImportReport:
    """Put the replies of batch output files into ``cache``, each under its ``custom_id`` with the
    identity and model of the request file (in the cache's ledger) it answers.

    A line that is not a result, or whose ``custom_id`` no waiting request file holds, is reported (file
    and line) and skipped; the rest is imported. Importing a file twice is harmless. A request file is
    marked imported once each of its requests has a reply in the cache or an error line in the outputs.

    Raises:
        InputError: An output file cannot be read.
    """
    report = ImportReport(tally=ImportTally(cost_usd=0.0 if price is not None else None))
    waiting = present(cache)
    owner = {custom_id: row for row in waiting for custom_id in shard_ids(row)}
    seen: set[str] = set()
    for path in paths:
        _import_file(cache, Path(path), owner, seen, report, price)
    _keep_reasons(cache, report.tally.reasons, owner)
    for row in waiting:
        missing = sum(1 for k in shard_ids(row) if k not in seen and cache.get(k) is None)
        if missing:
            report.waiting.append((row, missing))
        else:
            cache.batches.imported(row.row)
            report.completed.append(row)
    return report


def _keep_reasons(cache: SQLiteCache, reasons: dict[str, str], owner: dict[str, BatchRow]) -> None:
    """Record in the ledger why each refused request (not answered since) was, by request file: the run
    that asks it again tells it."""
    by_row: dict[int, dict[str, str]] = {}
    for custom_id, reason in reasons.items():
        if cache.get(custom_id) is None:
            by_row.setdefault(owner[custom_id].row, {})[custom_id] = reason
    for row, refused in by_row.items():
        cache.batches.refused(row, refused)


def _import_file(
    cache: SQLiteCache,
    path: Path,
    owner: dict[str, BatchRow],
    seen: set[str],
    report: ImportReport,
    price: Price | None,
) -> None:
    try:
        with path.open("rb") as lines:
            for number, raw in enumerate(lines, start=1):
                where = f"{path}:{number}"
                try:
                    line = raw.decode("utf-8")
                    if line.strip():
                        _import_line(cache, line, where, owner, seen, report, price)
                except (UnicodeDecodeError, BadResponseError) as exc:
                    report.problems.append(str(exc) if where in str(exc) else f"{where}: {exc}")
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot read it ({exc.strerror or exc})") from exc


def _import_line(
    cache: SQLiteCache,
    line: str,
    where: str,
    owner: dict[str, BatchRow],
    seen: set[str],
    report: ImportReport,
    price: Price | None,
) -> None:
    result = read_result(line, where)
    row = owner.get(result.custom_id)
    if row is None:
        if cache.get(result.custom_id) is not None or result.custom_id in report.done_ids(cache):
            report.already += 1  # a file imported before: its line is in the cache, or was asked again
        else:
            report.problems.append(
                f"{where}: custom_id {result.custom_id!r} is no request of a file waiting in {cache.path}"
            )
        return
    seen.add(result.custom_id)  # answered or refused: the next pass asks again what is not in the cache
    if result.body is None:
        report.tally.failed += 1
        report.tally.reasons[result.custom_id] = result.problem or "no reason given"
        return
    if cache.get(result.custom_id) is not None:
        report.already += 1
        return
    store_result(
        cache, result, identity=row.identity, model=row.model, price=price, tally=report.tally, where=where
    )
