"""Garbage-collector settings for the process faceteval owns: the ``faceteval`` command's.

Start-up leaves over a hundred thousand long-lived objects (the SDKs, pydantic's schemas, prompt
templates); a run at hundreds of calls a second then allocates and frees millions of short-lived ones.
With the interpreter's defaults, the collector stops the event loop for a young-generation pass every
700 allocations (about 200 passes in the engine benchmark's 4-second run) and for full passes over
everything (50-100 ms each, during which no reply is read). `settle`, called once set-up is done,
freezes what exists (full passes skip it) and makes young passes rarer: the benchmark's run then makes
about 10 young passes instead of 200, and used 7-16% less CPU than with the freeze alone. Memory is
not at stake: a young generation of 10,000 objects is a few megabytes.

Before that, `long_lived` holds the collector off while a command's modules and its model's SDK are
imported, and freezes what they made: imports make long-lived objects (classes, schemas, compiled
patterns), not garbage (650 objects of the 80,000 importing `faceteval judge` makes), and the 250 or
so passes the defaults made over them took 150 ms of its start-up, a tenth of it.

Library callers (`faceteval.judge`) keep their process's settings; docs/python.md gives them the same
two calls.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_GENERATION = 10_000
"""Allocations between two young-generation passes (the interpreter's default is 700)."""


def settle() -> None:
    """Freeze every object that exists now and make young-generation passes rarer."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_GENERATION, middle, old)


@contextmanager
def long_lived() -> Iterator[None]:
    """No garbage collection while the block runs, and every object then frozen (`gc.freeze`: no later
    pass looks at it); the collector is on or off after it as it was before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
