"""Which batch API a run's rounds go through: one table from a ``--batch`` kind to what builds its rounds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from faceteval.batch._api import Watch
from faceteval.batch._passes import DEFAULT_BACKOFF, Rounds
from faceteval.errors import ConfigError
from faceteval.llm import LLM
from faceteval.store import SQLiteCache

DEFAULT_POLL = 30.0
"""Seconds between two looks at the batches still running."""
DEFAULT_BATCH_WINDOW = 50_000
"""Instances a collecting pass holds waiting at once (one OpenAI batch file's worth of requests, about)."""


@dataclass(frozen=True, slots=True)
class BatchRun:
    """How a run's calls go through a batch API (``judge(..., batch=)``, the ``--batch`` commands).

    Attributes:
        rounds: The batch API's rounds (`rounds_for`).
        kind: Its ``--batch`` kind, for the run record.
        window: Instances a collecting pass holds waiting at once: the instances past it go to a
            later pass (more rounds), so it should hold the whole input where memory allows.
        on_round: Told of each round (its number, its requests) before it is submitted.
        backoff: Seconds before a round that answered none of its requests is sent again (then twice as
            long; `faceteval.batch.run_in_passes`). The CLI gives ``--batch-poll``.
    """

    rounds: Rounds
    kind: str
    window: int = DEFAULT_BATCH_WINDOW
    on_round: Callable[[int, int], None] | None = None
    backoff: float = DEFAULT_BACKOFF


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """How a batch run's rounds are sent, as ``--batch``, ``--batch-poll`` and ``--batch-dir`` say.

    Attributes:
        kind: The batch API (a key of `BATCH_KINDS`).
        poll: Seconds between two looks at the batches still running.
        directory: Where a ``files`` round's request files go (that kind only).
        watch: Told of each batch at each look, for progress.
        endpoints: The API roots a ``ray`` round is sent to (that kind only; default: the provider's).
    """

    kind: str
    poll: float = DEFAULT_POLL
    directory: Path | None = None
    watch: Watch | None = None
    endpoints: tuple[str, ...] = ()


def _openai(settings: BatchSettings, llm: LLM, cache: SQLiteCache) -> Rounds:
    import openai

    from faceteval.batch._openai import OpenAIBatchRunner

    client = _client(llm, "openai")
    assert isinstance(client, openai.AsyncOpenAI)
    return _api_rounds(OpenAIBatchRunner, client, settings, llm, cache)


def _anthropic(settings: BatchSettings, llm: LLM, cache: SQLiteCache) -> Rounds:
    from faceteval.batch._anthropic import AnthropicBatchRunner

    return _api_rounds(AnthropicBatchRunner, _client(llm, "anthropic"), settings, llm, cache)


def _api_rounds(
    runner: Callable[..., Rounds], client: object, settings: BatchSettings, llm: LLM, cache: SQLiteCache
) -> Rounds:
    """A provider batch API's ``runner`` (`faceteval.batch._api.ApiRounds`) for ``llm``'s requests,
    through the SDK's ``client``: its replies cached under ``llm``'s identity, priced at the batch rate
    of its price."""
    return runner(
        client,
        cache,
        identity=llm.identity,
        model=llm.spec.model,
        price=llm.prices.lookup(str(llm.spec)),
        poll_interval=settings.poll,
        watch=settings.watch,
    )


def _files(settings: BatchSettings, llm: LLM, cache: SQLiteCache) -> Rounds:
    from faceteval.batch._files import FileRounds

    if settings.directory is None:
        raise ConfigError("--batch files writes each round's request files into --batch-dir DIR: give it")
    if llm.spec.provider == "anthropic":
        raise ConfigError(
            f"--batch files writes OpenAI-format requests (for vllm run-batch); {llm.spec} is served by the "
            "Anthropic API (use --batch anthropic, or an OpenAI-compatible model such as openai:NAME)"
        )
    return FileRounds(cache, settings.directory, identity=llm.identity, model=llm.spec.model)


def _ray(settings: BatchSettings, llm: LLM, cache: SQLiteCache) -> Rounds:
    import openai

    from faceteval.batch._ray import RayRounds

    client = _client(llm, "openai")  # the provider's API root and key, as its batch client has them
    assert isinstance(client, openai.AsyncOpenAI)
    return RayRounds(
        cache,
        identity=llm.identity,
        model=llm.spec.model,
        urls=list(settings.endpoints) or [str(client.base_url)],
        api_key=client.api_key or None,
        price=llm.prices.lookup(str(llm.spec)),
    )


BATCH_KINDS: dict[str, Callable[[BatchSettings, LLM, SQLiteCache], Rounds]] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "files": _files,
    "ray": _ray,
}
"""What builds the rounds of each ``--batch`` kind (a class with the `Rounds` protocol, mostly)."""
TAKES_DIRECTORY = frozenset({"files"})
"""The kinds that write their rounds into ``--batch-dir``."""


def rounds_for(
    kind: str,
    llm: LLM,
    cache: SQLiteCache,
    *,
    poll: float = DEFAULT_POLL,
    directory: Path | None = None,
    watch: Watch | None = None,
    endpoints: Sequence[str] = (),
) -> Rounds:
    """The rounds of batch API ``kind`` for ``llm``'s requests, recorded in ``cache``'s ledger.

    The batch client is built from the same key and API root as ``llm``'s provider, and the replies
    are cached under ``llm.identity``, priced at the batch rate of its price. ``directory`` is where
    a ``files`` round writes its requests; ``watch`` is told of each batch at each look; ``endpoints``
    are the OpenAI-compatible API roots a ``ray`` round is shared among (default: ``llm``'s).

    Raises:
        ConfigError: An unknown kind, a directory given to a kind that writes none, or a provider the
            kind's batch API does not serve.
    """
    settings = BatchSettings(kind, poll, directory, watch, tuple(endpoints))
    build = BATCH_KINDS.get(kind)
    if build is None:
        raise ConfigError(f"--batch is one of {', '.join(BATCH_KINDS)}, got {kind!r}")
    if settings.directory is not None and kind not in TAKES_DIRECTORY:
        raise ConfigError(f"--batch-dir is for --batch {' or '.join(sorted(TAKES_DIRECTORY))}, not {kind}")
    if settings.endpoints and kind != "ray":
        raise ConfigError(f"--batch-endpoint is for --batch ray, not {kind}")
    return build(settings, llm, cache)


def _client(llm: LLM, kind: str) -> object:
    """The official SDK's client of ``llm``'s provider, if that provider is ``kind``'s."""
    make = getattr(llm.provider, "sdk_client", None)
    sdk = "openai" if llm.spec.provider != "anthropic" else "anthropic"
    if make is None or sdk != kind:
        raise ConfigError(
            f"--batch {kind} sends {kind}'s batch requests; {llm.spec} is not served by the {kind} API "
            f"(use --batch {sdk}, or a {kind}: model)"
        )
    return make()


async def close_rounds(rounds: Rounds) -> None:
    """Close what ``rounds`` hold open (an SDK client), if they have an ``aclose``."""
    close = getattr(rounds, "aclose", None)
    if close is not None:
        await close()
