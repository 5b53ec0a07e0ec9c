"""Text from outside (ids, queries, candidates, replies, criteria, file names) reaches the terminal inert.

Each test runs the ``faceteval`` command in its own process, as a user would, with escape sequences in
the input, in the model's replies and in file names: what it prints holds no raw control character but
newline (and rich's own styling when colour is forced), and the neutralised form is there to be seen.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_server import LLMServer
from tests.support.processes import SRC

# Sets the terminal's title, clears the screen, recolours; the same in 8 bits (C1 CSI); bidi overrides
# and isolates; a carriage return that would overwrite the line; a bell; DEL.
PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\u2066iso\u2069\rover\x07\x7f"
INJECTED = ("\x1b]0;pwned", "\x1b[2J", "\x1b[31mred")
SHOWN = r"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\u2066iso\u2069\x0dover\x07\x7f"
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What rich itself writes on a terminal: colours, and the progress bar's cursor moves.
OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;]*m|\x1b\[2K|\x1b\[1A|\x1b\[\?25[hl]")


def faceteval(
    *args: str | Path, colour: bool = False, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The ``faceteval`` command run to its end, in a wide terminal (no line is wrapped), coloured or not."""
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")}
    env |= {"PYTHONPATH": str(SRC), "COLUMNS": "1000"} | ({"FORCE_COLOR": "1"} if colour else {})
    return subprocess.run(
        [sys.executable, "-m", "faceteval", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def assert_inert(printed: str, *, colour: bool = False) -> None:
    """No injected sequence, and no raw control character but newline (and, in colour, rich's own styling,
    which must be there: colour was on)."""
    assert not any(sequence in printed for sequence in INJECTED), repr(printed)
    assert ("\x1b[" in printed) is colour, repr(printed)
    left = RAW.search(plain(printed))
    assert left is None, f"raw {left[0]!r} in {printed!r}"


def plain(printed: str) -> str:
    """``printed`` without rich's own sequences."""
    return OWN_SEQUENCES.sub("", printed)


def write_lines(path: Path, rows: list[Any], *extra: str) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows) + "".join(extra), encoding="utf-8")
    return path


def hostile_input(directory: Path) -> Path:
    """An input whose name, ids, queries and candidates hold the payload, with invalid lines too."""
    return write_lines(
        directory / f"in{PAYLOAD}.jsonl",
        [
            {"id": f"a{PAYLOAD}", "query": f"Q{PAYLOAD}", "candidates": [f"x{PAYLOAD}", "y"]},
            {"id": f"b{PAYLOAD}", "query": "Q", "candidates": f"not a list{PAYLOAD}"},
        ],
        f"{{not json{PAYLOAD}\n",
    )


@pytest.fixture
def refusing() -> Any:
    """A model whose every reply is a refusal with the payload in it (quoted in the parse error)."""
    with LLMServer(lambda body: f"I'm sorry, {PAYLOAD}") as server:
        yield server


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "forced-colour"])
def test_a_judge_run_prints_ids_replies_and_file_names_inert(
    tmp_path: Path, refusing: LLMServer, colour: bool
) -> None:
    out = tmp_path / f"out{PAYLOAD}.jsonl"
    model = ["--model", "openai:judge", "--base-url", refusing.base_url]
    result = faceteval(
        "judge",
        hostile_input(tmp_path),
        "--method",
        "fennec",
        *model,
        "--no-cache",
        "--out",
        out,
        colour=colour,
    )

    assert result.returncode == 1, result.stderr  # nothing could be judged
    assert_inert(result.stderr, colour=colour)
    printed = plain(result.stderr)
    lines = [line for line in printed.splitlines() if line.startswith("failed:")]
    assert lines[0].startswith(f"failed: a{SHOWN}: fennec.criteria: the reply is a refusal"), printed
    assert "I'm sorry, \\x1b]0;pwned\\x07" in lines[0]  # the model's reply, quoted
    assert lines[1].startswith(f"failed: b{SHOWN}: invalid input: "), printed
    assert f"invalid input: {tmp_path}/in{SHOWN}.jsonl:2: field 'candidates'" in printed
    assert f"written    {tmp_path}/out{SHOWN}.jsonl" in printed
    assert [row["id"] for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())][:2] == [
        f"a{PAYLOAD}",
        f"b{PAYLOAD}",
    ]  # what is written is the text as it was


