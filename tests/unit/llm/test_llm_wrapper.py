"""The LLM wrapper: cache, retries, timeouts, concurrency, cost, dry runs (scripted provider)."""

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from faceteval.errors import (
    AuthenticationError,
    BadResponseError,
    ConfigError,
    ProviderServerError,
    RateLimitError,
    StoreError,
)
from faceteval.llm import (
    DEFAULT_MAX_RETRY_AFTER,
    LLM,
    Completion,
    CompletionRequest,
    Exchange,
    GenerateConfig,
    ModelSpec,
    Price,
    PriceTable,
    RetryPolicy,
    ScriptedProvider,
    user,
)
from faceteval.llm.internal import cache_key
from faceteval.store import SQLiteCache

pytestmark = pytest.mark.anyio
FAST = RetryPolicy(max_retries=3, initial_delay=0.001, max_delay=0.01)
SPEC = ModelSpec("openai", "gpt-4o-mini")


def make(provider: ScriptedProvider, **options: object) -> LLM:
    return LLM(provider, SPEC, retry=FAST, **options)  # type: ignore[arg-type]


async def test_second_identical_request_is_answered_from_cache(tmp_path: Path) -> None:
    provider = ScriptedProvider.sequence(["8 6"])
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = make(provider, cache=cache)
        first = await llm.generate([user("rate")])
        second = await llm.generate([user("rate")])
    assert len(provider.requests) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.completion.text == "8 6"
    assert second.completion.input_tokens == first.completion.input_tokens


async def test_cache_is_shared_across_processes_by_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SQLiteCache(path) as cache:
        await make(ScriptedProvider.sequence(["7"]), cache=cache).generate([user("q")])
    replay = ScriptedProvider.sequence([])
    with SQLiteCache(path) as cache:
        exchange = await make(replay, cache=cache).generate([user("q")])
    assert exchange.cached and exchange.completion.text == "7"
    assert replay.requests == []


def test_cache_key_covers_what_changes_the_reply() -> None:
    base = CompletionRequest(model="m", messages=(user("q"),))
    keys = {
        cache_key("openai", base),
        cache_key("openai@http://127.0.0.1:9/v1", base),
        cache_key("openai", CompletionRequest(model="m2", messages=(user("q"),))),
        cache_key("openai", CompletionRequest(model="m", messages=(user("q2"),))),
        cache_key(
            "openai",
            CompletionRequest(model="m", messages=(user("q"),), config=GenerateConfig(temperature=0.7)),
        ),
        cache_key(
            "openai", CompletionRequest(model="m", messages=(user("q"),), config=GenerateConfig(sample=1))
        ),
        cache_key(
            "openai", CompletionRequest(model="m", messages=(user("q"),), config=GenerateConfig(seed=3))
        ),
    }
    assert len(keys) == 7
    assert cache_key("openai", base) == cache_key(
        "openai", CompletionRequest(model="m", messages=(user("q"),))
    )


def test_cache_key_does_not_tell_an_int_from_the_same_float() -> None:
    def key(**config: object) -> str:
        request = CompletionRequest("m", (user("q"),), GenerateConfig(**config))  # type: ignore[arg-type]
        return cache_key("openai", request)

    assert key(temperature=0) == key(temperature=0.0) == key()
    assert key(temperature=1, top_p=1) == key(temperature=1.0, top_p=1.0)
    assert key(temperature=1) != key(temperature=0.7)


async def test_retryable_errors_are_retried_then_succeed() -> None:
    provider = ScriptedProvider.sequence(
        [
            RateLimitError("slow down", retry_after=0.01),
            ProviderServerError("boom", status=503),
            BadResponseError("html"),
            "ok",
        ]
    )
    exchange = await make(provider).generate([user("q")])
    assert exchange.completion.text == "ok"
    assert exchange.attempts == 4
    assert len(provider.requests) == 4


