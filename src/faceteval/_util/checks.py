"""Checks shared by the settings objects (methods, the LLM wrapper, run options)."""

from __future__ import annotations

from typing import TypeGuard


def whole_number(value: object, least: int) -> TypeGuard[int]:
    """Whether ``value`` is a whole number (an int, not a bool) of at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least
