"""The names a server answers to: loopback's always, and those it was bound to or told of."""

from __future__ import annotations

import ipaddress

__all__ = ["LOOPBACK_HOSTS", "allowed_hosts", "is_loopback", "is_wildcard"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names a server always answers to, as a ``Host`` header gives them (any port)."""


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` serves this machine alone (``localhost``, or a loopback address).

    Examples:
        >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0"), is_loopback("lab.example")
        (True, True, False, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: str) -> bool:
    """Whether binding ``host`` listens on every address of the machine (``0.0.0.0``, ``::``)."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def allowed_hosts(host: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The host names a server bound to ``host`` answers to: loopback's, ``host``'s and ``extra``.

    An IPv6 address is written as a ``Host`` header gives it, in brackets.

    Examples:
        >>> allowed_hosts("::1", ("Lab.example",))
        ['127.0.0.1', 'localhost', '[::1]', 'lab.example']
    """
    names = [*LOOPBACK_HOSTS]
    for name in (host, *extra):
        name = name.strip().lower()
        if ":" in name and not name.startswith("["):
            name = f"[{name}]"
        if name and name not in names:
            names.append(name)
    return names
