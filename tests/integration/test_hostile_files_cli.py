"""Hostile input files through the commands where users meet them: nothing hangs, nothing crashes.

An alias bomb or a file nesting a hundred thousand lists deep is one line of error, at once; a line
that cannot be read is that line's error and the rest of the run goes on; a NaN score or an infinite
cost never reaches a file. Commands that could hang run in a child process with a timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl, write_jsonl
from tests.support.llm_server import LLMServer, Reply
from tests.support.processes import SRC
from tests.support.rule_judge import RuleJudge

DEEP = "[" * 100_000
ALIASES = "YAML anchors and aliases (&a) are not read: write the value out in full where it is used"


def bomb(last: str) -> str:
    """Nine levels of nine aliases (9**9 items once expanded, from 400 bytes), then ``last``."""
    levels = zip("abcdefghi", ["", *"abcdefgh"], strict=True)
    return (
        "".join(
            f"{name}: &{name} [{', '.join([f'*{below}'] * 9 if below else ['x'] * 9)}]\n"
            for name, below in levels
        )
        + last
    )


def faceteval(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m faceteval ARGS`` in a child process; a command still running after 30 s fails the test."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "faceteval", *map(str, args)],
            env={**os.environ, "PYTHONPATH": str(SRC)},
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"faceteval {' '.join(map(str, args))} still running after 30 s")


def one_error_line(done: subprocess.CompletedProcess[str], code: int = 1) -> str:
    """The command's output, checked to be an exit ``code`` with no traceback, as one line."""
    output = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == code, output
    assert "Traceback" not in output, output
    return output


def pairs(tmp_path: Path) -> Path:
    return write_jsonl(
        tmp_path / "pairs.jsonl",
        [
            {"id": "a", "query": "Explain rain.", "candidates": ["good", "poor"]},
            {"id": "b", "query": "Explain rain.", "candidates": ["poor", "good"]},
        ],
    )


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "run"])
def test_an_alias_bomb_in_a_criteria_file_stops_judge_at_once(tmp_path: Path, dry: bool) -> None:
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(bomb("criteria: [*i]\n"), encoding="utf-8")
    out = tmp_path / "o.jsonl"
    args = ["judge", pairs(tmp_path), "--method", "dna", "--criteria", criteria, "--model", "openai:gpt-4o"]
    args += ["--dry-run"] if dry else ["--base-url", "http://127.0.0.1:9/v1", "--out", out]
    output = one_error_line(faceteval(*args))
    assert f"error: {criteria}:1: {ALIASES}" in output
    assert not out.exists()


def test_an_alias_bomb_in_a_tree_or_an_evaluator_directory_is_refused_at_once(tmp_path: Path) -> None:
    tree = tmp_path / "tree.yaml"
    tree.write_text(bomb("task: t\ncriteria:\n  - name: c\n    children: *i\n"), encoding="utf-8")
    assert f"error: {tree}:1: {ALIASES}" in one_error_line(faceteval("criteria", "show", tree))
    decompose = faceteval(
        "hdeval",
        "decompose",
        "--tree",
        tree,
        "--model",
        "openai:gpt-4o",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--out",
        tmp_path / "t2.yaml",
    )
    assert f"{tree}:1: {ALIASES}" in one_error_line(decompose)

    evaluator = tmp_path / "evaluator"
    evaluator.mkdir()
    (evaluator / "tree.yaml").write_text(tree.read_text(encoding="utf-8"), encoding="utf-8")
    record = {"format": "faceteval-hdeval-evaluator", "version": 1, "targets": ["t"], "features": ["c"]}
    (evaluator / "evaluator.json").write_text(json.dumps({**record, "background": [3.0]}), encoding="utf-8")
    outputs = write_jsonl(tmp_path / "new.jsonl", [{"id": "a", "query": "Q", "candidates": ["x"]}])
    applied = faceteval(
        "hdeval", "apply", evaluator, outputs, "--features", outputs, "--out", tmp_path / "s.jsonl"
    )
    assert f"{evaluator / 'tree.yaml'}:1: {ALIASES}" in one_error_line(applied)


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    with LLMServer(RuleJudge(quality={"good": 9, "poor": 3}).for_server()) as running:
        yield running


