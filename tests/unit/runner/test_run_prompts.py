"""A judge run's templates and prompt order travel with its options into each JudgeContext: the engine
puts nothing in use around the methods, so two runs in one event loop render each its own templates."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from faceteval import Direct, Instance, JudgeOptions, judge_async
from faceteval.llm import LLM, ModelSpec, ScriptedProvider
from faceteval.methods import JudgeContext, OrderOutcome
from faceteval.prompts import Templates, render, using_templates
from faceteval.prompts.internal import current_prompts

REASK = "common/reask"


@dataclass
class Probe:
    """A method that notes, inside its run, what its context renders and what is in use around it."""

    seen: list[tuple[str, str]] = field(default_factory=list)
    name: str = "probe"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "params": {}}

    def templates(self) -> tuple[str, ...]:
        return (REASK,)

    async def judge_order(self, instance: Instance, ctx: JudgeContext) -> OrderOutcome:
        await asyncio.sleep(0)  # the other run's order runs meanwhile
        mine = ctx.render(REASK, problem="p", instructions="i")[-1].content
        around = render(REASK, problem="p", instructions="i")[-1].content
        self.seen.append((mine, around))
        return OrderOutcome(scores=(1.0, 2.0))


def templates(word: str) -> Templates:
    return Templates.from_texts({REASK: f"### user\n{word}: {{{{ problem }}}} {{{{ instructions }}}}"})


def llm() -> LLM:
    return LLM(ScriptedProvider.sequence([]), ModelSpec("scripted", "probe"))


PAIR = Instance(id="1", query="q", candidates=["a", "b"])
BUILT_IN = render(REASK, problem="p", instructions="i")[-1].content


def test_each_run_renders_its_own_templates_and_puts_none_in_use_around_its_method() -> None:
    a, b = Probe(), Probe()

    async def both() -> None:
        await asyncio.gather(
            judge_async([PAIR], a, llm(), options=JudgeOptions(templates=templates("alpha"), swap=True)),
            judge_async([PAIR], b, llm(), options=JudgeOptions(templates=templates("beta"), swap=True)),
        )

    asyncio.run(both())

    assert a.seen == [("alpha: p i", BUILT_IN)] * 2
    assert b.seen == [("beta: p i", BUILT_IN)] * 2
    assert current_prompts().overrides == {}


def test_templates_put_in_use_around_a_run_still_apply_under_the_runs_own() -> None:
    probe = Probe()
    outer = Templates.from_texts({REASK: "### user\nouter: {{ problem }} {{ instructions }}"})

    with using_templates(outer):
        asyncio.run(judge_async([PAIR], probe, llm()))
        asyncio.run(judge_async([PAIR], probe, llm(), options=JudgeOptions(templates=templates("own"))))

    assert probe.seen == [("outer: p i", "outer: p i"), ("own: p i", "outer: p i")]


def test_a_method_built_in_faceteval_renders_through_its_context(tmp_path: Any) -> None:
    # Direct's stage and its re-ask both come from the run's templates, not from what is in use
    provider = ScriptedProvider.sequence(["no score here", "7 3\nfine"])
    mine = Templates.from_texts({REASK: "### user\nTRY AGAIN: {{ problem }} {{ instructions }}"})
    judgments = asyncio.run(
        judge_async(
            [PAIR], Direct(), LLM(provider, ModelSpec("scripted", "d")), options=JudgeOptions(templates=mine)
        )
    )

    assert judgments[0].status == "ok"
    assert "TRY AGAIN:" in provider.requests[-1].messages[-1].content
