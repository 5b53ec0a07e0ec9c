"""A judge panel: several LLMs that each judge every instance, and how their verdicts are combined.

A `Panel` goes where an `LLM` goes in `faceteval.judge` and `faceteval.meta_evaluate`: every stage
of the method runs once per judge (each with its own facets, weights and cache entries: a reply is
cached under its own model and endpoint), and the judgments are combined by ``vote``
(`faceteval.aggregation.combine_panel`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar, get_args

import anyio

from faceteval.core import PanelVote
from faceteval.errors import ConfigError
from faceteval.llm._cache import ResponseCache
from faceteval.llm._llm import LLM
from faceteval.llm._spend import Spend

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Panel:
    """Two or more LLM judges whose judgments are combined into one per instance.

    Attributes:
        judges: The LLMs, each a judge (two of the same model need different endpoints).
        vote: ``majority`` (the verdict most judges gave; no single one: a tie), ``mean`` or
            ``median`` (of each candidate's overall score; verdict-only judges: of their votes).

    Examples:
        >>> from faceteval.llm import ModelSpec, ScriptedProvider
        >>> a = LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "a"))
        >>> b = LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "b"))
        >>> Panel([a, b]).names
        ('scripted:a', 'scripted:b')
    """

    judges: Sequence[LLM]
    vote: PanelVote = "majority"

    def __post_init__(self) -> None:
        judges = tuple(self.judges)
        object.__setattr__(self, "judges", judges)
        if self.vote not in get_args(PanelVote):
            raise ConfigError(f"unknown panel vote {self.vote!r}: one of {', '.join(get_args(PanelVote))}")
        if len(judges) < 2 or not all(isinstance(judge, LLM) for judge in judges):
            raise ConfigError(
                "a panel takes two or more LLMs: Panel([LLM.from_spec(...), LLM.from_spec(...)])"
            )
        names = self.names
        if len(set(names)) < len(names):
            raise ConfigError(f"a panel's judges are different models or endpoints, got {', '.join(names)}")

    @property
    def names(self) -> tuple[str, ...]:
        """Each judge's name: its model spec, with its endpoint when two judges share a model."""
        specs = [str(judge.spec) for judge in self.judges]
        return tuple(
            spec if specs.count(spec) == 1 else f"{spec}@{judge.identity}"
            for spec, judge in zip(specs, self.judges, strict=True)
        )

    @property
    def name(self) -> str:
        """How runs name the panel: ``panel (majority): openai:a, openai:b``."""
        return f"panel ({self.vote}): {', '.join(self.names)}"

    @property
    def concurrency(self) -> int:
        """Calls in flight at once over every judge (each has its own limit)."""
        return sum(judge.concurrency for judge in self.judges)

    @property
    def cache(self) -> ResponseCache | None:
        """The first judge's response cache (judges built by the command share one)."""
        return self.judges[0].cache

    @property
    def dry_run(self) -> bool:
        return any(judge.dry_run for judge in self.judges)

    @property
    def spent(self) -> Spend:
        """Everything asked of the judges so far, summed."""
        return sum((judge.spent for judge in self.judges), Spend())

    def with_seed(self, seed: int) -> Panel:
        """The same panel, each judge asked with provider seed ``seed``."""
        judges = [replace(judge, config=judge.config.merge(seed=seed)) for judge in self.judges]
        return Panel(judges, self.vote)

    def describe(self) -> dict[str, Any]:
        """What rebuilds the panel (for run records), as one LLM's: ``model`` names the panel and its
        judges in order, ``identity`` each judge's endpoint (`` | ``-separated), ``config`` theirs,
        ``structured_fallback`` the dialect fallen back to, naming the judges that fell back when not
        all of them did."""
        members = [judge.describe() for judge in self.judges]
        fell_back = [m for m in members if "structured_fallback" in m]
        fallback: dict[str, str] = {}
        if fell_back:  # "json_object", or "json_object (openai:b)" when the others took json_schema
            which = "" if len(fell_back) == len(members) else f" ({', '.join(m['model'] for m in fell_back)})"
            fallback["structured_fallback"] = f"{fell_back[0]['structured_fallback']}{which}"
        return {
            "model": self.name,
            "identity": " | ".join(str(member["identity"]) for member in members),
            "config": members[0]["config"],
            "concurrency": self.concurrency,
            "timeout": max(judge.timeout for judge in self.judges),
            "max_retries": max(judge.retry.max_retries for judge in self.judges),
            **_shared_limits(members),
        } | fallback

    async def aclose(self) -> None:
        """Close every judge's connections in the running event loop."""
        for judge in self.judges:
            await judge.aclose()

    async def closing_after(self, work: Callable[[], Awaitable[T]]) -> T:
        """``await work()``, then close every judge's connections however it ended."""
        try:
            return await work()
        finally:
            with anyio.CancelScope(shield=True):
                await self.aclose()


def _shared_limits(members: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rate limits (``rpm``, ``tpm``) every judge of a panel has alike (a panel built by the command
    gives each judge the same ones).

    Examples:
        >>> _shared_limits([{"rpm": 60, "tpm": 9}, {"rpm": 60}])
        {'rpm': 60}
    """
    limits = [{name: member.get(name) for name in ("rpm", "tpm")} for member in members]
    return {
        name: value
        for name, value in limits[0].items()
        if value is not None and all(limit[name] == value for limit in limits)
    }


Judge = LLM | Panel
"""What judges a run: one LLM, or a panel of them."""
