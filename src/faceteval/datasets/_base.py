"""What the built-in benchmark modules share besides `Benchmark` itself.

Each published source has its own module (``_faireval.py``, ``_coeval.py``...) holding its `Benchmark`
declarations in a ``BENCHMARKS`` tuple and the code that reads its files; `_registry` lists the
modules. These helpers are the parts several of them need: the fetch list of files pinned at a GitHub
commit, a label read through the source's own coding, and a count checked against the one expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from faceteval._util.records import Record
from faceteval._util.text import plural
from faceteval.datasets._benchmark import RemoteFile
from faceteval.errors import InputError


def raw_url(repo: str, commit: str, path: str) -> str:
    """The raw GitHub URL of ``path`` in ``repo`` at ``commit``.

    Examples:
        >>> raw_url("i-Eval/FairEval", "453c117", "question.jsonl")
        'https://raw.githubusercontent.com/i-Eval/FairEval/453c117/question.jsonl'
    """
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def github_files(
    repo: str, commit: str, prefix: str, folder: str, files: Mapping[str, str]
) -> tuple[RemoteFile, ...]:
    """``files`` (path under ``prefix`` in the repository -> sha256) as raw GitHub URLs at ``commit``,
    each stored under ``folder`` of the data directory."""
    return tuple(
        RemoteFile(url=raw_url(repo, commit, f"{prefix}{name}"), path=f"{folder}/{name}", sha256=sha)
        for name, sha in files.items()
    )


def coded(record: Record, name: str, coding: Mapping[Any, int]) -> int:
    """``record[name]`` translated through ``coding``; any other value is an `InputError`."""
    value = record.get(name, (str, int))
    if value not in coding:
        known = ", ".join(repr(k) for k in coding)
        raise record.error(name, f"expected one of {known}, got {value!r}")
    return coding[value]


def same_count(count: int, expected: int, path: Path, what: str) -> None:
    """Raise an `InputError` on ``path`` unless it has ``expected`` records (``what`` says why)."""
    if count != expected:
        raise InputError(str(path), None, None, f"{plural(count, 'record')}, expected {expected:,} ({what})")


def text_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file; a file that cannot be read is an `InputError`."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(str(path), None, None, f"cannot open: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(str(path), None, None, f"not UTF-8 text ({exc.reason})") from exc
