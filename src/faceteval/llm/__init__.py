"""LLM access: the provider seam, the wrapper that owns retries, timeouts, concurrency, cache and cost.

Providers are built from model specs (``openai:gpt-4o-mini``, ``ollama:qwen2.5:7b``,
``anthropic:claude-3-5-haiku-latest``, ``llamacpp:models/qwen.gguf``: a GGUF file run in process) by
`LLM.from_spec`; their SDKs are imported only when used.
`ScriptedProvider` is a test double: it is never built from a spec.
"""

from faceteval.llm._cache import ResponseCache
from faceteval.llm._collect import Collector
from faceteval.llm._http import DEFAULT_MAX_REPLY_BYTES
from faceteval.llm._llm import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, LLM
from faceteval.llm._panel import Judge, Panel
from faceteval.llm._parser import JsonReply, Parser
from faceteval.llm._pricing import Price, PriceTable, Quote
from faceteval.llm._provider import Provider
from faceteval.llm._registry import ModelSpec
from faceteval.llm._retry import DEFAULT_MAX_RETRY_AFTER, DEFAULT_RETRY, RetryPolicy
from faceteval.llm._scripted import ScriptedProvider
from faceteval.llm._spend import Exchange, Spend
from faceteval.llm._types import (
    DEFAULT_GENERATE_CONFIG,
    SCHEMA_DIALECTS,
    Completion,
    CompletionRequest,
    GenerateConfig,
    Message,
    ResponseSchema,
    Role,
    SchemaDialect,
    TokenLogprob,
    assistant,
    system,
    user,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_GENERATE_CONFIG",
    "DEFAULT_MAX_REPLY_BYTES",
    "DEFAULT_MAX_RETRY_AFTER",
    "DEFAULT_RETRY",
    "DEFAULT_TIMEOUT",
    "LLM",
    "SCHEMA_DIALECTS",
    "Collector",
    "Completion",
    "CompletionRequest",
    "Exchange",
    "GenerateConfig",
    "JsonReply",
    "Judge",
    "Message",
    "ModelSpec",
    "Panel",
    "Parser",
    "Price",
    "PriceTable",
    "Provider",
    "Quote",
    "ResponseCache",
    "ResponseSchema",
    "RetryPolicy",
    "Role",
    "SchemaDialect",
    "ScriptedProvider",
    "Spend",
    "TokenLogprob",
    "assistant",
    "system",
    "user",
]
