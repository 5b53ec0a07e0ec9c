"""The API reference builds from the docstrings (``make docs-api``), without a warning, and shows the
public names, not the plumbing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_api_reference_builds_and_shows_the_public_names(tmp_path: Path) -> None:
    pytest.importorskip("pdoc")
    out = tmp_path / "api"
    path = os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)

    built = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "api" / "build.py"), str(out)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert built.returncode == 0, built.stdout + built.stderr
    assert built.stderr == ""
    pages = {
        page.relative_to(out).as_posix(): page.read_text(encoding="utf-8") for page in out.rglob("*.html")
    }
    assert not [page for page in pages if "internal" in page or "/_" in page]

    def anchors(page: str) -> set[str]:
        return set(re.findall(r'id="([\w.]+)"', pages[page]))

    assert {"judge", "judge_async", "LLM", "RunAborted", "read_instances", "meta_evaluate"} <= anchors(
        "faceteval.html"
    )
    assert {"JudgmentAssertionError", "assert_prefers", "assert_score"} <= anchors("faceteval/testing.html")
    assert {"RunAborted", "JudgmentAssertionError", "FacetevalError"} <= anchors("faceteval/errors.html")
    assert {"read_run", "read_record", "RunRecord", "SQLiteCache"} <= anchors("faceteval/store.html")
    assert not {"header", "redacted", "write_atomic"} & anchors("faceteval/store.html")
    assert "Too many instances in a row failed" in pages["faceteval/errors.html"]  # from the docstrings
