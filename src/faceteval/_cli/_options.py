"""Flags shared by the commands that call an LLM (``judge``, ``meta-eval``), and the run they build.

The methods' own flags come from their specs (`faceteval._cli._method_options`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from faceteval._cli._app import config_data_dir, config_prices, config_templates
from faceteval._cli._batch import BATCH_OPTIONS, check_batch_flags
from faceteval._cli._confidence import annotators_of
from faceteval._cli._numbers import FiniteFloat
from faceteval._cli._panel import panel_options
from faceteval._cli._run import default_cache_path
from faceteval._runner import (
    BatchMode,
    FileInstances,
    JobOutputs,
    JudgeJob,
    JudgeOptions,
    JudgeSpec,
    Mode,
    SyncMode,
)
from faceteval.aggregation import DEFAULT_PANEL_VOTE
from faceteval.batch import DEFAULT_BATCH_WINDOW, DEFAULT_POLL
from faceteval.core import SIGNALS
from faceteval.datasets import DATA_DIR_ENV, DEFAULT_DATA_DIR, Reading
from faceteval.datasets.internal import PLAIN_READING
from faceteval.errors import ConfigError
from faceteval.llm import (
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_REPLY_BYTES,
    DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_TIMEOUT,
    SCHEMA_DIALECTS,
    GenerateConfig,
    PriceTable,
    RetryPolicy,
)
from faceteval.methods import Method
from faceteval.methods.internal import DEFAULT_TOP_LOGPROBS, SCORE_MODES
from faceteval.prompts import Templates

F = TypeVar("F", bound=Callable[..., Any])

data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    envvar=DATA_DIR_ENV,
    default=lambda: config_data_dir() or DEFAULT_DATA_DIR,
    help=f"Where the benchmarks are. Default: ${DATA_DIR_ENV}, else data-dir in faceteval.toml (the "
    f"command's table, then the top level), else ./{DEFAULT_DATA_DIR}.",
)
"""``--data-dir``: where the benchmarks are read from (the flag, `DATA_DIR_ENV`, faceteval.toml, then
`DEFAULT_DATA_DIR`; click resolves the first three, a command's table of faceteval.toml before its top)."""


def force_flag(written: str = "--out") -> Callable[[F], F]:
    """``--force``: the outputs ``written`` names may replace files that are not this command's own."""
    return click.option(
        "--force",
        is_flag=True,
        help=f"Write {written} over files that are not this command's own output (a database, a file "
        "of another kind); never over its inputs, the cache or a directory.",
    )


force_option = force_flag()
"""``--force``: an output may replace a file that is not one of ours."""


class TemplatesDir(click.Path):
    """``--templates DIR``: the directory's templates, read and checked as the command line is read."""

    name = "directory"

    def __init__(self) -> None:
        super().__init__(exists=True, file_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The `Templates` of the directory ``value`` (a `Templates` given as it is)."""
        if isinstance(value, Templates):
            return value
        directory = super().convert(value, param, ctx)
        try:
            return Templates.from_dir(cast(Path, directory))
        except ConfigError as exc:
            self.fail(str(exc), param, ctx)


_ENGINE_OPTIONS: dict[str, Callable[[Any], Any]] = {
    "--model": click.option(
        "--model",
        envvar="FACETEVAL_MODEL",
        help="provider:model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b.",
    ),
    "--base-url": click.option(
        "--base-url",
        help="The API root: an OpenAI-compatible endpoint (vLLM, llama.cpp, LM Studio; default "
        "OPENAI_BASE_URL) or, for anthropic:, an Anthropic one.",
    ),
    "--endpoint-id": click.option(
        "--endpoint-id",
        help="A name for the endpoint's identity in cache keys in place of its URL: a server restarted "
        "on another port or host keeps its cached replies (the name is in the run record).",
    ),
    "--prefix-cache": click.option(
        "--prefix-cache",
        is_flag=True,
        help="Order each per-facet scoring prompt for a server's prefix cache: what an instance's calls "
        "share (instructions, query, candidates) first, the facet last. The papers' order otherwise.",
    ),
    "--api-key": click.option(
        "--api-key", help="Overrides OPENAI_API_KEY / ANTHROPIC_API_KEY. A local server needs none."
    ),
    "--criteria": click.option(
        "--criteria",
        "criteria_path",
        type=click.Path(dir_okay=False, path_type=Path),
        help="YAML/JSON criteria for every instance (overrides the instances' own).",
    ),
    "--swap": click.option(
        "--swap",
        is_flag=True,
        help="Judge both candidate orders (rotations for more); ties if they disagree.",
    ),
    "--templates": click.option(
        "--templates",
        type=TemplatesDir(),
        default=lambda: config_templates(),
        help="A directory of prompt templates in place of the built-in ones of the same names "
        "(DIR/dna/score.j2 replaces dna/score; `faceteval templates list` names them). Default: "
        "templates in faceteval.toml (the command's table, then the top level).",
    ),
    "--dry-run": click.option(
        "--dry-run",
        is_flag=True,
        help="Print the calls and estimated tokens and cost per stage; call nothing.",
    ),
    "--concurrency": click.option(
        "--concurrency",
        type=click.IntRange(1, 1024),
        default=DEFAULT_CONCURRENCY,
        show_default=True,
        help="LLM calls in flight at once.",
    ),
    "--timeout": click.option(
        "--timeout",
        type=FiniteFloat(min=0.1),
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Seconds per call before it is retried.",
    ),
    "--retries": click.option(
        "--retries",
        type=click.IntRange(0, 20),
        default=RetryPolicy().max_retries,
        show_default=True,
        help="Retries on 429 / 5xx / timeouts / connection errors.",
    ),
    "--max-retry-after": click.option(
        "--max-retry-after",
        type=FiniteFloat(min=0.0, max=24 * 3600.0),
        default=DEFAULT_MAX_RETRY_AFTER,
        show_default=True,
        help="Longest Retry-After wait honoured (seconds); a server that asks for longer fails the call "
        "at once, with the time it asked for.",
    ),
    "--rpm": click.option(
        "--rpm",
        type=click.IntRange(1),
        default=None,
        help="Requests per minute at most (the provider's rate limit), spread evenly; every judge that "
        "sends with the same key to the same endpoint shares it (a panel's, a cascade's). Default: none.",
    ),
    "--tpm": click.option(
        "--tpm",
        type=click.IntRange(1),
        default=None,
        help="Tokens per minute at most (the provider's rate limit), shared as --rpm is. Each request "
        "counts, before it is sent, its prompt estimated at 4 characters a token plus its whole "
        "--max-tokens. Default: none.",
    ),
    "--max-reply-bytes": click.option(
        "--max-reply-bytes",
        type=click.IntRange(1),
        default=DEFAULT_MAX_REPLY_BYTES,
        show_default=True,
        help="Largest reply body read from the server; a larger one fails its call (retried once).",
    ),
    "--temperature": click.option("--temperature", type=FiniteFloat(min=0.0), default=0.0, show_default=True),
    "--max-tokens": click.option("--max-tokens", type=click.IntRange(1), default=1024, show_default=True),
    "--seed": click.option("--seed", type=int, default=None, help="Sent to providers that honour a seed."),
    "--structured": click.option(
        "--structured",
        is_flag=False,
        flag_value="auto",
        default=None,
        type=click.Choice(["auto", *SCHEMA_DIALECTS]),
        help="Ask for every stage's reply as JSON under its schema (tool use for Anthropic), validated, "
        "re-asked once if invalid. How an OpenAI-compatible server gets the schema: json_schema "
        "(response_format json_schema), json_object (response_format json_object with the schema: "
        "llama-cpp-python), guided (guided_json: vLLM) or format (format: Ollama); alone or auto: "
        "json_schema, falling back to json_object for the run if the server refuses it. "
        "Default: the papers' free-text prompts.",
    ),
    "--cache": click.option(
        "--cache",
        "cache_path",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar="FACETEVAL_CACHE",
        help="Response cache (SQLite). Default: $FACETEVAL_CACHE, else "
        "$XDG_CACHE_HOME/faceteval/responses.sqlite (XDG_CACHE_HOME: ~/.cache when unset).",
    ),
    "--no-cache": click.option(
        "--no-cache",
        is_flag=True,
        help="Neither read nor write the response cache (judge still reuses the ok judgments of an "
        "earlier --out of the same job).",
    ),
    "--retry-unreadable": click.option(
        "--retry-unreadable",
        is_flag=True,
        help="Ask again the requests whose cached replies could not be read (an earlier run's "
        "parse errors); the new replies replace them in the cache.",
    ),
    "--prices": click.option(
        "--prices",
        "prices_path",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="YAML price table (USD per 1M tokens) whose entries take precedence over genai-prices' "
        "prices and the built-in ones.",
    ),
    "--trace": click.option(
        "--trace/--no-trace",
        default=True,
        show_default=True,
        help="Keep every prompt and raw reply in the judgments.",
    ),
    **BATCH_OPTIONS,
    "--quiet": click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
    "--otel": click.option(
        "--otel",
        is_flag=True,
        envvar="FACETEVAL_OTEL",
        help="Send OpenTelemetry spans of the run, its instances and LLM calls to the OTLP endpoint "
        "of OTEL_EXPORTER_OTLP_ENDPOINT (needs faceteval[otel]; docs/tracing.md).",
    ),
}


PANEL_MODEL_OPTION = click.option(
    "--model",
    multiple=True,
    envvar="FACETEVAL_MODEL",
    help="provider:model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b. Repeat it for a judge panel; "
    "MODEL@URL gives a judge its own endpoint (openai:qwen@http://127.0.0.1:8001/v1).",
)
"""``--model`` of the commands that judge with a panel too (``judge``, ``meta-eval``): repeatable."""


def scoring_options(command: F) -> F:
    """Add ``--score-mode`` and ``--top-logprobs`` (how the scoring stages obtain their scores)."""
    command = click.option(
        "--top-logprobs",
        type=click.IntRange(1, 20),
        default=DEFAULT_TOP_LOGPROBS,
        show_default=True,
        help="With --score-mode logprobs: alternatives asked for per token.",
    )(command)
    return click.option(
        "--score-mode",
        type=click.Choice(SCORE_MODES),
        default="parse",
        show_default=True,
        help="How scoring stages get their scores: parse the number written, or logprobs: the expected "
        "score over the score tokens' top log-probabilities (G-Eval), falling back to the number where "
        "the server sends none. OpenAI-compatible servers only (not Anthropic).",
    )(command)


def engine_options(*, exclude: tuple[str, ...] = (), panel: bool = False) -> Callable[[F], F]:
    """Add the model, endpoint, concurrency, retry, cache and trace flags to a command.

    ``exclude`` names flags (``"--seed"``) a command defines differently; with ``panel``, ``--model``
    is repeatable and ``--panel`` and ``--panel-vote`` are added (`faceteval._cli._panel`).
    """

    def decorate(command: F) -> F:
        for name, option in reversed(_ENGINE_OPTIONS.items()):
            if name == "--model" and panel:
                command = panel_options(PANEL_MODEL_OPTION(command))
            elif name not in exclude:
                command = option(command)
        return command

    return decorate


def given_flags(ctx: click.Context, *names: str) -> list[str]:
    """The flags, as typed, of the parameters ``names`` that were given on the command line."""
    return [
        "--" + name.replace("_", "-")
        for name in names
        if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    ]


def build_job(
    flags: dict[str, Any],
    *,
    input_path: Path,
    out: Path | None,
    method: Method,
    strict: bool = False,
    systems: tuple[str, ...] | None = None,
    reading: Reading = PLAIN_READING,
) -> JudgeJob:
    """The run the engine flags ask for, over ``input_path``.

    Raises:
        click.UsageError: Flags that cannot go together, or no model.
    """
    if not flags["model"]:
        raise click.UsageError("--model is required (or set FACETEVAL_MODEL, or model in faceteval.toml)")
    if flags["retry_unreadable"] and flags["no_cache"]:
        raise click.UsageError("--retry-unreadable asks again replies in the cache; --no-cache keeps none")
    check_batch_flags(flags)
    score_mode = flags.get("score_mode", "parse")
    top_logprobs = flags.get("top_logprobs", DEFAULT_TOP_LOGPROBS)
    if score_mode == "parse" and top_logprobs != DEFAULT_TOP_LOGPROBS:
        raise click.UsageError("--top-logprobs is used with --score-mode logprobs")
    options = JudgeOptions(
        swap=flags["swap"],
        trace=flags["trace"],
        score_mode=score_mode,
        top_logprobs=top_logprobs,
        templates=flags.get("templates"),
        order=flags.get("order", "input"),
        strict=strict,
        prefix_cache=bool(flags.get("prefix_cache")),
        calibration=flags.get("calibration"),
        human_labels=flags.get("human_labels"),
        confidence=flags.get("confidence", SIGNALS),
        annotators=annotators_of(flags),
    )
    outputs = JobOutputs(
        out=out,
        force=bool(flags.get("force")),
        cache=cache_of(flags),
        progress=not flags["quiet"],
        otel=bool(flags.get("otel")),
    )
    instances = FileInstances(input_path, reading, systems)
    return JudgeJob(
        instances, method, judge_spec(flags), options=options, outputs=outputs, mode=mode_of(flags)
    )


def judge_spec(flags: dict[str, Any]) -> JudgeSpec:
    """The judge the engine flags name: a model at an endpoint, or a panel (two ``--model`` or more)."""
    judges = tuple(flags.get("judges") or ())
    panel = tuple((spec, url or flags["base_url"]) for spec, url in judges) if len(judges) > 1 else ()
    return JudgeSpec(
        model=panel[0][0] if panel else flags["model"],
        base_url=panel[0][1] if panel else flags["base_url"],
        api_key=flags["api_key"],
        endpoint_id=flags.get("endpoint_id"),
        config=GenerateConfig(
            temperature=flags["temperature"],
            max_tokens=flags["max_tokens"],
            seed=flags["seed"],
            **structured_config(flags.get("structured")),
        ),
        concurrency=flags["concurrency"],
        timeout=flags["timeout"],
        retry=RetryPolicy(
            max_retries=flags["retries"],
            max_retry_after=flags.get("max_retry_after", DEFAULT_MAX_RETRY_AFTER),
        ),
        prices=_prices(flags["prices_path"]),
        retry_unreadable=flags["retry_unreadable"],
        max_reply_bytes=flags["max_reply_bytes"],
        dry_run=flags["dry_run"],
        panel=panel,
        panel_vote=flags.get("panel_vote") or DEFAULT_PANEL_VOTE,
        rpm=flags.get("rpm"),
        tpm=flags.get("tpm"),
    )


def structured_config(value: str | bool | None) -> dict[str, Any]:
    """`GenerateConfig`'s ``structured`` and ``schema_dialect`` for ``--structured``'s value: None or
    False is free text, ``auto`` (the flag alone) or True leaves the dialect to the LLM.

    Examples:
        >>> structured_config(None), structured_config("auto")
        ({'structured': False}, {'structured': True})
        >>> structured_config("json_object")
        {'structured': True, 'schema_dialect': 'json_object'}
    """
    if not value:
        return {"structured": False}
    if value is True or value == "auto":
        return {"structured": True}
    return {"structured": True, "schema_dialect": value}


def mode_of(flags: dict[str, Any]) -> Mode:
    """How the calls are made: one by one, or through ``--batch``'s API."""
    if flags.get("batch") is None:
        return SyncMode()
    return BatchMode(
        api=flags["batch"],
        poll=flags.get("batch_poll", DEFAULT_POLL),
        directory=flags.get("batch_dir"),
        endpoints=tuple(flags.get("batch_endpoints") or ()),
        window=flags.get("batch_window", DEFAULT_BATCH_WINDOW),
    )


def cache_of(flags: dict[str, Any]) -> Path | None:
    """The response cache the engine flags name (None with --no-cache)."""
    return None if flags["no_cache"] else (flags["cache_path"] or default_cache_path(os.environ))


def _prices(path: Path | None) -> PriceTable:
    table = PriceTable.default()
    if extra := config_prices():
        table = table.extended(PriceTable.from_mapping(extra, source="faceteval.toml [prices]"))
    if path is not None:
        table = table.extended(PriceTable.from_file(path, source=f"--prices {path}"))
    return table
