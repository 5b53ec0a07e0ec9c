"""URLs shown and recorded with their credentials hidden: userinfo, and secret query parameters."""

import pytest

from faceteval._util.urls import has_secrets, redact_url, redact_urls, secret_name


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:pass@127.0.0.1:8000/v1", "http://***@127.0.0.1:8000/v1"),
        ("http://only-a-token@h/v1", "http://***@h/v1"),
        ("https://u:p%40ss:more@h:443/v1/", "https://***@h:443/v1/"),  # an encoded @, a : in the password
        ("http://u:pa@ss@h/v1", "http://***@h/v1"),  # an @ left unencoded: the host is after the last
        ("http://h/v1?api-key=k&api-version=2024-06-01", "http://h/v1?api-key=***&api-version=2024-06-01"),
        ("http://h/v1?API-Key=k", "http://h/v1?API-Key=***"),
        (
            "http://h/v1?api_key=k&token=t&access_token=a",
            "http://h/v1?api_key=***&token=***&access_token=***",
        ),
        (
            "http://h/v1?sig=s&se=2030&code=c&X-Amz-Signature=x",
            "http://h/v1?sig=***&se=2030&code=***&X-Amz-Signature=***",
        ),
        (
            "http://h/v1?client_secret=s&password=p&key=k#frag",
            "http://h/v1?client_secret=***&password=***&key=***#frag",
        ),
        ("http://h/v1?key=&model=m", "http://h/v1?key=&model=m"),  # nothing to hide
        ("http://h:99999/v1?token=t", "http://h:99999/v1?token=***"),  # not a valid URL: hidden all the same
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("not a url", "not a url"),
    ],
)
def test_credentials_are_hidden_and_the_rest_kept(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert has_secrets(url) is (url != shown)


@pytest.mark.parametrize("name", ["api-key", "Api_Key", "APIKEY", "key", "x-api-key", "token", "access_token",
                                  "id_token", "sig", "signature", "password", "passwd", "pwd", "secret",
                                  "client_secret", "code", "auth", "jwt", "X-Amz-Credential"])  # fmt: skip
def test_secret_names_are_read_without_case_or_separators(name: str) -> None:
    assert secret_name(name)


@pytest.mark.parametrize("name", ["api-version", "model", "deployment", "se", "sp", "user", "keyword"])
def test_other_names_are_kept(name: str) -> None:
    assert not secret_name(name)


def test_every_url_in_a_text_is_redacted() -> None:
    text = "failed: url='http://h/v1/chat/completions?api-key=k1', then \"https://u:p@g/v1\" <ws://t@x>"
    assert redact_urls(text) == (
        "failed: url='http://h/v1/chat/completions?api-key=***', then \"https://***@g/v1\" <ws://***@x>"
    )
    assert redact_urls("no URL here: user:pass@host") == "no URL here: user:pass@host"
