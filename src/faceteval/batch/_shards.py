"""A round's request lines cut into files within a provider's batch limits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from faceteval.errors import ConfigError
from faceteval.llm import CompletionRequest


@dataclass(frozen=True, slots=True)
class Limits:
    """The most requests and bytes one batch input file may hold."""

    requests: int
    bytes: int


OPENAI_LIMITS = Limits(requests=50_000, bytes=200 * 1024 * 1024)
ANTHROPIC_LIMITS = Limits(requests=100_000, bytes=256 * 1024 * 1024)


def shards(lines: Iterable[str], limits: Limits) -> Iterator[list[str]]:
    """``lines`` (JSON, without newlines) in order, cut into files of at most ``limits`` each.

    Raises:
        ConfigError: One line alone is larger than a file may be.

    Examples:
        >>> [len(s) for s in shards(["a" * 3] * 5, Limits(requests=2, bytes=100))]
        [2, 2, 1]
        >>> [len(s) for s in shards(["a" * 3] * 5, Limits(requests=10, bytes=8))]
        [2, 2, 1]
    """
    shard: list[str] = []
    size = 0
    for line in lines:
        length = len(line.encode("utf-8")) + 1
        if length > limits.bytes:
            raise ConfigError(
                f"one batch request is {length:,} bytes, more than a batch file may hold ({limits.bytes:,})"
            )
        if shard and (len(shard) == limits.requests or size + length > limits.bytes):
            yield shard
            shard, size = [], 0
        shard.append(line)
        size += length
    if shard:
        yield shard


def in_prefix_order(requests: Iterable[tuple[str, CompletionRequest]]) -> list[tuple[str, CompletionRequest]]:
    """``requests`` (cache key, request), one per key, sorted by their messages: requests that share a
    prefix (an instance's prompts, a method's instructions) are adjacent, so a server's prefix cache
    (vLLM's automatic prefix caching) reuses it from one to the next.

    Examples:
        >>> from faceteval.llm import user
        >>> asked = [(key, CompletionRequest("m", (user(text),)))
        ...          for key, text in [("b", "Q1 facet B"), ("a", "Q2"), ("c", "Q1 facet A")]]
        >>> [key for key, _ in in_prefix_order(asked)]
        ['c', 'b', 'a']
    """
    unique = dict(requests)  # one request per key, whoever asked it
    return sorted(unique.items(), key=lambda kv: (tuple((m.role, m.content) for m in kv[1].messages), kv[0]))
