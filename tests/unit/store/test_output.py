"""The one output writer: a partial file beside the target, put in place whole, whole writes only."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faceteval.errors import StoreError
from faceteval.store import RunFiles
from faceteval.store._output import STALE_AFTER
from faceteval.store._runfiles import RECORD_ROOM
from faceteval.store.internal import OutputFile, partial_files, write_atomic, write_error
from tests.support.processes import SRC


def test_nothing_is_in_place_until_commit_and_the_earlier_file_stays_until_then(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier\n")
    out = OutputFile(target)
    out.write("one\n")
    out.write_lines(["two", "three"])
    assert target.read_text() == "earlier\n"
    [partial] = partial_files(target)
    assert partial.name.startswith(".out.jsonl.") and partial.read_text() == "one\ntwo\nthree\n"
    assert out.commit() == target and target.read_text() == "one\ntwo\nthree\n"
    assert (out.lines, out.size) == (3, len("one\ntwo\nthree\n")) and not partial_files(target)


def test_discarding_or_an_error_leaves_the_earlier_file_and_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier\n")

    def crash() -> None:
        with OutputFile(target) as out:
            out.write("half a run\n")
            raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        crash()
    OutputFile(target).discard()
    assert target.read_text() == "earlier\n" and not partial_files(target)


def test_the_replaced_file_keeps_its_permissions_and_a_new_folder_is_made(tmp_path: Path) -> None:
    target = tmp_path / "shared.jsonl"
    target.write_text("earlier\n")
    target.chmod(0o640)
    write_atomic(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert write_atomic(tmp_path / "new" / "folder" / "f.json", b"{}\n").read_bytes() == b"{}\n"


def test_rewind_undoes_the_writes_since_a_mark(tmp_path: Path) -> None:
    out = OutputFile(tmp_path / "out.jsonl")
    out.write("kept\n")
    mark = out.mark()
    out.write("undone\n")
    out.rewind(mark)
    out.write("after\n")
    out.commit()
    assert (tmp_path / "out.jsonl").read_text() == "kept\nafter\n" and out.lines == 2
    assert out.sha256 == hashlib.sha256(b"kept\nafter\n").hexdigest()


def test_a_partial_file_left_by_a_crash_is_cleaned_up_but_not_that_of_a_run_under_way(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    crashed = tmp_path / ".out.jsonl.dead0001.partial"
    crashed.write_text("left by a kill -9\n")
    live = OutputFile(target)  # holds its lock
    long_ago = time.time() - 2 * STALE_AFTER
    for path in (crashed, live.partial):
        os.utime(path, (long_ago, long_ago))
    fresh = OutputFile(target)
    assert set(partial_files(target)) == {live.partial, fresh.partial}
    live.discard()
    fresh.discard()


def test_a_partial_file_of_a_process_that_is_gone_is_cleaned_up_however_new_it_looks(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    gone = int(done.stdout)  # a process that has ended
    crashed = tmp_path / f".out.jsonl.{gone}-00ff00ff.partial"
    crashed.write_text("left by a kill -9 a moment ago\n")
    ahead = time.time() + 3600  # as if the clock had stepped back since it was written
    os.utime(crashed, (ahead, ahead))
    fresh = OutputFile(target)
    assert partial_files(target) == [fresh.partial] and f".{os.getpid()}-" in fresh.partial.name
    fresh.commit()
    assert partial_files(target) == []


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (errno.ENOSPC, "no space left writing out.jsonl"),
        (errno.EDQUOT, "no space left writing out.jsonl (disk quota exceeded)"),
        (errno.EFBIG, "no space left writing out.jsonl (file size limit reached)"),
        (errno.EIO, "cannot write out.jsonl: Input/output error"),
    ],
)
def test_write_errors_are_one_line_naming_the_file(code: int, message: str) -> None:
    assert str(write_error("out.jsonl", OSError(code, os.strerror(code)))) == message


LIMITED = """
import json, resource, sys
from pathlib import Path
from faceteval.errors import StoreError
from faceteval.store import RunFiles
from faceteval.store.internal import OutputFile
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
folder = Path(sys.argv[1])
result = {}
exec(sys.argv[3])
print(json.dumps(result))
"""


def limited(tmp_path: Path, limit: int, code: str) -> dict[str, object]:
    """Run ``code`` with files limited to ``limit`` bytes: a write beyond fails (EFBIG) as on a full disk."""
    ran = subprocess.run(
        [sys.executable, "-c", LIMITED, str(tmp_path), str(limit), code],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return dict(json.loads(ran.stdout))


def test_a_write_that_does_not_fit_is_cut_and_the_file_holds_whole_writes_only(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("earlier\n")
    code = """
out = OutputFile(folder / "out.jsonl")
out.write("x" * 60 + "\\n")
try:
    out.write("y" * 60 + "\\n")  # only 40 bytes of it fit
except StoreError as exc:
    result["error"] = str(exc)
try:
    out.write("z\\n")
except StoreError as exc:
    result["then"] = str(exc)
out.commit()
"""
    result = limited(tmp_path, 100, code)
    assert result["error"] == result["then"] == f"no space left writing {target} (file size limit reached)"
    assert target.read_text() == "x" * 60 + "\n" and not partial_files(target)


def test_a_record_that_cannot_be_written_leaves_none_describing_other_outputs(tmp_path: Path) -> None:
    (tmp_path / "out.jsonl").write_text("earlier\n")
    (tmp_path / "out.run.json").write_text('{"written": {"out.jsonl": {"lines": 1}}}\n')
    code = """
files = RunFiles([folder / "out.jsonl"], folder / "out.run.json")
files[folder / "out.jsonl"].write("new\\n")
try:
    files.finish({"huge": "y" * (2 * RECORD_ROOM)})  # beyond its room, on a disk with none left
except StoreError as exc:
    result["error"] = str(exc)
""".replace("RECORD_ROOM", str(RECORD_ROOM))
    result = limited(tmp_path, RECORD_ROOM + 50, code)
    assert result["error"] == f"no space left writing {tmp_path / 'out.run.json'} (file size limit reached)"
    assert (tmp_path / "out.jsonl").read_text() == "new\n" and not (tmp_path / "out.run.json").exists()
    assert not partial_files(tmp_path / "out.run.json")


def test_run_files_left_unfinished_leave_the_earlier_files_as_they_were(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("earlier a\n")
    (tmp_path / "a.run.json").write_text("{}\n")
    with RunFiles([tmp_path / "a.jsonl", tmp_path / "b.jsonl"], tmp_path / "a.run.json") as files:
        files[tmp_path / "a.jsonl"].write("new a\n")
        files[tmp_path / "b.jsonl"].write("new b\n")
    assert (tmp_path / "a.jsonl").read_text() == "earlier a\n" and not (tmp_path / "b.jsonl").exists()
    assert (tmp_path / "a.run.json").read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "a.run.json"]


def test_an_output_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreError, match=r"cannot write .*file/out.jsonl: Not a directory"):
        OutputFile(tmp_path / "file" / "out.jsonl")
