"""Honest ranks: a row's rank is 1 + the number of rows *significantly* better, as LMArena ranks.

Two rows whose 95% intervals of the primary figure overlap are not told apart, so they share a
rank: 77.44 and 77.44 share one, and so do 82.95 ± 2.97 and 81.58. Each row gets a range:

- ``rank`` (the best place it could hold) = 1 + rows whose interval lies wholly better;
- ``rank_worst`` (the worst place) = rows in the set - rows whose interval lies wholly worse.

"Wholly better" compares interval bounds in the metric's declared direction: for a higher-is-
better figure, row j beats row i when j's lower bound is above i's upper bound (the rule of
LMArena's "Rank (UB)"). Non-overlap of two 95% intervals is a strict test (roughly p < 0.006),
so a shared rank means "the data cannot order these", never "they are equal".

Paper rows carry no per-question data: a published interval is used when the paper gives one
(a ``<metric>_ci`` pair in its figures), otherwise its point figure stands as an interval of
width 0. Such a row is then ordered against scored rows by their intervals only, and against
another paper row by the two point figures (ties share). A row without the primary figure is
unranked: it sits after every ranked row, with the range "after the ranked ones to the last".

Ranks are computed within the rows given: the board ranks the rows a visitor's filters keep.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.benchmarks import Metric


@dataclass(frozen=True)
class RankRange:
    """Where a row stands: ``best`` to ``worst`` (1-based; equal when the data order it exactly)."""

    best: int
    worst: int

    def text(self) -> str:
        """``"2"``, or ``"2–4"`` (2nd to 4th) when the data cannot place it more exactly."""
        return str(self.best) if self.best == self.worst else f"{self.best}\u2013{self.worst}"


def bounds(figures: dict, metric: Metric) -> tuple[float, float]:
    """(low, high) of a row's overall figure: its interval when it has one, else the point twice;
    NaN twice when the figure is missing."""
    overall = figures.get("overall", {})
    value = overall.get(metric.name)
    if type(value) not in (int, float) or value != value:
        return math.nan, math.nan
    interval = overall.get(metric.ci) if metric.ci else None
    if isinstance(interval, list) and len(interval) == 2 and all(type(v) in (int, float) for v in interval):
        return float(min(interval[0], value)), float(max(interval[1], value))
    return float(value), float(value)


def rank_ranges(intervals: Sequence[tuple[float, float]], higher_is_better: bool = True) -> list[RankRange]:
    """The rank range of every row from its interval of the primary figure (see module doc).

    >>> [r.text() for r in rank_ranges([(80.0, 86.0), (81.58, 81.58), (70.0, 72.0), (77.44, 77.44), (77.44, 77.44)])]
    ['1\u20132', '1\u20132', '5', '3\u20134', '3\u20134']
    """
    n = len(intervals)
    if n == 0:
        return []
    low = np.array([lo for lo, _ in intervals], dtype=float)
    high = np.array([hi for _, hi in intervals], dtype=float)
    if not higher_is_better:  # lower is better: negate, so "better" is always "higher"
        low, high = -high, -low
    ranked = np.isfinite(low) & np.isfinite(high)
    # better[i, j]: row j is wholly above row i (NaN compares False, so unranked rows beat nobody)
    better = low[None, :] > high[:, None]
    above = better.sum(axis=1)
    below = better.sum(axis=0)
    count = int(ranked.sum())
    out = []
    for i in range(n):
        if ranked[i]:
            out.append(RankRange(int(above[i]) + 1, count - int(below[i])))
        else:
            out.append(RankRange(count + 1, n))
    return out


def order_keys(values: Sequence[float]) -> list[float]:
    """Each value's place among the distinct finite values (0, 1, ...; NaN stays NaN): the same
    order and the same ties as the values, and none of their digits. What leaves the server in
    place of an interval's full-precision bounds, so that ranks computed elsewhere (a reader, the
    browser) are the ones computed here, while every figure shown is rounded.

    >>> order_keys([2.5692562337246434, 2.57, math.nan, 2.5692562337246434])
    [0.0, 1.0, nan, 0.0]
    """
    places = {v: float(i) for i, v in enumerate(sorted({v for v in values if v == v}))}
    return [places.get(v, math.nan) if v == v else math.nan for v in values]