async def test_retry_after_is_honoured() -> None:
    waits: list[float] = []
    policy = RetryPolicy(max_retries=1, initial_delay=0.001, max_delay=0.001)
    assert policy.delay(1, RateLimitError("x", retry_after=2.0)) >= 2.0
    provider = ScriptedProvider.sequence([RateLimitError("slow down", retry_after=0.3), "ok"])
    llm = LLM(provider, SPEC, retry=policy)
    start = anyio.current_time()
    await llm.generate([user("q")])
    waits.append(anyio.current_time() - start)
    assert waits[0] >= 0.3


def test_a_retry_after_wait_never_exceeds_the_cap() -> None:
    policy = RetryPolicy(max_retry_after=60.0)
    for asked in (0.5, 30.0, 59.0, 60.0):
        waits = [policy.delay(1, RateLimitError("x", retry_after=asked)) for _ in range(500)]
        assert asked <= min(waits) and max(waits) <= 60.0
    assert max(policy.delay(1, RateLimitError("x", retry_after=30.0)) for _ in range(500)) > 30.0  # jitter
    assert RetryPolicy().max_retry_after == DEFAULT_MAX_RETRY_AFTER == 60.0


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (
            RateLimitError("openai at http://h/v1 answered HTTP 429: slow down", retry_after=999999.0),
            "999,999 s (about 12 days)",
        ),
        (RateLimitError("429", retry_after=60.5), "60.5 s"),
        (
            RateLimitError("429", retry_after=2.3e9),
            "2,300,000,000 s (about 73 years)",
        ),  # a date decades ahead
        (ProviderServerError("503", status=503, retry_after=7200.0), "7,200 s (about 2 hours)"),
        (RateLimitError("429", retry_after=86400.0 * 3), "259,200 s (about 3 days)"),
    ],
    ids=["seconds", "just-past", "http-date", "503", "days"],
)
async def test_a_retry_after_past_the_cap_fails_the_call_at_once_with_the_servers_time(
    error: RateLimitError | ProviderServerError, said: str
) -> None:
    provider = ScriptedProvider.sequence([error, "never asked"])
    llm = LLM(provider, SPEC, retry=RetryPolicy(max_retries=5))

    with pytest.raises(type(error)) as caught:
        await llm.generate([user("q")])

    assert len(provider.requests) == 1  # not retried, and nothing waited on
    message = str(caught.value)
    assert message.startswith(str(error).split(";")[0])
    assert f"the server asks to retry after {said}, more than the 60 s faceteval waits" in message
    assert "--max-retry-after" in message
    assert caught.value.attempts == 1


async def test_the_cap_is_the_policys() -> None:
    provider = ScriptedProvider.sequence([RateLimitError("429", retry_after=0.2), "ok"])
    llm = LLM(provider, SPEC, retry=RetryPolicy(max_retries=1, max_retry_after=0.1))
    with pytest.raises(RateLimitError, match=r"retry after 0.2 s, more than the 0.1 s faceteval waits"):
        await llm.generate([user("q")])
    provider = ScriptedProvider.sequence([RateLimitError("429", retry_after=0.2), "ok"])
    llm = LLM(provider, SPEC, retry=RetryPolicy(max_retries=1, max_retry_after=0.3))
    assert (await llm.generate([user("q")])).completion.text == "ok"


async def test_retries_give_up_with_the_last_error() -> None:
    provider = ScriptedProvider.sequence([ProviderServerError("boom", status=500)] * 4)
    with pytest.raises(ProviderServerError, match="boom"):
        await make(provider).generate([user("q")])
    assert len(provider.requests) == 4  # 1 + max_retries


async def test_non_retryable_errors_are_not_retried() -> None:
    provider = ScriptedProvider.sequence([AuthenticationError("bad key"), "never"])
    with pytest.raises(AuthenticationError):
        await make(provider).generate([user("q")])
    assert len(provider.requests) == 1


async def test_timeout_is_retried() -> None:
    calls: list[int] = []

    class Slow(ScriptedProvider):
        async def complete(self, request: CompletionRequest):  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) == 1:
                await anyio.sleep(5)
            return await super().complete(request)

    llm = LLM(Slow(lambda r: "ok"), SPEC, retry=FAST, timeout=0.2)
    exchange = await llm.generate([user("q")])
    assert exchange.completion.text == "ok"
    assert len(calls) == 2


