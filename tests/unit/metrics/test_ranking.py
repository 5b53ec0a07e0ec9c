"""The top-k Kendall distance K^(p) of Fagin, Kumar and Sivakumar (2003), and ranking by weight."""

import itertools

import numpy as np
import pytest
from scipy import stats

from faceteval.metrics import rank_by_weight, topk_kendall_distance


def test_rank_by_weight_orders_by_weight_then_name() -> None:
    weights = {"relevance": 25.0, "accuracy": 40.0, "clarity": 25.0, "depth": 10.0}
    assert rank_by_weight(weights) == ["accuracy", "clarity", "relevance", "depth"]
    # Two raters who tie the same facets rank them alike, whatever order their mappings list them in.
    assert rank_by_weight(dict(reversed(weights.items()))) == rank_by_weight(weights)
    assert rank_by_weight({}) == []
    with pytest.raises(ValueError, match="finite"):
        rank_by_weight({"a": float("nan")})


# The four cases of Fagin et al.'s definition, worked by hand on the raw (unnormalised) K^(p).


def test_case_1_both_items_in_both_lists() -> None:
    # {x, y} is in both top-2 lists, ordered differently: penalty 1.
    assert topk_kendall_distance(["x", "y"], ["y", "x"], k=2, normalize=False) == 1.0
    assert topk_kendall_distance(["x", "y"], ["x", "y"], k=2, normalize=False) == 0.0


def test_case_2_both_in_one_list_one_in_the_other() -> None:
    # a = [x, y], b = [y, z]. {x, y}: y is in b (so above x there) but below x in a: 1.
    # {y, z}: y is in a (above z) and above z in b: 0. {x, z}: case 3: 1.
    assert topk_kendall_distance(["x", "y", "z"], ["y", "z", "x"], k=2, normalize=False) == 2.0
    # a = [y, x], b = [y, z]: {x, y} now agrees: only the case-3 pair {x, z} remains.
    assert topk_kendall_distance(["y", "x", "z"], ["y", "z", "x"], k=2, normalize=False) == 1.0


def test_case_3_each_item_in_a_different_list() -> None:
    # a's top-1 is x, b's is z: {x, z} is ordered oppositely: 1.
    assert topk_kendall_distance(["x", "z"], ["z", "x"], k=1, normalize=False) == 1.0


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_case_4_both_items_in_one_list_only(p: float) -> None:
    # Disjoint top-2 lists: 4 case-3 pairs (1 each) and {w, x}, {y, z} in one list only (p each).
    a, b = ["w", "x", "y", "z"], ["y", "z", "w", "x"]
    assert topk_kendall_distance(a, b, k=2, p=p, normalize=False) == pytest.approx(4 + 2 * p)
    assert topk_kendall_distance(a, b, k=2, p=p) == pytest.approx(1.0)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_identical_top_k_gives_zero(k: int) -> None:
    a = ["a", "b", "c", "d", "e", "f"]
    assert topk_kendall_distance(a, a, k) == 0.0
    # Only the top k matters: the same top k in the same order, the rest shuffled.
    assert topk_kendall_distance(a, a[:k] + a[k:][::-1], k) == 0.0


@pytest.mark.parametrize(("k", "p"), [(1, 0.5), (2, 0.0), (3, 0.5), (3, 1.0)])
def test_disjoint_top_k_gives_the_maximum(k: int, p: float) -> None:
    items = [f"f{i}" for i in range(2 * k)]
    a, b = items, items[k:] + items[:k]
    assert topk_kendall_distance(a, b, k, p, normalize=False) == pytest.approx(k * k + p * k * (k - 1))
    assert topk_kendall_distance(a, b, k, p) == pytest.approx(1.0)


@pytest.mark.parametrize(("universe", "k"), [(4, 2), (4, 3), (4, 4), (5, 1), (5, 2), (5, 3)])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_normalised_distance_tops_out_at_one_over_all_top_k_lists(universe: int, k: int, p: float) -> None:
    """Brute force: every pair of top-k lists over the items; the largest normalised value is 1."""
    items = [chr(ord("a") + i) for i in range(universe)]

    def full(top: tuple[str, ...]) -> list[str]:
        return [*top, *(item for item in items if item not in top)]

    lists = [full(top) for top in itertools.permutations(items, k)]
    values = [topk_kendall_distance(a, b, k, p) for a in lists for b in lists]
    assert min(values) == 0.0
    assert max(values) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_full_rankings_give_the_share_of_discordant_pairs(seed: int) -> None:
    """DnA-Eval's use: both rank the same facets, k = all of them; distance = (1 - tau) / 2."""
    rng = np.random.default_rng(seed)
    facets = [f"facet{i}" for i in range(6)]
    a, b = list(rng.permutation(facets)), list(rng.permutation(facets))
    tau = stats.kendalltau([a.index(f) for f in facets], [b.index(f) for f in facets]).statistic
    assert topk_kendall_distance(a, b, k=6) == pytest.approx((1 - tau) / 2)
    assert topk_kendall_distance(a, a[::-1], k=6) == pytest.approx(1.0)


def test_distance_is_symmetric() -> None:
    a, b = ["a", "b", "c", "d", "e"], ["c", "a", "e", "b", "d"]
    for k in range(1, 6):
        assert topk_kendall_distance(a, b, k) == topk_kendall_distance(b, a, k)


def test_single_item_universe() -> None:
    assert topk_kendall_distance(["a"], ["a"], k=1) == 0.0


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="at least k"):
        topk_kendall_distance(["a", "b"], ["a"], k=2)
    with pytest.raises(ValueError, match="repeat"):
        topk_kendall_distance(["a", "a"], ["a", "b"], k=1)
    with pytest.raises(ValueError, match="k must"):
        topk_kendall_distance(["a"], ["a"], k=0)
    with pytest.raises(ValueError, match="p must"):
        topk_kendall_distance(["a"], ["a"], k=1, p=1.5)
