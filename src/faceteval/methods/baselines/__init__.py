"""The baselines: one call scores every candidate overall (``direct``), or explains first (``cot``).

``direct`` is the benchmark prompt of FairEval and MT-Bench, as DnA-Eval's direct-scoring baseline
uses it; ``cot`` asks for the explanation before the scores.
"""

from faceteval.methods._base import DEFAULT_SCALE
from faceteval.methods._spec import MethodSpec, TemplateFolder
from faceteval.methods.baselines._method import DEFAULT_CRITERIA, CoT, Direct

DIRECT_SPEC = MethodSpec(
    name="direct",
    factory=Direct,
    summary="Overall scores for every candidate in one call, scores first (FairEval / MT-Bench prompt).",
    scale=DEFAULT_SCALE,
    templates=(TemplateFolder("direct", __name__, "templates/direct"),),
)
COT_SPEC = MethodSpec(
    name="cot",
    factory=CoT,
    summary="Overall scores for every candidate in one call, after an explanation (chain of thought).",
    scale=DEFAULT_SCALE,
    templates=(TemplateFolder("cot", __name__, "templates/cot"),),
)
SPECS = (DIRECT_SPEC, COT_SPEC)
"""The family's methods, as the registry holds them."""

__all__ = ["COT_SPEC", "DEFAULT_CRITERIA", "DIRECT_SPEC", "SPECS", "CoT", "Direct"]
