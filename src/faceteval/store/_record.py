"""The run record: what a command did, in one versioned schema for every command that writes one.

A record has a header (schema and faceteval versions, the command and its arguments, when it started
and finished, whether it was interrupted or stopped by an error), what it read (``inputs``, each
with its SHA-256) and wrote (``written``: each output's line count and SHA-256), the method
(``{name, params}``), the LLM, the options that change the results, the prompts' hashes, what the
LLM use cost (``spend``), and a ``summary`` of its own kind (`faceteval.store.JudgeSummary` ...).
Each command's record is a subclass of `RunRecord` with its ``command`` and its summary's type;
`AnyRunRecord` is their union, told apart by ``command``.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr
from pydantic_core import to_jsonable_python

from faceteval._util.urls import redact_urls
from faceteval._version import __version__
from faceteval.core import Instance
from faceteval.errors import FacetevalError, InputError
from faceteval.frames import judgments_to_pandas, summary_to_pandas
from faceteval.llm import Judge, Panel, Quote

if TYPE_CHECKING:
    import pandas as pd

RECORD_SUFFIX = ".run.json"
JUDGMENTS_NAME = "judgments.jsonl"
"""The judgments of a meta-evaluation run directory, beside its ``summary.json``."""

RECORD_SCHEMA = 2
"""The version of the run record schema this faceteval writes (1: each command's own shape)."""


class RecordPart(BaseModel):
    """A part of a run record: frozen, and no field it does not know."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class FileEntry(RecordPart):
    """An output as the run wrote it."""

    lines: int
    """Its line count."""
    sha256: str
    """The SHA-256 of its bytes."""


class InputFile(RecordPart):
    """A file the run read."""

    path: str | None = None
    """As given (relative to the working directory then, or absolute); None if not recorded."""
    absolute: str | None = None
    """Where it was: the absolute path (symlinks kept), None if not recorded."""
    sha256: str | None = None
    """The SHA-256 of its bytes when it was read, None if not recorded."""
    read_as: dict[str, JsonValue] | None = Field(default=None, exclude_if=lambda value: value is None)
    """How it was read when not as canonical instance JSONL (`faceteval.datasets.Reading`: its
    ``format``, ``preset``, ``fields`` and ``split``), so that later commands read it the same way;
    left out of the record when it was read as it is."""


class MethodRecord(RecordPart):
    """A judging method as it rebuilds: its registry name and factory parameters (`Method.describe`)."""

    name: str
    params: dict[str, JsonValue] = Field(default_factory=dict)

    @classmethod
    def of(cls, description: Mapping[str, Any]) -> MethodRecord:
        """The record of a method's ``describe()`` (tuples as lists, as JSON holds them)."""
        return cls.model_validate(to_jsonable_python(description))


class PriceRecord(RecordPart):
    """A model's price as a run used it (`faceteval.llm.PriceTable.quote`)."""

    model: str
    """``provider:model``."""
    source: str
    """Where the price came from: ``genai-prices <version>``, a ``--prices`` file, faceteval.toml's
    ``[prices]``, the built-in entries of models served locally, or ``unknown`` (no price: cost unknown)."""
    input: float | None = None
    """USD per million input tokens (None: unknown)."""
    output: float | None = None
    """USD per million output tokens."""
    cached_input: float | None = None
    """USD per million input tokens read from the provider's prompt cache (None: at the input price)."""

    @classmethod
    def of(cls, model: str, quote: Quote) -> PriceRecord:
        """The record of ``model``'s price as `faceteval.llm.PriceTable.quote` gave it."""
        return cls.model_validate({"model": model, **quote.as_dict()})


class LLMRecord(RecordPart):
    """The LLM a run asked (`faceteval.llm.LLM.describe`)."""

    model: str
    """``provider:model``."""
    identity: str | None = None
    """The endpoint's identity (provider and base URL), part of every cache key."""
    config: dict[str, JsonValue] | None = None
    """The generation parameters that change a reply (temperature, max tokens, seed ...)."""
    concurrency: int | None = None
    timeout: float | None = None
    max_retries: int | None = None
    rpm: int | None = None
    """Requests a minute the run sent within (``--rpm``); None: no limit."""
    tpm: int | None = None
    """Tokens a minute the run sent within (``--tpm``, each request at its estimate); None: no limit."""
    structured_fallback: str | None = None
    """The structured-output dialect the run fell back to (``json_object``) when the server refused
    ``json_schema``; None when it did not."""
    prices: list[PriceRecord] | None = Field(default=None, exclude_if=lambda value: value is None)
    """Each model's price (a panel's: each judge's) and where it came from; None (and left out) in
    records made before prices had sources."""

    @classmethod
    def of(cls, description: Mapping[str, Any]) -> LLMRecord:
        """The record of an LLM's ``describe()``."""
        return cls.model_validate(to_jsonable_python(description))

    @classmethod
    def of_judge(cls, judge: Judge) -> LLMRecord:
        """The record of a judge (an LLM, or a panel as one): its ``describe()``, with each model's
        price and where it came from."""
        llms = judge.judges if isinstance(judge, Panel) else (judge,)
        prices = [PriceRecord.of(str(llm.spec), llm.prices.quote(str(llm.spec))) for llm in llms]
        return cls.of({**judge.describe(), "prices": [price.model_dump() for price in prices]})


class SpendRecord(RecordPart):
    """What a run's LLM use came to: every call made, unfinished work's included."""

    calls: int = 0
    """Calls made to the provider (answered, or failed after their retries)."""
    cached: int = 0
    """Exchanges answered from the response cache."""
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    """Of ``input_tokens``, those the provider read from its prompt cache (priced at its cached rate)."""
    cost_usd: float | None = None
    """Dollars spent by the calls made; None when a model's price is not known."""
    seconds: float | None = None
    """The run's wall-clock time."""


class BatchRecord(RecordPart):
    """How a ``--batch`` run sent its calls: through a provider's batch API, in rounds."""

    provider: str
    """The batch API (``openai``, ``anthropic``)."""
    rounds: int
    """The rounds this run submitted (a round is a level of the method's calls, or a retry)."""
    batches: int
    """The batches this run's rounds were sent as."""
    requests: int
    """The requests those batches answered and the cache took in (a killed run's batches included)."""
    unanswered: int = 0
    """The requests the rounds gave up on: no batch answered them in rounds in a row that answered
    nothing (the work that needed them failed, with the batch's reason; the run exits 5)."""


class Spent(Protocol):
    """LLM use as `faceteval.llm.Spend` counts it."""

    calls: int
    cached: int
    retries: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    cost_known: bool
    cached_input_tokens: int


def spend_of(spent: Spent, seconds: float | None = None) -> SpendRecord:
    """The record of ``spent`` over ``seconds`` (rounded to milliseconds)."""
    return SpendRecord(
        calls=spent.calls,
        cached=spent.cached,
        retries=spent.retries,
        input_tokens=spent.input_tokens,
        output_tokens=spent.output_tokens,
        cached_input_tokens=spent.cached_input_tokens,
        cost_usd=spent.cost_usd if spent.cost_known else None,
        seconds=None if seconds is None else round(seconds, 3),
    )


class RecordSummary(RecordPart):
    """What a command did, in its own terms: each command's record has its own kind."""

    def written_items(self) -> int | None:
        """The items the run wrote (judgments, responses, records), where its command counts them."""
        return None


class RunRecord(RecordPart):
    """The fields every run record has. A command's record (`JudgeRecord` ...) adds its ``summary``.

    Fields an older record did not have are None (or empty) when it is read.
    """

    schema_version: int | None = RECORD_SCHEMA
    """The schema the record was written in: 1 before one schema for every command, None when it named
    none (an HD-Eval ``evaluator.json`` of its own format, a record written by hand)."""
    faceteval_version: str | None = None
    command: str
    """The command that wrote it: ``judge``, ``meta-eval``, ``correct``, ``bridge``, ``hdeval train``,
    ``criteria generate``."""
    argv: list[str] | None = None
    """The process's arguments (``sys.argv``): the command line, or the Python program."""
    started_at: str | None = None
    """ISO 8601, UTC, to the second."""
    finished_at: str | None = None
    interrupted: bool = False
    """Ctrl-C or SIGTERM ended the run early; what was finished is written."""
    stopped_by: str | None = None
    """The error that ended the run early, if one did."""
    inputs: dict[str, InputFile] = Field(default_factory=dict)
    """The files read, by role (``input``, ``judgments`` ...)."""
    output: str | None = None
    """Where the command was told to write (a file or a directory), as given."""
    method: MethodRecord | None = None
    llm: LLMRecord | None = None
    options: dict[str, JsonValue] = Field(default_factory=dict)
    """The options that change what was done (``swap``, ``threshold`` ...), each command its own."""
    prompts: dict[str, str] = Field(default_factory=dict)
    """The SHA-256 of every template the run could render, by template name."""
    prompt_sources: dict[str, str] = Field(default_factory=dict)
    """Where each of those templates came from, by name: ``built-in``, or the file of your own that
    replaced it (``--templates DIR``); empty in a record written before templates could be replaced."""
    spend: SpendRecord | None = None
    batch: BatchRecord | None = None
    """With ``--batch``: the rounds and batches the replies came through (``spend`` then counts their
    tokens and their cost at the batch rate)."""
    summary: RecordSummary | None = None
    written: dict[str, FileEntry] = Field(default_factory=dict)
    """The outputs put in place, by path relative to the record's folder (a name, mostly)."""
    _location: Path | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        """Records are equal when what they hold is, wherever they were read from."""
        if not isinstance(other, RunRecord):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # as before: a record holds dicts

    @property
    def location(self) -> Path | None:
        """The file the record was read from (`read_record`, `read_run`); None for one made in memory."""
        return self._location

    def located(self, path: Path) -> Self:
        """This record, as read from ``path`` (where its outputs are looked for)."""
        self._location = path
        return self

    def to_pandas(
        self,
        table: Literal["judgments", "summary"] = "judgments",
        *,
        facets: bool = False,
        instances: Iterable[Instance | InputError] | None = None,
    ) -> pd.DataFrame:
        """The run's judgments (read from the file beside the record) or its summary, as a DataFrame.

        ``judgments``: `faceteval.judgments_to_pandas` of the judgments the run wrote (``facets``
        and ``instances`` as there; the systems named by ``--systems`` are used when ``instances``
        name none). ``summary``: a judge run's result per system (`faceteval.frames.result_to_pandas`),
        a sweep's runs one a row, or any other summary as one row.

        Raises:
            MissingDependencyError: pandas is not installed (``pip install 'faceteval[pandas]'``).
            InputError: The record was not read from a file, or its judgments file is not there.
        """
        if table == "summary":
            return self.summary_table()
        if table != "judgments":
            raise ValueError(f"table is 'judgments' or 'summary', got {table!r}")
        systems = self.options.get("systems")
        named = [str(s) for s in systems] if isinstance(systems, list) else None
        path = judgments_beside(self)
        return judgments_to_pandas(path, instances=instances, systems=named, facets=facets)

    def made_by(self) -> dict[str, Any] | None:
        """What lists of runs name as the method of a record that names none (``{name, params}``: a
        family's correction, say); None: its command's name. Kinds refine it."""
        return None

    def summary_table(self) -> pd.DataFrame:
        """The summary as a DataFrame of one row (nested fields as dotted columns); kinds refine it."""
        summary = self.summary
        return summary_to_pandas(
            [{} if summary is None else summary.model_dump(mode="json", exclude_unset=True)]
        )

    def finished(self, **update: Any) -> Self:
        """This record with ``update``, as a run that ends now writes it: the header's versions,
        command line and finish time (its start kept; now when it has none).

        Examples:
            >>> from faceteval.store import TrainRecord
            >>> record = TrainRecord(started_at="2025-01-02T00:00:00+00:00").finished(options={"seed": 1})
            >>> record.started_at, record.options, record.finished_at is not None
            ('2025-01-02T00:00:00+00:00', {'seed': 1}, True)
        """
        ending = header(self.command, datetime.now(UTC))
        if self.started_at is not None:
            ending["started_at"] = self.started_at
        return self.model_copy(update={**ending, **update})

    def to_json(self) -> str:
        """The record as its file holds it: indented JSON, the summary as it was given (its unset
        fields left out), no NaN or infinity.

        Raises:
            ValueError: A number is not finite.
        """
        data = self.model_dump(mode="json", exclude={"summary", "written"})
        summary = self.summary
        data["summary"] = None if summary is None else summary.model_dump(mode="json", exclude_unset=True)
        data["written"] = {name: entry.model_dump(mode="json") for name, entry in self.written.items()}
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def judgments_beside(record: RunRecord) -> Path:
    """The judgments file a record's run wrote: ``j.jsonl`` beside ``j.run.json``, or the
    ``judgments.jsonl`` of the run directory whose ``summary.json`` it is.

    Raises:
        InputError: The record was not read from a file, or there is no such file.
    """
    where = record.location
    if where is None:
        raise InputError(
            "run record", None, None, "made in memory, not read from a file: read it with read_run(path)"
        )
    stem = where.name.removesuffix(RECORD_SUFFIX)
    if stem != where.name:
        suffix = Path(record.output).suffix if record.output else ""
        path = where.with_name(stem + (suffix or ".jsonl"))
    else:
        path = where.with_name(JUDGMENTS_NAME)
    if not path.is_file():
        raise InputError(str(path), None, None, f"no judgments file beside the run record {where.name}")
    return path


SECRET_FLAGS = frozenset({"--api-key"})
"""Flags whose values no record (nor a report of one) keeps."""


def redacted(argv: Sequence[str]) -> list[str]:
    """A command line with the value of every secret flag (``--api-key``) hidden, and the credentials
    in every URL (`faceteval._util.urls.redact_url`), as records keep it.

    Examples:
        >>> redacted(["faceteval", "judge", "--api-key", "sk-1", "--api-key=sk-2", "--out", "j.jsonl"])
        ['faceteval', 'judge', '--api-key', '***', '--api-key=***', '--out', 'j.jsonl']
        >>> redacted(["--base-url", "http://u:pw@h/v1?api-key=k", "--model=openai:m@http://t@h2/v1"])
        ['--base-url', 'http://***@h/v1?api-key=***', '--model=openai:m@http://***@h2/v1']
    """
    shown = []
    for before, arg in zip(["", *argv], argv, strict=False):
        flag = arg.split("=", 1)[0]
        if flag in SECRET_FLAGS and "=" in arg:
            arg = f"{flag}=***"
        elif before in SECRET_FLAGS:
            arg = "***"
        shown.append(redact_urls(arg))
    return shown


def header(
    command: str, started: datetime, *, interrupted: bool = False, stopped: BaseException | None = None
) -> dict[str, Any]:
    """What every record begins with: versions, the command and its arguments, times, how it ended."""
    return {
        "schema_version": RECORD_SCHEMA,
        "faceteval_version": __version__,
        "command": command,
        "argv": redacted(sys.argv),
        "started_at": _second(started),
        "finished_at": _second(datetime.now(UTC)),
        "interrupted": interrupted,
        "stopped_by": None if stopped is None else stop_reason(stopped),
    }


def _second(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def stop_reason(error: BaseException) -> str:
    """What stopped a run, as its record says: a faceteval error's message, else its kind too.

    Examples:
        >>> stop_reason(FacetevalError("no space left")), stop_reason(ValueError("bug"))
        ('no space left', 'ValueError: bug')
    """
    return str(error) if isinstance(error, FacetevalError) else f"{type(error).__name__}: {error}"


def input_file(path: Path, sha256: str | None = None) -> InputFile:
    """A file read: as given, where it was, and its SHA-256 (computed now unless given).

    Raises:
        InputError: The file cannot be read.
    """
    return InputFile(path=str(path), absolute=os.path.abspath(path), sha256=sha256 or file_sha256(path))


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file ``path``.

    Raises:
        InputError: It cannot be read.
    """
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    return digest.hexdigest()
