"""Every command that writes where the user says refuses to overwrite what is not its own.

For each command and each path it writes: an SQLite database (a review project, a cache) and a file
of another kind are refused, named with what they are, and kept as they were; a directory where a
file goes, or a file where a directory goes, is refused before any work; ``--force`` writes over a
file of another kind, and a re-run replaces the command's own output without it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval import store
from faceteval._cli._app import cli
from faceteval.store import OutputKind
from faceteval.store import internal as store_internal
from tests.support.files import sqlite_database, write_jsonl
from tests.support.llm_server import LLMServer
from tests.support.review_project import build_project

NOTES = "My notes: three weeks of reading.\n"
DECOMPOSED = "1. Word choice: Whether the words fit.\n2. Sentence flow: Whether the sentences read well.\n"


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], terminal_width=200)


def flat(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Command:
    """A command writing ``target`` (of ``kind``), made from ``args`` with the target's path.

    ``inner``: the target is a file the command writes inside a directory the user names (the
    path is fixed); otherwise the user names the target itself. ``calls``: the LLM calls made so
    far, for a command that calls one.
    """

    args: Callable[[Path], list[str | Path]]
    target: Path
    kind_name: str
    inner: bool = False
    calls: Callable[[], int] | None = None

    @property
    def kind(self) -> OutputKind:
        """What the command writes, looked up when a test gets that far: among the store's own kinds,
        else the families' (which `faceteval.store` gives by their old names)."""
        kind = getattr(store_internal, self.kind_name, None) or getattr(store, self.kind_name)
        assert isinstance(kind, OutputKind)
        return kind


@dataclass(frozen=True)
class Templates:
    """Inputs made once for the module, copied into each test's folder."""

    folder: Path
    data_dir: Path
    base_url: str
    server: LLMServer

    def calls(self) -> int:
        return len(self.server.requests)


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    folder = tmp_path_factory.mktemp("templates")
    data_dir = Path(os.environ.get("FACETEVAL_DATA_DIR", "../shared/data"))
    labels = write_jsonl(
        folder / "labels.jsonl",
        [{"id": f"t{i}", "query": "Pick", "candidates": ["a", "b"], "label": 1 + i % 2} for i in range(6)],
    )
    for name, verdicts in (("a", [1, 2, 1, 2, 1, 2]), ("b", [1, 1, 1, 2, 2, 2])):
        judged = write_jsonl(
            folder / f"{name}.jsonl",
            [{"id": f"t{i}", "method": "m", "status": "ok", "verdict": v} for i, v in enumerate(verdicts)],
        )
        ran = invoke("meta-eval", labels, "--judgments", judged, "--out", folder / "runs" / name,
                     "--no-report", "--resamples", "0", "--data-dir", data_dir)  # fmt: skip
        assert ran.exit_code == 0, ran.output
    trained = invoke(
        "hdeval", "train", "coeval-rocstories", "--features", "recorded:coeval-chatgpt", "--target",
        "Coherence", "--aggregator", "lr", "--resamples", "0", "--limit", "20", "--data-dir", data_dir,
        "--out", folder / "evaluator",
    )  # fmt: skip
    assert trained.exit_code == 0, trained.output
    build_project(folder / "review")
    criteria = folder / "criteria"
    for name in ("criteria.yaml", "samples/sample-01.yaml", "samples/sample-02.yaml"):
        (criteria / name).parent.mkdir(parents=True, exist_ok=True)
        (criteria / name).write_text("criteria:\n- {name: Clarity}\n- {name: Accuracy}\n", encoding="utf-8")
    with LLMServer(lambda body: DECOMPOSED) as server:
        yield Templates(folder, data_dir, server.base_url, server)


def engine(templates: Templates, tmp_path: Path) -> list[str | Path]:
    return ["--model", "openai:judge", "--base-url", templates.base_url, "--cache", tmp_path / "cache.sqlite"]


def copied(templates: Templates, tmp_path: Path, name: str) -> Path:
    source = templates.folder / name
    shutil.copytree(source, tmp_path / name)
    return tmp_path / name


def compare(t: Templates, tmp: Path) -> Command:
    a, b = copied(t, tmp, "runs") / "a", tmp / "runs" / "b"
    return Command(lambda out: ["compare", a, b, "--resamples", "0", "--json", out], tmp / "c.json",
                   "COMPARISON")  # fmt: skip


