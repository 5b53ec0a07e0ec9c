"""Token estimates for dry runs (no tokenizer is downloaded: these are estimates, and say so)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from faceteval.llm._types import Message

CHARS_PER_TOKEN = 4.0
"""English text averages about four characters per token in the GPT and Claude tokenizers."""
TOKENS_PER_MESSAGE = 4
"""Chat formatting overhead per message."""


def estimate_tokens(text: str) -> int:
    """An estimate of the tokens in ``text``."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def estimate_prompt_tokens(messages: Iterable[Message]) -> int:
    """An estimate of the input tokens of a chat request."""
    return sum(estimate_tokens(m.content) + TOKENS_PER_MESSAGE for m in messages) + 2
