"""A toy method, packaged as another project would package one: a spec, a method, a template, commands
and a kind of run record.

It exists to prove that adding a method is one package and one registry line: the tests install it
with an entry point (``faceteval.methods``: ``toy = tests.support.toy_method:SPEC``) and run it
through ``faceteval judge``, ``meta-eval`` and ``report`` without any change to faceteval itself. It
uses faceteval's public names only.
"""

from faceteval.methods import Command, MethodOption, MethodSpec, Sweep, TemplateFolder

from ._method import Toy

SPEC = MethodSpec(
    name="toy",
    factory=Toy,
    summary="A toy judge: every candidate scored 1-10 in one call, told how strict to be.",
    scale=(1.0, 10.0),
    options=(
        MethodOption(
            param="strictness",
            flag="--toy-strictness",
            type=int,
            default=1,
            minimum=1,
            maximum=5,
            help="how strict the judge is told to be (1-5).",
            sweep=Sweep(
                help="how strict the judge is told to be; a list (1,2,3) runs the strictness sweep.",
                title="Strictness sweep",
                column="Strictness",
                axis="strictness levels",
                prefix="strictness",
                metavar="S[,S...]",
            ),
        ),
    ),
    criteria=None,
    templates=(TemplateFolder("toy", __name__),),
    commands=(
        Command("toy", f"{__name__}._cli:toy"),
        Command("toy-tally", f"{__name__}._cli:tally"),
        Command("review import-toy", f"{__name__}._cli:import_toy"),
    ),
    records=(f"{__name__}._records:RECORD_KINDS",),
)

__all__ = ["SPEC", "Toy"]
