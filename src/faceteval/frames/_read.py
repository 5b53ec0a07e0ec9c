"""The judgments of a Judgment JSONL file, each line checked, for the tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from faceteval._util.files import read_jsonl
from faceteval.core import Judgment
from faceteval.errors import InputError


def judgments_in(path: Path) -> Iterator[Judgment]:
    """The judgments of ``path`` (what ``faceteval judge`` writes), streamed.

    Raises:
        InputError: The file cannot be read, or a line is not a judgment (file, line and field named).
    """
    for line, record in read_jsonl(path):
        try:
            yield Judgment.model_validate(record)
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            field = ".".join(str(part) for part in first["loc"]) or None
            raise InputError(str(path), line, field, first["msg"].removeprefix("Value error, ")) from exc