def test_judgments_on_stdout_hold_no_character_a_terminal_acts_on(
    tmp_path: Path, refusing: LLMServer
) -> None:
    model = ["--model", "openai:judge", "--base-url", refusing.base_url]
    result = faceteval("judge", hostile_input(tmp_path), "--method", "fennec", *model, "--no-cache")

    assert_inert(result.stdout)
    assert_inert(result.stderr)
    judgments = [json.loads(line) for line in result.stdout.splitlines()]
    assert [j["id"] for j in judgments][:2] == [f"a{PAYLOAD}", f"b{PAYLOAD}"]  # the same text, as JSON
    assert PAYLOAD in judgments[0]["trace"][0]["raw"]


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "forced-colour"])
def test_criteria_from_a_file_and_from_a_model_are_printed_inert(tmp_path: Path, colour: bool) -> None:
    tree = tmp_path / "tree.json"
    tree.write_text(
        json.dumps(
            {
                "task": f"Task{PAYLOAD}",
                "criteria": [
                    {
                        "name": f"Accuracy{PAYLOAD}",
                        "description": f"right{PAYLOAD}",
                        "children": [f"Sub{PAYLOAD}"],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    shown = faceteval("criteria", "show", tree, colour=colour)
    assert shown.returncode == 0, shown.stderr
    assert_inert(shown.stdout, colour=colour)
    assert f"Accuracy{SHOWN}" in plain(shown.stdout)

    reply = (
        f"1. Accuracy{PAYLOAD}: the facts are right{PAYLOAD}\n2. Clarity: easy to follow\n3. Brevity: short"
    )
    with LLMServer(lambda body: reply) as server:
        generated = faceteval(
            *(
                "criteria",
                "generate",
                "--task",
                f"T{PAYLOAD}",
                "--example-input",
                "x",
                "--example-output",
                "y",
            ),
            *("--samples", "1", "--model", "openai:judge", "--base-url", server.base_url, "--no-cache"),
            *("--out", tmp_path / "generated"),
            colour=colour,
        )
    assert generated.returncode == 0, generated.stderr
    assert_inert(generated.stdout, colour=colour)
    assert_inert(generated.stderr)
    name = SHOWN.partition(r"\x0d")[0]  # the list is read a line at a time, and a carriage return ends one
    assert f"1. Accuracy{name}: " in plain(generated.stdout)


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "forced-colour"])
def test_file_names_and_arguments_in_error_messages_are_printed_inert(tmp_path: Path, colour: bool) -> None:
    good = write_lines(tmp_path / "in.jsonl", [{"id": "a", "query": "Q", "candidates": ["x", "y"]}])
    criteria = tmp_path / f"criteria{PAYLOAD}.yaml"
    criteria.write_text("criteria: [\n", encoding="utf-8")
    array = write_lines(tmp_path / f"array{PAYLOAD}.jsonl", [[{"id": "a"}]])
    dry = ["--model", "openai:judge", "--dry-run"]

    bad_criteria = faceteval("judge", good, "--criteria", criteria, *dry, colour=colour)
    not_jsonl = faceteval("judge", array, *dry, colour=colour)
    plan = faceteval("judge", hostile_input(tmp_path), "--method", "direct", *dry, colour=colour)
    extra_argument = faceteval("judge", good, f"extra{PAYLOAD}", *dry, colour=colour)  # click's own message

    for result in (bad_criteria, not_jsonl, plan):
        assert result.returncode == 1 and result.stdout == ""
        assert_inert(result.stderr, colour=colour)
    assert extra_argument.returncode == 2
    assert_inert(extra_argument.stderr)
    assert f"error: {tmp_path}/criteria{SHOWN}.yaml:" in plain(bad_criteria.stderr)
    assert "not valid YAML" in bad_criteria.stderr
    assert f"error: {tmp_path}/array{SHOWN}.jsonl:1: the file is a JSON array" in plain(not_jsonl.stderr)
    assert f"Dry run: direct with openai:judge on {tmp_path}/in{SHOWN}.jsonl" in plain(plan.stderr)
    assert f"failed: a{SHOWN}" not in plain(plan.stderr)  # judgeable: only the invalid lines are named
    assert f"invalid input: {tmp_path}/in{SHOWN}.jsonl:2: field 'candidates'" in plain(plan.stderr)
    # Where stderr is not a terminal, click drops the ESC [ sequences itself; the rest is shown.
    assert r"Got unexpected extra argument (extra\x1b]0;pwned\x07" in extra_argument.stderr
    assert r"\x9b2J\u202eevil\u202c\u2066iso\u2069\x0dover\x07\x7f)" in extra_argument.stderr


def test_the_review_server_prints_its_projects_name_inert(tmp_path: Path) -> None:
    project = tmp_path / f"project{PAYLOAD}"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    process = subprocess.Popen(
        [sys.executable, "-m", "faceteval", "review", "serve", str(project), "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, process.kill)  # a server that never prints fails the test, not hangs it
    watchdog.start()
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
    finally:
        watchdog.cancel()
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert line.startswith(f"Review of {tmp_path}/project{SHOWN} at http://127.0.0.1:"), line + errors
    assert_inert(line)
    assert_inert(errors)
