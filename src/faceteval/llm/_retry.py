"""How the LLM wrapper retries: the policy, and the failures worth fewer retries than it allows."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from faceteval._util.checks import whole_number
from faceteval.errors import ConfigError, ProviderConnectionError, ProviderError, ProviderUnreachableError


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the wrapper retries retryable provider errors (429, 5xx, timeouts, connection, bad bodies).

    Waits are exponential with full jitter, between ``initial_delay`` and ``max_delay`` seconds; a
    ``Retry-After`` from the server is honoured instead, plus up to 10% (``max_retry_after`` at most).
    """

    max_retries: int = 5
    initial_delay: float = 1.0
    max_delay: float = 60.0
    max_retry_after: float = 600.0

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
        restarting: one quick retry, then `final_error` makes it `ProviderUnreachableError`.
        """
        limit = self.max_retries
        if error.retry_limit is not None:
            limit = min(limit, error.retry_limit)
        if _unreachable(error, answered=answered):
            limit = min(limit, 1)
        return error.retryable and attempt <= limit

    def delay(self, attempt: int, error: BaseException | None) -> float:
        """Seconds to wait after failed ``attempt`` (1-based)."""
        retry_after = getattr(error, "retry_after", None)
        if isinstance(retry_after, int | float) and retry_after >= 0:
            wait = min(float(retry_after), self.max_retry_after)
            return min(wait + random.uniform(0, 0.1 * max(wait, 1)), self.max_retry_after)
        ceiling = min(self.max_delay, self.initial_delay * 2 ** (attempt - 1))
        return random.uniform(0, ceiling)


DEFAULT_RETRY = RetryPolicy()


def final_error(error: ProviderError, attempts: int, *, answered: bool) -> ProviderError:
    """``error`` as raised after ``attempts``: from a server never reached, `ProviderUnreachableError`."""
    if _unreachable(error, answered=answered) and not isinstance(error, ProviderUnreachableError):
        final: ProviderError = ProviderUnreachableError(str(error))
        final.__cause__ = error
        error = final
    error.attempts = attempts
    return error


def _unreachable(error: ProviderError, *, answered: bool) -> bool:
    return isinstance(error, ProviderConnectionError) and not error.connected and not answered
