"""A GGUF model judged in process through llama.cpp (``llama-cpp-python``): no server to start.

``llamacpp:PATH.gguf`` loads the file on the first call, with the chat template the file carries,
and answers one call at a time (llama.cpp's context is not shared between threads): the LLM's
concurrency is capped at one for it. Options follow the path as a query:
``llamacpp:models/qwen.gguf?n_ctx=8192&threads=1&seed=0`` (``n_ctx``: the context window, 4096 by
default; ``threads``: CPU threads, llama.cpp's choice by default; ``seed``: the sampler's seed when a
request gives none; ``chat_format``: one of llama-cpp-python's named formats, in place of the file's
template).

The file is checked before use (a GGUF header, a size that can hold one) and identified by its
SHA-256 digest: a cached reply belongs to the weights, wherever the file is and whatever it is called.
``--score-mode logprobs`` reloads the model with every token's logits kept (``logits_all``), which
llama-cpp-python needs to return log-probabilities; ``--structured`` becomes a grammar compiled from
the stage's JSON schema (``response_format`` of type ``json_object`` with a ``schema``).

A call that times out, or whose run is stopped (Ctrl-C, SIGTERM), stops at once, while it reads
its prompt as while it generates: it is not left running behind the next call or the run's exit.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import hashlib
import logging
import os
import struct
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from faceteval.errors import BadRequestError, ConfigError, MissingDependencyError, ProviderError
from faceteval.llm._types import Completion, CompletionRequest

__all__ = ["LlamaCppOptions", "LlamaCppProvider", "check_gguf", "gguf_digest"]

logger = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
GGUF_VERSIONS = frozenset({2, 3})
"""The GGUF format versions llama.cpp reads (version 1 was dropped in 2023)."""
HEADER = struct.Struct("<4sIQQ")
"""Magic, version, tensor count and metadata count: the first 24 bytes of a GGUF file."""
DEFAULT_N_CTX = 4096
_LOADING = threading.Lock()
"""Held while any model loads or is freed: llama-cpp-python then points the process's stdout and
stderr at /dev/null and back, and two loads at once (a panel of two models) would leave them there."""
_LOG_CALLBACK: Any = None
"""llama.cpp's log, sent to this module's logger at debug level instead of raw to stderr (its text
comes from the model file: it is not printed as is)."""


@dataclass(frozen=True, slots=True)
class LlamaCppOptions:
    """How a GGUF file is loaded: its context window, threads, default seed and chat format."""

    n_ctx: int = DEFAULT_N_CTX
    threads: int | None = None
    seed: int | None = None
    chat_format: str | None = None

    @classmethod
    def parse(cls, query: str, spec: str) -> LlamaCppOptions:
        """The options of a spec's query (``n_ctx=8192&threads=1``).

        Raises:
            ConfigError: An unknown option, or a value that is not a whole number where one is needed.

        Examples:
            >>> LlamaCppOptions.parse("n_ctx=8192&threads=1", "llamacpp:m.gguf?n_ctx=8192&threads=1")
            LlamaCppOptions(n_ctx=8192, threads=1, seed=None, chat_format=None)
        """
        given: dict[str, Any] = {}
        for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
            if key == "chat_format":
                if not value:
                    raise ConfigError(f"{spec!r}: chat_format needs a name (chatml, llama-2, ...)")
                given[key] = value
            elif key in ("n_ctx", "threads", "seed"):
                if not (value.isascii() and value.isdigit()) or (key != "seed" and int(value) < 1):
                    raise ConfigError(f"{spec!r}: {key}={value!r} is not a whole number of at least 1")
                given[key] = int(value)
            else:
                raise ConfigError(
                    f"{spec!r}: unknown option {key!r}; a llamacpp model takes n_ctx, threads, seed and "
                    "chat_format"
                )
        return cls(**given)


def split_spec(model: str) -> tuple[str, str]:
    """A llamacpp model's path and options query (``models/q.gguf?n_ctx=8192``): split at the last
    ``?`` when what follows it reads as options, else the whole is the path.

    Examples:
        >>> split_spec("models/q.gguf?n_ctx=8192"), split_spec("odd?name.gguf")
        (('models/q.gguf', 'n_ctx=8192'), ('odd?name.gguf', ''))
    """
    path, sep, query = model.rpartition("?")
    if sep and path and "=" in query and "/" not in query:
        return path, query
    return model, ""


def check_gguf(path: Path) -> None:
    """Refuse a file that is not a GGUF model llama.cpp can read, before it is loaded.

    Raises:
        ConfigError: The file is missing, unreadable, too short, or its header is not GGUF's.
    """
    try:
        with path.open("rb") as handle:
            header = handle.read(HEADER.size)
    except FileNotFoundError:
        raise ConfigError(f"llamacpp: no model file {str(path)!r} (give the path of a .gguf file)") from None
    except IsADirectoryError:
        raise ConfigError(f"llamacpp: {str(path)!r} is a folder, not a .gguf file") from None
    except OSError as exc:
        raise ConfigError(f"llamacpp: cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if len(header) < HEADER.size:
        raise ConfigError(f"llamacpp: {str(path)!r} is {len(header)} bytes: too short to be a GGUF model")
    magic, version, tensors, _ = HEADER.unpack(header)
    if magic != GGUF_MAGIC:
        raise ConfigError(
            f"llamacpp: {str(path)!r} is not a GGUF model (it starts with {magic!r}, not b'GGUF'); "
            "llama.cpp reads .gguf files only"
        )
    if version not in GGUF_VERSIONS:
        raise ConfigError(
            f"llamacpp: {str(path)!r} is GGUF version {version}; llama.cpp reads versions 2 and 3"
        )
    if tensors == 0:
        raise ConfigError(f"llamacpp: {str(path)!r} holds no tensors: it is not a model")


def gguf_digest(path: Path) -> str:
    """The SHA-256 digest of ``path``, as hex: remembered while the file's size and time are the same."""
    stat = path.stat()
    return _digest(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=16)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class LlamaCppProvider:
    """A GGUF model run in process by llama.cpp.

    Args:
        path: The .gguf file.
        options: How it is loaded.
        loader: What makes the model (``llama_cpp.Llama``); another callable with its arguments in tests.

    Raises:
        ConfigError: The file is not a GGUF model (`check_gguf`).
        MissingDependencyError: ``llama-cpp-python`` is not installed (``pip install 'faceteval[llamacpp]'``).
    """

    name = "llamacpp"
    max_concurrency = 1
    """Calls run one at a time: one llama.cpp context answers them."""

    def __init__(
        self,
        path: str | Path,
        options: LlamaCppOptions | None = None,
        *,
        loader: Callable[..., Any] | None = None,
    ) -> None:
        self._path = Path(os.path.expanduser(path))
        self._options = options or LlamaCppOptions()
        check_gguf(self._path)
        if loader is None:
            loader = _llama_class()
        self._loader = loader
        self._digest = gguf_digest(self._path)
        self._model: Any = None
        self._logits_all = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="faceteval-llamacpp")
        self._lock = threading.Lock()
        self._metadata: dict[str, str] = {}
        self._stop = threading.Event()
        """The event of the call being generated: set when that call is abandoned."""
        self._generating = False
        """Whether the call being generated has read its prompt (its first token is sampled)."""
        self._abort: Any = None
        """The model's abort callback (`_abortable`), kept alive while llama.cpp holds its pointer."""

    @property
    def identity(self) -> str:
        """``llamacpp@sha256:<digest>`` (and the chat format, when one is named): the weights, not
        the path."""
        chat = f"+{self._options.chat_format}" if self._options.chat_format else ""
        return f"llamacpp@sha256:{self._digest}{chat}"

    @property
    def cache_model(self) -> str:
        """The model's name in cache keys: its digest, so that a moved or renamed file keeps its cache."""
        return f"sha256:{self._digest}"

    @property
    def path(self) -> Path:
        """The .gguf file."""
        return self._path

    @property
    def digest(self) -> str:
        """The file's SHA-256, hex."""
        return self._digest

    @property
    def metadata(self) -> Mapping[str, str]:
        """The GGUF metadata llama.cpp read (``general.name``...), once the model is loaded."""
        return self._metadata

    async def complete(self, request: CompletionRequest) -> Completion:
        """Generate one chat completion in the model's own thread.

        Raises:
            BadRequestError: The prompt does not fit the context window (raise ``n_ctx``), or the
                request is one llama.cpp refuses.
            ProviderError: llama.cpp failed otherwise.
        """
        stop = threading.Event()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._executor, self._generate, request, stop)
        future.add_done_callback(_retrieved)
        try:
            data = await asyncio.shield(future)
        except asyncio.CancelledError:
            stop.set()  # the generation stops at its next token; the next call waits for that only
            raise
        from faceteval.llm._openai import completion_of  # the same reply, read the same way

        return completion_of(data, request, f"llamacpp ({self._path.name})")

    def _generate(self, request: CompletionRequest, stop: threading.Event) -> Any:
        config = request.config

        params: dict[str, Any] = {
            "messages": [message.to_dict() for message in request.messages],
            "temperature": config.temperature,
            "max_tokens": config.max_tokens,
            "model": request.model,
        }
        seed = config.seed if config.seed is not None else self._options.seed
        if seed is not None:
            params["seed"] = seed
        if config.top_p is not None:
            params["top_p"] = config.top_p
        if config.response_schema is not None:
            params["response_format"] = {"type": "json_object", "schema": config.response_schema.schema}
        elif config.json_mode:
            params["response_format"] = {"type": "json_object"}
        if config.logprobs:
            params["logprobs"] = True
            params["top_logprobs"] = config.top_logprobs or 1
        with self._lock:
            model = self._loaded(logits_all=config.logprobs)
            self._stop = stop  # the stopping criterion `_stoppable` gave the model reads it
            self._generating = False
            try:
                data = model.create_chat_completion(**params)
            except ValueError as exc:  # "Requested tokens (5000) exceed context window of 4096", ...
                raise BadRequestError(f"llamacpp ({self._path.name}) refused the request: {exc}") from exc
            except Exception as exc:
                if stop.is_set():  # llama_decode aborted mid-prompt ("llama_decode returned 2")
                    _forget_context(model)
                    raise ProviderError(f"llamacpp ({self._path.name}): the call was stopped") from exc
                raise ProviderError(
                    f"llamacpp ({self._path.name}) failed: {type(exc).__name__}: {exc}"
                ) from exc
            if stop.is_set():  # stopped early: nobody waits for it, and it is not the whole reply
                raise ProviderError(f"llamacpp ({self._path.name}): the call was stopped")
            return data

    def _loaded(self, *, logits_all: bool) -> Any:
        """The model, loaded on first use; loaded again, keeping every token's logits, for the first
        request that asks for log-probabilities."""
        if self._model is not None and (self._logits_all or not logits_all):
            return self._model
        options = self._options
        with _LOADING:
            if self._model is not None:  # the old one's memory goes before the new one takes its own
                close = getattr(self._model, "close", None)
                self._model = None
                if callable(close):
                    close()
            model = self._load(options, logits_all=logits_all)
        _stoppable(model, self._token_sampled)
        self._abort = _abortable(model, self._prompt_abandoned)
        self._model, self._logits_all = model, logits_all
        metadata = getattr(model, "metadata", None)
        if isinstance(metadata, Mapping):
            self._metadata = {
                str(k): str(v) for k, v in metadata.items() if not str(k).startswith("tokenizer.")
            }
        logger.info(
            "llamacpp: loaded %s (%s, sha256 %s)", self._path.name, self._metadata.get("general.name", "?"),
            self._digest[:12],
        )  # fmt: skip
        return model

    def _load(self, options: LlamaCppOptions, *, logits_all: bool) -> Any:
        try:
            return self._loader(
                model_path=str(self._path),
                n_ctx=options.n_ctx,
                n_threads=options.threads,
                logits_all=logits_all,
                chat_format=options.chat_format,
                verbose=False,
                **({} if options.seed is None else {"seed": options.seed}),
            )
        except (ValueError, RuntimeError) as exc:  # llama.cpp could not load it
            raise ConfigError(f"llamacpp: cannot load {str(self._path)!r}: {exc}") from exc

    def _token_sampled(self) -> bool:
        """Asked after each token: whether the call is abandoned (its prompt is read by then)."""
        self._generating = True
        return self._stop.is_set()

    def _prompt_abandoned(self) -> bool:
        """Asked by llama.cpp between the operations of a batch: whether to abort it. Only a prompt
        being read is aborted; a generation ends between tokens (`_token_sampled`), never inside
        the decoding of one."""
        return not self._generating and self._stop.is_set()

    async def aclose(self) -> None:
        """Nothing to close between runs: the model stays loaded for the next call."""


