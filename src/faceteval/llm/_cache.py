"""The response cache seam and its key."""

from __future__ import annotations

import hashlib
import json
from typing import Protocol

from faceteval.llm._types import Completion, CompletionRequest

CACHE_KEY_VERSION = 2


class ResponseCache(Protocol):
    """Where completions are kept so that a re-run makes no LLM call.

    Implementations: `faceteval.store.SQLiteCache`. Reads and writes are local and fast, so the
    protocol is synchronous.
    """

    def get(self, key: str) -> Completion | None:
        """The completion stored under ``key``, or None."""
        ...

    def put(self, key: str, completion: Completion, *, identity: str, model: str) -> None:
        """Store ``completion`` under ``key`` (replacing what was there), durably, before returning."""
        ...


def cache_key(identity: str, request: CompletionRequest) -> str:
    """SHA-256 over everything that changes a reply.

    Provider identity (name and endpoint), model, generation parameters (as canonical JSON) and
    every message (role and length-prefixed content) are in; timeouts and retry counts are not.
    """
    head = {
        "v": CACHE_KEY_VERSION,
        "provider": identity,
        "model": request.model,
        "config": request.config.cache_fields(),
    }
    digest = hashlib.sha256(json.dumps(head, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    for message in request.messages:
        content = message.content.encode("utf-8", "surrogatepass")  # never fails; the same bytes for text
        digest.update(f"\n{message.role}:{len(content)}:".encode())
        digest.update(content)
    return digest.hexdigest()
