"""What runs spent on their LLM, from their run records: calls, cached calls, retries, tokens, dollars, time.

A record's ``spend`` is what the run spent (a cached call costs nothing), where a meta-evaluation's
cost table (`cost_table`) prices the judgments, cached calls included.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from faceteval.report._format import DASH, count, dollars
from faceteval.report._markdown import table_lines
from faceteval.report._model import Table, numeric_columns
from faceteval.store import RunRecord, SpendRecord

SPEND_COLUMNS = ("Calls", "Cached calls", "Retries", "Input tokens", "Output tokens", "Cost (USD)", "Seconds")
"""What a spend is shown as, in order."""


def spend_cells(spend: SpendRecord | None) -> tuple[str, ...]:
    """A spend's cells, in `SPEND_COLUMNS` order; dashes when the record holds none.

    Examples:
        >>> spend_cells(SpendRecord(calls=1200, cached=3, input_tokens=9, cost_usd=0.5, seconds=2.25))
        ('1,200', '3', '0', '9', '0', '$0.5000', '2.2')
        >>> spend_cells(SpendRecord(calls=2))[5], spend_cells(None)[0]
        ('unknown', '—')
    """
    if spend is None:
        return (DASH,) * len(SPEND_COLUMNS)
    tallies = (spend.calls, spend.cached, spend.retries, spend.input_tokens, spend.output_tokens)
    seconds = count(spend.seconds) if spend.seconds is not None else DASH
    return (*(count(x) for x in tallies), dollars(spend.cost_usd), seconds)


def spend_table(records: Mapping[str, tuple[Path, RunRecord]]) -> Table:
    """One row per run (named as the key; its path and record the value): its input, items, LLM use
    and model.

    Its first columns are those of `cost_table`, so that a file of either is known as a cost table.
    """
    columns = ("Method", "Benchmark", "Instances", *SPEND_COLUMNS, "Model")
    rows = tuple(
        (name, _input_of(record), _items_of(record), *spend_cells(record.spend), _model(record))
        for name, (_, record) in records.items()
    )
    note = (
        "What each run spent, from its run record: calls made (retries among them), calls answered "
        "from the response cache (at no cost), tokens, dollars (unknown when the model's price is not) "
        "and wall-clock seconds. Instances: the items the run wrote (judgments, responses, records)."
    )
    return Table(columns, rows, note=note, numeric=numeric_columns(2, 8))


def render_spend_table(records: Mapping[str, tuple[Path, RunRecord]]) -> str:
    """`spend_table` as a Markdown table."""
    return "\n".join(table_lines(spend_table(records))).rstrip() + "\n"


def method_of(record: RunRecord) -> str:
    """What a record names as its method: its method's name, else what made it (`RunRecord.made_by`:
    Fennec's correction and bridging, HD-Eval), else its command.

    Examples:
        >>> from faceteval.store import JudgeRecord, MethodRecord
        >>> method_of(JudgeRecord(method=MethodRecord(name="dna"))), method_of(JudgeRecord())
        ('dna', 'judge')
    """
    if record.method is not None:
        return record.method.name
    made_by = record.made_by()
    return str(made_by["name"]) if made_by is not None else record.command


def _model(record: RunRecord) -> str:
    if record.llm is not None:
        return record.llm.model
    model = getattr(record.summary, "model", None)  # what an evaluator learned from (HD-Eval's)
    return model if isinstance(model, str) else DASH


def _input_of(record: RunRecord) -> str:
    benchmark = getattr(record.summary, "benchmark", None)  # a meta-evaluation's, an evaluator's
    if isinstance(benchmark, str) and benchmark:
        return benchmark
    if isinstance(benchmark := record.options.get("benchmark"), str):
        return benchmark
    given = record.inputs.get("input")
    return Path(given.path).name if given is not None and given.path else ""


def _items_of(record: RunRecord) -> str:
    items = record.summary.written_items() if record.summary is not None else None
    return DASH if items is None else count(items)
