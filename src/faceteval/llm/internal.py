"""The plumbing of `faceteval.llm` that other faceteval packages use: not its public API.

A name here may change or go in any release; documentation and examples never use one. What users
use is in the package's ``__all__``. See "Public names and internal seams" in docs/architecture.md.
"""

from faceteval.llm._batch_format import (
    anthropic_batch_completion,
    anthropic_batch_request,
    openai_batch_completion,
    openai_batch_line,
)
from faceteval.llm._cache import cache_key
from faceteval.llm._llamacpp import LlamaCppOptions, LlamaCppProvider, check_gguf
from faceteval.llm._llm import endpoint_identity
from faceteval.llm._parser import reply_schema
from faceteval.llm._registry import create_provider
from faceteval.llm._tokens import CHARS_PER_TOKEN, estimate_prompt_tokens, estimate_tokens

__all__ = [
    "CHARS_PER_TOKEN",
    "LlamaCppOptions",
    "LlamaCppProvider",
    "anthropic_batch_completion",
    "anthropic_batch_request",
    "cache_key",
    "check_gguf",
    "create_provider",
    "endpoint_identity",
    "estimate_prompt_tokens",
    "estimate_tokens",
    "openai_batch_completion",
    "openai_batch_line",
    "reply_schema",
]