async def test_concurrency_is_bounded() -> None:
    active, peak = 0, 0

    class Counting(ScriptedProvider):
        async def complete(self, request: CompletionRequest):  # type: ignore[no-untyped-def]
            nonlocal active, peak
            active += 1
            peak = max(peak, active)
            await anyio.sleep(0.01)
            active -= 1
            return await super().complete(request)

    llm = LLM(Counting(lambda r: "ok"), SPEC, concurrency=3)
    async with anyio.create_task_group() as group:
        for i in range(12):
            group.start_soon(llm.generate, [user(str(i))])
    assert peak == 3


async def test_cost_uses_the_price_table_and_unknown_is_none() -> None:
    prices = PriceTable({"openai:gpt-4o-mini": Price(1.0, 2.0)})
    reply = ScriptedProvider(lambda r: "x" * 400)
    exchange = await LLM(reply, SPEC, prices=prices).generate([user("q" * 400)])
    completion = exchange.completion
    assert exchange.cost_usd == pytest.approx(
        (completion.input_tokens * 1.0 + completion.output_tokens * 2.0) / 1e6
    )
    unknown = await LLM(reply, ModelSpec("openai", "my-finetune"), prices=prices).generate([user("q")])
    assert unknown.cost_usd is None


async def test_dry_run_never_calls_and_estimates_tokens() -> None:
    provider = ScriptedProvider.sequence([])
    llm = LLM(provider, SPEC, dry_run=True)
    exchange = await llm.generate([user("word " * 100)], example=lambda: "8 6")
    assert exchange.planned and not exchange.cached
    assert exchange.completion.text == "8 6"
    assert exchange.completion.input_tokens > 100
    assert provider.requests == []


