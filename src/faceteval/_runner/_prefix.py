"""The shared-prefix share of a run's per-facet prompts: what a server's prefix cache can reuse."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from faceteval._util.prefix import common_prefix
from faceteval.core import TraceEntry


@dataclass(slots=True)
class PrefixShare:
    """Over a run, the characters of the per-facet prompts (a stage asked several times for one
    instance in one order: ``dna.score``, ``fennec.pairwise``, ``coeval.criterion``) and, of them,
    those every prompt of its instance's group starts with (their longest common prefix, in each).

    Characters stand in for tokens (about four a token, alike in both counts).

    Examples:
        >>> from faceteval.core import TraceEntry
        >>> def call(text: str) -> TraceEntry:
        ...     return TraceEntry(stage="dna.score", messages=[{"role": "user", "content": text}], raw="")
        >>> share = PrefixShare()
        >>> share.add([call("shared part, facet one"), call("shared part, facet two")])
        >>> share.share
        0.8929
    """

    shared: int = 0
    total: int = 0

    def add(self, entries: Iterable[TraceEntry]) -> None:
        """Count the exchanges behind one judgment (those of every stage asked more than once per order)."""
        groups: dict[tuple[str, tuple[int, ...]], list[str]] = {}
        for entry in entries:
            key = (entry.stage, tuple(entry.order or ()))
            groups.setdefault(key, []).append(prompt_text(entry.messages))
        for prompts in groups.values():
            if len(prompts) > 1:
                self.total += sum(map(len, prompts))
                self.shared += len(prompts) * common_prefix(prompts)

    @property
    def share(self) -> float | None:
        """The shared characters' share of all (None when no stage was asked more than once)."""
        return round(self.shared / self.total, 4) if self.total else None


def prompt_text(messages: Iterable[dict[str, str]]) -> str:
    """A prompt as a server sees it, in order: each message's role and content."""
    return "".join(f"<{message.get('role', '')}>{message.get('content', '')}" for message in messages)