def _stoppable(model: Any, stopped: Callable[[], bool]) -> None:
    """Have ``model`` end a generation at its next token once ``stopped()`` holds.

    llama-cpp-python's chat completion takes no stopping criterion of its own, but passes one to
    ``create_completion``, which checks it after every token (an exception raised in a logits
    processor would not stop it: the sampler's callback swallows it). So the model's
    ``create_completion`` gets one more criterion.
    """
    create = getattr(model, "create_completion", None)
    if create is None:  # not a llama_cpp.Llama
        return

    def with_stop(*args: Any, stopping_criteria: Any = None, **kwargs: Any) -> Any:
        from llama_cpp import StoppingCriteriaList

        criteria = StoppingCriteriaList([*(stopping_criteria or ()), lambda ids, logits: stopped()])
        return create(*args, stopping_criteria=criteria, **kwargs)

    model.create_completion = with_stop


def _forget_context(model: Any) -> None:
    """After an aborted ``llama_decode``, whose batches read so far stay in the context's memory
    (llama.h): that memory cleared and the model's count of tokens read set to none, so that the next
    call reads its prompt afresh rather than reusing a prefix llama-cpp-python no longer tracks."""
    reset = getattr(model, "reset", None)
    if callable(reset):
        reset()
    clear = getattr(getattr(model, "_ctx", None), "kv_cache_clear", None)
    if callable(clear):
        clear()


