"""``--rpm`` on the command line: a two-model panel on one endpoint and key sends within one limit,
and the run record keeps the limits beside the other engine settings."""

from __future__ import annotations

import json
import time
from pathlib import Path

from click.testing import CliRunner

from faceteval._cli._app import cli
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge

RPM = 600
INSTANCES = 10
"""Ten instances, each judged by both judges with one call: twenty calls, at least 1.9 s apart in all."""


def test_a_panel_on_one_endpoint_and_key_sends_within_one_rpm(tmp_path: Path) -> None:
    rows = [{"id": str(n), "query": f"Why {n}?", "candidates": ["good", "poor"]} for n in range(INSTANCES)]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    judge = RuleJudge(quality={"good": 8, "poor": 3})
    out = tmp_path / "j.jsonl"
    with LLMServer(lambda body: judge.respond(body["messages"])) as server:
        start = time.monotonic()
        result = CliRunner().invoke(
            cli,
            [
                *("judge", str(pairs), "--method", "direct", "--model", "openai:judge-a"),
                *("--model", "openai:judge-b", "--base-url", server.base_url, "--api-key", "k"),
                *("--rpm", str(RPM), "--tpm", "10000000", "--no-cache", "--out", str(out)),
            ],
            catch_exceptions=False,
        )
        elapsed = time.monotonic() - start
        received = sorted(request.received_at for request in server.requests)

    assert result.exit_code == 0, result.output
    assert len(received) == 2 * INSTANCES
    assert elapsed >= (len(received) - 1) * 60 / RPM - 0.02
    most = max(sum(1 for t in received if start <= t < start + 1.0) for start in received)
    assert most <= RPM // 60 + 2  # in any one second; 20 at once without the limit
    record = json.loads(out.with_name("j.run.json").read_text(encoding="utf-8"))
    assert (record["llm"]["rpm"], record["llm"]["tpm"]) == (RPM, 10_000_000)
