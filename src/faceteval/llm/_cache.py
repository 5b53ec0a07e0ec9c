"""The response cache seam and its key."""

from __future__ import annotations

import hashlib
import json
from typing import Protocol

from faceteval.llm._types import Completion, CompletionRequest

CACHE_KEY_VERSION = 1


class ResponseCache(Protocol):
    """Where completions are kept so that a re-run makes no LLM call.

    Implementations: `faceteval.store.SQLiteCache`. Reads and writes are local and fast, so the
    protocol is synchronous.
    """

    def get(self, key: str) -> Completion | None:
        """The completion stored under ``key``, or None."""
        ...

    def put(self, key: str, completion: Completion, *, identity: str, model: str) -> None:
        """Store ``completion`` under ``key``, durably, before returning."""
        ...


def cache_key(identity: str, request: CompletionRequest) -> str:
    """SHA-256 of the canonical JSON of everything that changes a reply.

    Provider identity (name and endpoint), model, messages and generation parameters are in;
    timeouts and retry counts are not.
    """
    payload = {
        "v": CACHE_KEY_VERSION,
        "provider": identity,
        "model": request.model,
        "messages": [m.to_dict() for m in request.messages],
        "config": request.config.cache_fields(),
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
