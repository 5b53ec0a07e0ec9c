"""How the LLM wrapper retries: the policy, built on tenacity, and the failures worth fewer retries.

tenacity runs the attempts: its ``stop_after_attempt`` stops at the policy's ``max_retries``, its
``wait_random_exponential`` (full jitter) computes the backoff, and `RetryPolicy.retrying` adds what
tenacity cannot know: a ``Retry-After`` the server sent, errors that say they are not worth retrying
(or not that often), and a server never reached. The SDKs' own retries are off: each attempt is the
wrapper's, so each is logged and traced with the reason it failed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import anyio
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)
from tenacity.stop import stop_base
from tenacity.wait import wait_base

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

    def retrying(
        self,
        *,
        answered: Callable[[], bool],
        retryable: Callable[[ProviderError], bool],
        before_sleep: Callable[[RetryCallState], None],
    ) -> AsyncRetrying:
        """A tenacity retrier of one call: ``await policy.retrying(...)(attempt, *args)``.

        It retries a `ProviderError` that is ``retryable`` (its own flag, and the caller's
        ``retryable``) and asks for no wait past ``max_retry_after``, at most ``max_retries`` times,
        or sooner where more cannot help: an error may set its own limit (a reply over the size
        limit: one), and until a call has succeeded (``answered``) a server that could not be
        connected to, or that does not speak HTTP (`ProviderProtocolError`), is a wrong URL or port,
        or a server not started, far more often than one restarting: one quick retry, then
        `final_error` makes it `ProviderUnreachableError`. ``before_sleep`` is told of each retry
        (its state holds the error and the wait). The last error is raised as it is.
        """
        return AsyncRetrying(
            sleep=anyio.sleep,
            stop=stop_after_attempt(self.max_retries + 1) | _StopSooner(answered),
            wait=self._wait(),
            retry=retry_if_exception(
                lambda error: (
                    isinstance(error, ProviderError)
                    and error.retryable
                    and not self.waits_too_long(error)
                    and retryable(error)
                )
            ),
            before_sleep=before_sleep,
            reraise=True,
        )

    def waits_too_long(self, error: BaseException) -> bool:
        """Whether ``error`` asks for a wait (its ``retry_after``) longer than ``max_retry_after``."""
        asked = _asked_wait(error)
        return asked is not None and asked > self.max_retry_after

    def delay(self, attempt: int, error: BaseException | None) -> float:
        """Seconds `retrying` waits after failed ``attempt`` (1-based) that failed with ``error``."""
        state = RetryCallState(AsyncRetrying(), None, (), {})
        state.attempt_number = attempt
        if error is not None:
            state.set_exception((type(error), error, error.__traceback__))
        return self._wait()(state)

    def _wait(self) -> _WaitRetryAfter:
        backoff = wait_random_exponential(multiplier=self.initial_delay, max=self.max_delay)
        return _WaitRetryAfter(backoff, self.max_retry_after)


class _WaitRetryAfter(wait_base):
    """The wait a failed attempt's ``retry_after`` asks for (capped, plus up to 10%), else ``backoff``'s."""

    def __init__(self, backoff: wait_base, cap: float) -> None:
        self.backoff = backoff
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        asked = _asked_wait(outcome.exception() if outcome is not None else None)
        if asked is None:
            return self.backoff(retry_state)
        wait = min(asked, self.cap)
        return min(wait + random.uniform(0, 0.1 * max(wait, 1)), self.cap)


class _StopSooner(stop_base):
    """Stop before ``max_retries`` where more retries cannot help: past the error's own ``retry_limit``,
    and after one retry of a server never reached (until a call has succeeded: ``answered``)."""

    def __init__(self, answered: Callable[[], bool]) -> None:
        self.answered = answered

    def __call__(self, retry_state: RetryCallState) -> bool:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None else None
        if not isinstance(error, ProviderError):
            return False
        limit = error.retry_limit
        if _unreachable(error, answered=self.answered()):
            limit = 1 if limit is None else min(limit, 1)
        return limit is not None and retry_state.attempt_number > limit


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
