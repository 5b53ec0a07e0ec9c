"""`faceteval view` as a user starts it: every kind of run opens, every page forbids scripts and is
Host-checked, untrusted text is escaped, and runs that change while it runs are shown as they are now."""

from __future__ import annotations

import html
import http.client
import json
import os
import re
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from markupsafe import escape

import faceteval
from faceteval._cli._app import cli
from tests.support.view_runs import HOSTILE, UNREADABLE, Runs, data_dir, judge_run, make_runs, view


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return make_runs(tmp_path_factory.mktemp("runs"), data_dir())


@pytest.fixture(scope="module")
def base(runs: Runs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with view(index_dir=tmp_path_factory.mktemp("index"), cwd=runs.folder) as url:  # its runs by default
        yield url


def get(
    base: str, path: str, *, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, str, dict[str, str]]:
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    connection.request(method, path, headers=headers or {})
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, text, {k.lower(): v for k, v in response.getheaders()}


def links(page: str, pattern: str) -> list[str]:
    return [html.unescape(link) for link in re.findall(rf'href="({pattern})"', page)]


def run_link(base: str, name: str) -> str:
    """The address of the run listed as ``name`` on the list of runs."""
    _, page, _ = get(base, "/")
    found = re.search(rf'<a href="(/run/[0-9a-f]+)">{re.escape(html.escape(name))}</a>', page)
    assert found, f"{name} is not on the list of runs"
    return found[1]


def text_of(page: str) -> str:
    page = re.sub(r"<style>.*?</style>", "", page, flags=re.DOTALL)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))


def test_every_kind_of_run_opens_with_its_items(base: str) -> None:
    _, listing, _ = get(base, "/")
    runs = links(listing, r"/run/[0-9a-f]+")
    assert len(runs) == 9

    for run in runs:
        status, page, _ = get(base, run)
        assert status == 200, (run, text_of(page)[:500])
        for item in links(page, r"/run/[0-9a-f]+/item\?line=\d+")[:3]:
            status, shown, _ = get(base, item)
            assert status == 200, (item, text_of(shown)[:500])
            assert 'id="trace"' in shown and 'id="raw"' in shown


def test_the_list_says_what_each_run_is_and_did(base: str) -> None:
    _, page, _ = get(base, "/")
    rows = {
        text_of(row).split()[0]: text_of(row)
        for row in re.findall(r"<tr data-kind=.*?</tr>", page, flags=re.DOTALL)
    }

    assert "judge run dna openai:judge" in rows["j.jsonl"] and "4 ok · 1 parse_error" in rows["j.jsonl"]
    assert "orders agreed 3, disagreed 1" in rows["j.jsonl"]
    assert "meta-evaluation" in rows["mtbench"] and "n = 40" in rows["mtbench"]
    assert "HD-Eval evaluator hdeval" in rows["evaluator"] and "targets: Coherence" in rows["evaluator"]
    assert "correct run fennec correction" in rows["corrected.jsonl"]
    assert "bridge run fennec bridging" in rows["bridged/autoj-pairwise.jsonl"]


def test_each_run_page_shows_its_result(base: str, runs: Runs) -> None:
    _, judge, _ = get(base, run_link(base, "j.jsonl"))
    assert 'id="summary"' in judge and 'id="spend"' in judge
    assert "orders_disagreed" in text_of(judge) and "<dt>result</dt>" not in judge  # not again in the summary
    # the typed result stored in the record: won/tied/lost and win rates with their intervals, per system
    stored = faceteval.read_run(runs.judge).summary.result
    assert stored is not None and stored.pairwise is not None
    for standing in stored.pairwise.systems:
        row = re.search(
            rf'<tr data-name="{standing.name}">(.*?)</tr>', judge[judge.index('id="result-systems"') :]
        )
        assert row is not None, standing.name
        rate = standing.win_rate
        assert rate.value is not None and rate.ci is not None
        cells = text_of(row[1]).split()
        assert cells[:5] == [
            standing.name,
            *map(str, (standing.wins, standing.ties, standing.losses, standing.failed)),
        ]
        assert (
            f"{100 * rate.value:.1f}% [{100 * rate.ci[0]:.1f}, {100 * rate.ci[1]:.1f}] n = {rate.n}"
            in text_of(row[1])
        )
    assert text_of(judge).count("Swap consistency (the orders agreed on the verdict): 75.0%") == 1
    assert (
        'id="result-positions"' in judge and 'id="result-facets"' in judge and 'id="result-failures"' in judge
    )
    _, measured, _ = get(base, run_link(base, "mtbench"))
    assert 'id="agreement"' in measured and "Agreement with the human labels" in measured
    _, trained, _ = get(base, run_link(base, "evaluator"))
    assert "Held-out metrics" in trained and "Criteria tree and importance" in trained
    assert "pearson" in text_of(trained) and "Character development" in trained
    _, sweep, _ = get(base, run_link(base, "sweep"))
    assert 'id="children"' in sweep and "sweep/aspects-2" in sweep


