"""What a method gets to work with during a run: the LLM, a per-query memo, and its own trace."""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import anyio
from pydantic import BaseModel

from faceteval.core import ScoreSource, TraceEntry
from faceteval.errors import ParseError, ProviderError
from faceteval.llm import LLM, Completion, Exchange, GenerateConfig, Message, Parser, assistant
from faceteval.methods._structured import structured
from faceteval.parsing import ScoreReader
from faceteval.parsing.internal import ChoiceReader, choice_source, score_sources
from faceteval.prompts import Prompts
from faceteval.prompts.internal import current_prompts
from faceteval.tracing.internal import labelled

T = TypeVar("T")

ScoreModeOption = Literal["parse", "logprobs"]
"""How scoring stages obtain their scores: ``parse`` the number written (the default), or
``logprobs``, the expected score over the score tokens' top log-probabilities (G-Eval)."""
SCORE_MODES: tuple[ScoreModeOption, ...] = ("parse", "logprobs")
DEFAULT_TOP_LOGPROBS = 20
"""Alternatives asked for per token with ``logprobs`` (OpenAI's and vLLM's default maximum)."""

DEFAULT_MEMO_SIZE = 4096
"""How many queries' shared work a `QueryMemo` keeps by default."""


@dataclass(frozen=True, slots=True)
class _Shared:
    value: Any
    error: Exception | None
    entries: list[TraceEntry]


class QueryMemo:
    """Work shared by every instance of the same query (facets, weights), done once per run.

    The first instance to ask computes; instances asking meanwhile wait for it. At most
    ``capacity`` results are kept (least recently used first out); an evicted result is recomputed
    on demand, which the response cache answers without a call. A provider failure (the server
    down past every retry) goes to those waiting but is not kept: the next instance tries again.
    """

    def __init__(self, capacity: int = DEFAULT_MEMO_SIZE) -> None:
        self.capacity = capacity
        self._slots: OrderedDict[Hashable, tuple[anyio.Event, list[_Shared]]] = OrderedDict()

    async def get(self, key: Hashable, compute: Callable[[], Awaitable[_Shared]]) -> tuple[_Shared, bool]:
        """The result for ``key``, computing it if needed; True when this call computed it."""
        slot = self._slots.get(key)
        if slot is not None:
            self._slots.move_to_end(key)
            done, box = slot
            await done.wait()
            if box:
                return box[0], False
            return await self.get(key, compute)  # the computing caller was cancelled: try again
        slot = self._slots[key] = (anyio.Event(), [])
        done, box = slot
        while len(self._slots) > self.capacity:
            self._slots.popitem(last=False)
        try:
            box.append(await compute())
        finally:
            if (not box or isinstance(box[0].error, ProviderError)) and self._slots.get(key) is slot:
                del self._slots[key]
            done.set()
        return box[0], True