async def test_dry_run_uses_cached_replies(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        await make(ScriptedProvider.sequence(["real reply"]), cache=cache).generate([user("q")])
        planned = LLM(None, SPEC, cache=cache, dry_run=True, identity="scripted")
        exchange = await planned.generate([user("q")], example=lambda: "stand-in")
    assert exchange.cached and exchange.completion.text == "real reply"


def test_bad_settings_are_config_errors() -> None:
    provider: Callable[[], ScriptedProvider] = lambda: ScriptedProvider.sequence([])  # noqa: E731
    with pytest.raises(ConfigError):
        LLM(provider(), SPEC, concurrency=0)
    with pytest.raises(ConfigError):
        LLM(provider(), SPEC, timeout=0)
    with pytest.raises(ConfigError):
        LLM(None, SPEC)
    with pytest.raises(ConfigError):
        RetryPolicy(max_retries=-1)


def test_model_specs() -> None:
    assert ModelSpec.parse("ollama:qwen2.5:7b") == ModelSpec("ollama", "qwen2.5:7b")
    for bad in ["gpt-4o", "openai:", "nope:model"]:
        with pytest.raises(ConfigError):
            ModelSpec.parse(bad)


def test_price_table_dated_names_and_wildcard(tmp_path: Path) -> None:
    table = PriceTable.default()
    assert table.lookup("openai:gpt-4o-mini-2024-07-18") == table.lookup("openai:gpt-4o-mini")
    assert table.lookup("openai:gpt-4o-mini") != table.lookup("openai:gpt-4o")
    assert table.lookup("openai:gpt-4-0613") == table.lookup("openai:gpt-4")
    assert table.lookup("anthropic:claude-3-5-sonnet-20241022") == table.lookup("anthropic:claude-3-5-sonnet")
    assert table.lookup("anthropic:claude-3-5-haiku-latest") == table.lookup("anthropic:claude-3-5-haiku")
    # in a table's own entries, a name that merely starts with a known one is another model: no price
    # rather than a wrong one
    bare = PriceTable({"openai:o1": Price(15.0, 60.0), "openai:gpt-4": Price(30.0, 60.0)})
    for other in ("openai:o1-mini", "openai:gpt-4.5-preview", "openai:gpt-4-turbo", "openai:o1-2024-12"):
        assert bare.lookup(other) is None, other
    assert table.lookup("ollama:qwen2.5:7b") == Price(0.0, 0.0)
    assert table.lookup("openai:judge") is None
    extra = tmp_path / "prices.yaml"
    extra.write_text("openai:judge: {input: 1, output: 3}\n")
    assert table.extended(PriceTable.from_file(extra)).lookup("openai:judge") == Price(1.0, 3.0)
    extra.write_text("judge: {input: 1}\n")
    with pytest.raises(ConfigError, match="provider:model"):
        PriceTable.from_file(extra)
    extra.write_text("openai:judge: {input: 1, output: 3, cache_input: 0.5}\n")
    with pytest.raises(ConfigError, match=r"openai:judge: unknown field.*cache_input"):
        PriceTable.from_file(extra)


def test_ollama_shorthand_points_at_the_local_endpoint() -> None:
    llm = LLM.from_spec("ollama:qwen2.5:7b", env={})
    assert llm.spec == ModelSpec("ollama", "qwen2.5:7b")
    assert llm.identity == "ollama@http://localhost:11434/v1"
    remote = LLM.from_spec("ollama:llama3", env={"OLLAMA_HOST": "http://gpu-box:11434"})
    assert remote.identity == "ollama@http://gpu-box:11434/v1"
    assert llm.prices.lookup("ollama:qwen2.5:7b") == Price(0.0, 0.0)


def test_openai_base_url_comes_from_the_environment_mapping() -> None:
    llm = LLM.from_spec("openai:judge", env={"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"})
    assert llm.identity == "openai@http://127.0.0.1:8000/v1"
    assert LLM.from_spec("openai:judge", env={}, base_url="http://h:1/v1").identity == "openai@http://h:1/v1"


async def test_half_a_character_in_a_reply_becomes_the_replacement_character(tmp_path: Path) -> None:
    # A server may escape an emoji cut at max_tokens as "\ud83d" alone: not text, so it could not
    # be cached or written out. The wrapper hands on, and caches, the reply with U+FFFD in its place.
    provider = ScriptedProvider.sequence(["8 6\ncut \ud83d\ude00 \ud83d"])
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = make(provider, cache=cache)
        fresh = await llm.generate([user("rate \udc00")])  # a prompt that is not text is still keyed
        again = await llm.generate([user("rate \udc00")])
    assert fresh.completion.text == again.completion.text == "8 6\ncut \N{GRINNING FACE} \ufffd"
    assert again.cached and len(provider.requests) == 1


async def test_spent_counts_every_exchange_as_it_happens(tmp_path: Path) -> None:
    # What a run reports when it is stopped early: nothing waits for the work that asked to finish.
    provider = ScriptedProvider.sequence(
        ["8 6", RateLimitError("slow down", retry_after=0.0), "7", AuthenticationError("no key")]
    )
    prices = PriceTable({"openai:gpt-4o-mini": Price(1.0, 2.0)})
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        llm = make(provider, cache=cache, prices=prices)
        first = await llm.generate([user("a")])
        await llm.generate([user("a")])  # cached
        second = await llm.generate([user("b")])  # one retry
        with pytest.raises(AuthenticationError):
            await llm.generate([user("c")])
    spent = llm.spent
    assert (spent.calls, spent.cached, spent.planned, spent.retries) == (3, 1, 0, 1)
    made = [first.completion, second.completion]
    assert spent.input_tokens == sum(c.input_tokens for c in made)
    assert spent.output_tokens == sum(c.output_tokens for c in made)
    assert spent.cost_known and spent.cost_usd == pytest.approx(
        (first.cost_usd or 0) + (second.cost_usd or 0)
    )


async def test_identical_requests_under_way_at_once_cost_one_call(tmp_path: Path) -> None:
    async def three(llm: LLM) -> list[Exchange]:
        results: list[Exchange] = []
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(lambda: _append(results, llm.generate([user("same")])))
        return results

    slow = ScriptedProvider.sequence(["8 6"] * 3)
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        exchanges = await three(make(_Slow(slow), cache=cache))
    assert len(slow.requests) == 1
    assert sorted(e.cached for e in exchanges) == [False, True, True]
    assert {e.completion.text for e in exchanges} == {"8 6"}

    uncached = ScriptedProvider.sequence(["8 6"] * 3)  # no cache: every request is its own call
    await three(make(_Slow(uncached)))
    assert len(uncached.requests) == 3

    # The call the others wait for fails (no retries): each of them then asks for itself, one at a time.
    failing = ScriptedProvider.sequence([AuthenticationError("no key"), "7 5", "unused"])
    with SQLiteCache(tmp_path / "d.sqlite") as cache:
        llm = make(_Slow(failing), cache=cache)
        results: list[Exchange | BaseException] = []

        async def one() -> None:
            try:
                results.append(await llm.generate([user("same")]))
            except AuthenticationError as exc:
                results.append(exc)

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(one)
    assert len(failing.requests) == 2
    assert sum(isinstance(r, AuthenticationError) for r in results) == 1
    assert sorted(r.cached for r in results if isinstance(r, Exchange)) == [False, True]


async def _append(results: list[Exchange], exchange: Awaitable[Exchange]) -> None:
    results.append(await exchange)


class _Slow:
    """A provider that takes a moment, so that identical requests are under way at once."""

    def __init__(self, inner: ScriptedProvider) -> None:
        self.inner = inner
        self.name, self.identity = inner.name, inner.identity

    async def complete(self, request: CompletionRequest) -> Completion:
        await anyio.sleep(0.05)
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_call_cancelled_once_sent_is_counted_and_one_never_sent_is_not() -> None:
    started = anyio.Event()

    class Slow:  # a provider whose reply never comes in time
        name = identity = "slow"

        async def complete(self, request: CompletionRequest) -> Completion:
            started.set()
            await anyio.sleep(10)
            raise AssertionError("not reached")

        async def aclose(self) -> None:
            pass

    llm = LLM(Slow(), SPEC, retry=FAST, concurrency=1)
    async with anyio.create_task_group() as group:
        group.start_soon(llm.generate, [user("sent")])
        group.start_soon(llm.generate, [user("queued")])  # waits for the one slot: never sent
        await started.wait()
        group.cancel_scope.cancel()
    assert (llm.spent.calls, llm.spent.input_tokens) == (1, 0)  # sent, so likely billed


async def test_a_long_retry_wait_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    short: list[object] = [RateLimitError("slow down", retry_after=0.01), "ok"]
    llm = LLM(ScriptedProvider.sequence(short), SPEC, retry=RetryPolicy(max_retries=1))
    with caplog.at_level(logging.INFO, logger="faceteval"):
        await llm.generate([user("q")])
    (record,) = [r for r in caplog.records if "retrying in" in r.getMessage()]
    assert record.levelno == logging.INFO  # 0.01 s: not worth a warning
    replies: list[object] = [RateLimitError("slow down", retry_after=12), "ok"]
    llm = LLM(ScriptedProvider.sequence(replies), SPEC, retry=RetryPolicy(max_retries=1))
    with caplog.at_level(logging.INFO, logger="faceteval"):
        with anyio.move_on_after(0.2):  # it would wait 12 s
            await llm.generate([user("q2")])
    assert any(r.levelno == logging.WARNING and "retrying in 1" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("openai:m: {input: .nan, output: 2}", "finite and not negative"),
        ("openai:m: {input: .inf, output: 2}", "finite and not negative"),
        ("openai:m: {input: 1e400, output: 2}", "finite and not negative"),
        ("openai:m: {input: true, output: 2}", "must be numbers"),
    ],
)
async def test_prices_that_are_not_finite_numbers_are_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=message):
        PriceTable.from_file(path)


