"""Requests and tokens per minute: a provider's rate limits, kept by aiolimiter's leaky buckets.

A provider counts its limits per API key (and organisation), not per model or per client, so the
buckets are shared: every `faceteval.llm.LLM` of the process that sends with the same key to the
same endpoint (a panel's judges, a cascade's) draws from the same ones, whatever its model. They are
found by `RateKey`, the endpoint's URL and a digest of its credentials (the key is not kept), and
by the limit, so two LLMs that share a key share its buckets when they name the same limit.

aiolimiter's buckets belong to an event loop, so each running loop has its own; the LLMs of one
run (one ``anyio.run``) share them.

How each limit is kept:

- ``rpm``: a bucket of one request that drains in ``60 / rpm`` seconds: requests are sent evenly
  spread, never two less than ``60 / rpm`` seconds apart, so no minute holds more than ``rpm``.
- ``tpm``: a bucket of a second's tokens (``tpm / 60``, at least one) that drains in one second; a
  request takes its tokens in pieces of at most that, so tokens are spent at ``tpm / 60`` a second,
  with at most one second's worth at once. A request's tokens are *estimated* before it is sent
  (`request_tokens`): its prompt at four characters a token (`faceteval.llm._tokens`) plus its
  whole ``max_tokens``.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from aiolimiter import AsyncLimiter

from faceteval._util.checks import whole_number
from faceteval.errors import ConfigError
from faceteval.llm._tokens import estimate_prompt_tokens
from faceteval.llm._types import CompletionRequest

SECONDS_PER_MINUTE = 60.0


@dataclass(frozen=True, slots=True)
class RateKey:
    """What a provider's limits are counted by: an endpoint and the credentials sent to it.

    Attributes:
        url: Where requests go (without the credentials a URL may hold).
        credentials: A SHA-256 digest of the API key and the URL's own secrets: another key is
            another quota; the key itself is not kept.
    """

    url: str
    credentials: str

    @classmethod
    def of(cls, url: str, secrets: Iterable[str | None]) -> RateKey:
        """The key of ``url`` with ``secrets`` (an API key, a URL's password and query secrets).

        Examples:
            >>> one = RateKey.of("http://127.0.0.1:8000/v1", ["key-a"])
            >>> one == RateKey.of("http://127.0.0.1:8000/v1", ["key-a"])
            True
            >>> one == RateKey.of("http://127.0.0.1:8000/v1", ["key-b"])
            False
        """
        digest = hashlib.sha256("\n".join(secret or "" for secret in secrets).encode("utf-8"))
        return cls(url, digest.hexdigest())


def check_limit(name: str, value: object) -> int | None:
    """``value`` if it is None (no limit) or a whole number of at least 1.

    Raises:
        ConfigError: It is neither.
    """
    if value is not None and not whole_number(value, 1):
        raise ConfigError(f"{name} must be a whole number per minute, at least 1 (or None), got {value!r}")
    return value


def request_tokens(request: CompletionRequest) -> int:
    """The tokens ``request`` is counted for under a tokens-per-minute limit: its prompt, estimated at
    four characters a token (an underestimate for text that tokenizes densely: code, Chinese,
    Japanese), plus the whole ``max_tokens`` of its reply (an overestimate: most replies stop sooner).

    Examples:
        >>> from faceteval.llm._types import GenerateConfig, user
        >>> request_tokens(CompletionRequest("m", (user("x" * 40),), GenerateConfig(max_tokens=100)))
        116
    """
    return estimate_prompt_tokens(request.messages) + request.config.max_tokens


@dataclass(frozen=True, slots=True)
class RateLimits:
    """The requests and tokens per minute one LLM sends within, counted by ``key``.

    Attributes:
        key: Whose limits they are (`RateKey`): LLMs with the same key and limit share them.
        rpm: Requests a minute at most; None: no limit.
        tpm: Tokens a minute at most (`request_tokens` of each request); None: no limit.
    """

    key: RateKey
    rpm: int | None = None
    tpm: int | None = None

    async def take(self, request: CompletionRequest) -> None:
        """Wait until ``request`` may be sent within the limits, and count it."""
        if self.rpm is not None:
            await _bucket(self.key, "requests", self.rpm).acquire()
        if self.tpm is not None:
            bucket = _bucket(self.key, "tokens", self.tpm)
            tokens = float(request_tokens(request))
            while tokens > 0:
                piece = min(tokens, bucket.max_rate)
                await bucket.acquire(piece)
                tokens -= piece


_BUCKETS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[RateKey, str, int], AsyncLimiter]]
_BUCKETS = weakref.WeakKeyDictionary()
"""The buckets of each running event loop, by key, kind and limit (gone with their loop)."""
_LOCK = threading.Lock()


def _bucket(key: RateKey, kind: str, per_minute: int) -> AsyncLimiter:
    """The running loop's bucket of ``kind`` (``requests``, ``tokens``) for ``key`` at ``per_minute``."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        buckets = _BUCKETS.setdefault(loop, {})
        bucket = buckets.get((key, kind, per_minute))
        if bucket is None:
            bucket = buckets[key, kind, per_minute] = _new_bucket(kind, per_minute)
    return bucket


def _new_bucket(kind: str, per_minute: int) -> AsyncLimiter:
    """A bucket of one request, or of a second's tokens, that drains at ``per_minute``.

    Examples:
        >>> requests, tokens = _new_bucket("requests", 600), _new_bucket("tokens", 600_000)
        >>> (requests.max_rate, requests.time_period), (tokens.max_rate, tokens.time_period)
        ((1.0, 0.1), (10000.0, 1.0))
        >>> few = _new_bucket("tokens", 30)
        >>> (few.max_rate, few.time_period)
        (1.0, 2.0)
    """
    capacity = 1.0 if kind == "requests" else max(per_minute / SECONDS_PER_MINUTE, 1.0)
    return AsyncLimiter(capacity, capacity * SECONDS_PER_MINUTE / per_minute)
