"""A provider's base URL, read as its user means it, and shown without the credentials in it.

A base URL may carry credentials (`faceteval._util.urls`): a user name and password
(``http://user:pass@host/v1``) are sent as HTTP Basic authentication, and a query
(``?api-version=...&api-key=...``) is sent with every request, as they would be by curl or a
browser. Requests go to the URL without them (`Endpoint.url`); messages, records and spans name it
as `Endpoint.shown`, its secrets as ``***``; the cache identity keeps a digest of the secrets
(`Endpoint.identity`), so that the same URL keeps its cache and another password or key does not
share it, and the digest cannot be turned back into the secret.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import urllib.parse
from dataclasses import dataclass

from faceteval._util.urls import REDACTED, redact_url, redact_urls, secret_name
from faceteval.errors import ConfigError, ProviderError
from faceteval.llm._rate import RateKey

DRY_RUN_KEY = "dry-run"
"""The key a dry run's provider is built with when none is given: it is never sent."""

DIGEST_ROUNDS = 100_000
"""PBKDF2-SHA256 rounds of the identity's digest of a URL's secrets: a password in a URL may be a
weak one, and identities are shown and shared (run records, the cache), so each guess at it costs
what 100,000 hashes cost (about 50 ms, paid once per provider built from such a URL)."""
_SALT = b"faceteval: the secrets of a base URL"
SCRUBBED_LENGTH = 8
"""Secrets this long or longer are hidden wherever they appear in an error's text (a server's error
body may quote its key); shorter ones only inside URLs, as a few characters would hide ordinary words."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A base URL, split into where requests go, what is sent with them, and how it is shown.

    Attributes:
        url: Where requests go: the URL without userinfo, query or trailing slash.
        shown: The URL as given (without a trailing slash), its credentials as ``***``: what
            messages and records name.
        raw_query: The query as given, sent with every request (without the ``?``).
        query: Its parameters, percent-decoded, in their order.
        user: The user name of the userinfo (percent-decoded), None without userinfo.
        password: Its password (percent-decoded; empty when none is given).
        secrets: The values hidden in `shown`, as given and percent-decoded.
    """

    url: str
    shown: str
    raw_query: str = ""
    query: tuple[tuple[str, str], ...] = ()
    user: str | None = None
    password: str = ""
    secrets: tuple[str, ...] = ()

    @classmethod
    def parse(cls, url: str) -> Endpoint:
        """The endpoint of a whole http(s) URL.

        Raises:
            ConfigError: It is not one (``127.0.0.1:8000/v1`` without its scheme, a bad port), or its
                query names a parameter twice; the message shows it with its secrets hidden.

        Examples:
            >>> endpoint = Endpoint.parse("http://u:p%40ss@127.0.0.1:8000/v1/?api-key=k1&api-version=2")
            >>> endpoint.url, endpoint.shown
            ('http://127.0.0.1:8000/v1', 'http://***@127.0.0.1:8000/v1/?api-key=***&api-version=2')
            >>> endpoint.user, endpoint.password, endpoint.query
            ('u', 'p@ss', (('api-key', 'k1'), ('api-version', '2')))
        """
        shown = redact_url(url.rstrip("/"))
        parts = _split(url, shown)
        query = tuple(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
        names = [name for name, _ in query]
        if twice := sorted({name for name in names if names.count(name) > 1}):
            raise ConfigError(
                f"the base URL {shown!r} gives {', '.join(twice)} more than once; give each once"
            )
        userinfo, found, host = parts.netloc.rpartition("@")
        user, _, password = userinfo.partition(":")
        if found or parts.query:
            url = urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", parts.fragment))
        return cls(
            url=url.rstrip("/"),
            shown=shown,
            raw_query=parts.query,
            query=query,
            user=_unquote(user) if found else None,
            password=_unquote(password),
            secrets=_secrets(userinfo if found else "", parts.query),
        )

    @property
    def query_string(self) -> str:
        """The query as sent: ``?`` and the parameters as given, or nothing."""
        return f"?{self.raw_query}" if self.raw_query else ""

    @property
    def authorization(self) -> str | None:
        """The ``Authorization`` header of the URL's user and password (Basic), None without them."""
        if self.user is None:
            return None
        return "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode("ascii")

    def headers(self) -> dict[str, str] | None:
        """The headers sent with every request: the URL's Basic authentication, if it has a user."""
        authorization = self.authorization
        return None if authorization is None else {"Authorization": authorization}

    def identity(self, name: str) -> str:
        """``name@URL`` for cache keys: the shown URL, with a digest of its secrets when it has any.

        Examples:
            >>> Endpoint.parse("http://127.0.0.1:8000/v1").identity("vllm")
            'vllm@http://127.0.0.1:8000/v1'
            >>> Endpoint.parse("http://u:p@h/v1").identity("vllm")
            'vllm@http://***@h/v1 (secrets b91509361aa2eddd)'
        """
        if not self.secrets:
            return f"{name}@{self.shown}"
        return f"{name}@{self.shown} (secrets {_digest(self.secrets)})"

    def rate_key(self, api_key: str | None) -> RateKey:
        """What the provider's rate limits are counted by: the URL, and a digest of ``api_key`` and the
        URL's own secrets (`faceteval.llm._rate`)."""
        return RateKey.of(self.url, (api_key, *self.secrets))

    def scrub(self, text: str) -> str:
        """``text`` with every URL in it redacted, and the URL's longer secrets hidden wherever they are."""
        text = redact_urls(text)
        for secret in self.secrets:
            if len(secret) >= SCRUBBED_LENGTH:
                text = text.replace(secret, REDACTED)
        return text

    def hide(self, error: ProviderError) -> ProviderError:
        """``error`` with its message scrubbed (`scrub`), when the URL has secrets; the same error."""
        if self.secrets:
            error.args = (self.scrub(str(error)),)
        return error


def key_for(url: str, api_key: str | None, env_key: str | None = None) -> str | None:
    """The key to send to ``url``: ``api_key``, else ``env_key`` (from the environment), unless the
    URL has a user name and password, which take the ``Authorization`` header a key would go in:
    then None, and the environment's key is not used.

    Raises:
        ConfigError: A key is given (not a dry run's placeholder) as well as a user and password.
    """
    try:
        userinfo = "@" in urllib.parse.urlsplit(url).netloc
    except ValueError:  # `Endpoint.parse` says what is wrong with it
        userinfo = False
    if not userinfo:
        return api_key or env_key
    if api_key and api_key != DRY_RUN_KEY:
        raise ConfigError(
            f"the base URL {redact_url(url)!r} has a user name and password, which are sent as HTTP Basic "
            "authentication in the Authorization header, where the API key would go: give the key "
            "(--api-key; api_key= in Python) or the user and password in the URL, not both"
        )
    return None


def _split(url: str, shown: str) -> urllib.parse.SplitResult:
    """The parts of a whole http(s) URL (``shown`` is how errors name it).

    Raises:
        ConfigError: It is not one.
    """
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (reading it checks it)
    except ValueError as exc:
        raise ConfigError(f"the base URL {shown!r} is not a valid URL ({redact_urls(str(exc))})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"the base URL {shown!r} is not a whole http(s) URL; give it in full, such as http://127.0.0.1:8000/v1"
        )
    return parts


def _secrets(userinfo: str, query: str) -> tuple[str, ...]:
    """The secrets of a URL's userinfo and query, each as written and percent-decoded, longest first
    (hidden in that order, a secret that holds another is hidden whole)."""
    user, _, password = userinfo.partition(":")
    written = [userinfo, user, password]
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if secret_name(name):
            written.append(value)
    found = {form for secret in written if secret for form in (secret, urllib.parse.unquote_plus(secret))}
    return tuple(sorted(found, key=lambda secret: (-len(secret), secret)))


def _unquote(value: str) -> str:
    return urllib.parse.unquote(value)


@functools.cache
def _digest(secrets: tuple[str, ...]) -> str:
    joined = "\n".join(secrets).encode("utf-8")
    return hashlib.pbkdf2_hmac("sha256", joined, _SALT, DIGEST_ROUNDS).hex()[:16]
