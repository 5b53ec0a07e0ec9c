"""Where the model is: base URLs, OLLAMA_HOST, and the hints an HTTP error gives."""

import pytest

from faceteval.errors import BadRequestError, ConfigError
from faceteval.llm._http import check_base_url, status_error
from faceteval.llm._registry import _ollama


@pytest.mark.parametrize("url", ["http://127.0.0.1:8x/v1", "http://127.0.0.1:99999/v1", "http://[::1/v1"])
def test_a_base_url_with_a_bad_port_or_host_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="is not a valid URL"):
        check_base_url(url)


@pytest.mark.parametrize(
    ("value", "url"),
    [
        ('"127.0.0.1:9"', "http://127.0.0.1:9/v1"),  # quotes dropped, as Ollama does
        ("[::1]", "http://[::1]:11434/v1"),
        ("::1", "http://[::1]:11434/v1"),
        (":11435", "http://127.0.0.1:11435/v1"),
        ("http://box", "http://box:80/v1"),
    ],
)
def test_ollama_host_is_read_as_ollama_reads_it(value: str, url: str) -> None:
    assert _ollama({"OLLAMA_HOST": value}, None, None).base_url == url  # type: ignore[attr-defined]


def test_an_unreadable_ollama_host_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="'99999' is not a port"):
        _ollama({"OLLAMA_HOST": "127.0.0.1:99999"}, None, None)


def test_a_404_says_what_the_base_url_should_look_like_for_the_provider() -> None:
    openai = status_error(404, {}, "no such endpoint", "m", key_hint="OPENAI_API_KEY")
    anthropic = status_error(404, {}, "no", "m", key_hint="K", url_hint="without /v1: the SDK adds it")
    assert isinstance(openai, BadRequestError) and "(with its /v1, if the server has one)" in str(openai)
    assert "check the base URL (without /v1: the SDK adds it) and the model" in str(anthropic)
