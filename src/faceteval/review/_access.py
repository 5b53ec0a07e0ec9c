"""Who may use the review app: the host names it answers to, signed sessions, invite links.

A session cookie names its annotator and is signed with the project's own secret (``session.key``
in the project, readable by its owner alone), so no one can make one up or change the name in it.
On loopback, anyone at the machine signs in with a name, as before. A server reachable beyond it
signs annotators in only through their invite links (`new_invite`): the link holds a random token,
of which the project keeps only a hash; the session it opens names the invite, so revoking the
invite ends the session too.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from itsdangerous import BadData, URLSafeSerializer

from faceteval._web import LOOPBACK_HOSTS, allowed_hosts, is_loopback, is_wildcard
from faceteval.review._model import ReviewError
from faceteval.review._store import ReviewStore

__all__ = [
    "LOOPBACK_HOSTS",
    "SECRET",
    "Session",
    "Sessions",
    "allowed_hosts",
    "base_address",
    "invite_url",
    "is_loopback",
    "is_wildcard",
    "new_invite",
    "project_secret",
    "token_hash",
]

SECRET = "session.key"
"""The file of a project's signing secret (mode 0600), made the first time the project is served."""
_SALT = "faceteval.review.session"


def project_secret(project: Path) -> str:
    """The project's signing secret, made (readable by its owner alone) when it has none.

    Raises:
        ReviewError: The secret cannot be read or written.
    """
    path = project / SECRET
    try:
        if not path.exists():
            _make_secret(path)
        secret = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"{path}: cannot read or make the project's secret: {exc}") from None
    if len(secret) < 32:
        raise ReviewError(f"{path}: not a secret this project made (remove it to make a new one)")
    return secret


def _make_secret(path: Path) -> None:
    """Write a new secret beside ``path`` (mode 0600), then link it in: two servers starting at once
    keep one secret, and no one ever reads a half-written one."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".session-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="ascii") as file:
            file.write(secrets.token_hex(32) + "\n")
            file.flush()
            os.fsync(file.fileno())
        with suppress(FileExistsError):  # made by another process meanwhile: that one is kept
            os.link(temporary, path)
    finally:
        os.unlink(temporary)


def token_hash(token: str) -> str:
    """What a project keeps of an invite token (SHA-256; the token is 256 random bits)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_invite(store: ReviewStore, annotator: str) -> str:
    """Register ``annotator`` if need be and give them a new invite; returns its secret token."""
    name = store.add_annotator(annotator)
    token = secrets.token_urlsafe(32)
    store.add_invite(name, token_hash(token))
    return token


def base_address(url: str) -> str:
    """``url`` as the address of the app (``http(s)://HOST:PORT``, maybe a path), without a final ``/``.

    Raises:
        ReviewError: ``url`` is not an http(s) address.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ReviewError(f"{url!r} is not the address of the app (http://HOST:PORT)")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def invite_url(base_url: str, token: str) -> str:
    """The link that signs in with ``token`` on the app at ``base_url``.

    Examples:
        >>> invite_url("http://lab.example:8080/", "abc")
        'http://lab.example:8080/invite/abc'
    """
    return f"{base_address(base_url)}/invite/{quote(token, safe='')}"


@dataclass(frozen=True, slots=True)
class Session:
    """Who a session cookie signs in: an annotator, through an invite (its id) or by name (None)."""

    annotator: str
    invite: int | None = None


class Sessions:
    """Session cookies of one project: signed with its secret, checked against its annotators.

    With ``invites_only`` (a server reachable beyond loopback), only sessions opened through an
    invite that is not revoked count.
    """

    def __init__(self, secret: str, store: ReviewStore, *, invites_only: bool) -> None:
        self._serializer = URLSafeSerializer(secret, salt=_SALT)
        self._store = store
        self.invites_only = invites_only

    def cookie(self, session: Session) -> str:
        """The signed cookie value of ``session``."""
        return str(self._serializer.dumps({"annotator": session.annotator, "invite": session.invite}))

    def session(self, cookie: str | None) -> Session | None:
        """The session ``cookie`` opens, or None: none, forged, altered, revoked or not allowed here."""
        if not cookie:
            return None
        try:
            data = self._serializer.loads(cookie)
        except BadData:
            return None
        if not isinstance(data, dict) or not isinstance(name := data.get("annotator"), str):
            return None
        invite = data.get("invite")
        if invite is None:
            if self.invites_only:
                return None
        elif not isinstance(invite, int) or not self._store.invite_active(invite, name):
            return None
        if name not in self._store.annotators():
            return None
        return Session(name, invite)
