"""Turning LLM replies into values, loudly: scores, weights and criteria.

Each parser has ``instructions`` (the reply format, for the prompt and the re-ask), ``parse`` (which
raises `faceteval.errors.ParseError` with a problem an LLM can act on, and never invents or defaults a
value) and ``example`` (a well-formed reply of typical length).
"""

from faceteval.parsing._criteria import CriteriaParser
from faceteval.parsing._fennec import (
    FENNEC_SCALE,
    FennecCriteriaParser,
    GuidelineParser,
    Judged,
    JudgeResultParser,
    RewriteParser,
)
from faceteval.parsing._scores import ScoreParser, Scores
from faceteval.parsing._weights import WeightParser

__all__ = [
    "FENNEC_SCALE",
    "CriteriaParser",
    "FennecCriteriaParser",
    "GuidelineParser",
    "JudgeResultParser",
    "Judged",
    "RewriteParser",
    "ScoreParser",
    "Scores",
    "WeightParser",
]
