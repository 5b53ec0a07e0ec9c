"""Who may use the review app: the host names it answers to, signed sessions, invite links.

A session cookie names its annotator and is signed with the project's own secret (``session.key``
in the project, readable by its owner alone), so no one can make one up or change the name in it.
On loopback, anyone at the machine signs in with a name, as before. A server reachable beyond it
signs annotators in only through their invite links (`new_invite`): the link holds a random token,
of which the project keeps only a hash; the session it opens names the invite, so revoking the
invite ends the session too.

Each session is also kept in the project (`faceteval.review._sessions`), by the hash of a random
key its cookie holds: signing out removes it, so the cookie sent again opens nothing, on this server
or the next. A session unused for `SESSION_IDLE`, or opened `SESSION_MAX_AGE` ago, has ended.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote, urlsplit

from itsdangerous import BadData, URLSafeSerializer

from faceteval._web import LOOPBACK_HOSTS, allowed_hosts, is_loopback, is_wildcard
from faceteval.review._model import DiskFullError, ReviewError
from faceteval.review._sessions import SessionRecord
from faceteval.review._store import ReviewStore

__all__ = [
    "LOOPBACK_HOSTS",
    "SECRET",
    "SESSION_IDLE",
    "SESSION_MAX_AGE",
    "SESSION_SEEN_EVERY",
    "Clock",
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
    "utc_now",
]

SECRET = "session.key"
"""The file of a project's signing secret (mode 0600), made the first time the project is served."""
_SALT = "faceteval.review.session"
SESSION_IDLE = timedelta(hours=12)
"""A session unused for this long has ended: its annotator signs in again (with their name, or link)."""
SESSION_MAX_AGE = timedelta(days=7)
"""A session has ended this long after it was opened, however much it was used."""
SESSION_SEEN_EVERY = timedelta(minutes=1)
"""How often a session's last use is stored: a request within this of the one stored writes nothing
(so a session ends between `SESSION_IDLE` less this and `SESSION_IDLE` after its last use)."""

Clock = Callable[[], datetime]
"""What tells a server the time (an aware datetime)."""


def utc_now() -> datetime:
    """The time now, in UTC: the clock a server goes by unless told another."""
    return datetime.now(UTC)


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
    """Session cookies of one project: signed with its secret, each naming a session the project keeps.

    With ``invites_only`` (a server reachable beyond loopback), only sessions opened through an
    invite that is not revoked count. ``clock`` tells the time sessions are opened and used at.
    """

    def __init__(
        self, secret: str, store: ReviewStore, *, invites_only: bool, clock: Clock = utc_now
    ) -> None:
        self._serializer = URLSafeSerializer(secret, salt=_SALT)
        self._store = store
        self._clock = clock
        self.invites_only = invites_only

    def open(self, session: Session) -> str:
        """Open ``session`` (kept in the project) and give the signed value of its cookie.

        Raises:
            ReviewError: Its annotator is not one of the project's.
            DiskFullError: The disk is full: no session was opened.
        """
        key, at = secrets.token_urlsafe(32), self._clock()
        stale = (_stamp(at - SESSION_IDLE), _stamp(at - SESSION_MAX_AGE))
        record = SessionRecord(session.annotator, session.invite, _stamp(at), _stamp(at))
        self._store.sessions.open(token_hash(key), record, stale=stale)
        payload = {"annotator": session.annotator, "invite": session.invite, "session": key}
        return str(self._serializer.dumps(payload))

    def session(self, cookie: str | None) -> Session | None:
        """The session ``cookie`` opens, or None: none, forged, altered, signed out, expired, revoked or
        not allowed here. Its use is kept (at most every `SESSION_SEEN_EVERY`)."""
        found = self._kept(cookie)
        if found is None:
            return None
        key_hash, session, record = found
        at = self._clock()
        seen, opened = _time(record.seen_at), _time(record.created_at)
        if at - seen >= SESSION_IDLE or at - opened >= SESSION_MAX_AGE:
            return None
        if session.invite is None:
            if self.invites_only:
                return None
        elif not self._store.invite_active(session.invite, session.annotator):
            return None
        if at - seen >= SESSION_SEEN_EVERY:
            with suppress(DiskFullError):  # on a full disk it stays open, its use not kept
                self._store.sessions.seen(key_hash, _stamp(at))
        return session

    def close(self, cookie: str | None) -> None:
        """End the session ``cookie`` opens, if it opens one (signing out)."""
        found = self._kept(cookie)
        if found is not None:
            self._store.sessions.end(found[0])

    def _kept(self, cookie: str | None) -> tuple[str, Session, SessionRecord] | None:
        """The hash of the key of the session ``cookie`` names, the session, and what the project keeps of
        it; None when the cookie is forged or altered or the project keeps no such session."""
        if not cookie:
            return None
        try:
            data = self._serializer.loads(cookie)
        except BadData:
            return None
        key = data.get("session") if isinstance(data, dict) else None
        if not isinstance(key, str):  # none, or a cookie from before sessions were kept
            return None
        key_hash = token_hash(key)
        record = self._store.sessions.get(key_hash)
        if record is None or (data.get("annotator"), data.get("invite")) != (record.annotator, record.invite):
            return None
        return key_hash, Session(record.annotator, record.invite), record


def _stamp(at: datetime) -> str:
    """``at`` as the project stores times (ISO 8601, UTC, to the millisecond: they compare as text)."""
    return at.astimezone(UTC).isoformat(timespec="milliseconds")


def _time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)
