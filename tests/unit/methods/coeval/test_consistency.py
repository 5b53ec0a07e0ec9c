"""CC and ICC (CoEval Equations 1-2): the math by hand, then with the real offline embedding model."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from faceteval.core import Criterion
from faceteval.errors import InputError, MissingDependencyError
from faceteval.methods.coeval import (
    DEFAULT_EMBEDDING_MODEL,
    CriteriaSets,
    Embedder,
    consistency_scores,
    load_criteria_sets,
    load_embedder,
    measure_consistency,
)

E1, E2, E3 = np.eye(3)
HALF = 1 / math.sqrt(2)

ELI5 = (
    Criterion(name="Simplicity", description="The answer uses simple words a five-year-old understands."),
    Criterion(name="Accuracy", description="The facts in the answer are correct."),
    Criterion(name="Examples", description="The answer uses analogies from a child's everyday life."),
    Criterion(name="Helpfulness", description="The answer helps the person who asked the question."),
)
UNRELATED = (
    (
        Criterion(name="Engine torque", description="The car's engine delivers strong torque at low rpm."),
        Criterion(name="Fuel economy", description="The vehicle uses little petrol per kilometre."),
    ),
    (
        Criterion(name="Soil acidity", description="The garden soil has a pH between 6 and 7."),
        Criterion(name="Drainage", description="Rain water drains from the flower bed within an hour."),
    ),
    (
        Criterion(name="Bond yield", description="The government bond pays a high annual interest rate."),
        Criterion(name="Liquidity", description="The shares can be sold quickly on the stock exchange."),
    ),
)


# -- the equations, by hand ------------------------------------------------------------------------


def test_two_samples_against_a_hand_computation() -> None:
    # C~ = {e1, e2}; C_1 = {e1, e2}; C_2 = {3(e1 + e2), e3}: cos(e1, e1 + e2) = 1/sqrt(2), cos(e1, e3) = 0.
    scores = consistency_scores([E1, E2], [[E1, E2], [3 * (E1 + E2), E3]])
    # CC = [(1 + 1) + (1/sqrt2 + 1/sqrt2)] / (|C~| = 2 * N = 2)
    assert scores.cc == pytest.approx((2 + 2 * HALF) / 4)
    # ICC = [C_1 in C_2: 1/sqrt2 + 1/sqrt2] + [C_2 in C_1: 1/sqrt2 + 0], over (2 + 2) * (N - 1 = 1)
    assert scores.icc == pytest.approx(3 * HALF / 4)
    assert scores.cc_per_sample == pytest.approx((1.0, HALF))
    assert scores.icc_per_sample == pytest.approx((HALF, HALF / 2))


def test_three_samples_weigh_icc_by_set_size_over_n_minus_one() -> None:
    # C_1 = {e1}, C_2 = {e1, e2}, C_3 = {e3, e1}; C~ = {e1, e2}.
    scores = consistency_scores([E1, E2], [[E1], [E1, E2], [E3, E1]])
    # CC: C~ in C_1: 1 + 0; in C_2: 1 + 1; in C_3: 1 + 0 -> 4 / (2 * 3)
    assert scores.cc == pytest.approx(4 / 6)
    # ICC: C_1 -> (C_2: 1) + (C_3: 1) = 2; C_2 -> (C_1: 1 + 0) + (C_3: 1 + 0) = 2;
    #      C_3 -> (C_1: 0 + 1) + (C_2: 0 + 1) = 2; sum 6 over (1 + 2 + 2) * (3 - 1) = 10
    assert scores.icc == pytest.approx(0.6)  # the unweighted mean of the per-sample values would be 2/3
    assert scores.icc_per_sample == pytest.approx((1.0, 0.5, 0.5))
    assert scores.cc_per_sample == pytest.approx((0.5, 1.0, 0.5))


def test_cc_matches_each_reference_criterion_in_the_sample_not_the_reverse() -> None:
    scores = consistency_scores([E1], [[E1, E3]])
    assert scores.cc == pytest.approx(1.0)  # e3 in the sample has no match in C~, which CC ignores
    assert scores.icc is None and scores.icc_per_sample == ()  # ICC needs two samples


def test_similarity_is_cosine_so_the_scale_of_a_row_does_not_matter() -> None:
    rng = np.random.default_rng(0)
    reference, samples = rng.normal(size=(4, 8)), [rng.normal(size=(k, 8)) for k in (3, 5, 2)]
    plain = consistency_scores(reference, samples)
    scaled = consistency_scores(reference * 7.5, [s * rng.uniform(0.1, 9, size=(len(s), 1)) for s in samples])
    assert (scaled.cc, scaled.icc) == pytest.approx((plain.cc, plain.icc))
    assert -1 <= plain.cc <= 1 and plain.icc is not None and -1 <= plain.icc <= 1


def test_identical_sets_score_one() -> None:
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(5, 16))
    scores = consistency_scores(rows, [rows, rows[::-1], rows.copy()])
    assert scores.cc == pytest.approx(1.0, abs=1e-12) and scores.icc == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    ("reference", "samples", "problem"),
    [
        ([E1], [], "at least one sampled set"),
        ([E1], [np.zeros((0, 3))], "non-empty"),
        ([E1], [[[1.0, 0.0]]], "size 2"),
        ([E1], [[np.zeros(3)]], "zero"),
        ([E1, [np.nan, 0, 0]], [[E1]], "non-finite"),
    ],
)
def test_inputs_without_a_cosine_similarity_are_refused(reference: Any, samples: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        consistency_scores(reference, samples)


# -- sets from a directory, embedded ---------------------------------------------------------------


class WordVectors:
    """A stand-in model: the first word of each text picks a fixed axis."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, sentences: list[str], **options: Any) -> np.ndarray:
        self.calls.append(sentences)
        axes = {"A": E1, "B": E2, "C": E3}
        return np.array([axes[text[0]] for text in sentences], dtype=np.float32)


