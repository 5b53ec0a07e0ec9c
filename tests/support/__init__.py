"""Test helpers: a real local LLM HTTP server (`tests.support.llm_server`)."""
