"""How the LLM wrapper retries: the policy, and the failures worth fewer retries than it allows."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from faceteval._util.checks import whole_number
from faceteval.errors import (
    ConfigError,
    ProviderConnectionError,
    ProviderError,
    ProviderProtocolError,
    ProviderUnreachableError,
)

DEFAULT_MAX_RETRY_AFTER = 60.0
"""The longest ``Retry-After`` (or ``retry-after-ms``) honoured: 60 s, as long as the longest backoff.

A server that asks for longer (a quota that resets in hours, a date days ahead) is not waited on:
with the default 5 retries, waits of the 10 minutes a server may ask would hold a run for about an
hour before its first result. The call fails at once instead, its error stating the time the server
asked for, and the instance is written as an error; a run resumed later asks it again.
"""
MAX_RETRY_AFTER_HINT = "--max-retry-after"
"""Where the cap is set on the command line, as the error names it (``max_retry_after=`` in Python)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the wrapper retries retryable provider errors (429, 5xx, timeouts, connection, bad bodies).

    Waits are exponential with full jitter, between ``initial_delay`` and ``max_delay`` seconds; a
    ``Retry-After`` from the server is honoured instead, plus up to 10% (``max_retry_after`` at most).
    A server that asks to wait longer than ``max_retry_after`` is not retried: the call fails at once
    (`final_error` says what the server asked for).
    """

    max_retries: int = 5
    initial_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER

    def __post_init__(self) -> None:
        if not whole_number(self.max_retries, 0):
            raise ConfigError(f"max_retries must be a whole number >= 0, got {self.max_retries!r}")
        for name in ("initial_delay", "max_delay", "max_retry_after"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
                raise ConfigError(f"{name} must be a number of seconds >= 0, got {value!r}")

    def allows(self, error: ProviderError, attempt: int, *, answered: bool) -> bool:
        """Whether to retry after failed ``attempt`` (1-based), given whether a call has succeeded yet.

        Retries stop at ``max_retries``, or sooner where more cannot help: an error may set its own
        limit (a reply over the size limit: one), and a server that could not be connected to before
        any call succeeded is a wrong URL or port, or a server not started, far more often than one
        restarting: one quick retry, then `final_error` makes it `ProviderUnreachableError`. So is a
        server that answers with something that is not HTTP (`ProviderProtocolError`) before any call
        succeeded: another service on that port, far more often than a server gone wrong.
        """
        limit = self.max_retries
        if error.retry_limit is not None:
            limit = min(limit, error.retry_limit)
        if _unreachable(error, answered=answered):
            limit = min(limit, 1)
        return error.retryable and attempt <= limit and not self.waits_too_long(error)

    def waits_too_long(self, error: BaseException) -> bool:
        """Whether ``error`` asks for a wait (its ``retry_after``) longer than ``max_retry_after``."""
        asked = _asked_wait(error)
        return asked is not None and asked > self.max_retry_after

    def delay(self, attempt: int, error: BaseException | None) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        retry_after = _asked_wait(error)
        if retry_after is not None:
            wait = min(retry_after, self.max_retry_after)
            return min(wait + random.uniform(0, 0.1 * max(wait, 1)), self.max_retry_after)
        ceiling = min(self.max_delay, self.initial_delay * 2 ** (attempt - 1))
        return random.uniform(0, ceiling)


DEFAULT_RETRY = RetryPolicy()


def final_error(
    error: ProviderError,
    attempts: int,
    *,
    answered: bool,
    policy: RetryPolicy = DEFAULT_RETRY,
    reasons: Sequence[str] = (),
) -> ProviderError:
    """``error`` as raised after ``attempts``: from a server never reached, `ProviderUnreachableError`;
    one that asked to wait longer than ``policy`` waits, with the time it asked for in its message.
    After more than one attempt, the message ends with why each failed (``reasons``, in order), but for
    a server never reached: its one line says what to check."""
    if _unreachable(error, answered=answered) and not isinstance(error, ProviderUnreachableError):
        final: ProviderError = ProviderUnreachableError(str(error))
        final.__cause__ = error
        error = final
    if error.retryable and policy.waits_too_long(error):
        asked = _asked_wait(error)
        assert asked is not None
        error.args = (
            f"{error}; the server asks to retry after {_duration(asked)}, more than the "
            f"{_duration(policy.max_retry_after)} faceteval waits ({MAX_RETRY_AFTER_HINT}; "
            "max_retry_after= in Python)",
        )
    if attempts > 1 and reasons and not isinstance(error, ProviderUnreachableError):  # its one line says it
        error.args = (f"{error} (after {attempts} attempts: {'; '.join(reasons)})",)
    error.attempts = attempts
    return error


def _asked_wait(error: BaseException | None) -> float | None:
    """The seconds ``error`` says the server asked to wait (its ``retry_after``), if it says so."""
    asked = getattr(error, "retry_after", None)
    if isinstance(asked, bool) or not isinstance(asked, int | float) or not asked >= 0:
        return None
    return float(asked)


def _duration(seconds: float) -> str:
    """``seconds`` in seconds, and roughly in hours, days or years when that is long.

    Examples:
        >>> _duration(0.25), _duration(60), _duration(7200)
        ('0.25 s', '60 s', '7,200 s (about 2 hours)')
        >>> _duration(999_999), _duration(2.3e9)
        ('999,999 s (about 12 days)', '2,300,000,000 s (about 73 years)')
    """
    shown = f"{seconds:,.0f} s" if seconds >= 100 else f"{seconds:g} s"
    for unit, size, below in (("hours", 3600, 48), ("days", 86400, 365), ("years", 31_557_600, math.inf)):
        if seconds >= 2 * size and seconds / size < below:
            return f"{shown} (about {seconds / size:,.0f} {unit})"
    return shown


def _unreachable(error: ProviderError, *, answered: bool) -> bool:
    absent = isinstance(error, ProviderProtocolError) or (
        isinstance(error, ProviderConnectionError) and not error.connected
    )
    return absent and not answered
