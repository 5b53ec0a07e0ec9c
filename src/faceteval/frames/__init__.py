"""Tables for pandas (``pip install 'faceteval[pandas]'``): judgments, their facets, a run's result.

`judgments_to_pandas` reads judgments (or their file) into a DataFrame, one row per judgment or, with
``facets=True``, one per facet score; `result_to_pandas` gives a run's result per system. A run
record gives both for its run: `faceteval.store.RunRecord.to_pandas`. pandas is imported when a
table is first asked for.
"""

from faceteval.frames._tables import Judgments, judgments_to_pandas, result_to_pandas, summary_to_pandas

__all__ = ["Judgments", "judgments_to_pandas", "result_to_pandas", "summary_to_pandas"]
