"""The provider seam: one async method an adapter implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from faceteval.llm._types import Completion, CompletionRequest


@runtime_checkable
class Provider(Protocol):
    """An LLM service adapter.

    A provider makes exactly one attempt per call and translates its SDK's failures into
    `faceteval.errors.ProviderError` subclasses. Retries, timeouts, concurrency, caching and cost
    accounting belong to `faceteval.llm.LLM`, not to providers.
    """

    @property
    def name(self) -> str:
        """The registry name, for example ``"openai"``."""
        ...

    @property
    def identity(self) -> str:
        """What distinguishes this provider's replies in the cache (name plus endpoint)."""
        ...

    async def complete(self, request: CompletionRequest) -> Completion:
        """Make one attempt at a completion."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
