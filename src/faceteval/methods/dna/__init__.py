"""DnA-Eval: decompose into aspects, score each aspect in its own call, aggregate in code.

Li et al., "DnA-Eval: Enhancing Large Language Model Evaluation through Decomposition and
Aggregation". `DnA` is the method; `facet_weights` its weighting step, which Fennec's ``weighted``
aggregate reuses.
"""

from faceteval.methods._base import DEFAULT_SCALE
from faceteval.methods._spec import MethodOption, MethodSpec, Sweep, TemplateFolder
from faceteval.methods.dna._method import AGGREGATES, DEFAULT_ASPECTS, DnA, facet_weights

SPEC = MethodSpec(
    name="dna",
    factory=DnA,
    summary="DnA-Eval: aspects (given, or generated per query), each scored in its own call, "
    "weighted in code.",
    scale=DEFAULT_SCALE,
    options=(
        MethodOption(
            param="aspects",
            flag="--aspects",
            type=int,
            default=DEFAULT_ASPECTS,
            minimum=1,
            maximum=20,
            help="aspects generated per query when there are no predefined criteria.",
            sweep=Sweep(
                help="generated aspects per query; a list (1,2,3,4,5,6) runs the aspect-count sweep.",
                title="Aspect-count sweep",
                column="Aspects",
                axis="aspects",
                prefix="aspects",
            ),
            counts_criteria=True,
        ),
        MethodOption(
            param="aggregate",
            flag="--aggregate",
            choices=AGGREGATES,
            default="weighted",
            lead="How facet scores combine.",
            help="weighted (default; LLM-proposed weights), mean, or prompted (ablation).",
        ),
    ),
    templates=(TemplateFolder("dna", __name__),),
)
SPECS = (SPEC,)
"""The family's methods, as the registry holds them."""

__all__ = [
    "AGGREGATES",
    "DEFAULT_ASPECTS",
    "SPEC",
    "SPECS",
    "DnA",
    "facet_weights",
]
