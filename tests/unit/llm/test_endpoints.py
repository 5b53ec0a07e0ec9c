"""Where the model is: base URLs (with the credentials in them), OLLAMA_HOST, and the hints an HTTP
error gives."""

import base64

import pytest

from faceteval.errors import BadRequestError, ConfigError
from faceteval.llm._endpoint import Endpoint, key_for
from faceteval.llm._http import status_error
from faceteval.llm._openai import OpenAIProvider
from faceteval.llm._registry import _ollama


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
    with pytest.raises(ConfigError, match="'99999' is not a port") as caught:
        _ollama({"OLLAMA_HOST": "https://me:hidden-pw@box:99999"}, None, None)
    assert "hidden-pw" not in str(caught.value) and "https://***@box:99999" in str(caught.value)


def test_an_ollama_host_with_a_user_and_password_sends_them() -> None:
    provider = _ollama({"OLLAMA_HOST": "https://me:pw@box"}, None, None)
    assert provider.base_url == "https://box:443/v1"  # type: ignore[attr-defined]
    assert provider.identity.startswith("ollama@https://***@box:443/v1 (secrets ")


def test_a_404_says_what_the_base_url_should_look_like_for_the_provider() -> None:
    openai = status_error(404, {}, "no such endpoint", "m", key_hint="OPENAI_API_KEY")
    anthropic = status_error(404, {}, "no", "m", key_hint="K", url_hint="without /v1: the SDK adds it")
    assert isinstance(openai, BadRequestError) and "(with its /v1, if the server has one)" in str(openai)
    assert "check the base URL (without /v1: the SDK adds it) and the model" in str(anthropic)


def test_a_base_url_is_read_as_its_user_means_it() -> None:
    endpoint = Endpoint.parse(
        "https://judge%20user:p%40ss:w0rd@h.example:8443/v1/?api-version=2&api-key=k%2B1"
    )
    assert endpoint.url == "https://h.example:8443/v1"  # where requests go
    assert endpoint.shown == "https://***@h.example:8443/v1/?api-version=2&api-key=***"
    assert (endpoint.user, endpoint.password) == ("judge user", "p@ss:w0rd")
    assert endpoint.authorization == "Basic " + base64.b64encode(b"judge user:p@ss:w0rd").decode()
    assert endpoint.query == (("api-version", "2"), ("api-key", "k+1"))
    assert endpoint.query_string == "?api-version=2&api-key=k%2B1"  # sent as given
    plain = Endpoint.parse("http://127.0.0.1:8000/v1/")
    assert (plain.url, plain.shown, plain.authorization, plain.query_string) == (
        "http://127.0.0.1:8000/v1",
        "http://127.0.0.1:8000/v1",
        None,
        "",
    )


def test_the_identity_is_the_same_for_the_same_url_and_differs_for_other_secrets() -> None:
    url = "http://u:pw-1@h/v1?key=k-1"
    identity = Endpoint.parse(url).identity("vllm")
    assert identity == Endpoint.parse(url).identity("vllm")
    assert identity.startswith("vllm@http://***@h/v1?key=*** (secrets ") and "pw-1" not in identity
    others = {
        Endpoint.parse(u).identity("vllm") for u in (url.replace("pw-1", "pw-2"), url.replace("k-1", "k-2"))
    }
    assert identity not in others and len(others) == 2
    # A URL without credentials keeps the identity it always had: its cached replies stay usable.
    assert Endpoint.parse("http://127.0.0.1:8000/v1/").identity("openai") == "openai@http://127.0.0.1:8000/v1"


def test_an_error_quoting_the_url_or_a_secret_is_scrubbed() -> None:
    endpoint = Endpoint.parse("http://u:a-long-password@h/v1?api-key=key-0123456789&x=1")
    text = "url='http://h/v1/chat/completions?api-key=key-0123456789&x=1': the server says a-long-password"
    assert endpoint.scrub(text) == "url='http://h/v1/chat/completions?api-key=***&x=1': the server says ***"


@pytest.mark.parametrize("url", ["http://127.0.0.1:8x/v1", "http://127.0.0.1:99999/v1", "http://[::1/v1"])
def test_a_base_url_with_a_bad_port_or_host_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="is not a valid URL"):
        Endpoint.parse(url)
    with pytest.raises(ConfigError) as caught:
        Endpoint.parse(url.replace("http://", "http://u:hidden-pw@"))
    assert "hidden-pw" not in str(caught.value) and "http://***@" in str(caught.value)


def test_a_query_that_names_a_parameter_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="gives api-key more than once"):
        Endpoint.parse("http://h/v1?api-key=a&api-key=b")


def test_a_key_and_a_user_and_password_in_the_url_are_not_both_given() -> None:
    url = "http://u:p@127.0.0.1:9/v1"
    with pytest.raises(
        ConfigError, match=r"where the API key would go: give the key .* or the user and password"
    ):
        OpenAIProvider.from_env({}, base_url=url, api_key="sk-1")
    with pytest.raises(ConfigError, match="not both"):
        _ollama({}, url, "sk-1")
    # The environment's key is meant for other servers: not sent, and no error.
    assert OpenAIProvider.from_env({"OPENAI_API_KEY": "sk-env"}, base_url=url).identity.startswith(
        "openai@http://***@"
    )
    assert key_for(url, None, "sk-env") is None and key_for("http://h/v1", None, "sk-env") == "sk-env"
