"""``llamacpp:PATH.gguf``: the file is checked and identified before anything is loaded, and the spec's
options are read or refused. (The model itself is run in tests/live.)"""

from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path

import pytest

from faceteval.errors import ConfigError, MissingDependencyError
from faceteval.llm import LLM
from faceteval.llm.internal import LlamaCppOptions, LlamaCppProvider, check_gguf


def gguf(path: Path, *, magic: bytes = b"GGUF", version: int = 3, tensors: int = 2) -> Path:
    path.write_bytes(struct.pack("<4sIQQ", magic, version, tensors, 5) + b"\0" * 64)
    return path


def test_a_file_that_is_not_a_gguf_model_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no model file .*missing\.gguf"):
        check_gguf(tmp_path / "missing.gguf")
    with pytest.raises(ConfigError, match="is a folder"):
        check_gguf(tmp_path)
    with pytest.raises(ConfigError, match=r"not a GGUF model .*b'PK"):
        check_gguf(gguf(tmp_path / "a.gguf", magic=b"PK\x03\x04"))
    with pytest.raises(ConfigError, match="GGUF version 1"):
        check_gguf(gguf(tmp_path / "b.gguf", version=1))
    with pytest.raises(ConfigError, match="no tensors"):
        check_gguf(gguf(tmp_path / "c.gguf", tensors=0))
    (tmp_path / "d.gguf").write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match="too short"):
        check_gguf(tmp_path / "d.gguf")
    check_gguf(gguf(tmp_path / "ok.gguf"))


def test_the_cache_knows_a_model_by_its_digest_not_its_path(tmp_path: Path) -> None:
    first = gguf(tmp_path / "one.gguf")
    second = tmp_path / "elsewhere" / "renamed.gguf"
    second.parent.mkdir()
    second.write_bytes(first.read_bytes())
    a, b = LlamaCppProvider(first, loader=object), LlamaCppProvider(second, loader=object)
    digest = hashlib.sha256(first.read_bytes()).hexdigest()
    assert a.identity == b.identity == f"llamacpp@sha256:{digest}"
    assert a.cache_model == f"sha256:{digest}"
    other = gguf(tmp_path / "other.gguf", tensors=3)
    assert LlamaCppProvider(other, loader=object).identity != a.identity
    chat = LlamaCppProvider(first, LlamaCppOptions(chat_format="chatml"), loader=object)
    assert chat.identity == f"llamacpp@sha256:{digest}+chatml"  # another template, other replies


def test_the_spec_carries_the_options_after_the_path(tmp_path: Path) -> None:
    path = gguf(tmp_path / "m.gguf")
    with pytest.raises(ConfigError, match="unknown option 'gpu'"):
        LLM.from_spec(f"llamacpp:{path}?gpu=1")
    with pytest.raises(ConfigError, match="n_ctx='big' is not a whole number"):
        LLM.from_spec(f"llamacpp:{path}?n_ctx=big")
    with pytest.raises(ConfigError, match="--base-url does not apply"):
        LLM.from_spec(f"llamacpp:{path}", base_url="http://127.0.0.1:8080/v1")
    assert LlamaCppOptions.parse("n_ctx=2048&threads=1&seed=7", "s") == LlamaCppOptions(2048, 1, 7)


def test_without_llama_cpp_python_the_error_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # what an import of a missing package meets
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[llamacpp\]'"):
        LLM.from_spec(f"llamacpp:{gguf(tmp_path / 'm.gguf')}")


def test_one_call_at_a_time_whatever_the_concurrency_asked(tmp_path: Path) -> None:
    llm = LLM.from_spec(f"llamacpp:{gguf(tmp_path / 'm.gguf')}", concurrency=16)
    assert llm.concurrency == 1 and llm.describe()["concurrency"] == 1
