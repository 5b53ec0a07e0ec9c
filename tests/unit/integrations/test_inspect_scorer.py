"""`facet_scorer`'s settings are checked when the task is built, and the integration is an optional extra:
without inspect_ai it says which to install, and faceteval itself never imports inspect_ai."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
from inspect_ai._util.registry import registry_info

from faceteval import DnA
from faceteval.errors import ConfigError
from faceteval.integrations.inspect import facet_scorer
from tests.support.processes import SRC


def test_the_scorer_is_registered_with_its_metrics() -> None:
    info = registry_info(facet_scorer("direct"))
    assert info.type == "scorer" and info.name.endswith("facet_scorer")
    metrics = info.metadata["metrics"]
    assert [registry_info(m).name for m in metrics] == ["inspect_ai/mean", "inspect_ai/stderr"]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("dnaa",), {}, "unknown method 'dnaa'"),
        (("dna",), {"aspect": 3}, "method 'dna': "),
        ((DnA(),), {"aspects": 3}, "method options (aspects) go with a method named by name"),
        (("dna",), {"against": "reference"}, "against must be 'baseline', 'target' or None, got 'reference'"),
        (
            ("dna",),
            {"against": "target", "target_as_reference": True},
            "against='target' judges the output against the target: it cannot",
        ),
    ],
)
def test_a_bad_setting_is_refused_when_the_task_is_built(
    args: tuple[object, ...], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        facet_scorer(*args, **kwargs)


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=120
    )


def test_without_inspect_ai_the_integration_names_the_extra_to_install() -> None:
    done = run_python(
        """
        import sys
        sys.modules["inspect_ai"] = None  # as if it were not installed
        from faceteval.errors import MissingDependencyError
        try:
            import faceteval.integrations.inspect
        except MissingDependencyError as error:
            print(error)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "faceteval.integrations.inspect needs an optional dependency; "
        "install it with: pip install 'faceteval[inspect]'"
    )


def test_faceteval_never_imports_inspect_ai() -> None:
    done = run_python(
        """
        import sys
        import faceteval, faceteval.integrations, faceteval._cli._app
        from faceteval import judge, read_instances, create_method
        create_method("dna")
        print(sorted(name for name in sys.modules if name.split(".")[0] == "inspect_ai"))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
