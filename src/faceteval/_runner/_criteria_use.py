"""Which criteria a meta-evaluation's method judged with, and where they came from (for its run record).

DnA-Eval scores a benchmark's predefined criteria where it has them and generates aspects where it has
none (Table 1, Section 4); a run record says which happened: ``options.criteria`` is
``{"source": ..., "names": [...]}`` with ``source`` one of

- ``given``: the method's own criteria (``--criteria FILE``, or ``criteria=...`` in Python);
- ``benchmark``: the predefined criteria the built-in benchmark attaches to its instances;
- ``instances``: the criteria your file's instances carry;
- ``generated``: the method generates them per query (DnA's aspects, Fennec's criteria);
- ``template``: the method's prompt names its own (the baselines).

When only some instances carry criteria, ``source`` names both (``instances+generated``) and ``names``
lists those of the instances.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from faceteval.core import Instance
from faceteval.methods import Method
from faceteval.methods.internal import find_method_spec


def criteria_use(method: Method, instances: Sequence[Instance], *, benchmark: bool) -> dict[str, Any] | None:
    """``{"source", "names"}`` for ``method`` judging ``instances`` (None: a method that names no criteria).

    Examples:
        >>> from faceteval.methods.dna import DnA
        >>> criteria_use(DnA(criteria=["accuracy"]), [], benchmark=True)
        {'source': 'given', 'names': ['accuracy']}
    """
    spec = find_method_spec(method.name)
    if spec is not None and spec.criteria is None:
        return None
    given = method.describe().get("params", {}).get("criteria")
    if given:
        return {"source": "given", "names": [_name(c) for c in given]}
    names: list[str] = []
    carried = 0
    for instance in instances:
        if instance.criteria:
            carried += 1
            names += [c.name for c in instance.criteria if c.name not in names]
    generates = spec is not None and any(option.counts_criteria for option in spec.options)
    otherwise = "generated" if generates else "template"
    if carried == 0:
        return {"source": otherwise, "names": None}
    own = "benchmark" if benchmark else "instances"
    return {"source": own if carried == len(instances) else f"{own}+{otherwise}", "names": names}


def _name(criterion: Any) -> str:
    return str(criterion.get("name")) if isinstance(criterion, dict) else str(criterion)
