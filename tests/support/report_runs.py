"""Judge runs for the report tests, made by `faceteval judge` against the local LLM server, and readers
of the reports written (their Markdown tables and HTML, as parsed documents).

The pairwise run judges seven pairs of two systems (A and B, named by ``--systems`` or by an
instance's own ``systems``) with DnA-Eval on two facets weighted 62.5/37.5, in both orders: a rule
judge scores each facet of each text as `FACETS` says. On one pair the facets split; on two the judge
favours whichever candidate it is shown first, so that the orders disagree (a tie), and on one of
them the facets still favour a candidate; one candidate cannot be scored (a parse error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from faceteval._cli._app import cli
from tests.support.llm_server import LLMServer
from tests.support.rule_judge import RuleJudge, stage_of

FOLLOWS, CORRECT = "Does the output follow the instruction?", "Is the output correct?"
HOSTILE = (
    '<script>window.__pwned = 1</script> | *pipe* [x](javascript:alert(1)) <img src=x onerror="alert(2)">'
)
FACETS = {
    "a1": (9, 9), "b1": (2, 2),  # A wins on both facets
    "a2": (2, 2), "b2": (8, 8),  # B wins on both
    "a3": (9, 3), "b3": (4, 5),  # A wins, but correctness favours B: the facets split
    "a4": (6, 5), "b4": (5, 5),  # A a little better, but the judge favours the one shown first:
    "a5": (5, 5), "b5": (5, 5),  # the orders disagree (a tie); on a4/b4 the facets still favour A
    HOSTILE: (9, 9), "b6": (3, 3),  # A (shown second: the instance names its own systems, B first)
    "garbled": (5, 5), "b7": (5, 5),  # the judge will not score "garbled": a parse error
}  # fmt: skip
"""Each text's (follows the instruction, is correct) scores."""
PAIRS = [
    {"id": "q1", "query": "Explain rain.", "candidates": ["a1", "b1"]},
    {"id": "q2", "query": "Name a prime.", "candidates": ["a2", "b2"]},
    {"id": "q3", "query": "Explain snow.", "candidates": ["a3", "b3"]},
    {"id": "q4", "query": "Explain hail.", "candidates": ["a4", "b4"]},
    {"id": "q5", "query": "Explain fog.", "candidates": ["a5", "b5"]},
    {"id": "q6", "query": f"Explain dew. {HOSTILE}", "candidates": ["b6", HOSTILE], "systems": ["B", "A"]},
    {"id": "q7", "query": "Explain frost.", "candidates": ["garbled", "b7"]},
]
CONFLICTS, ORDERS, FAILED = ("q3", "q4"), ("q4", "q5"), ("q7",)
"""The items whose facets disagree with the verdict, whose orders disagree, and that failed."""
SINGLES = [
    {"id": "s1", "query": "Q1", "candidates": ["a1"], "systems": ["A"]},
    {"id": "s2", "query": "Q2", "candidates": ["a3"], "systems": ["A"]},
    {"id": "s3", "query": "Q3", "candidates": ["b2"], "systems": ["B"]},
    {"id": "s4", "query": "Q4", "candidates": ["b4"], "systems": ["B"]},
    {"id": "s5", "query": "Q5", "candidates": ["b1"], "systems": ["B"]},
]
_QUALITY = {text: {FOLLOWS: f, CORRECT: c} for text, (f, c) in FACETS.items()}
_JUDGE = RuleJudge(quality=_QUALITY, record=False)
_BIASED = RuleJudge(quality=_QUALITY, first_bias=1, record=False)


def respond(body: Mapping[str, Any]) -> str:
    """The rule judge's reply: position-biased on the pairs q4 and q5, no score at all for ``garbled``."""
    prompt = "\n".join(str(m["content"]) for m in body["messages"])
    if "garbled" in prompt and stage_of(prompt) == "dna.score":
        return "I would rather not say."
    judge = _BIASED if "a4" in prompt or "a5" in prompt else _JUDGE
    return judge.respond(body["messages"])


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def judge_runs(folder: Path) -> tuple[Path, Path]:
    """The pairwise run (``pairs.jsonl`` -> ``dna.jsonl``) and the single-output run (``singles.jsonl``
    -> ``single.jsonl``), each by ``faceteval judge``."""
    pairs, singles = write_rows(folder / "pairs.jsonl", PAIRS), write_rows(folder / "singles.jsonl", SINGLES)
    with LLMServer(respond) as server:
        local = ["--model", "openai:judge", "--base-url", server.base_url, "--no-cache", "--quiet"]
        dna = ["--method", "dna", "--aspects", "2", *local]
        for args in (
            [pairs, *dna, "--swap", "--systems", "A,B", "--out", folder / "dna.jsonl"],
            [singles, *dna, "--out", folder / "single.jsonl"],
        ):  # a run's unreadable reply is part of what its report shows: tolerated, not exit 6
            result = invoke("judge", *args, "--max-failures", "100%")
            assert result.exit_code == 0, result.output
    return folder / "dna.jsonl", folder / "single.jsonl"


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """The Markdown tables of ``text``, each a dict per row (its cells as written, escapes and links
    included)."""
    tables: list[list[dict[str, str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            current.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif current:
            header, _, *rows = current
            tables.append([dict(zip(header, row, strict=True)) for row in rows])
            current = []
    return tables


def markdown_table(markdown: str, title: str, index: int = 0) -> list[dict[str, str]]:
    """The ``index``-th table of the section ``## title`` of a Markdown report."""
    section = markdown.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    return markdown_tables(section)[index]


class Page(HTMLParser):
    """An HTML report, parsed: element ids, link targets, and each section's table rows (cell texts)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.links: list[str] = []
        self.scripts = 0
        self.images: list[str] = []
        self.rows: dict[str, list[list[str]]] = {}
        self._section: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "section":
            self._section = found.get("id")
        elif tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        elif tag == "script":
            self.scripts += 1
        elif tag == "img":
            self.images.append(str(found.get("alt")))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._section is not None:
            self.rows.setdefault(self._section, []).append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
