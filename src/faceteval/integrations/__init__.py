"""faceteval inside the tools people already run: each integration is a subpackage imported on its own
(``faceteval.integrations.inspect``, ``faceteval.integrations.deepeval``), and needs its extra
(``pip install 'faceteval[inspect]'``); importing this package loads none of them."""
