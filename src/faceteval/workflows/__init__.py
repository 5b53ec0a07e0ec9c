"""What each method family does above the engine: its commands, run records, reports and training.

`faceteval.workflows.coeval` (criteria generation and their consistency), `faceteval.workflows.fennec`
(correction, SFT data, bridging) and `faceteval.workflows.hdeval` (decomposition, training, evaluators,
experiments). Each uses its family's method kernel (`faceteval.methods.<family>`) and the engine; no
layer below names them: the command line, the reports, the stores and the review app find what a family
adds through its `faceteval.methods.MethodSpec`.
"""
