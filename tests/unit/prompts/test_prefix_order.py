"""``--prefix-cache`` (`prefix_cache_order`): the per-facet scoring templates put the facet last, so an
instance's calls share everything before it; the papers' order is the default."""

from __future__ import annotations

from typing import Any

import pytest

import faceteval.methods  # noqa: F401  (registers the methods' template folders)
from faceteval._util.prefix import common_prefix
from faceteval.prompts import prefix_cache_order, render
from faceteval.prompts.internal import prefix_cache_on

HDEVAL = (
    "hdeval/evaluate",
    *(f"hdeval/evaluate/{task}" for task in ("summarization", "dialogue", "data-to-text")),
)
SHARED = {"query": "Explain rain.", "reference": None}
FACETS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "dna/score": ("aspect", [{"aspect": "clarity"}, {"aspect": "accuracy"}]),
    "fennec/pairwise": ("criterion", [{"criterion": "clarity", "guideline": "1-5 by clarity"},
                                      {"criterion": "accuracy", "guideline": "1-5 by facts"}]),
    "fennec/single": ("criterion", [{"criterion": "clarity", "guideline": "1-5 by clarity"},
                                    {"criterion": "accuracy", "guideline": "1-5 by facts"}]),
    "coeval/criterion": ("criterion", [{"criterion": "clarity", "guideline": None},
                                       {"criterion": "accuracy", "guideline": None}]),
    **{name: ("metric", [{"metric": "clarity", "definition": "clear"},
                         {"metric": "accuracy", "definition": None}]) for name in HDEVAL},
}  # fmt: skip
SLOTS = {
    "dna/score": {"candidates": ["wet", "dry"], "labels": ["A", "B"], "scale": (1, 10)},
    "fennec/pairwise": {"candidates": ["wet", "dry"], "labels": ["A", "B"], "letters": ["A", "B"]},
    "fennec/single": {"response": "wet"},
    "coeval/criterion": {"task": "answers", "output": "wet", "low": 1, "high": 5},
    **{name: {"candidates": ["wet"], "scale": (1, 5), "task": "answers", "parent_name": "quality",
              "parent_description": None, "background": None, "fact": None}
       for name in HDEVAL},
}  # fmt: skip


def prompts(name: str) -> list[str]:
    _, facets = FACETS[name]
    return ["\n".join(m.content for m in render(name, **SHARED, **SLOTS[name], **facet)) for facet in facets]


@pytest.mark.parametrize("name", sorted(FACETS))
def test_the_facet_goes_last_and_the_shared_prefix_grows(name: str) -> None:
    papers = prompts(name)
    assert not prefix_cache_on()
    with prefix_cache_order(True):
        assert prefix_cache_on()
        ordered = prompts(name)
    assert not prefix_cache_on()
    assert common_prefix(ordered) > common_prefix(papers)
    for text in ordered:  # the facet is in the last part, after everything the calls share
        assert text.index("clarity" if "clarity" in text else "accuracy") > text.index("wet")
