"""Provider calls in worker processes: throughput beyond what one core can drive.

An SDK call costs CPU in the calling process (building the request, the HTTP stack, reading the
reply): with the openai SDK about 1.6 ms on a common 2-core machine. At hundreds of calls a second
(a local vLLM server, high ``--concurrency``) one Python process becomes the bottleneck. `WorkerPool`
is a provider that sends each call to one of ``workers`` processes, each running the real provider
on its own event loop; the caller keeps everything else (cache, retries, timeouts, concurrency,
cost), so a pool changes where the HTTP work runs and nothing more.

- Each worker is a fresh interpreter (``python -m faceteval.llm._worker_main``, in a session of its own),
  started when the pool is made; it never imports the caller's main module. It builds its provider
  from a picklable factory. `start` waits until every worker is ready, or raises the error a worker
  met while building its provider (a missing SDK, a bad setting).
- Each call goes to the worker with the fewest calls in flight, over a Unix socket in a directory
  only this user can open; the worker answers with the `Completion` or the `ProviderError` the
  provider raised. A cancelled call (the caller's timeout, Ctrl-C) is cancelled in the worker too.
- Ctrl-C at a terminal reaches the caller only, which decides what it means. Workers exit when the
  pool is closed or the calling process ends, however it ends (their stdin closes).
- A worker that dies fails its calls in flight with `ProviderConnectionError` (retryable) and is
  started again on the next call.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any, BinaryIO, NoReturn

from faceteval._heap import settle
from faceteval.errors import ConfigError, FacetevalError, ProviderConnectionError
from faceteval.llm._provider import Provider
from faceteval.llm._types import Completion, CompletionRequest, GenerateConfig, Message

__all__ = ["WorkerPool"]

logger = logging.getLogger(__name__)

START_TIMEOUT = 60.0
"""Seconds a worker may take to import its SDK and build its provider."""

_HEADER = 4
_CANCEL = None


class WorkerPool:
    """A provider that makes its calls in ``workers`` processes, each with its own provider.

    Args:
        factory: Builds the provider in each worker. It is pickled, so it must be a module-level
            function or a `functools.partial` of one, with picklable arguments.
        workers: How many processes (at least 1).

    Examples:
        ``WorkerPool(functools.partial(create_provider, ModelSpec.parse("openai:m"), base_url=url), 2)``
    """

    def __init__(self, factory: Callable[[], Provider], workers: int) -> None:
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, got {workers}")
        if sys.platform == "win32":
            raise ConfigError("worker processes need Unix sockets, which this platform lacks")
        local = factory()  # name and identity only; it never connects
        self._name, self._identity = local.name, local.identity
        # Pickled once, here: a factory that cannot be pickled fails before any process starts.
        # The search path goes first, so that the factory's module imports in a worker as it does here.
        try:
            self._payload = _frame(sys.path) + _frame(factory)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise ConfigError(
                f"a worker process cannot be given this provider factory ({exc}); "
                "use a module-level function, or a functools.partial of one"
            ) from exc
        self._directory = Path(tempfile.mkdtemp(prefix="faceteval-workers-"))
        self._workers = [_Worker(self._directory / f"{i}.sock") for i in range(workers)]
        self._connecting: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._closed = False
        try:
            for worker in self._workers:
                worker.spawn(self._payload)
        except BaseException:
            self.close()
            raise

    @property
    def name(self) -> str:
        """The registry name of the provider the workers run."""
        return self._name

    @property
    def identity(self) -> str:
        """The identity of the provider the workers run: a pool shares its cache entries."""
        return self._identity

    @property
    def workers(self) -> int:
        """How many worker processes the pool has."""
        return len(self._workers)

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until every worker is ready to take calls.

        Raises:
            FacetevalError: The error a worker met while building its provider.
            ProviderConnectionError: A worker exited or did not get ready within ``timeout``.
        """
        for worker in self._workers:
            worker.wait_ready(timeout)

    async def complete(self, request: CompletionRequest) -> Completion:
        """Make one attempt at a completion in the least busy worker."""
        if self._closed:
            raise ProviderConnectionError("the worker pool is closed")
        channel = await self._channel()
        return await channel.call(request)

    async def aclose(self) -> None:
        """Close this event loop's connections to the workers; the workers keep running."""
        loop = asyncio.get_running_loop()
        for worker in self._workers:
            await worker.disconnect(loop)

    def close(self) -> None:
        """Stop the workers. The pool cannot be used afterwards."""
        self._closed = True
        for worker in self._workers:
            worker.stop()
        shutil.rmtree(self._directory, ignore_errors=True)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self.close()

    async def _channel(self) -> _Channel:
        """The connection of the worker with the fewest calls in flight from this loop."""
        loop = asyncio.get_running_loop()
        channels = [channel for worker in self._workers if (channel := worker.channel(loop)) is not None]
        if len(channels) < len(self._workers):
            channels = await self._connect(loop)
        return min(channels, key=_load)

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> list[_Channel]:
        """Connect to every worker (starting again any that exited) before the first call picks one."""
        lock = self._connecting.get(loop)
        if lock is None:
            lock = self._connecting[loop] = asyncio.Lock()
        async with lock:
            channels = []
            for worker in self._workers:
                channel = worker.channel(loop)
                if channel is None:
                    if loop in worker.channels:  # the connection dropped: did the process die?
                        await asyncio.to_thread(worker.settle)
                    if worker.dead and not self._closed:
                        logger.warning("provider worker %s exited; starting it again", worker.path.stem)
                        worker.spawn(self._payload)
                    channel = await worker.connect(loop)
                channels.append(channel)
            return channels