def test_every_page_forbids_scripts_and_escapes_what_it_shows(base: str) -> None:
    judge = run_link(base, "j.jsonl")
    for path in (
        "/",
        judge,
        f"{judge}/item?line=5",
        f"{judge}/item?line=4",
        "/run/nope",
        f"{judge}?verdict=x",
    ):
        _, page, headers = get(base, path)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy, path
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
        assert "<script" not in page, path
    _, hostile, _ = get(base, f"{judge}/item?line=5")
    assert str(escape(HOSTILE)) in hostile and 'onerror="' not in hostile


def test_a_request_naming_another_host_is_refused(base: str) -> None:
    port = urllib.parse.urlsplit(base).port
    assert get(base, "/", headers={"Host": f"evil.example:{port}"})[0] == 400
    assert get(base, "/", headers={"Host": f"localhost:{port}"})[0] == 200
    assert get(base, "/", method="POST")[0] == 405
    assert get(base, "/", method="DELETE")[0] == 405


def test_a_parse_error_is_shown_as_such_with_its_raw_reply(base: str) -> None:
    status, page, _ = get(base, run_link(base, "j.jsonl") + "/item?line=4")
    shown = text_of(page)

    assert status == 200 and "Parse error: order 1,2: dna.score: the reply contains no scores" in shown
    assert page.count('class="problem parse-error-note"') >= 2 and UNREADABLE in shown


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/run/0123456789ab", 404, "no such run here"),
        ("{judge}?verdict=first", 400, "verdict: 'first' is a candidate's number"),
        ("{judge}?page=two", 400, "page: 'two' is not a whole number"),
        ("{judge}?size=100000", 400, "size: from 1 to 500 rows a page"),
        ("{judge}/item?line=99", 404, "has no item on line 99"),
        ("{judge}/../../../etc/passwd", 404, ""),
    ],
)
def test_requests_the_viewer_cannot_answer_get_4xx_saying_why(
    base: str, path: str, status: int, message: str
) -> None:
    got, page, _ = get(base, path.format(judge=run_link(base, "j.jsonl")))
    assert got == status and message in text_of(page) and "root:" not in page


def test_a_run_appended_to_replaced_or_removed_while_viewed_is_shown_as_it_is_now(
    runs: Runs, base: str
) -> None:
    folder = runs.folder / "live"
    folder.mkdir()
    judged = judge_run(folder)
    run = run_link(base, "live/j.jsonl")
    assert "5 items" in text_of(get(base, run)[1])

    lines = judged.read_text(encoding="utf-8").splitlines()
    with judged.open("a", encoding="utf-8") as out:
        out.write(json.dumps({**json.loads(lines[0]), "id": "p6"}) + "\n{not json\n")
    page = text_of(get(base, run)[1])
    assert "7 items" in page and "bad line (1)" in page and f"{judged}:7: not valid JSON" in page

    replaced = folder / "replacement.jsonl"
    replaced.write_text(lines[1] + "\n", encoding="utf-8")
    os.replace(replaced, judged)
    assert "1 item." in text_of(get(base, run)[1])
    status, item, _ = get(base, f"{run}/item?line=1")
    assert status == 200 and "p2" in text_of(item)

    judged.unlink()
    status, gone, _ = get(base, run)
    assert status in (404, 410) and ("no longer there" in gone or "no such run" in gone)


def test_view_without_runs_says_how_to_give_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["view", "--index-dir", str(tmp_path / "index")])

    assert result.exit_code == 1
    assert "the working directory holds no run: give faceteval view a judge output" in result.output
    assert result.output.count("give faceteval view") == 1 and result.output.count("\n") == 1  # once


def test_view_of_paths_that_are_no_runs_says_each_cause_once(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("not a run\n", encoding="utf-8")
    one = CliRunner().invoke(cli, ["view", str(other), "--index-dir", str(tmp_path / "index")])
    assert one.exit_code == 1 and one.output.count("\n") == 1, one.output  # one line, one cause
    assert f"error: {other}: is not a run: give a judge output" in " ".join(one.output.split())
    two = CliRunner().invoke(
        cli, ["view", str(other), str(tmp_path / "gone"), "--index-dir", str(tmp_path / "ix")]
    )
    assert two.exit_code == 1
    assert [line.split(":")[0] for line in two.output.splitlines()] == [
        str(other),
        str(tmp_path / "gone"),
        "error",
    ]
    assert "none of the 2 paths given is or holds a run" in two.output


def test_view_serves_loopback_alone(tmp_path: Path, runs: Runs) -> None:
    result = CliRunner().invoke(cli, ["view", str(runs.judge), "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "serves this machine alone" in result.output

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["view", str(runs.judge), "--port", str(port)])
    assert result.exit_code == 2 and "choose another with --port" in result.output
