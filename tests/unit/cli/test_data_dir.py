"""Where the commands read the benchmarks: --data-dir, else FACETEVAL_DATA_DIR, else faceteval.toml,
else ./data; and `make demo` reads them from the same place."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from faceteval._cli._app import cli

ROOT = Path(__file__).resolve().parents[3]


def listed_from(*args: str, env: dict[str, str] | None = None) -> str:
    """The data directory `faceteval datasets list` reads."""
    result = CliRunner().invoke(cli, ["datasets", "list", *args], env=env, terminal_width=250)
    assert result.exit_code == 0, result.output
    title = re.search(r"Benchmarks in (\S+)", result.output)
    assert title is not None, result.output
    return title[1]


TOP = 'data-dir = "top"\n'
OWN = '[datasets.list]\ndata-dir = "own"\n'


@pytest.mark.parametrize(
    ("toml", "flag", "env", "expected"),
    [
        (None, None, None, "data"),
        (TOP, None, None, "top"),
        ('data_dir = "top"\n', None, None, "top"),
        (TOP + OWN, None, None, "own"),
        (TOP + OWN, None, "from-env", "from-env"),
        (TOP + OWN, "from-flag", "from-env", "from-flag"),
    ],
)
def test_the_flag_then_the_environment_then_faceteval_toml_then_data(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    toml: str | None,
    flag: str | None,
    env: str | None,
    expected: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FACETEVAL_DATA_DIR", raising=False)
    if toml is not None:
        (tmp_path / "faceteval.toml").write_text(toml)

    found = listed_from(
        *(["--data-dir", flag] if flag else []), env={"FACETEVAL_DATA_DIR": env} if env else None
    )

    assert found == expected


def test_a_data_dir_that_is_not_a_path_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "faceteval.toml").write_text("data-dir = 3\n")

    result = CliRunner().invoke(cli, ["datasets", "list"])

    assert result.exit_code == 2  # a usage error
    assert "faceteval.toml: data-dir = 3: expected a directory's path" in result.output


def test_make_demo_and_the_command_read_the_same_benchmarks(monkeypatch: pytest.MonkeyPatch) -> None:
    # After `make demo`, `faceteval datasets list` in the checkout listed every benchmark as missing:
    # the demo read ../shared/data, the command ./data.
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("FACETEVAL_DATA_DIR", raising=False)
    planned = subprocess.run(["make", "-n", "demo"], capture_output=True, text=True, check=True).stdout
    demo_line = next(line for line in planned.splitlines() if "examples/demo.py" in line)
    made = re.search(r"FACETEVAL_DATA_DIR=(\S+)", demo_line)
    assert made is not None, demo_line

    spec = importlib.util.spec_from_file_location("faceteval_demo", ROOT / "examples" / "demo.py")
    assert spec is not None and spec.loader is not None
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)

    command = Path(listed_from()).resolve()
    assert command == Path(made[1]).resolve() == demo.find_data_dir().resolve()
    assert command == (ROOT.parent / "shared" / "data").resolve()  # DESIGN.md's data directory
