"""OpenTelemetry spans of judge runs, off until `enable` is called (``faceteval[otel]``).

With tracing on, each run, each instance and each LLM call is a span, the LLM calls following
OpenTelemetry's GenAI semantic conventions (``chat {model}``, kind CLIENT, ``gen_ai.*`` attributes)
with faceteval's own beside them: the stage and facet that asked, the instance, cache hits,
attempts and cost. Only the LLM call spans carry ``gen_ai.*`` usage (the run's and instances'
totals are ``faceteval.*``), and each judgment is ``gen_ai.evaluation.result`` events on its
instance's span. Spans go to the global TracerProvider the application configured (this
package uses only the OpenTelemetry API), or to the one given to `enable`. Message contents are
left out unless ``capture_content`` is asked for.

While tracing is off, nothing of OpenTelemetry is imported and the calls below cost a check of
one variable. The command line turns it on with ``--otel`` (or ``FACETEVAL_OTEL=1``).

`labels` gives the labels of the work under way; what faceteval's own parts use to make their spans
(`labelled`, `tracer`, `paused`, `record_error`) is in `faceteval.tracing.internal`.
"""

from faceteval.tracing._state import capture_content, disable, enable, enabled, labels

__all__ = [
    "capture_content",
    "disable",
    "enable",
    "enabled",
    "labels",
]
