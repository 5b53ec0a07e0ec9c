"""`make live`, as the README shows it: the Makefile's command, with the 0.5B model, prints the lines
the README's block shows (their figures are one run's of a real model, on one machine)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.live.conftest import Models
from tests.live.test_real_models import calls_in, judge
from tests.support.markdown import console_steps

ROOT = Path(__file__).resolve().parents[2]


def makefile_flags() -> list[str]:
    """``LIVE_FLAGS`` of the Makefile: what `make live` judges with."""
    found = re.search(r"^LIVE_FLAGS \?= (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert found is not None
    return shlex.split(found[1])


def test_make_live_prints_what_the_readme_shows(
    models: Models, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a wide terminal: the table's lines as the README shows them
    (step,) = [s for s in console_steps(ROOT / "README.md") if s.argv[:2] == ("make", "live")]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--model llamacpp:$(LIVE_MODEL) $(LIVE_FLAGS)" in makefile and "--max-failures 100%" in makefile
    code, output = judge(
        ROOT / "examples" / "data" / "pairs.jsonl", "--model", f"llamacpp:{models.qwen}", *makefile_flags(),
        "--max-failures", "100%", "--out", tmp_path / "live.jsonl", "--cache", tmp_path / "c.sqlite",
    )  # fmt: skip
    assert code == 0 and "Traceback" not in output, output
    made, _ = calls_in(output)
    assert made >= 16  # both orders of the eight pairs, asked of the model
    printed = [" ".join(line.split()) for line in output.splitlines()]
    for shown in step.output:  # each line the README shows opens a line printed (a real model's
        label = " ".join(w for w in shown.split()[:2] if not any(c.isdigit() for c in w))  # figures
        assert any(line.startswith(label or shown.split()[0]) for line in printed), (shown, output)
