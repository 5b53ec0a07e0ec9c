"""Reading a criteria file (YAML or JSON) people write and edit by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from faceteval._util.documents import node_line
from faceteval._util.files import read_document
from faceteval.core import Criterion
from faceteval.core.internal import partial_weights, repeated_name, zero_weights
from faceteval.errors import InputError


def load_criteria(path: str | Path) -> tuple[Criterion, ...]:
    """Criteria from a YAML or JSON file.

    The file holds a list, or a mapping with a ``criteria`` list. Each entry is a string (the
    name) or a mapping with ``name`` and optionally ``description``, ``guideline``, ``scale``,
    ``weight`` and ``children``::

        criteria:
          - name: Accuracy
            description: Are the facts right?
            weight: 0.5
          - name: Helpfulness
            weight: 0.5

    Weights are given for every criterion or for none.

    Raises:
        InputError: The file cannot be read, or an entry is not a criterion (with its line), or
            repeats a key or a criterion's name.
    """
    name = str(path)
    data, document = read_document(path)
    entries, nodes = _entries(name, data, document)
    criteria = []
    for index, (entry, node) in enumerate(zip(entries, nodes, strict=True)):
        try:
            criteria.append(Criterion.model_validate(entry))
        except ValidationError as exc:
            problem = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in problem["loc"]) or None
            where = f"criteria[{index}]" + (f".{field}" if field else "")
            raise InputError(
                name, node_line(node), where, problem["msg"].removeprefix("Value error, ")
            ) from exc
    if not criteria:
        raise InputError(name, None, "criteria", "no criteria in the file")
    if (weightless := zero_weights(criteria) or partial_weights(criteria)) is not None:
        raise InputError(name, node_line(nodes[0]), "criteria", weightless)
    if (again := repeated_name(criteria)) is not None:
        raise InputError(
            name, node_line(nodes[again]), f"criteria[{again}].name", f"repeats {criteria[again].name!r}"
        )
    return tuple(criteria)


def _entries(name: str, data: Any, document: yaml.Node | None) -> tuple[list[Any], list[yaml.Node | None]]:
    sequence = document
    if isinstance(data, dict):
        if "criteria" not in data:
            raise InputError(
                name, None, None, "expected a list of criteria, or a mapping with a 'criteria' list"
            )
        data = data["criteria"]
        sequence = next(
            (v for k, v in getattr(document, "value", []) if getattr(k, "value", None) == "criteria"), None
        )
    if not isinstance(data, list):
        raise InputError(name, None, "criteria", "expected a list of criteria")
    nodes = list(getattr(sequence, "value", [])) if isinstance(sequence, yaml.SequenceNode) else []
    return data, nodes if len(nodes) == len(data) else [None] * len(data)
