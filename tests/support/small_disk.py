"""Commands run with a tiny disk: a tmpfs mounted in a private mount namespace (``unshare -rm``).

``unshare -r`` maps the caller to root in a new user namespace, where mounting a tmpfs is allowed: this
works as root and, where user namespaces are enabled, as any user. The mount exists only inside the
namespace, so what the commands leave on the disk is copied out before it goes.

```python
results = run_on_small_disk(tmp_path / "disk", [[sys.executable, "-m", "faceteval", "judge", ...]])
assert results[0].returncode == 1
kept = tmp_path / "disk-kept"   # a copy of what was on the disk when the commands ended
```
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.support.processes import SRC

ROOT = SRC.parent
_MOUNT = r"""
set -u
disk=$1; shift
mount -t tmpfs -o "size=$SIZE" tmpfs "$disk" || { echo "cannot mount a tmpfs on $disk" >&2; exit 97; }
awk -v d="$disk" '$2 == d && $3 == "tmpfs" {found = 1} END {exit !found}' /proc/self/mounts \
    || { echo "no tmpfs on $disk after mounting it" >&2; exit 98; }
exec "$@"
"""


def run_on_small_disk(
    disk: Path, commands: Sequence[Sequence[str]], *, size: str = "200k", timeout: float = 300
) -> list[subprocess.CompletedProcess[str]]:
    """Run ``commands`` one after another with a tmpfs of ``size`` on ``disk``; their results.

    What is on the disk when they end (hidden files too) is copied to ``<disk>-kept`` beside it.

    Raises:
        AssertionError: The tmpfs could not be mounted (no user namespaces?): the test fails, as a
            test that cannot check what it claims must not pass or be skipped.
    """
    disk.mkdir(parents=True, exist_ok=True)
    kept = disk.with_name(f"{disk.name}-kept")
    spec = disk.with_name(f"{disk.name}-spec.json")
    spec.write_text(json.dumps({"commands": [list(c) for c in commands], "kept": str(kept)}))
    env = {"PYTHONPATH": f"{SRC}:{ROOT}", "SIZE": size}
    driver = [sys.executable, "-m", "tests.support.small_disk", str(disk), str(spec)]
    outer = subprocess.run(
        ["unshare", "-rm", "sh", "-c", _MOUNT, "sh", str(disk), *driver],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )
    assert outer.returncode == 0, f"the small disk could not be set up: {outer.stderr or outer.stdout}"
    done = json.loads((kept / ".results.json").read_text())
    (kept / ".results.json").unlink()
    return [subprocess.CompletedProcess(c, r["returncode"], r["stdout"], r["stderr"]) for c, r in done]


def _drive(disk: Path, spec_path: Path) -> None:
    """Inside the namespace: run the commands, then copy the disk out with their results."""
    spec = json.loads(spec_path.read_text())
    results = []
    for command in spec["commands"]:
        ran = subprocess.run(command, capture_output=True, text=True, check=False)
        results.append((command, {"returncode": ran.returncode, "stdout": ran.stdout, "stderr": ran.stderr}))
    kept = Path(spec["kept"])
    shutil.copytree(disk, kept, dirs_exist_ok=True)
    (kept / ".results.json").write_text(json.dumps(results))


if __name__ == "__main__":
    _drive(Path(sys.argv[1]), Path(sys.argv[2]))
