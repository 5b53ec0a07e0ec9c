"""Installing faceteval loads its pytest plugin into every test run: loading it costs almost nothing."""

from __future__ import annotations

import json
import sys

import pytest

from tests.support.processes import run_to_end

SHOW_MODULES = "import json, sys; {imports}; print(json.dumps(sorted(sys.modules)))"


def _modules_after(imports: str) -> set[str]:
    done = run_to_end([sys.executable, "-c", SHOW_MODULES.format(imports=imports)])
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("imports", ["import faceteval", "import faceteval.testing.plugin"])
def test_loading_the_plugin_or_the_package_loads_none_of_faceteval_s_machinery(imports: str) -> None:
    modules = _modules_after(imports)
    loaded = {name for name in modules if name.startswith("faceteval.")}
    assert loaded <= {
        "faceteval._util",
        "faceteval._util.lazy",
        "faceteval._version",
        "faceteval.errors",
        "faceteval.testing",
        "faceteval.testing._settings",
        "faceteval.testing.plugin",
    }
    assert not {"pydantic", "numpy", "httpx", "openai", "anyio"} & modules


def test_a_name_of_the_package_is_imported_on_first_use() -> None:
    modules = _modules_after("from faceteval import DnA, judge; from faceteval.testing import assert_prefers")
    assert {"faceteval.methods.dna", "faceteval._runner", "faceteval.testing._assert"} <= modules
