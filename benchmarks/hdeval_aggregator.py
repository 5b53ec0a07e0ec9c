"""HD-Eval aggregator benchmark behind `make bench`: an ``mlp`` aggregator's fit and permutation importance.

1,600 outputs x 60 criteria (integer scores 1-5) and 4 human aspects, synthetic: each aspect follows a
dozen criteria, with noise. Target: fit plus permutation importance (5 repeats) in under 30 s.

It prints the timings and exits non-zero when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from faceteval.workflows.hdeval._aggregators import make_aggregator
from faceteval.workflows.hdeval._importance import importance

LIMIT_S = 30.0


def synthetic(
    rows: int = 1600, criteria: int = 60, targets: int = 4, seed: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Criterion scores 1-5 sharing a latent quality per aspect, and human scores on a 1-5 scale."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(rows, targets))
    aspect = rng.integers(0, targets, size=criteria)
    x = np.clip(np.rint(3 + 0.8 * quality[:, aspect] + rng.normal(size=(rows, criteria))), 1, 5)
    weights = rng.normal(size=(criteria, targets)) * (rng.random((criteria, targets)) < 0.2)
    signal = x @ weights
    signal = (signal - signal.mean(axis=0)) / signal.std(axis=0)
    y = np.clip(3 + signal + 0.5 * rng.normal(size=signal.shape), 1, 5)
    return x, y


def bench(rows: int, criteria: int, targets: int) -> dict[str, Any]:
    x, y = synthetic(rows, criteria, targets)
    started = time.perf_counter()
    model = make_aggregator("mlp", seed=0).fit(x, y)
    fitted = time.perf_counter()
    scores = importance(model, x, y, seed=0)
    done = time.perf_counter()
    total = done - started
    return {
        "rows": rows,
        "criteria": criteria,
        "targets": targets,
        "fit_s": round(fitted - started, 2),
        "importance_s": round(done - fitted, 2),
        "total_s": round(total, 2),
        "epochs": int(model[-1].n_iter_),
        "importance_shape": list(scores.shape),
        "limit_s": LIMIT_S,
        "pass": total < LIMIT_S,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1600)
    parser.add_argument("--criteria", type=int, default=60)
    parser.add_argument("--targets", type=int, default=4)
    args = parser.parse_args()
    result = bench(args.rows, args.criteria, args.targets)
    print("hdeval_aggregator:", json.dumps(result))
    print(f"mlp fit + permutation importance: {result['total_s']:.2f} s (limit {LIMIT_S:.0f} s)")
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
