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

from faceteval.methods._base import (
    DEFAULT_SCALE,
    CriterionLike,
    Method,
    OrderOutcome,
    as_criteria,
    candidate_labels,
    for_benchmark,
    gather,
    severity,
)
from faceteval.methods._context import (
    DEFAULT_MEMO_SIZE,
    DEFAULT_TOP_LOGPROBS,
    SCORE_MODES,
    JudgeContext,
    QueryMemo,
    ScoreModeOption,
)
from faceteval.methods._registry import (
    DEFAULT_METHOD,
    ENTRY_POINT_GROUP,
    create_method,
    find_method_spec,
    method_names,
    method_spec,
    method_specs,
    register_method,
    sweep_of,
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
    "DEFAULT_MEMO_SIZE",
    "DEFAULT_METHOD",
    "DEFAULT_SCALE",
    "DEFAULT_SWEEP",
    "DEFAULT_TOP_LOGPROBS",
    "ENTRY_POINT_GROUP",
    "SCORE_MODES",
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
    "ScoreModeOption",
    "Sweep",
    "TemplateFolder",
    "Templates",
    "as_criteria",
    "candidate_labels",
    "create_method",
    "find_method_spec",
    "for_benchmark",
    "gather",
    "method_names",
    "method_spec",
    "method_specs",
    "register_method",
    "severity",
    "sweep_of",
]
