"""Every error faceteval raises, in one tree.

```
FacetevalError
├── ConfigError                 a bad option, model spec or missing credential
│   └── ServeError              a web app's address that cannot be served (taken, not this machine's)
├── MissingDependencyError      an optional extra is not installed
├── InputError                  a bad input file: names the file, line and field
├── InstanceError               an instance the method cannot judge; written as an error, the run goes on
├── RunAborted                  too many instances in a row failed; the judgments handed on so far attached
├── NothingJudged               a meta-evaluation's run judged no instance: nothing to measure
├── EditedFilesError            criteria generation would overwrite criteria files edited since
├── FilterError                 a run viewer's filter given a value it cannot take
├── ReviewError                 a review request that cannot be carried out
│   └── DiskFullError           a review write refused for a full disk, rolled back whole
├── ProviderError               the LLM service failed (after the wrapper's retries)
│   ├── AuthenticationError     the key was refused; never retried
│   ├── BadRequestError         the request was refused (unknown model, too long); never retried
│   ├── RateLimitError          429; retried, honouring ``retry_after``
│   ├── ProviderTimeout         no reply within the per-call timeout; retried
│   ├── ProviderConnectionError the server could not be reached, or closed the connection mid-reply; retried
│   │   ├── ProviderProtocolError   what answered does not speak HTTP (another service on the port); retried
│   │   └── ProviderUnreachableError  no connection could be made, or what answered does not speak HTTP,
│   │                               and no call has succeeded yet (a wrong URL or port, a server not
│   │                               started); stops the run
│   ├── ProviderServerError     5xx; retried
│   ├── BadResponseError        a reply that is not a completion (non-JSON, no choices); retried
│   │   └── ReplyTooLargeError  a reply body over the size limit (``max_reply_bytes``); retried once
│   └── BatchUnanswered         a request the batch rounds gave up on (``--batch``); never called one by one
├── BatchPending                a round's requests wait for a cluster (``--batch files``): what to run
├── BatchIncomplete             a batch run wrote its outputs with requests no batch answered (exit 5)
├── ParseError                  an LLM reply that could not be read, even after one re-ask
└── StoreError                  the response cache or run store could not be used
    └── RunGone                 a run's file the viewer found is no longer there

AssertionError
└── JudgmentAssertionError      an assertion of faceteval.testing that did not hold (pytest shows it as one)
```

Every exception that can reach a user (a caller of the Python API, or the command line, which prints
it without a traceback) is defined here, and importable from here; the packages that raise one also
export it where it was exported before (`faceteval.RunAborted`, `faceteval.testing.JudgmentAssertionError`
...). Two kinds stay in the modules that raise them, private: exceptions of control flow that their
own module or package catches and translates before anything leaves it (a line that changed under the
viewer's index, a retryable download, a replayed review request, a reply refused mid-body), and
exceptions of a framework that exist to be handled by it: the command line's `ConfigFileError`, a
click exception because click raises it while it builds a command's defaults from faceteval.toml,
before any command runs (it prints it as a usage error, exit status 2), and the review app's
`FieldError`, an HTTP exception its error handler turns into a 400 page.

Every error here pickles with its attributes (a process pool, a Ray worker hands it back whole),
whatever its ``__init__`` takes: `FacetevalError` rebuilds the instance without calling ``__init__``.

SDK exceptions never escape `faceteval.llm`: providers translate them into this tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "BadResponseError",
    "BatchIncomplete",
    "BatchPending",
    "BatchUnanswered",
    "ConfigError",
    "DiskFullError",
    "EditedFilesError",
    "FacetevalError",
    "FilterError",
    "InputError",
    "InstanceError",
    "JudgmentAssertionError",
    "MissingDependencyError",
    "NothingJudged",
    "ParseError",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderProtocolError",
    "ProviderServerError",
    "ProviderTimeout",
    "ProviderUnreachableError",
    "RateLimitError",
    "ReplyTooLargeError",
    "ReviewError",
    "RunAborted",
    "RunGone",
    "ServeError",
    "StoreError",
]


def _rebuilt(cls: type[BaseException], args: tuple[Any, ...], state: dict[str, Any]) -> BaseException:
    """An exception of ``cls`` with these ``args`` and attributes, made without calling its ``__init__``
    (which may take other arguments than the message it passes on)."""
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class FacetevalError(Exception):
    """Base class of every error faceteval raises on purpose."""

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (type(self), self.args, self.__dict__)


class ConfigError(FacetevalError):
    """A bad option, model spec, or a missing credential."""


class ServeError(ConfigError):
    """The address given cannot be served (taken, or not this machine's): the command line's usage error."""


class BatchPending(FacetevalError):
    """A batch round's request files are written and wait for a cluster to answer them: not a failure.

    The message says what to run (``vllm run-batch`` on each file, then ``faceteval batch import``) before
    the same command is run again. The CLI prints it whole and exits with `exit_code`.
    """

    exit_code = 4
    """The exit status of a command that stopped to wait for a batch (1 is an error; 3 ``--fail-under``)."""


class BatchIncomplete(FacetevalError):
    """A batch run's rounds gave up on some requests (no batch answered them), and its outputs are written
    with the work that needed them failed (``error`` judgments holding the batch's reason).

    Not a clean success: the CLI prints it as an error and exits with `exit_code`. Running the same
    command again asks those requests again.
    """

    exit_code = 5
    """The exit status of a command whose batches left requests unanswered (4 waits for a cluster)."""


class InstanceError(FacetevalError):
    """An instance the method cannot judge as it is (too many candidates, no criteria to score...).

    That instance is written as an ``error`` judgment and the run goes on with the others.
    """


class RunAborted(FacetevalError):
    """Too many instances in a row failed with errors (the provider's, most often); the run stopped.

    Attributes:
        judgments: The judgments (`faceteval.core.Judgment`) handed on before it stopped, in the run's
            order (filled in by `faceteval.judge` and `faceteval.judge_async`; a ``sink`` has had them
            already).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.judgments: list[Any] = []  # faceteval.core.Judgment: errors sits below the data model


class NothingJudged(FacetevalError):
    """A run of a meta-evaluation judged no instance: there is nothing to measure. Its judgments file
    holds the failures, or (``kept``) its run directory is left as an earlier run left it."""

    def __init__(self, judgments: Path, *, kept: bool = False) -> None:
        where = f"{judgments.parent} is left as it was" if kept else f"see the failures in {judgments}"
        super().__init__(f"no instance was judged; {where}")
        self.judgments = judgments
        self.kept = kept


class EditedFilesError(FacetevalError):
    """Generating into a directory would overwrite or remove criteria files edited since they were written."""

    def __init__(self, directory: Path, paths: Sequence[Path]) -> None:
        self.paths = tuple(paths)
        names = ", ".join(str(p) for p in paths[:5])  # as faceteval._util.text.first_few (a layer above)
        if len(paths) > 5:
            names += f" and {len(paths) - 5} more"
        them = "it" if len(paths) == 1 else "them"
        super().__init__(
            f"{names}: changed since `criteria generate` wrote {them} (or not written by it, or by a "
            "version that recorded no file hashes in generation.json); generating "
            f"into {directory} again would overwrite or remove {them}. Write to another --out, move "
            f"the edited files away, or pass --force to overwrite {them}"
        )


class FilterError(FacetevalError):
    """A filter was given a value it cannot take."""


class ReviewError(FacetevalError):
    """A review request that cannot be carried out (unknown item, bad score, bad name)."""


class DiskFullError(ReviewError):
    """A write refused because the disk holding the project is full; it was rolled back whole."""


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
        retry_limit: The most retries worth making, whatever the retry policy allows (None: no limit
            of its own).
        attempts: How many attempts were made before giving up (set by the LLM wrapper).
    """

    retryable: bool = False
    retry_limit: int | None = None
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
    """The server could not be reached, or closed the connection before the reply was complete.

    Attributes:
        connected: False when no connection could be made at all (refused, an unknown host): the
            server is not there, rather than gone for a moment.
    """

    retryable = True

    def __init__(self, message: str, *, connected: bool = True) -> None:
        self.connected = connected
        super().__init__(message)


class ProviderProtocolError(ProviderConnectionError):
    """The server answered with something that is not HTTP: bytes that are no status line, headers
    that cannot be read, a body whose framing is broken.

    Another service on that port (SSH, a database, a TLS port spoken to in plain HTTP), or a broken
    proxy. The message quotes, escaped, what came back as far as the HTTP parser shows it. Retried
    as a connection error; until a call has succeeded, it is taken for a wrong address, as a
    refused connection is (`ProviderUnreachableError`).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, connected=True)


class ProviderUnreachableError(ProviderConnectionError):
    """No connection could be made to the server, or what answered does not speak HTTP, and no call
    to it has succeeded yet.

    A wrong URL or port, or a server not started: the LLM wrapper retries such a call once, then
    raises this, and a run stops at it as it stops at refused credentials. Once a call has
    succeeded, a refused connection is a server restarting, and is retried as usual.
    """

    retryable = False

    def __init__(self, message: str) -> None:
        super().__init__(message, connected=False)


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


class ReplyTooLargeError(BadResponseError):
    """A reply body was larger than the limit (``max_reply_bytes``; ``--max-reply-bytes``).

    Its reading stopped at the limit (at once when its Content-Length said so), and it is neither
    kept nor cached. A server that ignores ``max_tokens`` will likely do it again: retried once at most.
    """

    retry_limit = 1


class BatchUnanswered(ProviderError):
    """A request a batch run's rounds gave up on: its batches answered it with an error (or not at all)
    in rounds that answered nothing, so often in a row that it is not sent again in this run.

    The message holds the batch's reason. A batch run never calls the provider one by one in its place
    (the batch price was asked for): the work that needed the reply fails as on any provider error.
    A command stopped by it exits with `exit_code`, as `BatchIncomplete` does.
    """

    exit_code = 5


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


class RunGone(StoreError):
    """A run's file is no longer there (removed or moved since the viewer found it)."""


class JudgmentAssertionError(AssertionError):
    """An assertion of `faceteval.testing` that did not hold; the message says why, with the evidence.

    Attributes:
        judgment: The judgment behind the failure (its trace holds every prompt and reply).
    """

    __module__ = "faceteval.testing"

    def __init__(self, message: str, judgment: Any) -> None:  # a faceteval.core.Judgment
        super().__init__(message)
        self.judgment = judgment

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuilt, (type(self), self.args, self.__dict__)
