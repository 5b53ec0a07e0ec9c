"""Correction and SFT export read the judgments of every method whose spec says they carry per-criterion
judgments (guidelines, each response's score and explanation): Fennec's, and a registered method's."""

from __future__ import annotations

from pathlib import Path

import pytest

import faceteval.methods._registry as registry
from faceteval.datasets import read_instances, read_judgments
from faceteval.errors import FacetevalError, InputError
from faceteval.methods import MethodSpec, register_method
from faceteval.methods.fennec import Fennec, build_sft, load_correctable
from tests.support.fennec_judge import FennecJudge
from tests.unit.methods.fennec.test_correct import judged_files, pair


def renamed(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(f'"method":"{old}"', f'"method":"{new}"'))


def test_a_registered_method_whose_judgments_carry_per_criterion_judgments_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], FennecJudge())
    renamed(judgments, "fennec", "fennec-7b")
    with pytest.raises(InputError, match=r"'fennec-7b'; correction needs fennec judgments \(faceteval judge"):
        load_correctable(judgments, inputs)

    monkeypatch.setattr(registry, "_SPECS", dict(registry._SPECS))
    register_method(
        MethodSpec(name="fennec-7b", factory=Fennec, summary="s", scale=(1, 5), per_criterion_judgments=True)
    )
    (item,) = load_correctable(judgments, inputs)
    assert item.judgment.method == "fennec-7b"
    renamed(judgments, "fennec-7b", "dna")
    needs = r"correction needs fennec or fennec-7b judgments \(faceteval judge --method fennec\)"
    with pytest.raises(InputError, match=needs):
        load_correctable(judgments, inputs)


def test_sft_refuses_what_no_spec_says_carries_per_criterion_judgments(tmp_path: Path) -> None:
    judgments, inputs = judged_files(tmp_path, [pair(1, "a", "b")], FennecJudge())
    (judged,) = read_judgments(judgments)
    instances = {i.id: i for i in read_instances(inputs)}
    assert build_sft([judged], instances).stats.judgments == 1
    with pytest.raises(FacetevalError, match=r"was made by 'dna', not fennec$"):
        build_sft([judged.model_copy(update={"method": "dna"})], instances)