def cost(t: Templates, tmp: Path) -> Command:
    runs = copied(t, tmp, "runs")
    return Command(lambda out: ["cost", runs / "a", runs / "b", "--markdown", out], tmp / "cost.md",
                   "COST_TABLE")  # fmt: skip


def report(t: Templates, tmp: Path) -> Command:
    run = copied(t, tmp, "runs") / "a"
    return Command(lambda _: ["report", run], run / "report.md", "REPORT", inner=True)


def consistency(t: Templates, tmp: Path) -> Command:
    criteria = copied(t, tmp, "criteria")
    return Command(lambda out: ["criteria", "consistency", criteria, "--json", out], tmp / "cons.json",
                   "CONSISTENCY")  # fmt: skip


def generate(t: Templates, tmp: Path) -> Command:
    out = tmp / "criteria"
    args = ["criteria", "generate", "--task", "Explain.", "--example-input", "Why?", "--example-output",
            "Because.", "--samples", "2", *engine(t, tmp), "--out", out]  # fmt: skip
    return Command(lambda _: args, out / "generation.json", "GENERATION", inner=True, calls=t.calls)


def review_export(t: Templates, tmp: Path) -> Command:
    project = copied(t, tmp, "review")
    return Command(lambda out: ["review", "export", project, "--out", out], tmp / "final.jsonl",
                   "REVIEW_SCORES")  # fmt: skip


def review_actions(t: Templates, tmp: Path) -> Command:
    project = copied(t, tmp, "review")
    return Command(lambda out: ["review", "export", project, "--out", tmp / "f.jsonl", "--actions", out],
                   tmp / "log.jsonl", "REVIEW_ACTIONS")  # fmt: skip


def review_stats(t: Templates, tmp: Path) -> Command:
    project = copied(t, tmp, "review")
    return Command(lambda out: ["review", "stats", project, "--resamples", "0", "--json", out],
                   tmp / "stats.json", "REVIEW_STATS")  # fmt: skip


def review_tables(t: Templates, tmp: Path) -> Command:
    project = copied(t, tmp, "review")
    return Command(lambda out: ["review", "stats", project, "--resamples", "0", "--markdown", out],
                   tmp / "stats.md", "REVIEW_TABLES")  # fmt: skip


def decompose(t: Templates, tmp: Path) -> Command:
    def args(out: Path) -> list[str | Path]:
        return ["hdeval", "decompose", "--task", "Summarize.", "--criteria", "fluency", *engine(t, tmp),
                "--out", out]  # fmt: skip

    return Command(args, tmp / "tree.yaml", "TREE", calls=t.calls)


def train(t: Templates, tmp: Path) -> Command:
    out = tmp / "evaluator"
    args = ["hdeval", "train", "coeval-rocstories", "--features", "recorded:coeval-chatgpt", "--target",
            "Coherence", "--aggregator", "lr", "--resamples", "0", "--limit", "20", "--data-dir",
            t.data_dir, "--out", out]  # fmt: skip
    return Command(lambda _: args, out / "tree.yaml", "TREE", inner=True)


def apply(t: Templates, tmp: Path) -> Command:
    evaluator = copied(t, tmp, "evaluator")

    def args(out: Path) -> list[str | Path]:
        return ["hdeval", "apply", evaluator, "coeval-rocstories", "--features", "recorded:coeval-chatgpt",
                "--data-dir", t.data_dir, "--out", out]  # fmt: skip

    return Command(args, tmp / "scored.jsonl", "SCORED")


def experiment(t: Templates, tmp: Path) -> Command:
    evaluator = copied(t, tmp, "evaluator")
    args = ["hdeval", "experiment", evaluator, "--run", "ablations"]
    return Command(lambda _: args, evaluator / "experiments.json", "EXPERIMENTS", inner=True)


def evaluator_report(t: Templates, tmp: Path) -> Command:
    evaluator = copied(t, tmp, "evaluator")
    return Command(lambda _: ["hdeval", "report", evaluator], evaluator / "report.html", "REPORT", inner=True)


COMMANDS: Mapping[str, Callable[[Templates, Path], Command]] = {
    "compare --json": compare,
    "cost --markdown": cost,
    "report": report,
    "criteria consistency --json": consistency,
    "criteria generate --out": generate,
    "review export --out": review_export,
    "review export --actions": review_actions,
    "review stats --json": review_stats,
    "review stats --markdown": review_tables,
    "hdeval decompose --out": decompose,
    "hdeval train --out": train,
    "hdeval apply --out": apply,
    "hdeval experiment": experiment,
    "hdeval report": evaluator_report,
}


