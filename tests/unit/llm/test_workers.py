"""WorkerPool: provider calls in worker processes, with errors, cancellation and crashes crossing back."""

from __future__ import annotations

import functools
import gc
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from faceteval._heap import YOUNG_GENERATION
from faceteval.errors import ConfigError, ProviderConnectionError, ProviderServerError, RateLimitError
from faceteval.llm import LLM, CompletionRequest, ModelSpec, RetryPolicy, user
from faceteval.llm._workers import WorkerPool
from tests.support import worker_providers


def request(text: str) -> CompletionRequest:
    return CompletionRequest(model="m", messages=(user(text),))


@pytest.fixture
def echo_pool() -> Iterator[WorkerPool]:
    with WorkerPool(worker_providers.echo, 2) as pool:
        pool.start()
        yield pool


def pids(pool: WorkerPool) -> set[int]:
    return {worker.process.pid for worker in pool._workers if worker.process is not None}


async def _complete_all(pool: WorkerPool, texts: list[str]) -> list[str]:
    replies: dict[str, str] = {}

    async def one(text: str) -> None:
        replies[text] = (await pool.complete(request(text))).text

    async with anyio.create_task_group() as group:
        for text in texts:
            group.start_soon(one, text)
    await pool.aclose()
    return [replies[text] for text in texts]


def test_calls_are_answered_by_the_workers_each_with_its_own_reply(echo_pool: WorkerPool) -> None:
    texts = [f"question {i}" for i in range(40)]
    replies = anyio.run(_complete_all, echo_pool, texts)
    answered_by = {int(reply.split(":")[0]) for reply in replies}
    assert [reply.split(": ", 1)[1] for reply in replies] == texts
    assert answered_by == pids(echo_pool)  # both workers took calls
    assert os.getpid() not in answered_by


def test_workers_outlive_an_event_loop_and_serve_the_next(echo_pool: WorkerPool) -> None:
    first = anyio.run(_complete_all, echo_pool, ["a", "b", "c", "d"])
    second = anyio.run(_complete_all, echo_pool, ["e", "f", "g", "h"])
    answered = {int(reply.split(":")[0]) for reply in first + second}
    assert answered <= pids(echo_pool)
    assert len(pids(echo_pool)) == 2


def test_a_worker_tunes_its_garbage_collector_and_the_caller_keeps_its_own() -> None:
    threshold = gc.get_threshold()
    with WorkerPool(worker_providers.heap_settings, 1) as pool:
        pool.start()
        (reply,) = anyio.run(_complete_all, pool, ["settings?"])
    frozen, young = map(int, reply.split())
    assert frozen > 10_000  # the interpreter, faceteval and the provider's modules
    assert young == YOUNG_GENERATION
    assert (gc.get_freeze_count(), gc.get_threshold()) == (0, threshold)


def test_the_pool_keeps_the_provider_name_and_cache_identity() -> None:
    factory = functools.partial(
        worker_providers.create_openai, "openai:judge", base_url="http://127.0.0.1:9/v1"
    )
    with WorkerPool(factory, 1) as pool:
        assert (pool.name, pool.identity) == ("openai", "openai@http://127.0.0.1:9/v1")


async def _error(pool: WorkerPool, text: str) -> BaseException:
    try:
        await pool.complete(request(text))
    except BaseException as exc:
        return exc
    finally:
        await pool.aclose()
    raise AssertionError(f"{text!r} did not fail")


def test_provider_errors_come_back_with_their_kind_and_attributes() -> None:
    with WorkerPool(worker_providers.failing, 1) as pool:
        limited = anyio.run(_error, pool, "429")
        down = anyio.run(_error, pool, "503")
        bug = anyio.run(_error, pool, "bug")
        fine = anyio.run(_complete_all, pool, ["ok"])
    assert isinstance(limited, RateLimitError)
    assert (str(limited), limited.retry_after, limited.retryable) == ("slow down", 2.5, True)
    assert isinstance(down, ProviderServerError)
    assert (str(down), down.status, down.retry_after) == ("server down", 503, None)
    assert type(bug) is RuntimeError  # not a provider error: never retried as one
    assert "ValueError: a bug in the provider" in str(bug)
    assert fine == ["fine"]


