"""Bootstrap intervals are machine-independent: resampled sums are exact integers on a grid, so no
summation order (BLAS kernel, thread count) can move a digit; and the weights are the draws the
per-resample definition gives for the public seed, their questions permuted for any other."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

from scoring import metrics
from scoring.benchmarks.base import Stat
from scoring.metrics import BOOTSTRAP_SEED, bootstrap_weights, group_figures, question_stats
from tests.support.scoring import REPO_ROOT

_SCORE_DEMO = """
import sys, tempfile
from pathlib import Path
from tests.support import demo
import scoring
folder = Path(tempfile.mkdtemp())
records = demo.scb_gold(seed=0, sizes=demo.SCB_TYPE_SIZES)  # the full size: a small gold hid the drift
gold = scoring.load_gold("scb", demo.write_jsonl(folder / "gold.jsonl", records))
lines = demo.scb_submission(records, 0.8, "bbox_good", seed=1)
for seed in (scoring.metrics.BOOTSTRAP_SEED, 987654321):
    predictions = scoring.validate_file("scb", gold, demo.write_jsonl(folder / "sub.jsonl", lines))
    sys.stdout.write(repr(scoring.score_predictions("scb", gold, predictions, seed=seed).to_dict()) + "\\n")
"""


def _scored_with_threads(threads: int) -> str:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    done = subprocess.run(
        [sys.executable, "-c", _SCORE_DEMO], cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def test_results_do_not_depend_on_the_blas_thread_count():
    """On the code before scorer 1.3 the miou_ci digits differed between these two runs."""
    one, two = _scored_with_threads(1), _scored_with_threads(2)
    assert "miou_ci" in one
    assert one == two


def _per_resample_weights(n: int, resamples: int, seed: int) -> np.ndarray:
    """The definition: one draw of n questions with replacement per resample, counted."""
    rng = np.random.default_rng(seed)
    return np.stack([np.bincount(rng.integers(0, n, size=n), minlength=n) for _ in range(resamples)])


@pytest.mark.parametrize("n", [1, 2, 7, 318, 657])
def test_the_public_seeds_weights_are_its_per_resample_draws(n):
    metrics._draw_counts.cache_clear()
    assert np.array_equal(bootstrap_weights(n, 40, BOOTSTRAP_SEED), _per_resample_weights(n, 40, BOOTSTRAP_SEED))


@pytest.mark.parametrize("n", [1, 2, 7, 318, 657])
@pytest.mark.parametrize("seed", [0, 20240602, 2**64 - 59])
def test_another_seed_permutes_the_questions_of_those_draws(n, seed):
    """Permuted uniform-multinomial rows are uniform-multinomial rows (scoring.metrics doc)."""
    metrics._draw_counts.cache_clear()
    metrics._question_order.cache_clear()
    order = np.random.default_rng(seed).permutation(n)
    expected = _per_resample_weights(n, 40, BOOTSTRAP_SEED)[:, order]
    assert np.array_equal(bootstrap_weights(n, 40, seed), expected)
    assert (bootstrap_weights(n, 40, seed).sum(axis=1) == n).all()


def test_seeds_give_different_weights():
    weights = [bootstrap_weights(318, seed=seed) for seed in (BOOTSTRAP_SEED, 1, 2)]
    assert not np.array_equal(weights[0], weights[1]) and not np.array_equal(weights[1], weights[2])


def test_resampled_sums_are_the_exact_sums_of_grid_values():
    """Against plain Python integers: every resampled group sum of the IoU column is exactly the
    sum of weight x grid value (the column rounded to 24 significant bits)."""
    rng = np.random.default_rng(3)
    n = 400
    correct = rng.random(n) < 0.7
    union = rng.integers(1, 10_000, n).astype(np.float64)
    inter = np.floor(rng.random(n) * union)
    stats = question_stats(correct, inter, union)
    codes = rng.integers(0, 3, n)
    groups = {"g": (["a", "b", "c"], codes)}
    _, member = metrics.membership(groups, n)
    sums = metrics.bootstrap_sums(stats, member, groups, {Stat.IOU, Stat.CORRECT, Stat.QUESTIONS}, seed=11)
    weights = bootstrap_weights(n, seed=11)
    ious = stats[Stat.IOU].tolist()
    step = 2 ** (metrics.GRID_BITS - math.frexp(max(ious))[1])  # 24 significant bits of the largest
    assert 2**23 <= step <= 2**24
    grid = [round(v * step) for v in ious]
    for b in (0, 1, 999):
        row = weights[b].tolist()
        for k, label in enumerate(range(3)):
            exact = sum(w * q for w, q, c in zip(row, grid, codes.tolist(), strict=True) if c == label)
            assert sums[Stat.IOU][b, 1 + k] == exact / step
            count = sum(w for w, c in zip(row, codes.tolist(), strict=True) if c == label)
            assert sums[Stat.QUESTIONS][b, 1 + k] == count
        assert sums[Stat.IOU][b, 0] == sum(w * q for w, q in zip(row, grid, strict=True)) / step


def test_a_perfect_grounding_has_a_degenerate_miou_interval():
    n = 50
    correct = np.ones(n, dtype=bool)
    area = np.full(n, 1000.0)
    stats = question_stats(correct, area, area)
    figures = group_figures(stats, {}, [m for m in _scb_metrics() if m.name == "miou"])
    assert figures["overall"][""]["miou_ci"] == [100.0, 100.0]


def _scb_metrics():
    from scoring.benchmarks import get_benchmark

    return get_benchmark("scb").metrics
