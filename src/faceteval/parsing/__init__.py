"""Turning LLM replies into values, loudly: scores, weights and criteria lists.

Each parser has ``instructions`` (the reply format, for the prompt and the re-ask), ``parse`` (which
raises `faceteval.errors.ParseError` with a problem an LLM can act on, and never invents or defaults a
value), ``example`` (a well-formed reply of typical length) and ``json_reply`` (the reply as JSON
under a schema, for structured output: `faceteval.llm.JsonReply`; `reply_model` and `text_field` build
such schemas). A method family's own reply formats
are read by the parsers of its package (``faceteval.methods.fennec``'s, say).
"""

from faceteval.parsing._criteria import CriteriaParser
from faceteval.parsing._expected import NO_LOGPROBS, ScoreReader
from faceteval.parsing._json_replies import reply_model, text_field
from faceteval.parsing._scores import ScoreParser, Scores
from faceteval.parsing._weights import WeightParser

__all__ = [
    "NO_LOGPROBS",
    "CriteriaParser",
    "ScoreParser",
    "ScoreReader",
    "Scores",
    "WeightParser",
    "reply_model",
    "text_field",
]
