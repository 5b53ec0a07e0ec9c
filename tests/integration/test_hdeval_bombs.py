"""`faceteval hdeval apply` of an evaluator whose aggregator file is a zip bomb: a 3 MB file whose member
inflates to 3 GiB, declaring it or declaring 1,000 bytes. Each command runs in its own process with its
address space capped at `ADDRESS_SPACE` (an evaluator that is not a bomb is applied under the same cap):
the bomb is refused with one line naming the file and the member, having inflated none of it."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_hdeval_train import outputs, responder, write
from tests.support.hdeval_judge import train_evaluator
from tests.support.llm_server import LLMServer
from tests.support.processes import SRC
from tests.support.zip_bombs import GIB, Member, bomb, stored, zip_archive

ADDRESS_SPACE = 3 * GIB
"""The cap: a legit `hdeval apply` (scikit-learn, skops and torch imported) maps about 1.6 GiB; reading
a 3 GiB member, or zipfile's inflating of a lying one at once (up to 2 GiB), does not fit beside it."""
BOMB = 3 * GIB


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer(responder) as server:
        yield server


@pytest.fixture(scope="module")
def trained(server: LLMServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_evaluator(tmp_path_factory.mktemp("hdeval-bombs"), server.base_url)


def capped() -> None:
    """In the child: its address space capped at `ADDRESS_SPACE`."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def apply(evaluator: Path, server: LLMServer) -> subprocess.CompletedProcess[str]:
    """`faceteval hdeval apply` of ``evaluator`` to 4 new outputs, in a capped process of its own."""
    fresh = write(evaluator.parent / "fresh.jsonl", outputs(4, "b"))
    out = evaluator.parent / "scored.jsonl"
    command = [
        sys.executable, "-m", "faceteval", "hdeval", "apply", str(evaluator), str(fresh), "--out", str(out),
        "--base-url", server.base_url, "--no-cache", "-q",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        command, env=env, preexec_fn=capped, capture_output=True, text=True, timeout=600, check=False
    )


def members(aggregator: Path) -> list[Member]:
    """The members of a real aggregator file, as they are (stored)."""
    with zipfile.ZipFile(aggregator) as archive:
        return [stored(info.filename, archive.read(info)) for info in archive.infolist()]


def test_an_evaluator_that_is_no_bomb_is_applied_under_the_cap(trained: Path, server: LLMServer) -> None:
    done = apply(trained, server)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in (trained.parent / "scored.jsonl").read_text().splitlines()]
    assert [row["status"] for row in rows] == ["ok"] * 4


@pytest.mark.parametrize("declared", [None, 1_000], ids=["declared", "lying"])
@pytest.mark.parametrize("target", ["schema.json", "array"])
def test_a_bomb_is_refused_in_one_line_naming_the_file_and_member(
    trained: Path, server: LLMServer, tmp_path: Path, target: str, declared: int | None
) -> None:
    evaluator = shutil.copytree(trained, tmp_path / "evaluator")
    real = members(evaluator / "aggregator.skops")
    name = "schema.json" if target == "schema.json" else next(m.name for m in real if m.name.endswith(".npy"))
    swapped = [bomb(name, BOMB, declared=declared) if m.name == name else m for m in real]
    (evaluator / "aggregator.skops").write_bytes(zip_archive(swapped))
    assert (evaluator / "aggregator.skops").stat().st_size < 4_000_000

    done = apply(evaluator, server)

    assert done.returncode == 1 and done.stdout == "", done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"error: {evaluator / 'aggregator.skops'}: member {name!r} ")
    said = "inflates past the 1,000 bytes it declares" if declared else "declares 3,221,225,472 bytes"
    assert said in line and line.endswith(("not loaded", "(a zip bomb?)"))
    assert not (tmp_path / "scored.jsonl").exists()
