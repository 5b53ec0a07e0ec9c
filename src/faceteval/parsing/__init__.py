"""Turning LLM replies into values, loudly: scores, weights and criteria lists.

Each parser has ``instructions`` (the reply format, for the prompt and the re-ask), ``parse`` (which
raises `faceteval.errors.ParseError` with a problem an LLM can act on, and never invents or defaults a
value) and ``example`` (a well-formed reply of typical length). A method family's own reply formats
are read by the parsers of its package (``faceteval.methods.fennec``'s, say).
"""

from faceteval.parsing._criteria import CriteriaParser
from faceteval.parsing._expected import NO_LOGPROBS, ScoreReader, score_sources
from faceteval.parsing._scores import ScoreParser, Scores
from faceteval.parsing._weights import WeightParser

__all__ = [
    "NO_LOGPROBS",
    "CriteriaParser",
    "ScoreParser",
    "ScoreReader",
    "Scores",
    "WeightParser",
    "score_sources",
]
