"""The windowed drivers behind `judge_each`: results in input order (held back, or spilled to disk), or as
they finish."""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, Generic, Literal, TypeVar

import anyio
from pydantic import TypeAdapter

from faceteval.methods.internal import severity

T = TypeVar("T")
R = TypeVar("R")

Order = Literal["input", "finish"]
ORDERS: tuple[Order, ...] = ("input", "finish")
"""How a run hands its results on: in input order, or as they finish."""


class Spill(Generic[R]):
    """Results finished before their turn: the first ``keep`` in memory, the rest in a temporary file.

    The file is anonymous (`tempfile.TemporaryFile`): the system removes it when it is closed, or when
    the process ends however it ends, and it is emptied each time every result in it has been taken.
    A result in it is never needed after a crash: its replies are in the response cache, so a re-run
    answers its instance again without a call.

    Examples:
        >>> spill = Spill(str.encode, bytes.decode, keep=1)
        >>> spill.put(3, "c"); spill.put(2, "b"); len(spill), spill.on_disk
        (2, 1)
        >>> spill.take(2), spill.take(3), 3 in spill, spill.on_disk
        ('b', 'c', False, 0)
        >>> spill.close()
    """

    def __init__(self, encode: Callable[[R], bytes], decode: Callable[[bytes], R], *, keep: int) -> None:
        self._encode = encode
        self._decode = decode
        self._keep = keep
        self._memory: dict[int, R] = {}
        self._disk: dict[int, tuple[int, int]] = {}
        self._file = tempfile.TemporaryFile(prefix="faceteval-spill-")  # noqa: SIM115  (closed by close)
        self._end = 0
        self.spilled = 0
        """Results written to the file in all."""

    def __contains__(self, seq: int) -> bool:
        return seq in self._memory or seq in self._disk

    def __len__(self) -> int:
        return len(self._memory) + len(self._disk)

    @property
    def on_disk(self) -> int:
        """Results in the file now."""
        return len(self._disk)

    def put(self, seq: int, result: R) -> None:
        """Keep ``result`` (the ``seq``-th) until it is taken."""
        if len(self._memory) < self._keep:
            self._memory[seq] = result
            return
        data = self._encode(result)
        self._file.seek(self._end)
        self._file.write(data)
        self._disk[seq] = (self._end, len(data))
        self._end += len(data)
        self.spilled += 1

    def take(self, seq: int) -> R:
        """The ``seq``-th result, no longer kept (KeyError if it is not)."""
        if seq in self._memory:
            return self._memory.pop(seq)
        offset, length = self._disk.pop(seq)
        self._file.seek(offset)
        result = self._decode(self._file.read(length))
        if not self._disk:  # drained: the file starts again from nothing
            self._file.truncate(0)
            self._end = 0
        return result

    def close(self) -> None:
        """Remove the file."""
        self._file.close()


async def in_order(
    items: Iterable[T],
    work: Callable[[T], Awaitable[R]],
    emit: Callable[[R], None],
    *,
    window: int,
    spill: Spill[R] | None = None,
) -> None:
    """``work`` on each item, at most ``window`` at once, handing each result to ``emit`` in input order.

    Without ``spill``, memory stays bounded by the window: an item starts only when an earlier one
    has been emitted, so one slow item holds the rest back. With one, an item starts as soon as
    another finishes, and the results finished before their turn wait in ``spill`` (on disk beyond
    what it keeps in memory): a slow item holds back the output, not the work.
    If ``emit`` raises (a run aborted), the run stops with that error, and nothing more is emitted:
    a task that finishes before the cancellation reaches it must not add to what was reported.

    Raises:
        BaseException: The one error that stopped the run (see `unwrap_group`).
    """
    room = anyio.Semaphore(window)
    held: Spill[R] | _Held[R] = _Held() if spill is None else spill
    emitted = 0
    stopped = False

    async def run(seq: int, item: T) -> None:
        nonlocal emitted, stopped
        result = await work(item)
        if stopped:
            return
        if spill is not None:
            room.release()
        if seq != emitted:
            held.put(seq, result)
            return
        ready: R = result
        while True:
            emitted += 1
            if spill is None:
                room.release()
            try:
                emit(ready)
            except BaseException:
                stopped = True
                raise
            if emitted not in held:
                return
            ready = held.take(emitted)

    await _drive(items, room, run)


async def in_order_spilled(
    items: Iterable[T],
    work: Callable[[T], Awaitable[R]],
    emit: Callable[[R], None],
    *,
    window: int,
    result_type: Any,
) -> None:
    """`in_order` with a `Spill` of ``window`` results in memory, each result beyond it written to the
    spill's file as JSON of ``result_type`` (a type pydantic validates: a model, a tuple of them ...):
    one slow item holds back the output, not the work.

    Raises:
        BaseException: The one error that stopped the run (see `unwrap_group`).
    """
    adapter: TypeAdapter[R] = TypeAdapter(result_type)
    spill = Spill(adapter.dump_json, adapter.validate_json, keep=window)
    try:
        await in_order(items, work, emit, window=window, spill=spill)
    finally:
        spill.close()


async def as_finished(
    items: Iterable[T],
    work: Callable[[T], Awaitable[R]],
    emit: Callable[[R], None],
    *,
    window: int,
) -> None:
    """``work`` on each item, at most ``window`` at once, handing each result to ``emit`` as it finishes.

    If ``emit`` raises, the run stops with that error and nothing more is emitted (as `in_order`).

    Raises:
        BaseException: The one error that stopped the run (see `unwrap_group`).
    """
    room = anyio.Semaphore(window)
    stopped = False

    async def run(_seq: int, item: T) -> None:
        nonlocal stopped
        result = await work(item)
        if stopped:
            return
        room.release()
        try:
            emit(result)
        except BaseException:
            stopped = True
            raise

    await _drive(items, room, run)


async def _drive(
    items: Iterable[T], room: anyio.Semaphore, run: Callable[[int, T], Coroutine[Any, Any, None]]
) -> None:
    """Start ``run`` on each item (numbered) once ``room`` has a place, until all have ended."""
    try:
        async with anyio.create_task_group() as group:
            for seq, item in enumerate(items):
                await room.acquire()
                group.start_soon(run, seq, item)
    except BaseExceptionGroup as failure:
        raise unwrap_group(failure) from None


class _Held(Generic[R]):
    """Results finished before their turn, in memory (`Spill`'s interface)."""

    def __init__(self) -> None:
        self._results: dict[int, R] = {}

    def __contains__(self, seq: int) -> bool:
        return seq in self._results

    def put(self, seq: int, result: R) -> None:
        self._results[seq] = result

    def take(self, seq: int) -> R:
        return self._results.pop(seq)


def unwrap_group(failure: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one error to report from a task group: interrupts first, then by severity."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [failure]
    while stack:
        error = stack.pop()
        if isinstance(error, BaseExceptionGroup):
            stack.extend(error.exceptions)
        else:
            leaves.append(error)
    interrupts = [e for e in leaves if not isinstance(e, Exception)]
    if interrupts:
        return interrupts[0]
    return min((e for e in leaves if isinstance(e, Exception)), key=severity)