def _load(channel: _Channel) -> int:
    return len(channel.pending)


@dataclass(eq=False)
class _Worker:
    """One worker process and this process's connections to it, one per event loop.

    The process is ``python -m faceteval.llm._worker_main SOCKET``: a fresh interpreter that never imports
    the caller's main module. It reads the pickled factory from its stdin, says on stdout when it is
    ready (or what failed), and exits when its stdin closes, which happens when the pool closes or
    this process ends.
    """

    path: Path
    process: subprocess.Popen[bytes] | None = None
    channels: dict[asyncio.AbstractEventLoop, _Channel] = field(default_factory=dict)
    started: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def spawn(self, payload: bytes) -> None:
        self.stop()  # what is left of an earlier process
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        command = [sys.executable, "-m", "faceteval.llm._worker_main", str(self.path)]
        # A session of its own: Ctrl-C at a terminal reaches this process, which decides what it means.
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
        )
        assert self.process.stdin is not None
        self.process.stdin.write(payload)
        self.process.stdin.flush()
        self.started = False

    @property
    def dead(self) -> bool:
        return self.process is not None and self.process.poll() is not None

    def settle(self, timeout: float = 2.0) -> None:
        """Wait briefly for a process whose connection dropped to exit: it closes its sockets first."""
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout)

    def wait_ready(self, timeout: float) -> None:
        with self.lock:
            if not self.started:
                self._read_ready(timeout)

    def _read_ready(self, timeout: float) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        readable, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not readable:
            raise ProviderConnectionError(
                f"provider worker {self.path.stem} was not ready within {timeout:g} s"
            )
        try:
            error = _read_frame(self.process.stdout)
        except (EOFError, pickle.UnpicklingError):
            raise ProviderConnectionError(
                f"provider worker {self.path.stem} exited while starting (exit code {self.process.wait()})"
            ) from None
        if error is not None:
            raise _rebuild(error)
        self.started = True

    def channel(self, loop: asyncio.AbstractEventLoop) -> _Channel | None:
        channel = self.channels.get(loop)
        return channel if channel is not None and not channel.closed else None

    async def connect(self, loop: asyncio.AbstractEventLoop) -> _Channel:
        for old in [old for old in self.channels if old.is_closed()]:
            del self.channels[old]
        if not self.started:
            await asyncio.to_thread(self.wait_ready, START_TIMEOUT)
        try:
            _, channel = await loop.create_unix_connection(lambda: _Channel(self.path.stem), str(self.path))
        except OSError as exc:
            raise ProviderConnectionError(
                f"could not connect to provider worker {self.path.stem}: {exc}"
            ) from exc
        self.channels[loop] = channel
        return channel

    async def disconnect(self, loop: asyncio.AbstractEventLoop) -> None:
        channel = self.channels.pop(loop, None)
        if channel is not None:
            await channel.aclose()

    def stop(self) -> None:
        for channel in self.channels.values():
            with contextlib.suppress(RuntimeError):  # its event loop has ended: nothing to close there
                channel.close()
        self.channels.clear()
        process, self.process = self.process, None
        if process is None:
            return
        assert process.stdin is not None
        assert process.stdout is not None
        with contextlib.suppress(OSError):
            process.stdin.close()  # the worker's signal to exit
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


class _Framed(asyncio.Protocol, abc.ABC):
    """Length-prefixed pickled messages over a stream, in both directions.

    Every frame that arrived is handled in one pass, and everything sent during one turn of the
    event loop goes out in one write: at hundreds of calls a second that is most of the cost saved.
    """

    def __init__(self) -> None:
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._outgoing: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while len(buffer) - start >= _HEADER:
            end = start + _HEADER + int.from_bytes(buffer[start : start + _HEADER], "big")
            if len(buffer) < end:
                break
            self.received(pickle.loads(buffer[start + _HEADER : end]))
            start = end
        del buffer[:start]

    def send(self, message: object) -> None:
        if not self._outgoing:
            asyncio.get_running_loop().call_soon(self._flush)
        self._outgoing.append(_frame(message))

    def _flush(self) -> None:
        data, self._outgoing = b"".join(self._outgoing), []
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    @abc.abstractmethod
    def received(self, message: Any) -> None:
        """Handle one message from the other end."""