async def test_snapshots_priced_unlike_their_model_have_their_own_price() -> None:
    table = PriceTable.default()
    snapshot, model = table.lookup("openai:gpt-4o-2024-05-13"), table.lookup("openai:gpt-4o")
    assert snapshot is not None and model is not None
    assert (snapshot.input, snapshot.output) != (model.input, model.output)
    assert table.lookup("openai:gpt-4o-2024-08-06") == model


async def test_a_call_cancelled_while_waiting_to_retry_counts_the_attempt_sent() -> None:
    provider = ScriptedProvider.sequence([ProviderServerError("busy", status=503, retry_after=30)])
    llm = LLM(provider, SPEC, retry=RetryPolicy(max_retries=2))
    with anyio.move_on_after(0.3):  # it waits 30 s to retry: stopped while waiting
        await llm.generate([user("q")])
    assert len(provider.requests) == 1 and llm.spent.calls == 1


async def test_a_reply_that_cannot_be_cached_is_still_counted(tmp_path: Path) -> None:
    class Full(SQLiteCache):
        def put(self, *args: object, **kwargs: object) -> None:
            raise StoreError("disk full")

    with Full(tmp_path / "c.sqlite") as cache:
        llm = make(ScriptedProvider.sequence(["7"]), cache=cache)
        with pytest.raises(StoreError):
            await llm.generate([user("q")])
    assert llm.spent.calls == 1