@dataclass(slots=True)
class JudgeContext:
    """Per-order working state handed to `Method.judge_order`: the LLM, the run's memo, a trace.

    Attributes:
        llm: The model to ask.
        memo: Shared per-query work for this run.
        order: The presented candidate order as 0-based indices into the original candidates.
        trace: Every exchange this order made or reused, appended as it happens.
        score_mode: How the scoring stages (those whose parser is a `faceteval.parsing.ScoreReader`)
            obtain scores: ``parse``, or ``logprobs`` (their calls ask for ``top_logprobs``
            alternatives per token, and each score becomes its expected score).
        top_logprobs: Alternatives asked for per token with ``logprobs``.
        prompts: The templates the stages render (`render`): the run's (its options' ``templates``
            and ``prefix_cache``); by default those in use where the context is made.
        examples: Labelled examples, rendered and fenced, shown before every prompt this context
            asks (a simulated annotator's); not before the query's shared work (`shared`).
    """

    llm: LLM
    memo: QueryMemo
    order: tuple[int, ...] | None = None
    trace: list[TraceEntry] = field(default_factory=list)
    score_mode: ScoreModeOption = "parse"
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    prompts: Prompts = field(default_factory=current_prompts)
    examples: str | None = None

    def render(self, name: str, **variables: Any) -> tuple[Message, ...]:
        """The messages of the template ``name`` with ``variables``, as this run's prompts render it."""
        return self.prompts.render(name, **variables)

    async def ask(
        self,
        messages: Sequence[Message],
        parser: Parser[T],
        *,
        stage: str,
        config: GenerateConfig | None = None,
        sees_candidates: bool = True,
        facet: str | None = None,
    ) -> T:
        """Ask, read the reply with ``parser``, and re-ask once with the problem stated if it fails.

        In structured mode (``config.structured``, else the LLM's) the reply is asked for as JSON under
        the parser's schema (`faceteval.methods._structured`), and read into the same value.

        ``stage`` names the step in the trace; it and ``facet`` (the facet asked about, when one
        is) label the call's span while tracing is on (`faceteval.tracing`).

        With ``score_mode="logprobs"`` and a parser that reads scores (`faceteval.parsing.ScoreReader`),
        the call asks for log-probabilities and the value's scores are the expected scores where they
        can be computed (`faceteval.parsing.internal.score_sources`); the trace entry keeps how each
        was obtained. With a parser that reads a verdict token (`faceteval.parsing.internal.ChoiceReader`:
        LLMBar's ``Output (a)``), the call asks for them too and the entry's ``choice`` keeps each
        choice's probability; the value is as read.

        Raises:
            ParseError: The reply and the one re-ask could not be read; both are in the trace.
        """
        order = [i + 1 for i in self.order] if sees_candidates and self.order is not None else None
        if self.examples is not None:
            messages = with_examples(messages, self.examples)
        scoring = self.score_mode == "logprobs" and isinstance(parser, ScoreReader)
        choosing = self.score_mode == "logprobs" and isinstance(parser, ChoiceReader)
        if scoring or choosing:
            config = (config or self.llm.config).merge(logprobs=True, top_logprobs=self.top_logprobs)
        if (config or self.llm.config).structured:
            messages, parser, config = structured(
                messages, parser, config or self.llm.config, stage=stage, prompts=self.prompts
            )
        limit = (config or self.llm.config).max_tokens
        exchange = await self._generate(stage, messages, parser, config, order, facet)
        try:
            value = _read(parser, exchange.completion, limit)
        except ParseError as first:
            self._record(stage, exchange, None, first.problem, order)
            retry = [
                *messages,
                assistant(exchange.completion.text),
                *self.render(
                    "common/reask", problem=_problem_for_model(first), instructions=parser.instructions
                ),
            ]
            exchange = await self._generate(stage, retry, parser, config, order, facet)
            try:
                value = _read(parser, exchange.completion, limit)
            except ParseError as second:
                self._record(stage, exchange, None, second.problem, order)
                raise ParseError(
                    f"{second.problem} (the reply to one re-ask could not be read either)",
                    raw=exchange.completion.text,
                    stage=stage,
                ) from second
        sources = None
        if scoring:
            value, sources = _rescored(parser, value, exchange)
        choice = None
        if choosing:
            reader: ChoiceReader = parser  # type: ignore[assignment]
            choice = choice_source(exchange.completion.text, exchange.completion.logprobs, reader)
        self._record(stage, exchange, value, None, order, sources, choice)
        return value

    async def shared(self, key: Hashable, compute: Callable[[JudgeContext], Awaitable[T]]) -> T:
        """``compute`` once per run for ``key``; every caller gets its value and its trace entries.

        The caller that computed carries the entries' usage; others get copies marked ``reused``.
        """

        async def run() -> _Shared:
            sub = JudgeContext(
                self.llm,
                self.memo,
                score_mode=self.score_mode,
                top_logprobs=self.top_logprobs,
                prompts=self.prompts,
            )
            try:
                return _Shared(await compute(sub), None, sub.trace)
            except Exception as exc:
                return _Shared(None, exc, sub.trace)

        result, owner = await self.memo.get(key, run)
        self.trace.extend(result.entries if owner else _reused(result.entries))
        if result.error is not None:
            raise result.error
        return result.value  # type: ignore[no-any-return]

    async def _generate(
        self,
        stage: str,
        messages: Sequence[Message],
        parser: Parser[Any],
        config: GenerateConfig | None,
        order: list[int] | None,
        facet: str | None,
    ) -> Exchange:
        """One exchange; a call that failed for good is traced (with its attempts), then raised."""
        readable = functools.partial(_readable, parser)
        try:
            with labelled(stage=stage, facet=facet):
                return await self.llm.generate(
                    messages, config=config, example=parser.example, readable=readable
                )
        except ProviderError as error:
            self.trace.append(
                TraceEntry(
                    stage=stage,
                    messages=[m.to_dict() for m in messages],
                    raw="",
                    error=f"{type(error).__name__}: {error}",
                    order=order,
                    attempts=error.attempts,
                )
            )
            raise

    def _record(
        self,
        stage: str,
        exchange: Exchange,
        value: Any,
        problem: str | None,
        order: list[int] | None,
        scoring: tuple[ScoreSource, ...] | None = None,
        choice: ScoreSource | None = None,
    ) -> None:
        completion = exchange.completion
        self.trace.append(
            TraceEntry(
                stage=stage,
                messages=[m.to_dict() for m in exchange.messages],
                raw=completion.text,
                parsed=_jsonable(value),
                problem=problem,
                order=order,
                cached=exchange.cached,
                planned=exchange.planned,
                input_tokens=completion.input_tokens,
                output_tokens=completion.output_tokens,
                cost_usd=exchange.cost_usd,
                finish_reason=completion.finish_reason,
                model=completion.model,
                attempts=exchange.attempts,
                scoring=None if scoring is None else list(scoring),
                choice=choice,
            )
        )


