"""Start-up's objects: no collection while a command's modules are imported, and frozen after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from faceteval._util.heap import long_lived


@pytest.fixture
def collector_restored() -> Iterator[None]:
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    yield
    if not frozen:
        gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


class Made:
    """An object the collector tracks."""


@pytest.mark.parametrize("enabled", [True, False])
def test_no_collection_runs_in_the_block_and_what_it_made_is_frozen_after(
    collector_restored: None, enabled: bool
) -> None:
    (gc.enable if enabled else gc.disable)()
    passes: list[str] = []
    gc.callbacks.append(record := lambda phase, _: passes.append(phase))
    try:
        with long_lived():
            assert not gc.isenabled()
            made = [Made() for _ in range(50_000)]  # far more than a young pass waits for
            during = list(passes)
    finally:
        gc.callbacks.remove(record)
    assert during == []
    assert gc.isenabled() == enabled
    assert gc.get_freeze_count() >= len(made)
    collected = {id(o) for o in gc.get_objects()}  # every generation a pass looks at
    assert not any(id(m) in collected for m in made)


def test_the_collector_is_restored_when_the_block_raises(collector_restored: None) -> None:
    gc.enable()
    with pytest.raises(ImportError), long_lived():
        raise ImportError("a command's module could not be imported")
    assert gc.isenabled()
