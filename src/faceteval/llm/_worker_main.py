"""Entry point of a provider worker process: ``python -m faceteval.llm._worker_main SOCKET``.

Kept apart from `faceteval.llm._workers`, which the package imports, so that running this module
does not execute an already imported one a second time.
"""

import sys

from faceteval.llm._workers import serve

if __name__ == "__main__":
    serve(sys.argv[1])
