"""What the ``judge`` command prints: warnings, the dry-run plan, the end-of-run summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

from faceteval._cli._console import Console, err_console, escape
from faceteval._runner import INVALID_INPUT, UNJUDGEABLE, JudgeSpec, calibration_of
from faceteval._util.text import plural
from faceteval.core import Judgment, Usage
from faceteval.llm import Panel, Quote, Spend
from faceteval.llm.internal import CHARS_PER_TOKEN

if TYPE_CHECKING:
    from faceteval._runner import JudgeJob, RunResult


SHOWN_ERROR_KINDS = 3


def show_invalid(judgment: Judgment) -> None:
    """Warn about an input line that is not a valid instance (it is written with status error)."""
    message = (judgment.error or "").removeprefix(INVALID_INPUT)
    err_console.print(f"[yellow]invalid input:[/] {escape(message)}")


def judge_named(job: JudgeJob) -> str:
    """The judge as a summary names it: its model, or ``panel (vote): a, b``."""
    judge = job.judge
    return judge.name if isinstance(judge, JudgeSpec) else _models(job)


def _models(job: JudgeJob) -> str:
    """The judge's model, or its panel's models: ``a or b``."""
    judge = job.judge
    if isinstance(judge, JudgeSpec):
        return " or ".join(spec for spec, _ in judge.panel) if judge.panel else judge.model
    return " or ".join(str(llm.spec) for llm in (judge.judges if isinstance(judge, Panel) else (judge,)))


def _quotes(job: JudgeJob) -> list[tuple[str, Quote]]:
    """Each of the judge's models with its price and where the price came from."""
    judge = job.judge
    if isinstance(judge, JudgeSpec):
        models = [spec for spec, _ in judge.panel] if judge.panel else [judge.model]
        return [(model, judge.prices.quote(model)) for model in models]
    llms = judge.judges if isinstance(judge, Panel) else (judge,)
    return [(str(llm.spec), llm.prices.quote(str(llm.spec))) for llm in llms]


def _cost(stage: Spend) -> str:
    if not stage.cost_known:
        return "unknown"
    return f"${stage.cost_usd:,.4f}"


def show_plan(job: JudgeJob, result: RunResult, *, subject: str | None = None) -> None:
    """The dry-run table: calls, cache hits, estimated tokens and cost per stage.

    ``subject`` says what is judged (by default the input file), e.g. a benchmark and its sample.
    """
    stats = result.stats
    on = subject if subject is not None else str(job.input_path)
    table = Table(
        title=f"Dry run: {escape(job.method.name)} with {escape(judge_named(job))} on {escape(on)}",
        title_justify="left",
    )
    stages = [*sorted(stats.stages.items()), ("total", stats.total)]
    cells = [
        (
            name,
            f"{stage.planned:,}",
            f"{stage.cached:,}",
            f"{stage.input_tokens:,}",
            f"{stage.output_tokens:,}",
            _cost(stage),
        )
        for name, stage in stages
    ]
    # Two-line headings keep the table within 80 columns, where no stage's name or number is cut.
    for column in ("stage", "calls", "cached", "est. input\ntokens", "est. output\ntokens", "est. cost"):
        table.add_column(column, justify="left" if column == "stage" else "right", no_wrap=True)
    for row in cells:
        table.add_row(*row, end_section=row is cells[-2] if len(cells) > 1 else False)
    console = err_console
    console.print(table)
    instances = stats.judged - stats.invalid
    orders = (
        " with --swap (a pair in both orders, more candidates in each rotation)" if job.options.swap else ""
    )
    console.print(
        f"{plural(instances, 'instance')}{orders}; {plural(stats.invalid, 'invalid input line')}. "
        "No LLM was called. "
        f"Tokens are estimated at ~{CHARS_PER_TOKEN:g} characters per token; replies are assumed "
        "readable (re-asks not counted); cached replies cost nothing."
    )
    for model, quote in _quotes(job):
        if quote.price is None:
            console.print(
                f"No price is known for {escape(model)}: add one with --prices FILE (genai-prices "
                "does not know it, nor does the price table)."
            )
        else:
            console.print(f"Price of {escape(model)}: {escape(quote.describe())}.")
    if stats.unjudgeable:
        they = "it is" if stats.unjudgeable == 1 else "they are"
        console.print(f"[red]{plural(stats.unjudgeable, 'instance')} cannot be judged as {they}:[/]")
        cannot = Counter({message: n for message, n in stats.errors.items() if UNJUDGEABLE in message})
        show_failures(cannot, stats.examples, console, failed=stats.unjudgeable)


