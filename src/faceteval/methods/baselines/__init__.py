"""The baselines: one call scores every candidate overall (``direct``), or explains first (``cot``).

Each follows a benchmark's own template on it (``template``: ``llmbar``, ``faireval``, ``mtbench``;
chosen by ``meta-eval`` from the benchmark) and a generic one elsewhere (see ``_method``).
"""

from faceteval.methods._base import DEFAULT_SCALE
from faceteval.methods._spec import MethodOption, MethodSpec, TemplateFolder
from faceteval.methods.baselines._method import DEFAULT_CRITERIA, TEMPLATES, CoT, Direct

_TEMPLATE = MethodOption(
    param="template",
    choices=TEMPLATES,
    help="the prompt template: generic, or a benchmark's own (llmbar, faireval, mtbench); by default "
    "meta-eval takes the benchmark's own, and the generic one elsewhere.",
)

DIRECT_SPEC = MethodSpec(
    name="direct",
    factory=Direct,
    summary="Overall scores for every candidate in one call, scores first (FairEval / MT-Bench prompt).",
    scale=DEFAULT_SCALE,
    options=(_TEMPLATE,),
    templates=(TemplateFolder("direct", __name__, "templates/direct"),),
)
COT_SPEC = MethodSpec(
    name="cot",
    factory=CoT,
    summary="Overall scores for every candidate in one call, after an explanation (chain of thought).",
    scale=DEFAULT_SCALE,
    options=(_TEMPLATE,),
    templates=(TemplateFolder("cot", __name__, "templates/cot"),),
)
SPECS = (DIRECT_SPEC, COT_SPEC)
"""The family's methods, as the registry holds them."""

__all__ = ["COT_SPEC", "DEFAULT_CRITERIA", "DIRECT_SPEC", "SPECS", "TEMPLATES", "CoT", "Direct"]