class _Channel(_Framed):
    """Calls to one worker over one connection, answered out of order and matched by number."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name
        self.pending: dict[int, asyncio.Future[Completion]] = {}
        self.closed = False
        self._next = 0
        self._lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def call(self, request: CompletionRequest) -> Completion:
        if self.closed:
            raise ProviderConnectionError(f"provider worker {self._name} is gone")
        self._next += 1
        number = self._next
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self.pending[number] = future
        self.send((number, _encode_request(request)))
        try:
            return await future
        except asyncio.CancelledError:
            if not future.done() and not self.closed:
                self.send((number, _CANCEL))
            raise
        finally:
            self.pending.pop(number, None)

    def received(self, message: Any) -> None:
        number, ok, payload = message
        future = self.pending.get(number)
        if future is None or future.done():
            return
        if ok:
            future.set_result(_decode_completion(payload))
        else:
            future.set_exception(_rebuild(payload))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        for future in self.pending.values():
            if not future.done():  # an error each: the caller records its attempts on it
                future.set_exception(
                    ProviderConnectionError(f"the connection to provider worker {self._name} closed")
                )
        if not self._lost.done():
            self._lost.set_result(None)

    async def aclose(self) -> None:
        self.closed = True
        self.close()
        await self._lost


_CONFIG_FIELDS = tuple(f.name for f in fields(GenerateConfig))


def _encode_request(request: CompletionRequest) -> tuple[Any, ...]:
    """A request as plain tuples, which pickle several times faster than the dataclasses."""
    config = request.config
    return (
        request.model,
        tuple((m.role, m.content) for m in request.messages),
        tuple(getattr(config, name) for name in _CONFIG_FIELDS),
    )


def _decode_request(encoded: tuple[Any, ...]) -> CompletionRequest:
    model, messages, config = encoded
    return CompletionRequest(
        model, tuple(Message(role, content) for role, content in messages), GenerateConfig(*config)
    )


def _encode_completion(completion: Completion) -> tuple[Any, ...]:
    c = completion
    return (c.text, c.input_tokens, c.output_tokens, c.finish_reason, c.model, c.logprobs)


def _decode_completion(encoded: tuple[Any, ...]) -> Completion:
    return Completion(*encoded)


# What crosses the process boundary for an error: its class, message and attributes. Exceptions are
# not pickled whole, as classes whose __init__ takes keyword-only arguments cannot be unpickled.
_Portable = tuple[type[BaseException], tuple[Any, ...], dict[str, Any]]


def _portable(exc: BaseException) -> _Portable:
    if isinstance(exc, FacetevalError):
        return type(exc), exc.args, dict(vars(exc))
    text = "".join(traceback.format_exception(exc)).rstrip()
    return RuntimeError, (f"the provider failed in a worker process:\n{text}",), {}


def _rebuild(portable: _Portable) -> BaseException:
    kind, args, attributes = portable
    exc = kind.__new__(kind)
    exc.args = args
    vars(exc).update(attributes)
    return exc


def _frame(value: object) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_HEADER, "big") + data


def _read_frame(stream: IO[bytes]) -> Any:
    size = int.from_bytes(stream.read(_HEADER), "big")
    return pickle.loads(stream.read(size))


# The worker process.


def serve(path: str) -> None:
    """The worker's main: read the factory, build the provider, serve until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        sys.path[:] = _read_frame(stdin)
        provider = _read_frame(stdin)()
    except BaseException as exc:
        _refuse(stdout, exc)
    settle()  # the collector's passes would stall every call in flight
    asyncio.run(_Server(provider, path).run(stdout))


def _refuse(stdout: BinaryIO, exc: BaseException) -> NoReturn:
    """Tell the pool why this worker cannot start, and exit."""
    stdout.write(_frame(_portable(exc)))
    stdout.flush()
    raise SystemExit(1) from None


class _Server:
    def __init__(self, provider: Provider, path: str) -> None:
        self._provider, self._path = provider, path

    async def run(self, stdout: BinaryIO) -> None:
        loop = asyncio.get_running_loop()
        try:
            server = await loop.create_unix_server(lambda: _Calls(self._provider), self._path)
            os.chmod(self._path, 0o600)
        except OSError as exc:
            _refuse(stdout, exc)
        stdout.write(_frame(None))
        stdout.flush()
        gone = asyncio.Event()
        loop.add_reader(sys.stdin.fileno(), gone.set)
        async with server:
            await gone.wait()
        await self._provider.aclose()


class _Calls(_Framed):
    """The worker's end of one connection: each request is a task, and a cancel cancels it."""

    def __init__(self, provider: Provider) -> None:
        super().__init__()
        self._provider = provider
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def received(self, message: Any) -> None:
        number, request = message
        if request is _CANCEL:
            if (task := self._tasks.pop(number, None)) is not None:
                task.cancel()
            return
        task = asyncio.get_running_loop().create_task(self._call(number, _decode_request(request)))
        self._tasks[number] = task
        task.add_done_callback(lambda _: self._tasks.pop(number, None))

    async def _call(self, number: int, request: CompletionRequest) -> None:
        try:
            completion = await self._provider.complete(request)
        except Exception as exc:
            self.send((number, False, _portable(exc)))
        else:
            self.send((number, True, _encode_completion(completion)))

    def connection_lost(self, exc: Exception | None) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
