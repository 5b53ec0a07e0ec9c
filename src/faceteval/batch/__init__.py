"""Batch execution: a round's cache misses sent through a provider's batch API, and the replies put into
the response cache under the identity the synchronous path uses (so the next pass finds them as hits).

`OpenAIBatchRunner` (and `AnthropicBatchRunner`, on Message Batches) submits a round (cut at the
provider's limits by `shards`), records each batch in the cache's `faceteval.store.BatchLedger` before
anything else, polls, and imports the results.
`run_in_passes` runs a method's work pass after pass with an LLM in collecting mode
(`faceteval.llm.Collector`): each pass's misses are one round, until a pass misses nothing; a round
that answers nothing is sent again until `STALLED_ROUNDS` in a row have not, then its requests are given
up (each fails with `faceteval.errors.BatchUnanswered`).
`rounds_for` builds the rounds of a ``--batch`` kind (`BATCH_KINDS`) for an LLM.
"""

from faceteval.batch._anthropic import AnthropicBatchRunner
from faceteval.batch._api import ApiRounds, Watch
from faceteval.batch._choice import (
    BATCH_KINDS,
    DEFAULT_BATCH_WINDOW,
    DEFAULT_POLL,
    BatchRun,
    BatchSettings,
    rounds_for,
)
from faceteval.batch._files import FileRounds
from faceteval.batch._import import ImportReport, import_outputs
from faceteval.batch._openai import OpenAIBatchRunner
from faceteval.batch._passes import STALLED_ROUNDS, Passes, Rounds, Stall, retry_wait, run_in_passes
from faceteval.batch._ray import RayRounds
from faceteval.batch._results import ImportTally
from faceteval.batch._shards import ANTHROPIC_LIMITS, OPENAI_LIMITS, Limits, shards

__all__ = [
    "ANTHROPIC_LIMITS",
    "BATCH_KINDS",
    "DEFAULT_BATCH_WINDOW",
    "DEFAULT_POLL",
    "OPENAI_LIMITS",
    "STALLED_ROUNDS",
    "AnthropicBatchRunner",
    "ApiRounds",
    "BatchRun",
    "BatchSettings",
    "FileRounds",
    "ImportReport",
    "ImportTally",
    "Limits",
    "OpenAIBatchRunner",
    "Passes",
    "RayRounds",
    "Rounds",
    "Stall",
    "Watch",
    "import_outputs",
    "retry_wait",
    "rounds_for",
    "run_in_passes",
    "shards",
]
