"""Batch execution: a round's cache misses sent through a provider's batch API, and the replies put into
the response cache under the identity the synchronous path uses (so the next pass finds them as hits).

`OpenAIBatchRunner` submits a round (cut at the provider's limits by `shards`), records each batch in the
cache's `faceteval.store.BatchLedger` before anything else, polls, and imports the results.
"""

from faceteval.batch._openai import ImportTally, OpenAIBatchRunner
from faceteval.batch._shards import ANTHROPIC_LIMITS, OPENAI_LIMITS, Limits, shards

__all__ = ["ANTHROPIC_LIMITS", "OPENAI_LIMITS", "ImportTally", "Limits", "OpenAIBatchRunner", "shards"]
