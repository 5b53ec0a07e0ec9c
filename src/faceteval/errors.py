"""Every error faceteval raises, in one tree.

```
FacetevalError
├── ConfigError                 a bad option, model spec or missing credential
├── MissingDependencyError      an optional extra is not installed
├── InputError                  a bad input file: names the file, line and field
├── InstanceError               an instance the method cannot judge; written as an error, the run goes on
├── ProviderError               the LLM service failed (after the wrapper's retries)
│   ├── AuthenticationError     the key was refused; never retried
│   ├── BadRequestError         the request was refused (unknown model, too long); never retried
│   ├── RateLimitError          429; retried, honouring ``retry_after``
│   ├── ProviderTimeout         no reply within the per-call timeout; retried
│   ├── ProviderConnectionError the server could not be reached; retried
│   ├── ProviderServerError     5xx; retried
│   └── BadResponseError        a reply that is not a completion (non-JSON, no choices); retried
├── ParseError                  an LLM reply that could not be read, even after one re-ask
└── StoreError                  the response cache or run store could not be used
```

SDK exceptions never escape `faceteval.llm`: providers translate them into this tree.
"""

from __future__ import annotations

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "BadResponseError",
    "ConfigError",
    "FacetevalError",
    "InputError",
    "InstanceError",
    "MissingDependencyError",
    "ParseError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderServerError",
    "ProviderTimeout",
    "RateLimitError",
    "StoreError",
]


class FacetevalError(Exception):
    """Base class of every error faceteval raises on purpose."""


class ConfigError(FacetevalError):
    """A bad option, model spec, or a missing credential."""


class InstanceError(FacetevalError):
    """An instance the method cannot judge as it is (too many candidates, no criteria to score...).

    That instance is written as an ``error`` judgment and the run goes on with the others.
    """


class MissingDependencyError(FacetevalError):
    """An optional dependency is needed for a feature but is not installed."""

    def __init__(self, feature: str, *, extra: str) -> None:
        self.feature = feature
        self.extra = extra
        super().__init__(
            f"{feature} needs an optional dependency; install it with: pip install 'faceteval[{extra}]'"
        )


class InputError(FacetevalError):
    """A bad record in an input file.

    Attributes:
        path: The file, as given.
        line: The 1-based line number, or None for a whole-file problem.
        field: The offending field (dotted path), or None.
        problem: What is wrong, in words.
        record_id: The record's ``id``, when it could be read.
    """

    def __init__(
        self, path: str, line: int | None, field: str | None, problem: str, *, record_id: str | None = None
    ) -> None:
        self.record_id = record_id
        self.path = path
        self.line = line
        self.field = field
        self.problem = problem
        where = f"{path}:{line}" if line is not None else path
        what = f"field '{field}': {problem}" if field else problem
        super().__init__(f"{where}: {what}")


class ProviderError(FacetevalError):
    """The LLM service failed to give a completion.

    Attributes:
        retryable: Whether another attempt may succeed.
        attempts: How many attempts were made before giving up (set by the LLM wrapper).
    """

    retryable: bool = False
    attempts: int = 1


class AuthenticationError(ProviderError):
    """The service refused the credentials. Retrying cannot help."""


class BadRequestError(ProviderError):
    """The service refused the request itself (unknown model, prompt too long, bad parameter)."""


class RateLimitError(ProviderError):
    """The service asked us to slow down (HTTP 429).

    Attributes:
        retry_after: Seconds the service asked us to wait, when it said so.
    """

    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class ProviderTimeout(ProviderError):
    """No completion arrived within the per-call timeout."""

    retryable = True


class ProviderConnectionError(ProviderError):
    """The server could not be reached."""

    retryable = True


class ProviderServerError(ProviderError):
    """The server failed (HTTP 5xx).

    Attributes:
        status: The HTTP status code.
        retry_after: Seconds the server asked us to wait, when it said so.
    """

    retryable = True

    def __init__(self, message: str, *, status: int, retry_after: float | None = None) -> None:
        self.status = status
        self.retry_after = retry_after
        super().__init__(message)


class BadResponseError(ProviderError):
    """The server answered, but not with a usable completion (a non-JSON body, no choices)."""

    retryable = True


class ParseError(FacetevalError):
    """An LLM reply could not be turned into the value a stage needs.

    Attributes:
        problem: What was wrong with the (last) reply, in words an LLM can act on.
        raw: The raw reply text, kept verbatim.
        stage: The stage that asked, when known (for example ``dna.score``).
    """

    def __init__(self, problem: str, *, raw: str = "", stage: str | None = None) -> None:
        self.problem = problem
        self.raw = raw
        self.stage = stage
        prefix = f"{stage}: " if stage else ""
        super().__init__(f"{prefix}{problem}")


class StoreError(FacetevalError):
    """The response cache or run store could not be opened, read or written."""