def _rescored(parser: Any, value: T, exchange: Exchange) -> tuple[T, tuple[ScoreSource, ...]]:
    """``value`` with its scores obtained from the reply's log-probabilities where they allow."""
    reader: ScoreReader[Any] = parser
    completion = exchange.completion

    def read(text: str) -> tuple[float, ...]:
        return reader.scores_of(parser.parse(text))

    sources = score_sources(completion.text, completion.logprobs, read, reader.scale)
    return reader.rescored(value, sources), sources


def _readable(parser: Parser[Any], text: str) -> bool:
    try:
        parser.parse(text)
    except ParseError:
        return False
    return True


def _reused(entries: list[TraceEntry]) -> list[TraceEntry]:
    return [entry.model_copy(update={"reused": True}) for entry in entries]


_NOT_TRACED = frozenset({"explanation", "sources", "source"})
"""Fields of a parsed value left out of a trace entry's ``parsed``: the reply itself, and how the
scores were obtained (the entry's ``scoring``)."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_defaults=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _jsonable(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in _NOT_TRACED
        }
    if isinstance(value, tuple | list):
        return [_jsonable(item) for item in value]
    return value


def with_examples(messages: Sequence[Message], examples: str) -> list[Message]:
    """``messages`` with ``examples`` before the first user message's text (after any system message)."""
    shown = list(messages)
    for index, message in enumerate(shown):
        if message.role == "user":
            shown[index] = dataclasses.replace(message, content=f"{examples}\n\n{message.content}")
            return shown
    return [*shown, Message("user", examples)]


CUT_OFF = "the reply was cut off at max_tokens"
"""How the problem of a reply cut off at the token limit begins (`_read`)."""


def _problem_for_model(error: ParseError) -> str:
    """What the re-ask tells the model of its reply's problem: as the run reports it, except that a
    reply cut off at the token limit is told to be shorter (``--max-tokens`` is the user's to raise,
    not the model's: a model shown that advice has been seen to repeat it as its answer)."""
    cause = error.__cause__
    if isinstance(cause, ParseError) and error.problem.startswith(CUT_OFF):
        return (
            f"it was too long and was cut off before it was complete, so {cause.problem.rstrip('.')}; "
            "write a shorter reply"
        )
    return error.problem.rstrip(".")


def _read(parser: Parser[T], completion: Completion, max_tokens: int) -> T:
    """``parser``'s value of the reply; a reply it cannot read that was cut off at the token limit
    (finish reason ``length``) is said to be cut off, since that, not its form, is what went wrong.

    Raises:
        ParseError: The reply cannot be read.
    """
    try:
        return parser.parse(completion.text)
    except ParseError as exc:
        if completion.finish_reason != "length":
            raise
        problem = exc.problem.rstrip(".")
        raise ParseError(
            f"{CUT_OFF} {max_tokens} (finish reason length) before it was "
            f"complete, so {problem}; raise --max-tokens (GenerateConfig(max_tokens=...) in Python)",
            raw=exc.raw or completion.text,
        ) from exc
