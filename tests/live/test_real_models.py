"""Every method judged by real small models, in process and behind a real OpenAI-compatible server.

What the models say is theirs; what is asserted holds for any model (see conftest.py).
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import faceteval
from tests.live.conftest import Models, Server
from tests.support.processes import run_to_end, start, wait_until

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
"""The JSON schema a structured request shows the model (``common/structured``)."""
PAIRS = ROOT / "examples" / "data" / "pairs.jsonl"
OUTPUTS = ROOT / "examples" / "data" / "outputs.jsonl"
FAST = ["--max-tokens", "128", "--timeout", "300", "--seed", "1"]
"""Short replies (a parse error when cut off is one of the outcomes asserted on), a long timeout
for a busy CPU, and a seed."""
OK_OR_UNREAD = {"ok", "parse_error"}
CRITERIA = ROOT / "examples" / "data" / "criteria.yaml"
TREE = ROOT / "examples" / "data" / "tree.yaml"
"""A two-layer HD-Eval tree for the example outputs."""
METHODS: dict[str, tuple[Path, list[str]]] = {
    "direct": (PAIRS, ["--swap"]),
    "cot": (PAIRS, ["--swap"]),
    "dna": (PAIRS, ["--aspects", "2", "--swap"]),
    "fennec": (PAIRS, ["--criteria-count", "2", "--swap"]),
    "coeval": (OUTPUTS, ["--criteria", str(CRITERIA)]),
    "hdeval": (OUTPUTS, ["--criteria", str(TREE)]),
}
"""Each method, on the example pairs in both orders, or (CoEval and HD-Eval judge one output at a
time) on the example outputs."""


def first(path: Path, n: int, folder: Path) -> Path:
    """The first ``n`` lines of ``path``, as a file in ``folder``."""
    lines = path.read_text(encoding="utf-8").splitlines()[:n]
    out = folder / f"{path.stem}-{n}.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def judge(*args: str | Path, timeout: float = 900) -> tuple[int, str]:
    """``faceteval judge ARGS`` in a child process: its exit status and its output."""
    done = run_to_end([faceteval_command(), "judge", *map(str, args)], timeout=timeout)
    return done.returncode, done.stdout + done.stderr


def faceteval_command() -> str:
    import shutil
    import sys

    found = shutil.which("faceteval", path=str(Path(sys.executable).parent))
    assert found is not None
    return found


def read(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_judgments(out: Path, ids: list[str], output: str, code: int) -> list[dict[str, Any]]:
    """What holds for any model: no traceback; one judgment per instance, each ok or a parse error
    that says why and keeps the raw reply; exit status 0 when every one is ok, 6 when some failed
    (--max-failures tolerating none), 1 when none was ok (saying why each failed)."""
    assert "Traceback" not in output, output
    judged = read(out)
    assert [j["id"] for j in judged] == ids, output
    none_ok = not any(j["status"] == "ok" for j in judged)
    some_failed = any(j["status"] in ("parse_error", "error") for j in judged)
    assert code == (1 if none_ok else 6 if some_failed else 0), output
    if none_ok:
        assert "no instance was judged" in output and "failed: " in output, output
    for j in judged:
        assert j["status"] in OK_OR_UNREAD, (j["status"], j.get("error"), output[-2000:])
        if j["status"] == "parse_error":
            assert j["error"], j
            unread = [t for t in j["trace"] if t["problem"] is not None]
            assert unread and all(isinstance(t["raw"], str) for t in unread), j
    return judged


def model_flags(where: str, request: pytest.FixtureRequest, in_process: str) -> list[str]:
    """The model flags of a test run ``where`` (``server``: llama-cpp-python's, one call at a time;
    else the spec ``in_process``)."""
    if where != "server":
        return ["--model", in_process]
    server: Server = request.getfixturevalue("llama_server")
    return ["--model", f"openai:{server.model}", "--base-url", server.base_url, "--concurrency", "1"]


def ids_of(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("where", ["in-process", "server"])
@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_judges_with_a_real_model(
    method: str, where: str, request: pytest.FixtureRequest, models: Models, tmp_path: Path
) -> None:
    source, flags = METHODS[method]
    items = first(source, 1, tmp_path)
    model = model_flags(where, request, f"llamacpp:{models.small}")
    out = tmp_path / "j.jsonl"
    code, output = judge(
        items, "--method", method, *flags, *model, "--cache", tmp_path / "cache.sqlite", "--out", out, *FAST
    )
    judged = check_judgments(out, ids_of(items), output, code)
    for j in judged:
        if j["status"] == "ok" and "--swap" in flags:
            assert j["verdict"] in (0, 1, 2) and len(j["orders"]) == 2
    if judged and where == "in-process":
        llm = faceteval.read_run(out).llm
        assert llm is not None and llm.identity is not None
        assert llm.identity.startswith("llamacpp@sha256:b179c9523d0e")  # which weights judged


def test_hdeval_decomposes_criteria_with_a_real_model_or_says_why_not(models: Models, tmp_path: Path) -> None:
    tree = tmp_path / "tree.yaml"
    done = run_to_end(
        [faceteval_command(), "hdeval", "decompose", "--task", "Answer a child's question simply.",
         "--criteria", "Accuracy,Comprehensibility", "--children", "2", "--model", f"llamacpp:{models.small}",
         "--out", str(tree), *FAST],
        timeout=900,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    if done.returncode == 0:
        assert "Accuracy" in tree.read_text(encoding="utf-8")
    else:
        assert done.returncode == 1 and "error: hdeval.decompose: the reply" in output, output
        assert not tree.exists()


def test_single_outputs_are_scored_within_the_scale(models: Models, tmp_path: Path) -> None:
    outputs = first(OUTPUTS, 2, tmp_path)
    out = tmp_path / "s.jsonl"
    code, output = judge(
        outputs, "--method", "fennec", "--single", "--criteria-count", "2",
        "--model", f"llamacpp:{models.small}", "--out", out, *FAST,
    )  # fmt: skip
    for j in check_judgments(out, ids_of(outputs), output, code):
        if j["status"] == "ok":
            assert j["scores"] and all(s is not None for s in j["scores"])


@pytest.mark.parametrize("where", ["in-process", "server"])
def test_logprob_scores_stay_within_the_scale(
    where: str, request: pytest.FixtureRequest, models: Models, tmp_path: Path
) -> None:
    pairs = first(PAIRS, 2, tmp_path)
    out = tmp_path / "l.jsonl"
    # in process, the 0.5B model, which writes its scores more often; every token's logits at 2,048: 1.2 GB
    model = model_flags(where, request, f"llamacpp:{models.qwen}?n_ctx=2048&threads=1")
    code, output = judge(pairs, "--method", "direct", "--score-mode", "logprobs", *model, "--out", out, *FAST)
    for j in check_judgments(out, ids_of(pairs), output, code):
        if j["status"] == "ok":
            assert all(1 <= s <= 10 for s in j["scores"]), j["scores"]
            assert j["score_modes"] and set(j["score_modes"]) <= {"logprobs", "parse"}, j


@pytest.mark.parametrize("where", ["in-process", "server"])
def test_structured_replies_follow_their_schema(
    where: str, request: pytest.FixtureRequest, models: Models, tmp_path: Path
) -> None:
    pairs = first(PAIRS, 1, tmp_path)
    out = tmp_path / "st.jsonl"
    # the server refuses json_schema: the run asks in json_object, and says so; in process, a grammar
    model = model_flags(where, request, f"llamacpp:{models.small}")
    code, output = judge(
        pairs, "--method", "dna", "--aspects", "2", "--structured", *model, "--out", out,
        "--cache", tmp_path / "c.sqlite", "--max-tokens", "400", "--timeout", "300",
    )  # fmt: skip
    judged = check_judgments(out, ids_of(pairs), output, code)
    fallback = faceteval.read_run(out).llm.structured_fallback  # type: ignore[union-attr]
    if where == "server":
        assert "--structured json_object" in output, output
        assert fallback == "json_object"
    else:
        assert fallback is None
    checked = 0
    for entry in (t for j in judged for t in j["trace"]):
        if entry["finish_reason"] != "stop":  # cut off at --max-tokens: a parse error that says so
            continue
        shown = [found for m in entry["messages"] if (found := SCHEMA.search(m["content"])) is not None]
        assert shown, entry["messages"]  # the schema is shown in the request (a re-ask: earlier)
        asked = shown[-1]
        jsonschema.validate(json.loads(entry["raw"]), json.loads(asked[1]))  # held to it by a grammar
        checked += 1
    assert checked or not judged, "no reply ended within --max-tokens"


def test_a_cached_replay_makes_no_call_and_judges_alike(models: Models, tmp_path: Path) -> None:
    pairs = first(PAIRS, 2, tmp_path)
    flags = [pairs, "--method", "direct", "--swap", "--model", f"llamacpp:{models.qwen}?threads=1"]
    flags += ["--cache", tmp_path / "c.sqlite", *FAST]
    code, output = judge(*flags, "--out", tmp_path / "first.jsonl")
    judged = check_judgments(tmp_path / "first.jsonl", ids_of(pairs), output, code)
    made, cached = calls_in(output)
    assert made >= 4 and cached == 0

    moved = tmp_path / "elsewhere.gguf"  # the same weights under another name: the same replies
    moved.symlink_to(models.qwen)
    flags[5] = f"llamacpp:{moved}?threads=1"
    code, again = judge(*flags, "--out", tmp_path / "again.jsonl")
    replayed = check_judgments(tmp_path / "again.jsonl", ids_of(pairs), again, code)
    assert calls_in(again) == (0, made)
    assert [_without_usage(j) for j in replayed] == [_without_usage(j) for j in judged]


def test_a_panel_of_two_real_models(models: Models, tmp_path: Path) -> None:
    pairs = first(PAIRS, 2, tmp_path)
    out = tmp_path / "p.jsonl"
    code, output = judge(
        pairs, "--method", "direct", "--model", f"llamacpp:{models.small}",
        "--model", f"llamacpp:{models.qwen}?threads=1", "--out", out, *FAST,
    )  # fmt: skip
    assert "LLM calls" in output  # the second model's loading left the terminal as it was
    for j in check_judgments(out, ids_of(pairs), output, code):
        assert len(j["panel"]) == 2, j.get("panel")


def test_a_killed_run_resumes_from_the_cache(models: Models, tmp_path: Path) -> None:
    pairs = first(PAIRS, 4, tmp_path)
    out, cache = tmp_path / "k.jsonl", tmp_path / "k.sqlite"
    command = [faceteval_command(), "judge", str(pairs), "--method", "direct", "--swap"]
    command += ["--model", f"llamacpp:{models.small}", "--cache", str(cache), "--out", str(out), *FAST]
    with start(command) as process:  # its output is read at the end: the run writes little
        wait_until(lambda: _cached(cache) >= 2, "two replies cached", timeout=600)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
    kept = _cached(cache)
    assert kept >= 2 and not out.exists()  # killed mid-run: replies kept, no output yet

    code, output = judge(*command[2:])
    judged = check_judgments(out, ids_of(pairs), output, code)
    _, cached = calls_in(output)
    assert cached >= kept, output  # every reply the killed run paid for is used
    if judged:
        assert sum(t["cached"] for j in judged for t in j["trace"]) == cached


def calls_in(output: str) -> tuple[int, int]:
    """The calls a run made and the replies it took from the cache, as its summary says."""
    found = re.search(r"LLM calls\s+([\d,]+) made, ([\d,]+) from cache", output)
    assert found is not None, output
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def _cached(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM responses").fetchone()[0])
    except sqlite3.Error:
        return 0


def _without_usage(judgment: dict[str, Any]) -> dict[str, Any]:
    """A judgment without what differs between a call and its cached replay."""
    kept = {k: v for k, v in judgment.items() if k not in ("usage", "latency_s", "created_at")}
    kept["trace"] = [
        {k: v for k, v in t.items() if k not in ("cached", "attempts")} for t in judgment["trace"]
    ]
    return kept
