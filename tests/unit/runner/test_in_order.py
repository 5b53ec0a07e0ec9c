"""in_order: the windowed, in-order driver behind `judge_each` and `correct_each`."""

from __future__ import annotations

import anyio
import pytest

from faceteval._runner import RunAborted, Spill, as_finished, in_order

pytestmark = pytest.mark.anyio


async def test_results_come_in_input_order_with_at_most_window_in_flight() -> None:
    in_flight, most, emitted = 0, 0, []

    async def work(item: int) -> int:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await anyio.sleep(0.001 * (item % 4))  # finishing out of order
        in_flight -= 1
        return item * 10

    await in_order(range(20), work, emitted.append, window=3)

    assert emitted == [item * 10 for item in range(20)]
    assert most == 3


async def test_nothing_is_emitted_after_emit_stops_the_run() -> None:
    emitted: list[int] = []

    async def work(item: int) -> int:
        if item == 3:  # finishes after the abort, the cancellation kept out
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.05)
        return item

    def emit(item: int) -> None:
        if item == 2:
            raise RunAborted("stop")
        emitted.append(item)

    with pytest.raises(RunAborted, match="stop"):
        await in_order(range(4), work, emit, window=4)

    assert emitted == [0, 1]  # item 3 finished, but after the run stopped


async def test_with_a_spill_a_slow_head_holds_back_the_output_not_the_work() -> None:
    head_may_end = anyio.Event()
    emitted: list[int] = []
    spill: Spill[int] = Spill(lambda n: str(n).encode(), lambda b: int(b), keep=2)

    async def work(item: int) -> int:
        if item == 0:
            await head_may_end.wait()
        elif item == 19:  # the last item starts only if the others ended while the head was held
            assert len(spill) >= 17 and not emitted
            head_may_end.set()
        return item

    try:
        await in_order(range(20), work, emitted.append, window=3, spill=spill)
    finally:
        spill.close()

    assert emitted == list(range(20))
    assert spill.spilled == 17 and spill.on_disk == 0  # all but the head, less the two kept in memory


async def test_as_finished_emits_each_result_as_it_ends() -> None:
    head_may_end = anyio.Event()
    emitted: list[int] = []

    async def work(item: int) -> int:
        if item == 0:
            await head_may_end.wait()
        return item

    def emit(item: int) -> None:
        emitted.append(item)
        if len(emitted) == 9:
            head_may_end.set()

    await as_finished(range(10), work, emit, window=2)

    assert emitted == [*range(1, 10), 0]
