"""``faceteval judge``: parse flags, build the method and LLM, call the library, show the results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from faceteval._cli._app import config_prices, err_console, handle_errors
from faceteval._cli._display import show_invalid, show_plan, show_summary
from faceteval._cli._run import RunRequest, default_cache_path, run_judge
from faceteval.datasets import load_criteria
from faceteval.llm import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, GenerateConfig, PriceTable, RetryPolicy
from faceteval.methods import AGGREGATES, DEFAULT_ASPECTS, create_method, method_names

DNA_ONLY = ("aspects", "aggregate")


@click.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--method", type=click.Choice(method_names()), default="dna", show_default=True, help="How to judge."
)
@click.option(
    "--model", envvar="FACETEVAL_MODEL", help="provider:model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b."
)
@click.option(
    "--base-url", help="An OpenAI-compatible endpoint (vLLM, llama.cpp, LM Studio); default OPENAI_BASE_URL."
)
@click.option("--api-key", help="Overrides OPENAI_API_KEY / ANTHROPIC_API_KEY. A local server needs none.")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Judgments JSONL (default: stdout)."
)
@click.option(
    "--aspects",
    type=click.IntRange(1, 20),
    default=DEFAULT_ASPECTS,
    show_default=True,
    help="dna: aspects generated per query when there are no predefined criteria.",
)
@click.option(
    "--criteria",
    "criteria_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YAML/JSON criteria for every instance (overrides the instances' own).",
)
@click.option(
    "--aggregate",
    type=click.Choice(AGGREGATES),
    default="weighted",
    show_default=True,
    help="dna: weighted sum with LLM-proposed weights, plain mean, or LLM-prompted (ablation).",
)
@click.option(
    "--swap", is_flag=True, help="Judge both candidate orders (rotations for more); ties if they disagree."
)
@click.option(
    "--strict", is_flag=True, help="Check the whole input first; stop before any call if a line is bad."
)
@click.option(
    "--dry-run", is_flag=True, help="Print the calls and estimated tokens and cost per stage; call nothing."
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 1024),
    default=DEFAULT_CONCURRENCY,
    show_default=True,
    help="LLM calls in flight at once.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds per call before it is retried.",
)
@click.option(
    "--retries",
    type=click.IntRange(0, 20),
    default=RetryPolicy().max_retries,
    show_default=True,
    help="Retries on 429 / 5xx / timeouts / connection errors.",
)
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--max-tokens", type=click.IntRange(1), default=1024, show_default=True)
@click.option("--seed", type=int, default=None, help="Sent to providers that honour a seed.")
@click.option(
    "--cache",
    "cache_path",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="FACETEVAL_CACHE",
    help="Response cache (SQLite). Default: ~/.cache/faceteval/responses.sqlite.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the response cache.")
@click.option(
    "--prices",
    "prices_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML price table that extends the built-in one (USD per 1M tokens).",
)
@click.option(
    "--trace/--no-trace",
    default=True,
    show_default=True,
    help="Keep every prompt and raw reply in the judgments.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.pass_context
@handle_errors
def judge(ctx: click.Context, /, **flags: Any) -> None:
    """Judge the instances in INPUT (canonical JSONL) and write one judgment per line.

    \b
    Examples:
      faceteval judge pairs.jsonl --method dna --model openai:gpt-4o-mini --out judgments.jsonl
      faceteval judge pairs.jsonl --model openai:judge --base-url http://127.0.0.1:8000/v1 --out j.jsonl
      faceteval judge pairs.jsonl --model ollama:qwen2.5:7b --aspects 5 --swap --out j.jsonl
      faceteval judge pairs.jsonl --criteria criteria.yaml --aggregate mean --model ... --out j.jsonl
      faceteval judge pairs.jsonl --method cot --model openai:gpt-4o --dry-run

    Re-running an interrupted command finishes the rest from the response cache.
    """
    if not flags["model"]:
        raise click.UsageError(
            "--model is required (or set FACETEVAL_MODEL, or model in faceteval.toml [judge])"
        )
    misplaced = [
        f"--{n}" for n in DNA_ONLY if ctx.get_parameter_source(n) == click.core.ParameterSource.COMMANDLINE
    ]
    if misplaced and flags["method"] != "dna":
        raise click.UsageError(f"{', '.join(misplaced)} only applies to --method dna")
    request = RunRequest(
        input_path=flags["input_path"],
        method=_method(flags),
        model=flags["model"],
        base_url=flags["base_url"],
        api_key=flags["api_key"],
        out=flags["out"],
        swap=flags["swap"],
        strict=flags["strict"],
        dry_run=flags["dry_run"],
        concurrency=flags["concurrency"],
        timeout=flags["timeout"],
        retry=RetryPolicy(max_retries=flags["retries"]),
        config=GenerateConfig(
            temperature=flags["temperature"], max_tokens=flags["max_tokens"], seed=flags["seed"]
        ),
        cache_path=None if flags["no_cache"] else (flags["cache_path"] or default_cache_path(os.environ)),
        prices=_prices(flags["prices_path"]),
        trace=flags["trace"],
        progress=not flags["quiet"],
    )
    result = run_judge(request, on_invalid=show_invalid)
    if request.dry_run:
        show_plan(request, result)
    else:
        show_summary(request, result)
    if result.stopped is not None:
        raise result.stopped
    if result.interrupted:
        ctx.exit(130)


def _method(flags: dict[str, Any]) -> Any:
    criteria = load_criteria(flags["criteria_path"]) if flags["criteria_path"] else None
    if flags["method"] == "dna":
        return create_method("dna", aspects=flags["aspects"], criteria=criteria, aggregate=flags["aggregate"])
    return create_method(flags["method"], criteria=criteria)


def _prices(path: Path | None) -> PriceTable:
    table = PriceTable.default()
    if extra := config_prices():
        table = table.extended(PriceTable.from_mapping(extra, source="faceteval.toml [prices]"))
    if path is not None:
        table = table.extended(PriceTable.from_file(path))
    return table


__all__ = ["err_console", "judge"]
