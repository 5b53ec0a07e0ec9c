"""The spans of a judge run and of each instance in it (made only while tracing is on).

The LLM calls an instance makes are spans under its span (`faceteval.llm`); the instances are
spans under the run's. Only the calls' spans carry ``gen_ai.*`` usage: a GenAI-aware backend counts
each span with it as an LLM call and sums its tokens, so the run's and the instances' totals are
faceteval's own attributes. Each instance's judgment is also a ``gen_ai.evaluation.result`` event
per candidate and per facet, as the GenAI semantic conventions record an evaluation. OpenTelemetry
is imported here only inside functions, which run only while tracing is on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from faceteval import tracing
from faceteval._runner._evaluations import EVALUATION_EVENT, evaluations
from faceteval._runner._stats import RunStats
from faceteval._util.urls import redact_urls
from faceteval.core import Judgment
from faceteval.llm import LLM
from faceteval.tracing.internal import labelled, record_error

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from faceteval.llm import Judge


@contextmanager
def run_span(tracer: Tracer, method: str, llm: Judge) -> Iterator[Span]:
    """The span ``judge {method}`` of a whole run; an error that stops the run is recorded on it.

    A panel's run names the panel; its judges' calls name their own models.
    """
    attributes = {"faceteval.method": method}
    if isinstance(llm, LLM):
        attributes["faceteval.model"] = str(llm.spec)
    else:
        attributes["faceteval.panel"] = llm.name
    with _recording(tracer, f"judge {method}", attributes) as span:
        yield span


def record_run(span: Span, stats: RunStats) -> None:
    """Put the run's counts on its span."""
    total = stats.total
    attributes: dict[str, Any] = {
        "faceteval.judgments": stats.judged,
        "faceteval.reused": stats.reused,
        "faceteval.calls": total.calls,
        "faceteval.cached_calls": total.cached,
        "faceteval.retries": total.retries,
        "faceteval.input_tokens": total.input_tokens,
        "faceteval.output_tokens": total.output_tokens,
        **{f"faceteval.status.{status}": count for status, count in stats.statuses.items()},
    }
    if total.cost_known:
        attributes["faceteval.cost_usd"] = total.cost_usd
    span.set_attributes(attributes)


@contextmanager
def instance_span(tracer: Tracer, instance_id: str, method: str) -> Iterator[Span]:
    """The span ``judge_instance {method}`` of one instance, its LLM calls labelled with its id."""
    attributes = {"faceteval.instance_id": instance_id, "faceteval.method": method}
    with (
        _recording(tracer, f"judge_instance {method}", attributes) as span,
        labelled(instance_id=instance_id),
    ):
        yield span


def record_judgment(span: Span, judgment: Judgment, candidates: int) -> None:
    """Put the judgment's outcome and usage on its instance's span, with a ``gen_ai.evaluation.result``
    event per candidate and facet (`evaluations`, of ``candidates`` outputs); a failed one marks the
    span an error."""
    from opentelemetry.trace import Status, StatusCode

    usage = judgment.usage
    attributes: dict[str, Any] = {"faceteval.status": judgment.status}
    if judgment.verdict is not None:
        attributes["faceteval.verdict"] = judgment.verdict
    if judgment.scores is not None:
        attributes["faceteval.scores"] = list(judgment.scores)
    if judgment.consistent is not None:
        attributes["faceteval.consistent"] = judgment.consistent
    attributes |= {
        "faceteval.calls": usage.calls,
        "faceteval.cached_calls": usage.cached_calls,
        "faceteval.input_tokens": usage.input_tokens,
        "faceteval.output_tokens": usage.output_tokens,
    }
    if usage.cost_usd is not None:
        attributes["faceteval.cost_usd"] = usage.cost_usd
    span.set_attributes(attributes)
    for event in evaluations(judgment, candidates, explained=tracing.capture_content()):
        span.add_event(EVALUATION_EVENT, event)
    if judgment.status != "ok":
        span.set_status(Status(StatusCode.ERROR, redact_urls(judgment.error or judgment.status)))


@contextmanager
def _recording(tracer: Tracer, name: str, attributes: Mapping[str, Any]) -> Iterator[Span]:
    """A span ``name`` on which an error that ends it is recorded as `faceteval.tracing.internal.record_error`
    records it (OpenTelemetry's own recording would write the chain of causes behind it)."""
    with tracer.start_as_current_span(
        name, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            yield span
        except BaseException as exc:
            record_error(span, exc, status=f"{type(exc).__name__}: {exc}")
            raise
