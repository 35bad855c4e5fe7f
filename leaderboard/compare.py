"""Paired comparison of models scored on the same questions: per-group differences, their
paired bootstrap intervals and a paired test.

The input is per-question statistic columns (:func:`scoring.engine.question_columns`), which say
which answers are right: they exist only in the server's memory, recomputed from the stored
upload and the gold, and never leave it. What this module returns is aggregates only: per group,
the two figures, their difference, its 95% interval and a p-value, as the public figures are.

- **Interval.** Both models are resampled with the *same* 1,000 resamples of the questions
  (the weights of the public seed), so the interval is the paired one: questions both get right
  or both get wrong do not widen it. The resampled sums are the published intervals' exact ones
  (:func:`scoring.metrics.bootstrap_sums`), so no machine or BLAS thread count moves a digit.
- **Test.** For a metric that is a share of questions answered right (numerator ``correct``,
  denominator ``questions``): McNemar's exact test on the questions where the two disagree.
  For every other metric (mIoU, cIoU...): the paired bootstrap test, the share of resampled
  differences at least as far from the observed one as the observed one is from 0 (shifted to
  the null), with the usual +1 so a p-value is never 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scoring.benchmarks import Benchmark, Metric
from scoring.benchmarks.base import Stat
from scoring.metrics import CI_PERCENTILES, bootstrap_sums, membership, ratio

MIN_MODELS, MAX_MODELS = 2, 4
Columns = Mapping[Stat, np.ndarray]


@dataclass(frozen=True)
class Difference:
    """One group's comparison of model ``a`` (the reference) with ``b`` on one metric."""

    metric: str
    grouping: str  # "overall" or a grouping name
    label: str  # "" for overall
    questions: int
    a: float | None
    b: float | None
    difference: float | None  # a - b
    low: float | None
    high: float | None
    p_value: float | None
    test: str  # "McNemar exact" or "paired bootstrap"


@dataclass(frozen=True)
class Pairing:
    """The reference model against one other, every metric and group."""

    a: str
    b: str
    differences: tuple[Difference, ...]


def is_share_of_questions(metric: Metric) -> bool:
    return metric.numerator is Stat.CORRECT and metric.denominator is Stat.QUESTIONS


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts.

    >>> mcnemar_exact(0, 0), round(mcnemar_exact(10, 2), 4), mcnemar_exact(3, 3)
    (1.0, 0.0386, 1.0)
    """
    m = a_only + b_only
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, k) for k in range(min(a_only, b_only) + 1))
    return min(1.0, 2 * tail / 2**m)


def _figures(metric: Metric, sums: Mapping[Stat, np.ndarray]) -> np.ndarray:
    return ratio(sums[metric.numerator], sums[metric.denominator], if_empty=metric.if_empty)


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def compare_pair(bench: Benchmark, groups: Mapping, a: Columns, b: Columns, names: tuple[str, str]) -> Pairing:
    """Every metric both models have, in every group: see module doc."""
    n = a[Stat.QUESTIONS].size
    columns, member = membership(groups, n)
    sizes = member.sum(axis=0)
    metrics = [m for m in bench.metrics if all(s in a and s in b for s in (m.numerator, m.denominator))]
    wanted = {s for m in metrics for s in (m.numerator, m.denominator)}
    resampled_sums = {key: bootstrap_sums(cols, member, groups, wanted) for key, cols in (("a", a), ("b", b))}
    out: list[Difference] = []
    for metric in metrics:
        needed = (metric.numerator, metric.denominator)
        point = {}
        boot = {}
        for key, cols in (("a", a), ("b", b)):
            sums = {s: cols[s] @ member for s in needed}
            point[key] = _figures(metric, sums)
            boot[key] = _figures(metric, resampled_sums[key])
        resampled = boot["a"] - boot["b"]
        for j, (grouping, label) in enumerate(columns):
            figures = (point["a"][j], point["b"][j])
            test = _test(metric, figures, resampled[:, j], a, b, member[:, j] > 0)
            out.append(Difference(metric.name, grouping, label, int(sizes[j]), *map(_number, figures), *test))
    return Pairing(names[0], names[1], tuple(out))


def _test(metric: Metric, figures, resampled: np.ndarray, a: Columns, b: Columns, in_group: np.ndarray) -> tuple:
    """(difference, low, high, p-value, test name) of one group."""
    name = "McNemar exact" if is_share_of_questions(metric) else "paired bootstrap"
    diff = figures[0] - figures[1]
    finite = resampled[np.isfinite(resampled)]
    if not np.isfinite(diff) or not finite.size:
        return None, None, None, None, name
    low, high = (float(v) for v in np.percentile(finite, CI_PERCENTILES))
    if is_share_of_questions(metric):
        right_a, right_b = a[Stat.CORRECT] > 0, b[Stat.CORRECT] > 0
        p = mcnemar_exact(int((right_a & ~right_b & in_group).sum()), int((right_b & ~right_a & in_group).sum()))
    else:
        p = (int((np.abs(finite - diff) >= abs(diff)).sum()) + 1) / (finite.size + 1)
    return float(diff), low, high, p, name


def compare(bench: Benchmark, groups: Mapping, models: Sequence[tuple[str, Columns]]) -> tuple[Pairing, ...]:
    """The first model against each of the others (2 to 4 models, on the same questions)."""
    if not MIN_MODELS <= len(models) <= MAX_MODELS:
        raise ValueError(f"compare {MIN_MODELS} to {MAX_MODELS} models, not {len(models)}")
    (ref, ref_cols), *others = models
    return tuple(compare_pair(bench, groups, ref_cols, cols, (ref, name)) for name, cols in others)