def write_sets(root: Path, reference: list[str], samples: list[list[str]]) -> None:
    (root / "samples").mkdir(parents=True)
    (root / "criteria.yaml").write_text("criteria:\n" + "".join(f"  - {n}\n" for n in reference))
    for k, names in enumerate(samples, 1):
        lines = "".join(f"  - name: {n}\n    description: about {n}\n" for n in names)
        (root / "samples" / f"sample-{k:02d}.yaml").write_text("criteria:\n" + lines)


def test_measure_embeds_each_criterion_once_and_splits_the_sets_back(tmp_path: Path) -> None:
    write_sets(tmp_path, ["A1", "B1"], [["A2", "B2"], ["A3", "C3"]])
    sets = load_criteria_sets(tmp_path)
    assert sets.names == ("samples/sample-01.yaml", "samples/sample-02.yaml")
    model = WordVectors()
    report = measure_consistency(sets, Embedder("words", model))
    (texts,) = model.calls
    assert texts == ["A1", "B1", "A2: about A2", "B2: about B2", "A3: about A3", "C3: about C3"]
    expected = consistency_scores([E1, E2], [[E1, E2], [E1, E3]])
    assert report.scores == expected
    data = report.to_dict()
    assert (data["cc"], data["icc"], data["model"]) == (expected.cc, expected.icc, "words")
    assert (data["sets"], data["samples"], data["reference"]) == (
        3,
        2,
        {"file": "criteria.yaml", "criteria": 2},
    )
    assert data["per_sample"][1] == {
        "file": "samples/sample-02.yaml",
        "criteria": 2,
        "cc": expected.cc_per_sample[1],
        "icc": expected.icc_per_sample[1],
    }


def test_one_sample_reports_no_icc(tmp_path: Path) -> None:
    write_sets(tmp_path, ["A1"], [["A2"]])
    data = measure_consistency(load_criteria_sets(tmp_path), Embedder("words", WordVectors())).to_dict()
    assert data["cc"] == pytest.approx(1.0) and data["icc"] is None and data["per_sample"][0]["icc"] is None


def test_a_directory_without_the_reference_or_samples_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"criteria\.yaml.*criteria generate"):
        load_criteria_sets(tmp_path)
    (tmp_path / "criteria.yaml").write_text("criteria: [Accuracy]\n")
    with pytest.raises(InputError, match="no sampled sets"):
        load_criteria_sets(tmp_path)
    (tmp_path / "samples").mkdir()
    (tmp_path / "samples" / "sample-01.yaml").write_text("criteria: [Accuracy, accuracy]\n")
    with pytest.raises(InputError, match="repeats"):
        load_criteria_sets(tmp_path)


def test_without_sentence_transformers_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'faceteval\[embeddings\]'"):
        load_embedder()


# -- the real offline model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> Iterator[Embedder]:
    """The bundled all-MiniLM-L6-v2, loaded with the hub offline (any download attempt would fail)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("TRANSFORMERS_OFFLINE", "1")
        yield load_embedder()


def sets_of(reference: tuple[Criterion, ...], *samples: tuple[Criterion, ...]) -> CriteriaSets:
    return CriteriaSets(reference, samples, tuple(f"sample-{k}" for k in range(1, len(samples) + 1)))


def test_the_offline_model_loads_and_embeds(embedder: Embedder) -> None:
    assert embedder.name == DEFAULT_EMBEDDING_MODEL
    vectors = embedder.embed(["Accuracy: the facts are right.", "Fluency"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float64
    assert np.all(np.isfinite(vectors))


def test_identical_samples_score_one_with_the_real_model(embedder: Embedder) -> None:
    report = measure_consistency(sets_of(ELI5, ELI5, ELI5[::-1], ELI5), embedder)
    assert report.scores.cc == pytest.approx(1.0, abs=1e-6)
    assert report.scores.icc == pytest.approx(1.0, abs=1e-6)


def test_samples_about_other_topics_score_much_lower(embedder: Embedder) -> None:
    disjoint = measure_consistency(sets_of(ELI5, *UNRELATED), embedder).scores
    assert disjoint.cc < 0.4 and disjoint.icc is not None and disjoint.icc < 0.4
    paraphrased = (
        Criterion(name="Plain language", description="Only words a small child knows are used."),
        Criterion(name="Correctness", description="What the answer says is true."),
    )
    close = measure_consistency(sets_of(ELI5, paraphrased, ELI5[:2]), embedder).scores
    assert close.cc > disjoint.cc + 0.25
