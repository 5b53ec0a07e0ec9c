"""Which judge a written run is, for a calibration: its estimator from its record, else its judgments."""

from __future__ import annotations

import pytest

from faceteval._runner import record_identity
from faceteval.core import Judgment
from faceteval.errors import ConfigError
from faceteval.store import JudgeRecord, LLMRecord, MethodRecord


def judged(ident: str, confidence: float | None, estimator: str | None) -> Judgment:
    return Judgment(
        id=ident,
        method="direct",
        status="ok",
        verdict=1,
        confidence=confidence,
        confidence_estimator=estimator,
    )


def test_the_records_estimator_holds_even_for_judgments_left_without_a_confidence() -> None:
    record = JudgeRecord(
        method=MethodRecord(name="direct"),
        llm=LLMRecord(model="openai:m"),
        options={
            "swap": True,
            "score_mode": "logprobs",
            "top_logprobs": 20,
            "confidence": "verdict-logprobs",
        },
    )
    found = record_identity(
        record, [judged("1", 0.8, "verdict-logprobs"), judged("2", None, None)], source="r"
    )
    assert found.estimator == "verdict-logprobs"
    assert found.options == {"swap": True, "score_mode": "logprobs", "top_logprobs": 20}


def test_without_a_record_the_judgments_name_it_and_must_agree() -> None:
    assert record_identity(
        None, [judged("1", 0.5, "strategies"), judged("2", None, None)], source="r"
    ).estimator == ("strategies")
    assert record_identity(None, [judged("1", 0.5, None)], source="r").estimator == "signals"
    with pytest.raises(ConfigError, match="several estimators"):
        record_identity(None, [judged("1", 0.5, "strategies"), judged("2", 0.5, None)], source="r")
