"""Judging methods: each turns instances into outcomes through the LLM wrapper.

One package per paper: `faceteval.methods.baselines` (``direct``, ``cot``), `faceteval.methods.dna`
(DnA-Eval), `faceteval.methods.coeval` (CoEval: ``coeval``, ``coeval-direct``; criteria generation,
their consistency), `faceteval.methods.fennec` (Fennec; correction, SFT data, bridging) and
`faceteval.methods.hdeval` (HD-Eval: the hierarchy-aware method; trees, decomposition, learned
aggregators). Each describes its methods with a `MethodSpec`; the registry holds the specs, and a
package of yours adds one with `register_method` or an entry point of the group ``faceteval.methods``.
`Templates` (`faceteval.prompts.Templates`, templates of your own in place of built-in ones) is
re-exported here, where every family's templates are registered by the time it checks their names.
"""

from faceteval.methods._base import DEFAULT_SCALE, CriterionLike, Method, OrderOutcome, for_benchmark, gather
from faceteval.methods._context import JudgeContext, QueryMemo
from faceteval.methods._registry import (
    DEFAULT_METHOD,
    create_method,
    method_names,
    method_spec,
    method_specs,
    register_method,
)
from faceteval.methods._spec import (
    DEFAULT_SWEEP,
    Command,
    CriteriaUse,
    EvaluationStages,
    MethodOption,
    MethodSpec,
    RunReport,
    Sweep,
    TemplateFolder,
)
from faceteval.prompts import Templates

__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_SCALE",
    "DEFAULT_SWEEP",
    "Command",
    "CriteriaUse",
    "CriterionLike",
    "EvaluationStages",
    "JudgeContext",
    "Method",
    "MethodOption",
    "MethodSpec",
    "OrderOutcome",
    "QueryMemo",
    "RunReport",
    "Sweep",
    "TemplateFolder",
    "Templates",
    "create_method",
    "for_benchmark",
    "gather",
    "method_names",
    "method_spec",
    "method_specs",
    "register_method",
]
