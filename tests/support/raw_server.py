"""A TCP server on 127.0.0.1 that answers each connection with the bytes a test gives: HTTP, or not.

For servers that `tests.support.llm_server` cannot be (it always speaks HTTP): another service on the
port, a reply cut in its status line, headers that cannot be read, bytes sent forever.

```python
with RawServer(lambda index, request: [b"\\x00garbage\\r\\n"]) as server:
    provider = OpenAIProvider(api_key="k", base_url=server.base_url)   # http://127.0.0.1:PORT/v1
```
"""

from __future__ import annotations

import itertools
import json
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["GARBAGE", "Answer", "RawServer", "bad_chunk_later", "forever", "http_reply"]

Answer = Callable[[int, bytes], Iterable[bytes]]
"""The bytes sent to a connection, given its index (0 for the first) and the request read from it."""

READ_TIMEOUT = 30.0
"""Seconds a connection may wait for the client: a test never waits on one longer."""


def forever(chunk: bytes) -> Iterator[bytes]:
    """``chunk`` again and again, until the client stops reading."""
    while True:
        yield chunk


def http_reply(body: Any, status: str = "200 OK") -> list[bytes]:
    """A whole HTTP/1.1 reply with ``body`` as JSON, closing the connection after it."""
    data = json.dumps(body).encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    return [f"{head}Connection: close\r\n\r\n".encode(), data]


BAD_CHUNK_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
"""A reply's head announcing a chunked body."""


def bad_chunk_later(pause: float = 0.2) -> Iterator[bytes]:
    """A chunked reply's head, then, ``pause`` seconds later, a chunk whose size is not a number."""
    yield BAD_CHUNK_HEAD
    time.sleep(pause)
    yield b"zz\r\n{}\r\n"


GARBAGE: dict[str, Callable[[], Iterable[bytes]]] = {
    "garbage-then-close": lambda: [b"\x00\x01garbage\x1b[31m\x07\r\n"],
    "garbage-forever": lambda: forever(b"\x00\x1b[2Jgarbage" * 4096),
    "broken-headers": lambda: [b"HTTP/1.1 200 OK\r\nContent-Type application/json\r\n\r\n{}"],
    "bad-status-code": lambda: [b"HTTP/1.1 abc OK\r\n\r\n"],
    # (one write: aiohttp's compiled parser reads the head and the broken chunk together, and refuses
    # both; a broken chunk that comes later is `BAD_CHUNK_LATER`'s)
    "bad-chunk": lambda: [BAD_CHUNK_HEAD + b"zz\r\n{}\r\n"],
    "headers-forever": lambda: itertools.chain(
        [b"HTTP/1.1 200 OK\r\n"], forever(b"X-Filler: more\r\n" * 512)
    ),
    "tls-alert": lambda: [b"\x15\x03\x01\x00\x02\x02\x46"],  # a TLS server's alert, to a plain request
}
"""Replies that are not HTTP, each named: what came back from a server that does not speak it."""


class RawServer:
    """Listens on 127.0.0.1 (a free port); each connection's request is read, then ``answer``'s bytes
    are sent and the connection closed. A context manager that starts and stops it.

    Args:
        answer: The bytes for each connection, from its index and its request.
    """

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[bytes] = []
        self._lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, an OpenAI-compatible base URL."""
        return f"{self.root_url}/v1"

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _admit(self, request: bytes) -> int:
        with self._lock:
            self.requests.append(request)
            return len(self.requests) - 1


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: RawServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Connection)


class _Connection(socketserver.BaseRequestHandler):
    server: _Server
    request: socket.socket

    def handle(self) -> None:
        self.request.settimeout(READ_TIMEOUT)
        try:
            request = _read_request(self.request)
            index = self.server.owner._admit(request)
            for chunk in self.server.owner.answer(index, request):
                self.request.sendall(chunk)
        except OSError:  # the client closed the connection (it read enough), or timed out
            pass


def _read_request(connection: socket.socket) -> bytes:
    """The request's head and as much of its body as its Content-Length says."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body