def show_summary(job: JudgeJob, result: RunResult, *, kept: Path | None = None) -> None:
    """What the run did: judgments by status, calls, cache hits, tokens, cost, where it is written
    (or that ``kept``, the output by default, is left as it was)."""
    stats = result.stats
    console = err_console
    left = escape(f"{job.outputs.out if kept is None else kept} is left as it was")
    if result.stopped is not None and not stats.judged:  # a wrong endpoint or key: its error says it all
        if result.kept:
            console.print(f"Nothing was judged; {left}.")
        return
    if result.interrupted:
        console.print(interrupted_note(job, reuses=job.outputs.out is not None))
    parse_errors, errors = stats.statuses.get("parse_error", 0), stats.statuses.get("error", 0)
    notes = [plural(stats.invalid, "invalid input line")] if stats.invalid else []
    notes += [f"{stats.reused:,} reused from an earlier output"] if stats.reused else []
    invalid = f" ({'; '.join(notes)})" if notes else ""
    table = Table.grid(padding=(0, 2))
    abstained = stats.statuses.get("abstained", 0)
    table.add_row(
        "judged",
        f"{stats.judged:,} of {result.instances:,}: {stats.statuses.get('ok', 0):,} ok, "
        f"{f'{abstained:,} abstained, ' if abstained or job.options.calibration else ''}"
        f"{plural(parse_errors, 'parse error')}, {plural(errors, 'error')}{invalid}",
    )
    if stats.consistency:
        agreed, both = stats.consistency.get(True, 0), sum(stats.consistency.values())
        table.add_row("orders agreed", f"{agreed:,} of {both:,} ({agreed / both:.1%})")
    if stats.score_modes:
        table.add_row("scores", modes_line(stats.score_modes))
    if job.options.prefix_cache and (share := stats.prefix.share) is not None:  # always in the run record
        table.add_row("shared prefix", f"{share:.0%} of the per-facet prompts (--prefix-cache)")
    spent = result.spent if result.batch is None else result.spent + result.batch.spend()
    usage_rows(table, _models(job), spent)
    if (batch := result.batch) is not None:
        unanswered = batch.record.unanswered
        table.add_row(
            "batches",
            f"{batch.record.provider}: {plural(batch.record.rounds, 'round')}, "
            f"{plural(batch.record.batches, 'batch')}, {plural(batch.record.requests, 'request')} answered "
            f"(at the batch rate){f', {unanswered:,} given up unanswered' if unanswered else ''}",
        )
    table.add_row("time", f"{result.elapsed:,.1f} s")
    if job.outputs.out is not None and result.kept:
        table.add_row("written", f"nothing: no ok judgment; {left}")
    elif job.outputs.out is not None:
        record = f" (run record: {result.record_path})" if result.record_path else ""
        table.add_row("written", escape(f"{job.outputs.out}{record}"))
    console.print(table)
    if (calibration := calibration_of(job.options)) is not None:
        console.print(f"Guarantee: {escape(calibration.guarantee())}; abstained verdicts are in no win rate.")
    show_failures(stats.errors, stats.examples, failed=parse_errors + errors)


def modes_line(modes: Mapping[str, int]) -> str:
    """How a ``--score-mode logprobs`` run's scores were obtained, in one line.

    Examples:
        >>> modes_line({"logprobs": 40, "parse": 2})
        '40 expected from log-probabilities, 2 parsed (the fallback)'
    """
    parts = [f"{modes.get('logprobs', 0):,} expected from log-probabilities"]
    if modes.get("parse"):
        parts.append(f"{modes['parse']:,} parsed (the fallback)")
    if modes.get("mixed"):
        parts.append(f"{modes['mixed']:,} mixed over the orders")
    return ", ".join(parts)


def calls_line(usage: Usage, spent: Spend) -> str:
    """One line on LLM use: the calls (with cache hits), and the tokens and cost of the calls made."""
    cost = f"${spent.cost_usd:,.4f}" if spent.cost_known else "unknown"
    return (
        f"LLM calls: {usage.calls} ({usage.cached_calls} from cache); tokens of the calls made: "
        f"{spent.input_tokens:,} in, {spent.output_tokens:,} out; cost: {cost}."
    )


def interrupted_note(job: JudgeJob, *, reuses: bool = False) -> str:
    """What an interrupted run says about finishing it: from the cache, or (--no-cache) from scratch
    (from its ok judgments, for a command that ``reuses`` them)."""
    if job.outputs.cache is None and reuses:
        return (
            "[bold yellow]Interrupted.[/] What was finished is written; with --no-cache, running the "
            "command again reuses its ok judgments and asks the rest again."
        )
    if job.outputs.cache is None:
        return (
            "[bold yellow]Interrupted.[/] What was finished is written; with --no-cache, running the "
            "command again asks everything again."
        )
    return (
        "[bold yellow]Interrupted.[/] Every reply received so far is in the cache: "
        "re-run the same command to finish the rest."
    )


def usage_rows(table: Table, model: str, spent: Spend) -> None:
    """The summary's rows on LLM use: calls, tokens, cost."""
    table.add_row(
        "LLM calls", f"{spent.calls:,} made, {spent.cached:,} from cache, {plural(spent.retries, 'retry')}"
    )
    cached = (
        f" ({spent.cached_input_tokens:,} from the provider's prompt cache)"
        if spent.cached_input_tokens
        else ""
    )
    table.add_row("tokens", f"{spent.input_tokens:,} in{cached}, {spent.output_tokens:,} out (calls made)")
    cost = (
        _cost(spent) if spent.cost_known else f"unknown (no price for {escape(model)}; add one with --prices)"
    )
    table.add_row("cost", cost)


def show_failures(
    errors: Counter[str],
    examples: Mapping[str, str],
    console: Console = err_console,
    *,
    failed: int | None = None,
) -> None:
    """The commonest failure messages, each with the first item that met it, then how many are not shown.

    ``failed`` is how many failures there were in all, when ``errors`` may not hold every message.
    """
    shown = errors.most_common(SHOWN_ERROR_KINDS)
    for message, count in shown:
        also = f" (and {count - 1:,} more)" if count > 1 else ""
        console.print(f"[red]failed:[/] {escape(examples[message])}{also}: {escape(message)}")
    rest = (sum(errors.values()) if failed is None else failed) - sum(count for _, count in shown)
    if rest > 0:
        console.print(
            f"[red]failed:[/] {rest:,} more, with other messages (each is in the output with its error)"
        )
