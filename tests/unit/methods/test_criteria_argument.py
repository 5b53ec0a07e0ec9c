"""What a method's ``criteria`` takes: criteria, names or mappings, in the type hints as at run time.

The last test checks this file with ``mypy --strict``, as a user's typed program would be checked: every
call here that works at run time must also type-check.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from faceteval import CoT, Criterion, Direct, DnA, create_method, load_criteria
from faceteval.errors import ConfigError
from faceteval.methods import CriterionLike
from faceteval.methods.coeval import CoEval
from faceteval.methods.fennec import Fennec
from faceteval.methods.hdeval import EvalNode, HierarchyAware

ACCURACY = Criterion(name="accuracy", description="The facts are right.", weight=2)
CLARITY = Criterion(name="clarity", weight=1)


def test_every_method_takes_criteria_names_and_mappings_and_keeps_criteria() -> None:
    names: list[str] = ["accuracy", "clarity"]
    mappings: list[dict[str, Any]] = [
        {"name": "accuracy", "description": "The facts are right.", "weight": 2},
        {"name": "clarity", "weight": 1},
    ]
    mixed: list[CriterionLike] = [ACCURACY, {"name": "clarity", "weight": 1}]
    objects: list[Criterion] = [ACCURACY, CLARITY]
    plain = (Criterion(name="accuracy"), Criterion(name="clarity"))
    for given, expected in ((names, plain), (mappings, (ACCURACY, CLARITY)), (mixed, (ACCURACY, CLARITY))):
        assert DnA(criteria=given).criteria == expected
        assert Direct(criteria=given).criteria == expected
        assert CoT(criteria=given).criteria == expected
        assert CoEval(criteria=given).criteria == expected
        assert Fennec(criteria=given).criteria == expected
    assert DnA(aspects=2, criteria=objects, aggregate="mean", scale=(1, 5)).criteria == (ACCURACY, CLARITY)
    assert Fennec(3, ("accuracy",), "weighted", single=True).criteria == (Criterion(name="accuracy"),)
    assert CoEval(criteria=None, task="Answer.").criteria is None


def test_criteria_read_from_a_file_and_a_run_record_rebuild_the_same_method(tmp_path: Path) -> None:
    path = tmp_path / "criteria.yaml"
    path.write_text("criteria:\n  - name: accuracy\n    description: The facts are right.\n  - clarity\n")
    method = DnA(criteria=load_criteria(path))
    assert method.criteria == (
        Criterion(name="accuracy", description="The facts are right."),
        Criterion(name="clarity"),
    )
    described = method.describe()
    assert create_method(described["name"], **described["params"]) == method


@pytest.mark.parametrize("method", [DnA, Direct, CoT, CoEval, Fennec])
@pytest.mark.parametrize(
    ("criteria", "message"),
    [
        (Path("criteria.yaml"), r"not a file: read it with load_criteria\("),
        ("criteria.yaml", r"write \['criteria.yaml'\] \(or load_criteria\('criteria.yaml'\) if it names"),
        ({"accuracy", "clarity"}, "set, whose order changes from run to run"),
        (5, "got int 5"),
        (["accuracy", {"nme": "clarity"}], r"criteria\[1\]\.name: Field required"),
        (["accuracy", None], r"criteria\[1\]: .*got None"),
    ],
)
def test_what_is_not_a_list_of_criteria_is_refused_naming_the_item(
    method: type[Any], criteria: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        method(criteria=criteria)


def test_hdeval_takes_nodes_or_mappings_and_refuses_anything_else() -> None:
    rows: list[dict[str, str]] = [{"id": "fluency", "name": "fluency"}]
    assert HierarchyAware("summaries", rows).criteria == (EvalNode("fluency", "fluency"),)
    nodes: list[EvalNode] = [EvalNode("fluency", "fluency")]
    assert HierarchyAware("summaries", nodes, scale=(1, 5)).scale == (1.0, 5.0)
    names: Any = ["fluency"]
    with pytest.raises(ConfigError, match=r"a criterion node is an EvalNode, .* got 'fluency'"):
        HierarchyAware("summaries", names)
    one: Any = rows[0]
    with pytest.raises(ConfigError, match="criteria is a list of criterion nodes"):
        HierarchyAware("summaries", one)
    scale: Any = "ab"
    with pytest.raises(ConfigError, match="scale must be"):
        HierarchyAware("summaries", nodes, scale=scale)


@pytest.mark.slow
def test_this_file_type_checks_strictly() -> None:
    root = Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(Path(__file__).resolve())],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