def _abortable(model: Any, stopped: Callable[[], bool]) -> Any:
    """Have llama.cpp abandon a prompt being read once ``stopped()`` holds (a long prompt on one
    core takes seconds to read, and `_stoppable`'s criterion is asked only between tokens).

    llama.cpp asks the context's abort callback between the operations of each batch it computes;
    ``llama_decode`` then returns 2, which llama-cpp-python raises as a RuntimeError. Returns the
    callback, which must outlive the model (llama.cpp keeps only its address), or None when
    ``model`` is not a ``llama_cpp.Llama``.
    """
    context = getattr(getattr(model, "_ctx", None), "ctx", None)
    if context is None:
        return None
    import llama_cpp

    callback = llama_cpp.ggml_abort_callback(lambda _data: stopped())
    llama_cpp.llama_set_abort_callback(context, callback, None)
    return callback


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Take the outcome of a generation nobody waits for any more (its call was abandoned)."""
    if not future.cancelled():
        future.exception()


def _llama_class() -> Callable[..., Any]:
    global _LOG_CALLBACK
    try:
        import llama_cpp
        from llama_cpp import Llama
    except ModuleNotFoundError as exc:
        if exc.name not in ("llama_cpp", "numpy"):
            raise
        raise MissingDependencyError("the 'llamacpp' provider", extra="llamacpp") from exc
    if _LOG_CALLBACK is None:

        @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
        def log(level: int, text: bytes, user_data: Any) -> None:
            logger.debug("llama.cpp: %r", text.decode("utf-8", "replace").rstrip("\n"))

        _LOG_CALLBACK = log  # kept: llama.cpp holds a pointer to it
        llama_cpp.llama_log_set(log, ctypes.c_void_p(0))
    loader: Callable[..., Any] = Llama
    return loader
