"""The in-process provider with a real model: a call that times out stops at once, while it reads
its prompt as while it generates, so the next one is not kept waiting behind it, and nothing is
printed of it."""

from __future__ import annotations

import time
from dataclasses import replace

import anyio
import pytest

from faceteval.errors import ProviderError
from faceteval.llm import LLM, GenerateConfig, RetryPolicy, user
from tests.live.conftest import Models


def patient_and_hasty(spec: str, timeout: float, max_tokens: int) -> tuple[LLM, LLM]:
    """One loaded model asked twice over: with time for a busy CPU, and with ``timeout`` seconds."""
    patient = LLM.from_spec(
        spec,
        timeout=300.0,
        retry=RetryPolicy(max_retries=0),
        config=GenerateConfig(max_tokens=max_tokens, temperature=0.0),
    )
    return patient, replace(patient, timeout=timeout)


def test_a_timed_out_call_stops_generating_and_the_next_one_runs_at_once(
    models: Models, capfd: pytest.CaptureFixture[str]
) -> None:
    patient, hasty = patient_and_hasty(f"llamacpp:{models.qwen}?threads=1", 2.0, 2000)
    story = [user("Write a very long story about a lighthouse keeper, in at least 3,000 words.")]

    async def both() -> float:
        await patient.generate([user("Hi.")], config=GenerateConfig(max_tokens=1))  # loaded first
        with pytest.raises(ProviderError, match="no reply within 2 s"):
            await hasty.generate(story)  # 2,000 tokens take minutes on one core: it times out
        started = time.monotonic()
        hello = await patient.generate([user("Say hello.")], config=GenerateConfig(max_tokens=4))
        assert hello.completion.text.strip()
        return time.monotonic() - started

    waited = anyio.run(both)
    assert waited < 30, f"the next call waited {waited:.0f} s: the timed-out one went on generating"
    assert "Traceback" not in capfd.readouterr().err


def test_a_call_timed_out_while_its_prompt_is_read_stops_reading_it(models: Models) -> None:
    patient, hasty = patient_and_hasty(f"llamacpp:{models.qwen}?threads=1&n_ctx=8192", 1.0, 1)
    log = "".join(f"line {k}: the lamp was lit.\n" for k in range(600))
    long = [user(f"Summarise this log:\n{log}")]

    async def both() -> tuple[int, float]:
        await patient.generate([user("Hi.")])  # loaded before the clock starts
        with pytest.raises(ProviderError, match="no reply within 1 s"):
            await hasty.generate(long)  # 6,500 tokens take most of a minute to read on one core
        started = time.monotonic()
        provider = patient.provider
        with provider._lock:  # type: ignore[union-attr]  # held until the abandoned call has ended
            read = provider._model.n_tokens  # type: ignore[union-attr]
        waited = time.monotonic() - started
        hello = await patient.generate([user("Say hello.")], config=GenerateConfig(max_tokens=4))
        assert hello.completion.text.strip()
        return read, waited

    read, waited = anyio.run(both)
    assert read < 4000, f"{read} tokens of the prompt were read: it was not cut"
    assert waited < 15, f"the abandoned call went on for {waited:.0f} s"
