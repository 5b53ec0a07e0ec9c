"""Reusing the ok judgments of an earlier run of the same job, so that a re-run never loses them.

A re-run without a response cache would otherwise pay for every judgment again, and one
interrupted early would end with fewer ok judgments than the run before it. The earlier output is
reused only when its run record says it is of the same job (the same input content, method, LLM
and options, the same prompts) and was written with the output as it is now.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter, deque
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from faceteval.core import Instance, Judgment
from faceteval.errors import InputError
from faceteval.store import JudgeRecord, read_record
from faceteval.store.internal import describes, parse_record

LLM_FIELDS = ("model", "identity", "config")
"""What of a run record's ``llm`` makes the replies what they are (not its concurrency or timeout)."""
OPTION_FIELDS = (
    "swap",
    "trace",
    "score_mode",
    "top_logprobs",
    "confidence",
    "annotators",
    "shots_per_annotator",
    "shots_seed",
    "shots_sha256",
)
"""What of a run record's ``options`` changes the judgments."""

_Key = tuple[str, str | None]


def job_of(record: JudgeRecord | Mapping[str, Any]) -> dict[str, Any]:
    """What of a ``judge`` run record makes two runs the same job (as JSON reads it back); a mapping
    is read as a record file holds it (of any schema).

    Examples:
        >>> first = {"input_sha256": "ab", "llm": {"model": "openai:x", "timeout": 60}, "options": {}}
        >>> job_of(first) == job_of(first | {"llm": {"model": "openai:x", "timeout": 5}})
        True
    """
    if not isinstance(record, JudgeRecord):
        record = parse_record(record, JudgeRecord, source="run record")
    given = record.inputs.get("input")
    llm = {} if record.llm is None else record.llm.model_dump(mode="json")
    job = {
        "input_sha256": None if given is None else given.sha256,
        "method": None if record.method is None else record.method.model_dump(mode="json"),
        "llm": {name: llm.get(name) for name in LLM_FIELDS},
        "options": {name: record.options.get(name) for name in OPTION_FIELDS},
        "prompts": record.prompts,
    }
    return dict(json.loads(json.dumps(job)))


class PreviousJudgments:
    """The ok judgments of an earlier output, by instance id and content, each read when it is reused.

    `take` hands out the judgment of an instance; `written` notes each judgment the run wrote
    (taken or made); `rest` gives those of the instances it wrote nothing of, in the order of the
    file (the input's). Close it (or leave its ``with`` block) when done.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle = path.open("rb")
        self._spans: list[tuple[int, int, _Key]] = []
        self._by_key: dict[_Key, deque[int]] = {}
        self._taken: set[int] = set()
        self._written: Counter[_Key] = Counter()
        offset = 0
        for line in self._handle:
            key = _ok_key(line)
            if key is not None:
                self._by_key.setdefault(key, deque()).append(len(self._spans))
                self._spans.append((offset, len(line), key))
            offset += len(line)

    @classmethod
    def find(
        cls, out: Path, record_path: Path, record: JudgeRecord | Mapping[str, Any]
    ) -> PreviousJudgments | None:
        """The judgments in ``out`` if its run record (of any schema) is of the same job as ``record``
        (the run's, before it starts), else None."""
        try:
            earlier = read_record(record_path, JudgeRecord)
        except InputError:
            return None
        if job_of(earlier) != job_of(record) or not describes(earlier, out):
            return None
        try:
            return cls(out)
        except OSError:
            return None

    def __len__(self) -> int:
        """Ok judgments in the file."""
        return len(self._spans)

    def take(self, instance: Instance) -> Judgment | None:
        """The earlier ok judgment of ``instance`` (of its id and content), once; else None."""
        queue = self._by_key.get((instance.id, instance.content_hash()))
        while queue:
            index = queue.popleft()
            judgment = self._read(index)
            if judgment is not None:
                return judgment
        return None

    def written(self, judgment: Judgment) -> None:
        """Note a judgment the run wrote, taken or made (made, it replaces an earlier one, if any)."""
        self._written[(judgment.id, judgment.input_hash)] += 1

    def rest(self) -> Iterator[Judgment]:
        """The ok judgments of the instances the run wrote no judgment of, in the file's order.

        Those taken but not written (the run stopped first) are among them.
        """
        written = self._written.copy()
        for offset, length, key in self._spans:
            if written[key]:  # the run wrote this instance's judgment (in the file's order: one of a
                written[key] -= 1  # key is handed out first, and an instance comes in input order)
                continue
            judgment = self._load(offset, length)
            if judgment is not None:
                yield judgment

    def close(self) -> None:
        """Close the file."""
        self._handle.close()

    def __enter__(self) -> PreviousJudgments:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self, index: int) -> Judgment | None:
        """The judgment at ``index``, taken (once: None after, and for a line that is not one)."""
        if index in self._taken:
            return None
        self._taken.add(index)
        offset, length, _ = self._spans[index]
        return self._load(offset, length)

    def _load(self, offset: int, length: int) -> Judgment | None:
        try:
            self._handle.seek(offset)
            return Judgment.model_validate_json(self._handle.read(length))
        except (OSError, ValidationError):
            return None


def _ok_key(line: bytes) -> _Key | None:
    """``(id, input_hash)`` of an ok judgment's line; None for any other line."""
    with contextlib.suppress(ValueError):
        value = json.loads(line)
        if isinstance(value, dict) and value.get("status") == "ok" and isinstance(value.get("id"), str):
            digest = value.get("input_hash")
            return value["id"], digest if isinstance(digest, str) else None
    return None
