"""A scripted provider: a test double that returns given replies. Never a default, never from a spec."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from faceteval.errors import ConfigError, ProviderError
from faceteval.llm._tokens import estimate_prompt_tokens, estimate_tokens
from faceteval.llm._types import Completion, CompletionRequest

Script = Callable[[CompletionRequest], "str | Completion | ProviderError"]


@dataclass(slots=True)
class ScriptedProvider:
    """Replies from a script, for tests: a function of the request, or a fixed sequence of replies.

    A reply may be text, a full `Completion`, or a `ProviderError` to raise. Every request is kept
    in ``requests``. This is a test double: its replies are whatever the test wrote, and faceteval
    never uses it to judge anything.

    Examples:
        >>> provider = ScriptedProvider.sequence(["8 6"])
    """

    script: Script
    name: str = "scripted"
    requests: list[CompletionRequest] = field(default_factory=list)

    @classmethod
    def sequence(cls, replies: Iterable[str | Completion | ProviderError]) -> ScriptedProvider:
        """Replies in order, one per call; running out is a test bug and raises `ConfigError`."""
        queue = list(replies)

        def next_reply(request: CompletionRequest) -> str | Completion | ProviderError:
            if not queue:
                raise ConfigError("ScriptedProvider ran out of replies")
            return queue.pop(0)

        return cls(next_reply)

    @property
    def identity(self) -> str:
        """Cache identity."""
        return self.name

    async def complete(self, request: CompletionRequest) -> Completion:
        """Answer from the script."""
        self.requests.append(request)
        reply = self.script(request)
        if isinstance(reply, ProviderError):
            raise reply
        if isinstance(reply, Completion):
            return reply
        return Completion(
            text=reply,
            input_tokens=estimate_prompt_tokens(request.messages),
            output_tokens=estimate_tokens(reply),
            finish_reason="stop",
            model=request.model,
        )

    async def aclose(self) -> None:
        """Nothing to release."""
