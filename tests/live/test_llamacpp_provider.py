"""The in-process provider with a real model: a call that times out stops generating at once, so the
next one is not kept waiting behind it, and nothing is printed of it."""

from __future__ import annotations

import time

import anyio
import pytest

from faceteval.errors import ProviderError
from faceteval.llm import LLM, GenerateConfig, RetryPolicy, user
from tests.live.conftest import Models


def test_a_timed_out_call_stops_generating_and_the_next_one_runs_at_once(
    models: Models, capfd: pytest.CaptureFixture[str]
) -> None:
    llm = LLM.from_spec(
        f"llamacpp:{models.qwen}?threads=1",
        timeout=2.0,
        retry=RetryPolicy(max_retries=0),
        config=GenerateConfig(max_tokens=2000, temperature=0.0),
    )
    story = [user("Write a very long story about a lighthouse keeper, in at least 3,000 words.")]

    async def both() -> float:
        with pytest.raises(ProviderError, match="no reply within 2 s"):
            await llm.generate(story)  # 2,000 tokens take minutes on one core: it times out
        started = time.monotonic()
        hello = await llm.generate([user("Say hello.")], config=GenerateConfig(max_tokens=4))
        assert hello.completion.text.strip()
        return time.monotonic() - started

    waited = anyio.run(both)
    assert waited < 30, f"the next call waited {waited:.0f} s: the timed-out one went on generating"
    assert "Traceback" not in capfd.readouterr().err
