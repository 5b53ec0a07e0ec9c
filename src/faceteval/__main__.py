"""``python -m faceteval``: the command-line interface."""

from faceteval._cli import main

main()