@pytest.fixture(params=list(COMMANDS))
def command(request: pytest.FixtureRequest, templates: Templates, tmp_path: Path) -> Command:
    return COMMANDS[request.param](templates, tmp_path)


def refused(command: Command, target: Path) -> str:
    """The one-line refusal of the command writing ``target``, made before any LLM call."""
    calls = command.calls() if command.calls else 0
    result = invoke(*command.args(target))
    assert result.exit_code == 1, result.output
    assert (command.calls() if command.calls else 0) == calls, "the command called the LLM first"
    return flat(result.output)


def test_an_sqlite_database_is_refused_naming_it_and_kept(command: Command) -> None:
    command.target.parent.mkdir(parents=True, exist_ok=True)
    database = sqlite_database(command.target)
    before = database.read_bytes()
    output = refused(command, database)
    assert f"would overwrite {database}, an SQLite database" in output
    assert f"not {command.kind.what}" in output and "pass --force" in output
    assert database.read_bytes() == before


def test_a_directory_where_a_file_goes_or_a_file_where_a_directory_goes_is_refused(
    command: Command, tmp_path: Path
) -> None:
    if command.inner:  # the command's folder holds a directory where it writes a file
        command.target.mkdir(parents=True)
        (command.target / "kept.txt").write_text(NOTES)
        assert f"would overwrite {command.target}, a directory" in refused(command, command.target)
        assert (command.target / "kept.txt").read_text() == NOTES
    else:  # the path named goes through a file, as if it were a folder
        blocking = tmp_path / "notes.txt"
        blocking.write_text(NOTES)
        output = refused(command, blocking / "out")
        assert f"{blocking / 'out'}, but {blocking} is a file, not a directory" in output
        assert blocking.read_text() == NOTES


def test_a_file_of_another_kind_is_refused_and_written_over_only_with_force(command: Command) -> None:
    command.target.parent.mkdir(parents=True, exist_ok=True)
    command.target.write_text(NOTES)
    output = refused(command, command.target)
    assert f"would overwrite {command.target}, a file of something else, not" in output
    assert f"not {command.kind.what};" in output
    assert command.target.read_text() == NOTES

    forced = invoke(*command.args(command.target), "--force")
    assert forced.exit_code == 0, forced.output
    assert command.target.read_text() != NOTES and command.kind.holds(command.target)
    again = invoke(*command.args(command.target))  # its own output is replaced as it always was
    assert again.exit_code == 0, again.output


def test_two_options_naming_one_file_are_refused(templates: Templates, tmp_path: Path) -> None:
    project = copied(templates, tmp_path, "review")
    out = tmp_path / "final.jsonl"
    for args, message in (
        (["review", "export", project, "--out", out, "--actions", tmp_path / "." / "final.jsonl"],
         f"--actions {tmp_path / '.' / 'final.jsonl'} is the file --out names too"),
        (["review", "stats", project, "--json", out, "--markdown", out],
         f"--markdown {out} is the file --json names too"),
    ):  # fmt: skip
        result = invoke(*args)
        assert result.exit_code == 1 and message in flat(result.output), result.output
        assert not out.exists()


def test_the_inputs_and_the_project_database_are_refused_even_with_force(
    templates: Templates, tmp_path: Path
) -> None:
    runs, project = copied(templates, tmp_path, "runs"), copied(templates, tmp_path, "review")
    criteria = copied(templates, tmp_path, "criteria")
    for args, target in (
        (["compare", runs / "a", runs / "b", "--json"], runs / "b" / "summary.json"),
        (["cost", runs / "a", "--markdown"], runs / "a" / "judgments.jsonl"),
        (["review", "stats", project, "--json"], project / "review.sqlite"),
        (["review", "export", project, "--out"], project / "review.sqlite"),
        (["criteria", "consistency", criteria, "--json"], criteria / "criteria.yaml"),
    ):
        before = target.read_bytes()
        result = invoke(*args, target, "--force")
        assert result.exit_code == 1 and f"would overwrite the input {target}" in flat(result.output)
        assert target.read_bytes() == before
