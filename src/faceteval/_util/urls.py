"""URLs as faceteval shows and records them: the credentials in them hidden.

A base URL may carry credentials: a user name and password (``http://user:pass@host/v1``), or a key
in its query (``?api-key=...``, as Azure's and other gateways take one). Wherever a URL is shown,
recorded or traced, `redact_url` hides them and keeps the rest as written: the userinfo becomes
``***`` (``http://***@host/v1``), and so does the value of every query parameter whose name says it
holds a secret (`secret_name`). `redact_urls` does it to every URL inside a text (a command line's
argument, an error's message).

Examples:
    >>> redact_url("http://user:pass@127.0.0.1:8000/v1?api-version=2024-06-01&api-key=sk-1")
    'http://***@127.0.0.1:8000/v1?api-version=2024-06-01&api-key=***'
    >>> redact_urls("--judge=openai:m@https://t0ken@host/v1 --out j.jsonl")
    '--judge=openai:m@https://***@host/v1 --out j.jsonl'
"""

from __future__ import annotations

import re
import urllib.parse

REDACTED = "***"
"""What stands in for a hidden credential."""

SECRET_NAMES = frozenset({"auth", "authorization", "code", "jwt", "pass", "pwd", "sig"})
"""Query parameter names that hold a secret (compared without case, ``-`` or ``_``): ``code`` is an
Azure Functions key, ``sig`` a shared-access signature."""
SECRET_ENDINGS = ("key", "token", "secret", "password", "passwd", "signature", "credential", "credentials")
"""Name endings that hold a secret: ``api-key``, ``api_key``, ``key``, ``access_token``, ``token``,
``client_secret``, ``password``, ``X-Amz-Signature``, ``X-Amz-Credential``..."""

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
"""A URL inside a text: a scheme, ``://``, then everything up to a space or a quote."""


def secret_name(name: str) -> bool:
    """Whether a query parameter called ``name`` holds a secret (`SECRET_NAMES`, `SECRET_ENDINGS`).

    Examples:
        >>> [secret_name(n) for n in ("api-key", "API_KEY", "access_token", "sig", "api-version", "model")]
        [True, True, True, True, False, False]
    """
    plain = re.sub(r"[-_.\s]", "", urllib.parse.unquote_plus(name)).lower()
    return plain in SECRET_NAMES or plain.endswith(SECRET_ENDINGS)


def redact_url(url: str) -> str:
    """``url`` with its userinfo and the values of its secret query parameters as ``***``; the rest
    is kept as written. Works on any text that looks like a URL, valid or not.

    Examples:
        >>> redact_url("https://api.example.com/v1"), redact_url("http://k@h/v1?token=t&x=1#f")
        ('https://api.example.com/v1', 'http://***@h/v1?token=***&x=1#f')
    """
    scheme, found, rest = url.partition("://")
    if not found:
        return url
    end = next((i for i, char in enumerate(rest) if char in "/?#"), len(rest))
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        authority = f"{REDACTED}@{authority.rpartition('@')[2]}"
    before, mark, query = tail.partition("?")
    if mark:
        query, hash_mark, fragment = query.partition("#")
        query = "&".join(_redact_parameter(part) for part in query.split("&")) + hash_mark + fragment
    return f"{scheme}://{authority}{before}{mark}{query}"


def redact_urls(text: str) -> str:
    """``text`` with every URL in it redacted (`redact_url`)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda match: redact_url(match[0]), text)


def has_secrets(url: str) -> bool:
    """Whether `redact_url` hides anything of ``url``."""
    return redact_url(url) != url


def _redact_parameter(part: str) -> str:
    name, equals, value = part.partition("=")
    return f"{name}={REDACTED}" if equals and value and secret_name(name) else part
