"""Every recorded judge a doc, an example or a message names resolves, on the benchmark it is named with."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from faceteval.datasets import Benchmark, benchmarks, get_benchmark
from faceteval.metaeval._judgments import recorded_alias

ROOT = Path(__file__).resolve().parents[3]
NAMED = re.compile(r"(?<!stage=\")recorded:([A-Za-z0-9](?:[\w/<>-]|\.(?!\.))*[\w>])(?![\w/<>{-])")
COMMAND = re.compile(r"meta-eval\s+(?P<benchmark>[a-z][\w-]*)\b(?P<rest>[^\n`]*)")
TABLE_ROW = re.compile(r"^\| (?P<benchmarks>[^|]+) \| (?P<judges>[^|]+) \|$", re.MULTILINE)
PLACEHOLDER = re.compile(r"<[^>]*>|^\.\.\.")


@pytest.fixture(scope="module")
def data_dir() -> Path:
    value = os.environ.get("FACETEVAL_DATA_DIR")
    assert value, "FACETEVAL_DATA_DIR must name the benchmark data directory (make test sets it)"
    return Path(value)


def _texts() -> list[tuple[Path, str]]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted((ROOT / "src").rglob("*.py")) + sorted((ROOT / "examples").rglob("*"))
    kept = [f for f in files if f.is_file() and f.suffix in {".md", ".py", ""}]
    return [(f, f.read_text(encoding="utf-8")) for f in kept]


def _resolves(name: str, benchmark: Benchmark, data_dir: Path) -> bool:
    spec = recorded_alias(f"recorded:{name}", benchmark.name).removeprefix("recorded:")
    return any(source.name == spec for source in benchmark.recorded_sources(data_dir))


def _named_on(text: str) -> list[tuple[str, str]]:
    """(benchmark, judge) of each `meta-eval BENCHMARK ... recorded:JUDGE` command in ``text``."""
    found = []
    for command in COMMAND.finditer(text):
        for name in NAMED.findall(command["rest"]):
            found.append((command["benchmark"], name))
    return found


def _recorded_names() -> list[tuple[Path, str]]:
    return [(path, name) for path, text in _texts() for name in NAMED.findall(text)]


def test_every_recorded_judge_named_in_a_command_resolves_on_its_benchmark(data_dir: Path) -> None:
    known = {b.name for b in benchmarks()}
    checked = []
    for path, text in _texts():
        for benchmark, name in _named_on(text):
            if benchmark not in known:  # your own file: its recorded judges are an error the docs show
                continue
            checked.append((benchmark, name))
            assert _resolves(name, get_benchmark(benchmark), data_dir), f"{path}: {benchmark} recorded:{name}"
    assert ("pandalm", "pandalm-7b") in checked or any(b == "autoj-pairwise" for b, _ in checked), checked
    assert len(checked) >= 5, checked


def test_every_recorded_judge_named_anywhere_is_one_of_some_benchmark(data_dir: Path) -> None:
    every = list(benchmarks())
    names = _recorded_names()
    assert len(names) >= 20
    for path, name in names:
        if PLACEHOLDER.search(name):
            continue
        found = any(_resolves(name, b, data_dir) for b in every)
        assert found, f"{path}: recorded:{name} is no recorded judge"


def test_the_table_of_recorded_judges_in_benchmarks_md_resolves(data_dir: Path) -> None:
    text = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    section = text[text.index("## Recorded judges") :]
    section = section[: section.index("\n## ", 4)]
    rows = [row for row in TABLE_ROW.finditer(section) if "`" in row["benchmarks"]]
    assert len(rows) >= 5
    for row in rows:
        names = [n for n in re.findall(r"`([^`]+)`", row["judges"]) if not PLACEHOLDER.search(n)]
        for benchmark in re.findall(r"`([^`]+)`", row["benchmarks"]):
            for name in names:
                assert _resolves(name, get_benchmark(benchmark), data_dir), f"{benchmark}: {name}"


@pytest.mark.parametrize(("benchmark", "name"), [("pandalm", "pandalm-7b"), ("pandalm", "7b")])
def test_the_pandalm_judge_resolves_by_the_name_its_message_gives_and_a_wrong_one_does_not(
    data_dir: Path, benchmark: str, name: str
) -> None:
    assert _resolves(name, get_benchmark(benchmark), data_dir) is (name == "pandalm-7b")
