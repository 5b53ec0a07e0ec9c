"""The viewer's app: served on loopback alone, behind the protections of every faceteval web app."""

from __future__ import annotations

from pathlib import Path

import pytest

from faceteval._web import SECURITY_HEADERS, HostCheck
from faceteval.errors import ConfigError
from faceteval.viewer.internal import create_app


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::", "lab.example"])
def test_the_viewer_is_not_served_beyond_loopback(host: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="serves this machine alone"):
        create_app([tmp_path], index_folder=tmp_path / "index", host=host)


def test_requests_are_host_checked_and_pages_allow_no_script(tmp_path: Path) -> None:
    app = create_app([tmp_path], index_folder=tmp_path / "index", host="::1")

    checks = [m for m in app.user_middleware if m.cls is HostCheck]
    assert len(checks) == 1 and checks[0].kwargs["allowed_hosts"] == ["127.0.0.1", "localhost", "[::1]"]
    assert not checks[0].kwargs["any_address"]
    policy = SECURITY_HEADERS["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy
