"""Honest ranks: ties and overlapping intervals share a rank; the range covers the bootstrap's ranks."""

from __future__ import annotations

import numpy as np
import pytest

from leaderboard.ranks import bounds, rank_ranges
from scoring.benchmarks.base import ACCURACY
from scoring.metrics import CI_PERCENTILES, bootstrap_weights, group_figures, question_stats


def test_tied_figures_share_a_rank():
    ranges = rank_ranges([(77.44, 77.44), (77.44, 77.44), (60.0, 61.0)])
    assert [(r.best, r.worst) for r in ranges] == [(1, 2), (1, 2), (3, 3)]


def test_overlapping_intervals_share_rank_one():
    """K-Viscuit: 82.95 ± 2.97 (scored here) and 81.58 (a paper's point figure)."""
    ranges = rank_ranges([(82.95 - 2.97, 82.95 + 2.97), (81.58, 81.58)])
    assert [r.best for r in ranges] == [1, 1]


def test_lower_is_better_and_missing_figures():
    ranges = rank_ranges([(5.0, 6.0), (1.0, 2.0), (float("nan"), float("nan"))], higher_is_better=False)
    assert [(r.best, r.worst) for r in ranges] == [(2, 2), (1, 1), (3, 3)]


def test_a_paper_row_without_an_interval_is_its_point():
    assert bounds({"overall": {"acc": 81.58}}, ACCURACY) == (81.58, 81.58)
    assert bounds({"overall": {"acc": 80.0, "acc_ci": [78.0, 82.5]}}, ACCURACY) == (78.0, 82.5)
    assert np.isnan(bounds({"overall": {"acc": None}}, ACCURACY)[0])


@pytest.mark.parametrize("seed", [0, 1])
def test_the_rank_range_covers_the_bootstrap(seed: int):
    """Independent check: rank each resample of the questions (the same 1,000 resamples the
    intervals come from); the central 95% of every model's resampled ranks lies in its range."""
    rng = np.random.default_rng(seed)
    n, skills = 300, [0.80, 0.78, 0.77, 0.70, 0.55, 0.54]
    correct = [rng.random(n) < p for p in skills]
    overall = [group_figures(question_stats(c), {}, [ACCURACY])["overall"][""] for c in correct]
    ranges = rank_ranges([tuple(o["acc_ci"]) for o in overall])
    weights = bootstrap_weights(n).astype(np.float64)
    resampled = np.stack([weights @ c.astype(np.float64) for c in correct], axis=1)  # resamples x models
    # rank in a resample: 1 + models strictly above
    boot_ranks = 1 + (resampled[:, None, :] > resampled[:, :, None]).sum(axis=2)
    for model, r in enumerate(ranges):
        low, high = np.percentile(boot_ranks[:, model], CI_PERCENTILES)
        assert r.best <= low and high <= r.worst, (model, r, low, high)
    assert ranges[0].best == 1 and ranges[-1].worst == len(skills)
