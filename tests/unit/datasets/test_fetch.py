"""`fetch` against a real HTTP server on 127.0.0.1, reached through ``mirror=``."""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest

from faceteval.datasets import Benchmark, RemoteFile, _fetch
from faceteval.datasets._fetch import FetchReport, fetch, mirrored
from faceteval.errors import ConfigError, FacetevalError

UPSTREAM = "https://raw.githubusercontent.com/owner/repo/0123abc"


class Server:
    """Serves ``root`` (as ``/<host>/<path>``); a script per path can answer otherwise first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.script: dict[str, list[tuple[str, int, bytes]]] = {}
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with server.lock:
                    server.hits[self.path] = server.hits.get(self.path, 0) + 1
                    queue = server.script.get(self.path)
                    action = queue.pop(0) if queue else None
                if action is None:
                    target = server.root / self.path.lstrip("/")
                    if target.is_file():
                        action = ("send", 200, target.read_bytes())
                    else:
                        action = ("send", 404, b"not found")
                kind, status, body = action
                self.send_response(status)
                self.send_header("Content-Length", str(len(body) * (10 if kind == "cut" else 1)))
                self.end_headers()
                self.wfile.write(body)
                if kind == "cut":  # promise ten times the body, send it, hang up
                    self.wfile.flush()
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def publish(self, path: str, body: bytes) -> RemoteFile:
        """Put ``body`` where the mirror serves ``UPSTREAM/path``; the RemoteFile for it."""
        url = f"{UPSTREAM}/{path}"
        target = self.root / mirrored(url, "http://x/").removeprefix("http://x/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        return RemoteFile(url=url, path=f"bench/{path}", sha256=hashlib.sha256(body).hexdigest())

    def then(self, file: RemoteFile, *actions: tuple[str, int, bytes]) -> None:
        """Answer the next requests for ``file`` with ``actions`` before serving it normally."""
        self.script["/" + mirrored(file.url, "http://x/").removeprefix("http://x/")] = list(actions)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "served")
    thread = threading.Thread(target=srv.httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()
    thread.join(5)


@pytest.fixture
def client() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=5, trust_env=False) as http:
        yield http


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fetch, "RETRY_DELAYS", (0.01, 0.01))


def bench(*files: RemoteFile, notes: str = "") -> Benchmark:
    return Benchmark(
        name="toy",
        title="A toy",
        kind="pairwise",
        labels="1/2",
        license="MIT",
        path="bench",
        load=lambda _: [],
        size=0,
        url=UPSTREAM,
        fetch=files,
        notes=notes,
    )


def test_files_land_with_their_bytes_and_a_second_fetch_skips(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    one = server.publish("data/one.json", b'{"a": 1}\n')
    two = server.publish("deep/er/two.jsonl", bytes(range(256)) * 1000)
    data = tmp_path / "data"
    seen: list[tuple[str, int, int | None]] = []
    report = fetch(
        bench(one, two),
        data,
        mirror=server.url,
        client=client,
        progress=lambda f, n, t: seen.append((f.path, n, t)),
    )
    assert isinstance(report, FetchReport)
    assert (data / "bench/data/one.json").read_bytes() == b'{"a": 1}\n'
    assert (data / "bench/deep/er/two.jsonl").read_bytes() == bytes(range(256)) * 1000
    assert [f.status for f in report.files] == ["downloaded", "downloaded"]
    assert [f.size for f in report.downloaded] == [9, 256_000]
    assert seen[-1] == ("bench/deep/er/two.jsonl", 256_000, 256_000)
    assert not list(data.rglob("*.part"))

    again = fetch(bench(one, two), data, mirror=server.url, client=client)
    assert [f.status for f in again.files] == ["present", "present"]
    assert again.present == again.files and not again.downloaded
    assert sum(server.hits.values()) == 2


def test_a_file_with_a_wrong_checksum_is_downloaded_again(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    one = server.publish("one.json", b"right")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench/one.json").write_bytes(b"stale")
    report = fetch(bench(one), tmp_path, mirror=server.url, client=client)
    assert report.files[0].status == "downloaded"
    assert (tmp_path / "bench/one.json").read_bytes() == b"right"


def test_checksum_mismatch_is_an_error_and_leaves_the_old_file(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    one = server.publish("one.json", b"expected body")
    server.then(one, ("send", 200, b"tampered body"))
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench/one.json").write_bytes(b"old copy")
    with pytest.raises(FacetevalError) as caught:
        fetch(bench(one), tmp_path, mirror=server.url, client=client)
    message = str(caught.value)
    assert "checksum mismatch" in message and one.url in message and server.url in message
    assert one.sha256 in message and hashlib.sha256(b"tampered body").hexdigest() in message
    assert (tmp_path / "bench/one.json").read_bytes() == b"old copy"
    assert sorted(p.name for p in (tmp_path / "bench").iterdir()) == ["one.json"]


def test_checksum_mismatch_leaves_no_file(tmp_path: Path, server: Server, client: httpx2.Client) -> None:
    one = server.publish("one.json", b"expected body")
    server.then(one, ("send", 200, b"tampered body"))
    with pytest.raises(FacetevalError, match="checksum mismatch"):
        fetch(bench(one), tmp_path / "data", mirror=server.url, client=client)
    assert not [p for p in (tmp_path / "data").rglob("*") if p.is_file()]


def test_404_names_the_url_and_status_and_is_not_retried(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    missing = RemoteFile(url=f"{UPSTREAM}/nope.json", path="bench/nope.json", sha256="0" * 64)
    with pytest.raises(FacetevalError) as caught:
        fetch(bench(missing), tmp_path, mirror=server.url, client=client)
    message = str(caught.value)
    assert "HTTP 404" in message
    assert f"{server.url}raw.githubusercontent.com/owner/repo/0123abc/nope.json" in message
    assert missing.url in message
    assert sum(server.hits.values()) == 1
    assert not (tmp_path / "bench/nope.json").exists()


def test_500_then_200_is_retried(tmp_path: Path, server: Server, client: httpx2.Client) -> None:
    one = server.publish("one.json", b"finally")
    server.then(one, ("send", 500, b"oops"), ("send", 503, b"busy"))
    report = fetch(bench(one), tmp_path, mirror=server.url, client=client)
    assert report.files[0].status == "downloaded"
    assert (tmp_path / "bench/one.json").read_bytes() == b"finally"
    assert sum(server.hits.values()) == 3


def test_persistent_5xx_gives_up_naming_url_and_status(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    one = server.publish("one.json", b"never")
    server.then(one, *[("send", 502, b"bad gateway")] * 3)
    with pytest.raises(FacetevalError, match=r"HTTP 502 Bad Gateway \(after 3 attempts\)") as caught:
        fetch(bench(one), tmp_path, mirror=server.url, client=client)
    assert one.url in str(caught.value)


def test_an_interrupted_download_leaves_no_partial_file(
    tmp_path: Path, server: Server, client: httpx2.Client
) -> None:
    one = server.publish("one.json", b"x" * 50_000)
    server.then(one, *[("cut", 200, b"x" * 5_000)] * 3)
    with pytest.raises(FacetevalError, match="no complete reply") as caught:
        fetch(bench(one), tmp_path / "data", mirror=server.url, client=client)
    assert one.url in str(caught.value)
    assert (tmp_path / "data/bench").is_dir()
    assert not [p for p in (tmp_path / "data").rglob("*") if p.is_file()]


def test_an_interrupted_download_is_retried(tmp_path: Path, server: Server, client: httpx2.Client) -> None:
    one = server.publish("one.json", b"x" * 50_000)
    server.then(one, ("cut", 200, b"x" * 5_000))
    fetch(bench(one), tmp_path, mirror=server.url, client=client)
    assert (tmp_path / "bench/one.json").read_bytes() == b"x" * 50_000


def test_connection_refused_is_retried_then_named(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    one = RemoteFile(url=f"{UPSTREAM}/one.json", path="bench/one.json", sha256="0" * 64)
    with pytest.raises(FacetevalError, match="ConnectError") as caught:
        fetch(bench(one), tmp_path, mirror=f"http://127.0.0.1:{port}/")  # the default client
    assert one.url in str(caught.value) and "after 3 attempts" in str(caught.value)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_a_benchmark_without_downloads_says_so(tmp_path: Path) -> None:
    with pytest.raises(
        FacetevalError, match="no public download is registered for toy; see its SOURCE notes"
    ):
        fetch(bench(notes="Only on request."), tmp_path)


def test_paths_outside_the_data_dir_and_bad_mirrors_are_refused(tmp_path: Path) -> None:
    escape = RemoteFile(url=f"{UPSTREAM}/x", path="../x", sha256="0" * 64)
    with pytest.raises(FacetevalError, match="not inside the data directory"):
        fetch(bench(escape), tmp_path)
    good = RemoteFile(url=f"{UPSTREAM}/x", path="bench/x", sha256="0" * 64)
    with pytest.raises(ConfigError, match="not an http"):
        fetch(bench(good), tmp_path, mirror="/srv/mirror")


def test_mirrored_replaces_scheme_and_host() -> None:
    assert mirrored("https://raw.githubusercontent.com/a/b/c.json", None).startswith("https://raw.")
    assert mirrored("https://h.org/a/b.json?raw=1", "http://127.0.0.1:8123") == (
        "http://127.0.0.1:8123/h.org/a/b.json?raw=1"
    )
    assert mirrored("https://h.org/a", "https://m.example/base/") == "https://m.example/base/h.org/a"