def test_a_deeply_nested_line_is_an_invalid_line_and_the_rest_is_judged(
    tmp_path: Path, server: LLMServer
) -> None:
    path = pairs(tmp_path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(
            '{"id": "deep", "query": "Q", "candidates": ["good", "poor"], "metadata": ' + DEEP + "}\n"
        )
        handle.write('{"id": "c", "query": "Q", "candidates": ["good", "poor"]}\n')
    out = tmp_path / "o.jsonl"
    args = ["judge", path, "--method", "direct", "--model", "openai:judge", "--base-url", server.base_url]
    done = faceteval(*args, "--no-cache", "--out", out)
    assert done.returncode == 6, done.stderr  # some judgments failed (exit 6), the rest written
    assert f"invalid input: {path}:3: nested more than 64 levels deep" in " ".join(done.stderr.split())
    judged = read_jsonl(out)
    assert [(j["id"], j["status"]) for j in judged] == [
        ("a", "ok"),
        ("b", "ok"),
        ("line-3", "error"),
        ("c", "ok"),
    ]
    record = json.loads(out.with_name("o.run.json").read_text(encoding="utf-8"))
    assert record["summary"]["invalid_input"] == 1 and record["summary"]["judgments"] == {"ok": 3, "error": 1}


def labels(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "labels.jsonl"
    rows = [{"id": f"p{i}", "query": "Q?", "candidates": ["good", "poor"], "label": 1} for i in range(2)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + extra, encoding="utf-8")
    return path


def meta_eval(*args: str | Path) -> Result:
    data_dir = os.environ.get("FACETEVAL_DATA_DIR", "")
    return CliRunner().invoke(cli, ["meta-eval", *map(str, args), "--data-dir", data_dir])


def judgments(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "j.jsonl"
    ok = [
        json.dumps({"id": f"p{i}", "method": "m", "status": "ok", "verdict": 1, "scores": [8.0, 3.0]})
        for i in range(2)
    ]
    path.write_text("\n".join([*ok, *lines]) + "\n", encoding="utf-8")
    return path


def test_meta_eval_names_a_deep_row_of_its_labels_or_judgments(tmp_path: Path) -> None:
    deep_row = '{"id": "p9", "query": "Q?", "candidates": ["a", "b"], "label": 1, "metadata": ' + DEEP + "}\n"
    given = labels(tmp_path, deep_row)
    result = meta_eval(given, "--judgments", judgments(tmp_path), "--out", tmp_path / "run")
    assert result.exit_code == 1, result.output
    assert f"{given}:3: nested more than 64 levels deep" in " ".join(result.output.split())
    deep_judgment = '{"id": "p9", "method": "m", "status": "ok", "verdict": 1, "trace": ' + DEEP + "}"
    judged = judgments(tmp_path, deep_judgment)
    result = meta_eval(labels(tmp_path), "--judgments", judged, "--out", tmp_path / "run")
    assert result.exit_code == 1, result.output
    assert f"{judged}:3: nested more than 64 levels deep" in " ".join(result.output.split())


def test_meta_eval_refuses_a_nan_score_rather_than_measure_it_and_write_null(tmp_path: Path) -> None:
    nan = json.dumps({"id": "p1", "method": "m", "status": "ok", "verdict": 1, "scores": [float("nan"), 3.0]})
    judged = tmp_path / "nan.jsonl"
    judged.write_text(judgments(tmp_path).read_text(encoding="utf-8").splitlines()[0] + "\n" + nan + "\n")
    run = tmp_path / "run"
    result = meta_eval(labels(tmp_path), "--judgments", judged, "--out", run)
    assert result.exit_code == 1, result.output
    assert f"{judged}:2: field 'scores.0': Input should be a finite number" in " ".join(result.output.split())
    assert not (run / "judgments.jsonl").exists()


def test_hdeval_apply_names_a_deep_line_of_the_outputs_to_score(tmp_path: Path) -> None:
    from tests.integration.test_hdeval_train import synthetic_evaluator

    outputs = tmp_path / "new.jsonl"
    deep = '{"id": "b", "query": "Q", "candidates": ' + DEEP + "}"
    outputs.write_text('{"id": "a", "query": "Q", "candidates": ["x"]}\n' + deep + "\n")
    evaluator = synthetic_evaluator(tmp_path / "evaluator")
    args = ["hdeval", "apply", evaluator, outputs, "--features", outputs, "--out", tmp_path / "s.jsonl"]
    applied = CliRunner().invoke(cli, list(map(str, args)))
    assert applied.exit_code == 1, applied.output
    assert f"{outputs}:2: nested more than 64 levels deep" in " ".join(applied.output.split())


def test_review_import_leaves_out_a_deep_line_of_the_judged_input_and_names_it(tmp_path: Path) -> None:
    judged_input = tmp_path / "judged.jsonl"
    lines = [
        '{"id": "a", "query": "Q", "candidates": ["x"]}',
        '{"id": "b", "query": "Q", "candidates": ["x"], "metadata": {"m": ' + DEEP + "}}",
        '{"id": "c", "query": "Q", "candidates": ["x"], "metadata": {"m": ' + "[" * 200 + "]" * 200 + "}}",
    ]
    judged_input.write_text("\n".join(lines) + "\n")
    facet = {"name": "Clarity", "scores": [4.0], "explanation": "Clear."}
    rows = [
        {"id": "a", "method": "direct", "status": "ok", "scores": [4.0], "facets": [facet]},
        {"id": "line-2", "method": "direct", "status": "error", "error": "invalid input"},
    ]
    judged = write_jsonl(tmp_path / "j.jsonl", rows)
    project = tmp_path / "project"
    imported = faceteval("review", "import", project, judged, "--input", judged_input, "--task", "t")
    assert imported.returncode == 0, imported.stderr
    assert "Imported 1 output (1 new)" in imported.stdout and "1 failed judgment left out" in imported.stdout

    judged = write_jsonl(tmp_path / "j.jsonl", [*rows, {**rows[0], "id": "c"}])
    output = one_error_line(faceteval("review", "import", project, judged, "--input", judged_input))
    assert (
        f"judgment 'c' has no instance: its line in the judged input is not valid: {judged_input}:3: "
        "field 'metadata': nested more than 64 levels deep" in output
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b'[judge]\nmethod = "dir\xe9ct"\n',
            "faceteval.toml:2: not UTF-8 text (invalid continuation byte at byte 14 of the line)",
        ),
        (b"[judge]\nmethod = " + DEEP.encode(), "faceteval.toml: nested more than 64 levels deep"),
    ],
)
def test_a_config_file_that_is_not_utf8_or_nests_too_deep_is_named(
    tmp_path: Path, content: bytes, message: str
) -> None:
    (tmp_path / "faceteval.toml").write_bytes(content)
    done = faceteval(
        "judge", pairs(tmp_path), "--model", "openai:gpt-4o", "--dry-run", "--no-cache", cwd=tmp_path
    )
    assert f"error: {message}" in one_error_line(done, code=2)  # a usage error


def test_a_config_file_with_a_byte_order_mark_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_bytes(b'\xef\xbb\xbf[judge]\nmethod = "direct"\n')
    result = CliRunner().invoke(
        cli, ["judge", str(pairs(tmp_path)), "--model", "openai:gpt-4o", "--dry-run", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    assert "Dry run: direct with openai:gpt-4o" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"openai:gpt-4o: {input: 1, output: 2} # caf\xe9\n",
            ":1: not UTF-8 text (invalid continuation byte at byte 43 of the line)",
        ),
        (
            b"openai:gpt-4o: {input: 1, output: 2}\nopenai:gpt-4o: {input: 3, output: 4}\n",
            ":2: field 'openai:gpt-4o': the key 'openai:gpt-4o' is given twice (first on line 1)",
        ),
        (
            b"openai:gpt-4o: {input: 1, output: 1e308}\n",
            ": openai:gpt-4o: prices are USD per million tokens, at most 1,000,000 (a dollar a token)",
        ),
    ],
)
def test_a_prices_file_is_read_as_every_yaml_file_is(tmp_path: Path, content: bytes, message: str) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_bytes(content)
    result = CliRunner().invoke(
        cli,
        [
            "judge",
            str(pairs(tmp_path)),
            "--model",
            "openai:gpt-4o",
            "--prices",
            str(prices),
            "--dry-run",
            "--no-cache",
        ],
    )
    assert result.exit_code == 1 and f"error: {prices}{message}" in " ".join(result.output.split())


def test_a_cost_too_large_to_count_is_unknown_in_the_run_record_not_infinity(tmp_path: Path) -> None:
    rule = RuleJudge(quality={"good": 9, "poor": 3})
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai:judge: {input: 1000000, output: 1000000}\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    with LLMServer(lambda body: Reply(rule.respond(body["messages"]), output_tokens=10**303)) as server:
        args = [
            "judge",
            pairs(tmp_path),
            "--method",
            "direct",
            "--model",
            "openai:judge",
            "--base-url",
            server.base_url,
        ]
        done = faceteval(*args, "--prices", prices, "--no-cache", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "too large to count" in done.stdout + done.stderr
    text = out.with_name("o.run.json").read_text(encoding="utf-8")
    assert "Infinity" not in text and json.loads(text)["spend"]["cost_usd"] is None
    assert all(j["usage"]["cost_usd"] is None for j in read_jsonl(out))
