"""`faceteval judge --method coeval` end to end, over HTTP, against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from faceteval._cli._app import cli
from tests.support.files import read_jsonl
from tests.support.llm_server import LLMServer
from tests.support.quoted import unquote

CRITERIA = """\
criteria:
  - name: Comprehensibility
    description: The answer uses simple words a five-year-old knows.
  - name: Length
    description: The answer is at most three sentences long.
    scale: [1, 3]
"""
QUALITY = {
    "Clouds get heavy and drops fall.": (5, 3, 5),
    "Precipitation results from coalescence.": (2, 1, 2),
}
"""Output text -> (Comprehensibility, Length, overall) scores the server gives."""
_OUTPUT = re.compile(r"\[The Start of Output\]\n(.*?)\n\[The End of Output\]", re.DOTALL)
_CRITERION = re.compile(r'^Criterion: "(\w+):', re.MULTILINE)


def responder(body: Mapping[str, Any]) -> str:
    """A CoEval-style evaluation per criterion; the overall score when asked for it."""
    messages = body["messages"]
    found = _OUTPUT.search(messages[0]["content"])
    assert found is not None
    output = unquote(found[1])
    comprehensibility, length, overall = QUALITY[output]
    if len(messages) > 1:
        turns = [m["role"] for m in messages]
        assert turns == ["user", "assistant", "user", "assistant", "user"], turns
        return f"1. Weighing both criteria above.\n\n2. Score: {overall}"
    name = _CRITERION.search(messages[0]["content"])
    assert name is not None
    score = comprehensibility if name[1] == "Comprehensibility" else length
    return (
        f"1. Conclusion: The output is judged on {name[1]}.\n\n"
        f"2. I would assign a score of {score} to this answer.\n\n"
        f'3. Evidence:\n- "{output}"'
    )


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, ["judge", *map(str, args)], catch_exceptions=False)


def inputs(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "outputs.jsonl"
    lines = [
        {"id": "good", "query": "Why does it rain?", "candidates": ["Clouds get heavy and drops fall."]},
        {
            "id": "poor",
            "query": "Why does it rain?",
            "candidates": ["Precipitation results from coalescence."],
        },
        {
            "id": "pair",
            "query": "Why does it rain?",
            "candidates": ["Precipitation results from coalescence.", "Clouds get heavy and drops fall."],
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    criteria = tmp_path / "criteria.yaml"
    criteria.write_text(CRITERIA, encoding="utf-8")
    return path, criteria


def test_coeval_judges_over_http_writes_jsonl_then_a_second_run_is_answered_from_the_cache(
    tmp_path: Path,
) -> None:
    path, criteria = inputs(tmp_path)
    out, cache = tmp_path / "j.jsonl", tmp_path / "c.sqlite"
    with LLMServer(responder) as server:
        args = [path, "--method", "coeval", "--criteria", criteria, "--model", "openai:judge"]
        args += ["--base-url", server.base_url, "--cache", cache, "--out", out]
        first = invoke(*args)
        assert first.exit_code == 0, first.output
        made = len(server.requests)
        # four outputs, but the pair's two are the single ones again: two distinct outputs, two
        # criteria and one overall call each (identical calls are made once)
        assert made == (2 + 1) * 2
        written = read_jsonl(out)
        again = invoke(*args)
        assert again.exit_code == 0, again.output
        assert len(server.requests) == made
    good, poor, pair = written
    assert (good["status"], good["scores"], poor["scores"]) == ("ok", [5.0], [2.0])
    assert [(f["name"], f["scores"]) for f in good["facets"]] == [
        ("Comprehensibility", [5.0]),
        ("Length", [3.0]),
    ]
    assert good["facets"][1]["explanation"] == (
        "Conclusion: The output is judged on Length.\n"
        "Score: I would assign a score of 3 to this answer.\n"
        'Evidence:\n- "Clouds get heavy and drops fall."'
    )
    criterion = next(e for e in good["trace"] if e["stage"] == "coeval.criterion")
    assert criterion["parsed"]["conclusion"].startswith("The output is judged on")
    assert criterion["parsed"]["evidence"] == ['"Clouds get heavy and drops fall."']
    overall = next(e for e in good["trace"] if e["stage"] == "coeval.overall")
    assert overall["parsed"] == {"candidate": 1, "score": 5.0, "reasoning": "Weighing both criteria above."}
    assert (pair["verdict"], pair["scores"], pair["facets"][0]["scores"]) == (2, [2.0, 5.0], [2.0, 5.0])
    assert good["usage"]["calls"] == 3 and good["usage"]["cached_calls"] == 0
    second = read_jsonl(out)
    assert [j["usage"]["cached_calls"] for j in second] == [j["usage"]["calls"] for j in second] == [3, 3, 6]
    strip = ("usage", "trace")
    assert [{k: v for k, v in j.items() if k not in strip} for j in second] == [
        {k: v for k, v in j.items() if k not in strip} for j in written
    ]
    record = json.loads((tmp_path / "j.run.json").read_text(encoding="utf-8"))
    assert record["method"]["name"] == "coeval"
    assert [c["name"] for c in record["method"]["params"]["criteria"]] == ["Comprehensibility", "Length"]
    assert {"coeval/criterion", "coeval/overall"} <= set(record["prompts"])


def test_dry_run_estimates_the_calls_of_each_stage(tmp_path: Path) -> None:
    path, criteria = inputs(tmp_path)
    with LLMServer(responder) as server:
        result = invoke(
            path, "--method", "coeval", "--criteria", criteria, "--model", "openai:gpt-4o-mini",
            "--base-url", server.base_url, "--dry-run", "--no-cache",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert server.requests == []
    rows = {}
    for line in result.output.splitlines():
        cells = [c.strip() for c in re.split(r"[│┃|]", line) if c.strip()]
        if len(cells) > 1:
            rows[cells[0]] = cells[1:]
    criterion = next(cells for name, cells in rows.items() if name.startswith("coeval.crit"))  # may be cut
    overall = rows["coeval.overall"]
    assert (criterion[0], overall[0], rows["total"][0]) == ("8", "4", "12")
    assert rows["total"][-1].startswith("$")
    # each overall call carries two criterion turns: its input is estimated above a criterion call's
    assert int(overall[2].replace(",", "")) / 4 > int(criterion[2].replace(",", "")) / 8


def test_without_criteria_the_run_stops_before_any_call(tmp_path: Path) -> None:
    path, _ = inputs(tmp_path)
    with LLMServer(responder) as server:
        result = invoke(path, "--method", "coeval", "--model", "openai:judge", "--base-url", server.base_url)
        assert server.requests == []
    assert result.exit_code == 1
    assert "coeval evaluates criteria" in result.output and "--criteria FILE" in result.output


def test_coeval_direct_takes_no_criteria_and_scores_each_output(tmp_path: Path) -> None:
    path, criteria = inputs(tmp_path)
    refused = invoke(path, "--method", "coeval-direct", "--criteria", criteria, "--model", "openai:judge")
    assert refused.exit_code == 2 and "--criteria does not apply to --method coeval-direct" in refused.output
    out = tmp_path / "d.jsonl"
    with LLMServer(lambda body: "4/5") as server:
        result = invoke(
            path, "--method", "coeval-direct", "--model", "openai:judge", "--base-url", server.base_url,
            "--no-cache", "--out", out,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 4
        assert server.requests[0].body["messages"][0]["content"].endswith("Evaluation Score:")
    judgments = read_jsonl(out)
    assert [j["scores"] for j in judgments] == [[4.0], [4.0], [4.0, 4.0]]
    assert judgments[2]["verdict"] == 0
