"""An error recorded on a span, with the credentials in the URLs it names hidden.

OpenTelemetry's own recording writes the exception's message and its traceback with the whole chain
of causes: the messages of the HTTP libraries' exceptions behind a provider's error, which may
quote a request's URL with its key, or a server's error body. A faceteval error's message already
says what happened, with its URL's secrets hidden (`faceteval.llm`), so it is recorded without that
chain; any other exception (a bug) keeps its chain. Every URL in what is written is redacted
(`faceteval._util.urls.redact_urls`).
"""

from __future__ import annotations

import traceback
from typing import TYPE_CHECKING

from faceteval._util.urls import redact_urls
from faceteval.errors import FacetevalError

if TYPE_CHECKING:
    from opentelemetry.trace import Span


def record_error(span: Span, error: BaseException, *, status: str | None = None) -> None:
    """Record ``error`` on ``span``: an ``exception`` event, and the span's status set to ERROR.

    Args:
        span: The span the error ended.
        error: The error.
        status: The status description; the error's message when None.
    """
    from opentelemetry.trace import Status, StatusCode

    message = redact_urls(str(error))
    chain = not isinstance(error, FacetevalError)
    stacktrace = "".join(traceback.format_exception(error, chain=chain))
    attributes = {"exception.message": message, "exception.stacktrace": redact_urls(stacktrace)}
    span.record_exception(error, attributes=attributes)
    span.set_status(Status(StatusCode.ERROR, redact_urls(status) if status is not None else message))