def test_a_worker_that_cannot_build_its_provider_says_why() -> None:
    factory = functools.partial(worker_providers.broken_elsewhere, os.getpid())
    with WorkerPool(factory, 1) as pool, pytest.raises(ConfigError, match="no model named 'nope'"):
        pool.start()


def test_a_factory_that_fails_here_fails_before_any_process_starts() -> None:
    with pytest.raises(ConfigError, match="no model named 'nope'"):
        WorkerPool(functools.partial(worker_providers.broken_elsewhere, -1), 1)


def test_an_unpicklable_factory_is_refused_with_what_to_do_instead() -> None:
    with pytest.raises(ConfigError, match="module-level function"):
        WorkerPool(lambda: worker_providers.echo(), 1)


def wait_for(path: Path, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.05)
    return False


def test_a_cancelled_call_is_cancelled_in_the_worker_too(tmp_path: Path) -> None:
    async def impatient(pool: WorkerPool) -> float:
        started = time.monotonic()
        with anyio.move_on_after(0.5):
            await pool.complete(request("30"))
        waited = time.monotonic() - started
        reply = await pool.complete(request("0"))
        await pool.aclose()
        assert reply.text.endswith("slept 0")
        return waited

    with WorkerPool(functools.partial(worker_providers.sleeper, str(tmp_path)), 1) as pool:
        pool.start()  # else the 0.5 s could run out while the worker is still starting
        waited = anyio.run(impatient, pool)
        assert waited < 5
        assert wait_for(tmp_path / "cancelled-30")


def test_a_worker_that_dies_fails_its_calls_and_is_started_again(tmp_path: Path) -> None:
    async def crash(pool: WorkerPool) -> tuple[BaseException | None, str]:
        failure: BaseException | None = None

        async def long_call() -> None:
            nonlocal failure
            try:
                await pool.complete(request("30"))
            except ProviderConnectionError as exc:
                failure = exc

        async with anyio.create_task_group() as group:
            group.start_soon(long_call)
            await anyio.sleep(0.5)
            (pid,) = pids(pool)
            os.kill(pid, signal.SIGKILL)
        reply = (await pool.complete(request("0"))).text
        await pool.aclose()
        return failure, reply

    with WorkerPool(functools.partial(worker_providers.sleeper, str(tmp_path)), 1) as pool:
        pool.start()
        (before,) = pids(pool)
        failure, reply = anyio.run(crash, pool)
        (after,) = pids(pool)
    assert isinstance(failure, ProviderConnectionError)
    assert failure.retryable
    assert after != before
    assert reply == f"{after}: slept 0"


def test_close_stops_the_workers_and_removes_their_sockets() -> None:
    pool = WorkerPool(worker_providers.echo, 2)
    pool.start()
    processes = [worker.process for worker in pool._workers]
    directory = pool._directory
    pool.close()
    assert all(process is not None and process.returncode is not None for process in processes)
    assert not directory.exists()
    with pytest.raises(ProviderConnectionError, match="closed"):
        anyio.run(pool.complete, request("late"))


def test_workers_are_out_of_reach_of_a_terminal_ctrl_c(echo_pool: WorkerPool) -> None:
    assert all(os.getsid(pid) != os.getsid(0) for pid in pids(echo_pool))


def test_worker_counts_are_checked() -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        WorkerPool(worker_providers.echo, 0)
    with pytest.raises(ConfigError, match=r"0 \(calls in this process\) or more"):
        LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", env={}, workers=-1)


def test_the_llm_wrapper_retries_through_the_pool_and_close_stops_it() -> None:
    pool = WorkerPool(worker_providers.failing, 1)
    llm = LLM(pool, ModelSpec("scripted", "m"), retry=RetryPolicy(max_retries=1, initial_delay=0.01))

    async def ask() -> BaseException:
        try:
            await llm.generate([user("503")])
        except ProviderServerError as exc:
            return exc
        finally:
            await llm.aclose()
        raise AssertionError("no error")

    error = anyio.run(ask)
    llm.close()
    assert error.attempts == 2  # one retry, then the error the worker raised
    assert all(worker.process is None for worker in pool._workers)


def test_a_dry_run_starts_no_workers() -> None:
    llm = LLM.from_spec("openai:m", base_url="http://127.0.0.1:9/v1", env={}, dry_run=True, workers=2)
    assert not isinstance(llm.provider, WorkerPool)
