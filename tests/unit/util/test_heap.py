"""The collector held off while a command's modules are imported, and as it was after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from faceteval._util.heap import collection_paused


@pytest.fixture
def collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    (gc.enable if enabled else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_no_collection_runs_in_the_block_and_the_collector_is_as_it_was_after(
    collector_restored: None, enabled: bool
) -> None:
    (gc.enable if enabled else gc.disable)()
    passes: list[str] = []
    gc.callbacks.append(record := lambda phase, _: passes.append(phase))
    try:
        with collection_paused():
            assert not gc.isenabled()
            for _ in range(50_000):  # cycles: far more allocations than a young pass waits for
                cycle: list[object] = []
                cycle.append(cycle)
            during = list(passes)
    finally:
        gc.callbacks.remove(record)
    assert during == []
    assert gc.isenabled() == enabled


def test_the_collector_is_restored_when_the_block_raises(collector_restored: None) -> None:
    gc.enable()
    with pytest.raises(ImportError), collection_paused():
        raise ImportError("a command's module could not be imported")
    assert gc.isenabled()
