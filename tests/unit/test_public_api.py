"""The public surface: what `faceteval` exports, and that importing it does nothing heavy."""

import subprocess
import sys

import faceteval
import faceteval.errors
import faceteval.llm


def test_every_exported_name_exists() -> None:
    for module in (faceteval, faceteval.llm, faceteval.errors):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
    assert faceteval.__version__


def test_import_loads_no_provider_sdk() -> None:
    sdks = "('openai', 'anthropic', 'aiohttp')"
    code = f"import sys, faceteval; print(sorted(m for m in {sdks} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_meta_evaluation_is_imported_on_first_use() -> None:
    heavy = ["faceteval.metaeval", "faceteval.report"]
    loaded = f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    code = f"import sys, faceteval; {loaded}; faceteval.meta_evaluate; {loaded}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == ["[]", str(heavy)]
