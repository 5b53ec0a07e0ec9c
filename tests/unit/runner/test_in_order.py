"""in_order: the windowed, in-order driver behind `judge_each` and `correct_each`."""

from __future__ import annotations

import anyio
import pytest

from faceteval._runner import RunAborted, in_order

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