def _digits(text: str) -> bool:
    return text.strip().isdigit()


async def test_retry_unreadable_asks_again_a_cached_reply_the_caller_cannot_read(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with SQLiteCache(path) as cache:
        await make(ScriptedProvider.sequence(["I cannot rate this."]), cache=cache).generate([user("q")])
        await make(ScriptedProvider.sequence(["7"]), cache=cache).generate([user("readable")])

    replay = ScriptedProvider.sequence([])  # without the flag a cached reply is a reply, read or not
    with SQLiteCache(path) as cache:
        exchange = await make(replay, cache=cache).generate([user("q")], readable=_digits)
    assert exchange.cached and exchange.completion.text == "I cannot rate this."
    assert replay.requests == []

    fresh = ScriptedProvider.sequence(["8", "unused"])
    with SQLiteCache(path) as cache:
        llm = make(fresh, cache=cache, retry_unreadable=True)
        asked = await llm.generate([user("q")], readable=_digits)
        kept = await llm.generate([user("readable")], readable=_digits)  # readable: from the cache
    assert (asked.cached, asked.completion.text) == (False, "8")
    assert (kept.cached, kept.completion.text) == (True, "7")
    assert len(fresh.requests) == 1
    assert (llm.spent.calls, llm.spent.cached) == (1, 1)

    with SQLiteCache(path) as cache:  # the new reply replaced the unreadable one
        again = await make(ScriptedProvider.sequence([]), cache=cache).generate([user("q")])
    assert again.cached and again.completion.text == "8"


async def test_retry_unreadable_asks_a_request_again_once_per_run(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        await make(ScriptedProvider.sequence(["no score"]), cache=cache).generate([user("q")])
        provider = ScriptedProvider.sequence(["still no score", "unused"])
        llm = make(provider, cache=cache, retry_unreadable=True)
        first = await llm.generate([user("q")], readable=_digits)
        second = await llm.generate([user("q")], readable=_digits)  # this run's reply: not asked again
    assert len(provider.requests) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.completion.text == "still no score"


async def test_retry_unreadable_joins_an_identical_request_under_way(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        await make(ScriptedProvider.sequence(["no score"]), cache=cache).generate([user("same")])
        slow = ScriptedProvider.sequence(["6", "unused", "unused"])
        llm = make(_Slow(slow), cache=cache, retry_unreadable=True)
        results: list[Exchange] = []
        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(lambda: _append(results, llm.generate([user("same")], readable=_digits)))
    assert len(slow.requests) == 1
    assert [e.completion.text for e in results] == ["6", "6", "6"]


async def test_a_dry_run_with_retry_unreadable_plans_the_unreadable_cached_calls(tmp_path: Path) -> None:
    with SQLiteCache(tmp_path / "c.sqlite") as cache:
        await make(ScriptedProvider.sequence(["no score", "5"]), cache=cache).generate([user("bad")])
        await make(ScriptedProvider.sequence(["5"]), cache=cache).generate([user("good")])
        planned = LLM(None, SPEC, cache=cache, dry_run=True, identity="scripted", retry_unreadable=True)
        bad = await planned.generate([user("bad")], example=lambda: "9", readable=_digits)
        good = await planned.generate([user("good")], example=lambda: "9", readable=_digits)
    assert bad.planned and bad.completion.text == "9"
    assert good.cached and good.completion.text == "5"
    assert (planned.spent.planned, planned.spent.cached) == (1, 1)
