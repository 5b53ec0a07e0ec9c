"""Human labels by id: the file `review export --labels` writes, and `judge --human-labels`, `calibrate`,
`meta-eval --labels` and `hdeval train --labels` read.

One JSON object a line: ``{"id": ..., "label": 1}`` (pairwise: the better candidate, 1-based; 0 a
tie) or ``{"id": ..., "scores": {"overall": 4.0}}`` (pointwise: human scores per aspect), with the
``annotators`` who gave it and, from the review app, ``votes`` (each annotator's own label or scores)
and ``sampling``: how the item came to be labelled. ``random`` (or none given: the user's own labels)
is a random sample of the run, which prediction-powered intervals and calibration need;
``uncertainty`` and ``disagreement`` chose the items where the judge was least sure, and are left out
of both (counted, and said).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from faceteval._util.files import decode_json
from faceteval.core import Instance
from faceteval.errors import InputError

Sampling = Literal["random", "uncertainty", "disagreement"]
SAMPLINGS: tuple[str, ...] = ("random", "uncertainty", "disagreement")
MAX_LABELS_BYTES = 256 * 1024 * 1024
"""A labels file larger than this is refused before it is read (each line is a few hundred bytes)."""


@dataclass(frozen=True, slots=True)
class HumanLabel:
    """One item's human label (pairwise) or scores (pointwise), and who gave it."""

    id: str
    label: int | None = None
    """The better candidate, 1-based; 0 a tie; None for a pointwise item."""
    scores: Mapping[str, float] | None = None
    """Human scores per aspect (pointwise)."""
    annotators: tuple[str, ...] = ()
    votes: Mapping[str, Any] = field(default_factory=dict)
    """Each annotator's own label (or scores), by name."""
    sampling: Sampling | None = None
    """How the item was chosen for labelling; None: not said (taken as a random sample)."""

    @property
    def random(self) -> bool:
        """Whether the label may count as a random sample of the run (not chosen by the judge's doubt)."""
        return self.sampling in (None, "random")

    def as_row(self) -> dict[str, Any]:
        """The label's JSONL object."""
        row: dict[str, Any] = {"id": self.id}
        if self.label is not None:
            row["label"] = self.label
        if self.scores is not None:
            row["scores"] = dict(self.scores)
        row["annotators"] = list(self.annotators)
        if self.votes:
            row["votes"] = dict(self.votes)
        if self.sampling is not None:
            row["sampling"] = self.sampling
        return row


def read_human_labels(path: str | Path) -> dict[str, HumanLabel]:
    """The labels of the JSONL file ``path``, by id.

    Raises:
        InputError: The file cannot be read, is too large, holds no label, or a line is not a label
            (naming the file, line and field), or an id is given twice.

    Examples:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.jsonl"
        >>> _ = path.write_text('{"id": "a", "label": 2, "annotators": ["kim"]}\\n{"id": "b", "label": 0}\\n')
        >>> labels = read_human_labels(path)
        >>> labels["a"].label, labels["a"].annotators, labels["b"].random
        (2, ('kim',), True)
    """
    name = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_LABELS_BYTES:
            raise InputError(
                name, None, None, f"{size:,} bytes: a labels file is at most {MAX_LABELS_BYTES:,}"
            )
        handle = Path(path).open("rb")  # noqa: SIM115  (closed by the with below)
    except OSError as exc:
        raise InputError(name, None, None, f"cannot open: {exc.strerror or exc}") from exc
    labels: dict[str, HumanLabel] = {}
    with handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                row = decode_json(raw.decode("utf-8-sig" if number == 1 else "utf-8"))
            except UnicodeDecodeError as exc:
                raise InputError(name, number, None, f"not UTF-8 text: {exc.reason}") from exc
            except ValueError as exc:  # UnreadableJSON too
                raise InputError(name, number, None, f"not valid JSON: {exc}") from exc
            label = _label(name, number, row)
            if label.id in labels:
                raise InputError(name, number, "id", f"{label.id!r} is labelled twice in this file")
            labels[label.id] = label
    if not labels:
        raise InputError(name, None, None, "no labels in it")
    return labels


def _label(name: str, number: int, row: Any) -> HumanLabel:
    if not isinstance(row, Mapping):
        raise InputError(name, number, None, "each line is a JSON object with an id and a label or scores")
    id_ = row.get("id")
    if not isinstance(id_, str) or not id_:
        raise InputError(name, number, "id", f"{id_!r}: an id is a non-empty string")
    label, scores = row.get("label"), row.get("scores")
    if (label is None) == (scores is None):
        raise InputError(name, number, "label", "give a label (pairwise) or scores (pointwise), one of them")
    if label is not None and (isinstance(label, bool) or not isinstance(label, int) or label < 0):
        raise InputError(name, number, "label", f"{label!r}: the better candidate (1-based), 0 a tie")
    if scores is not None:
        scores = _scores(name, number, scores)
    annotators = row.get("annotators", [])
    if not isinstance(annotators, list) or not all(isinstance(a, str) for a in annotators):
        raise InputError(name, number, "annotators", "a list of annotator names")
    votes = row.get("votes", {})
    if not isinstance(votes, Mapping):
        raise InputError(name, number, "votes", "an object of each annotator's label or scores")
    sampling = row.get("sampling")
    if sampling is not None and sampling not in SAMPLINGS:
        raise InputError(name, number, "sampling", f"{sampling!r}: one of {', '.join(SAMPLINGS)}")
    return HumanLabel(id_, label, scores, tuple(annotators), dict(votes), sampling)


def _scores(name: str, number: int, scores: Any) -> dict[str, float]:
    if not isinstance(scores, Mapping) or not scores:
        raise InputError(name, number, "scores", "an object of aspect -> score")
    made = {}
    for aspect, value in scores.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise InputError(name, number, f"scores.{aspect}", f"{value!r}: a score is a finite number")
        made[str(aspect)] = float(value)
    return made


def relabelled(instances: Iterable[Instance], labels: Mapping[str, HumanLabel]) -> list[Instance]:
    """``instances`` with the human ``label`` and ``scores`` of ``labels`` (by id) in place of their
    own; an instance ``labels`` does not name has neither.

    Examples:
        >>> pair = Instance(id="a", query="q", candidates=["x", "y"], label=1)
        >>> pairs = [pair, pair.model_copy(update={"id": "b"})]
        >>> [i.label for i in relabelled(pairs, {"a": HumanLabel("a", 2)})]
        [2, None]
    """
    made = []
    for instance in instances:
        found = labels.get(instance.id)
        label, scores = (None, None) if found is None else (found.label, found.scores)
        made.append(
            instance.model_copy(update={"label": label, "scores": None if scores is None else dict(scores)})
        )
    return made


def labels_jsonl(labels: Iterable[HumanLabel]) -> str:
    """``labels`` as the JSONL text `read_human_labels` reads."""
    return "".join(json.dumps(label.as_row(), ensure_ascii=False) + "\n" for label in labels)
