"""Comparison of board rows from their published figures only: per group, the two figures,
their difference, a 95% interval of it and a p-value.

Compare discloses nothing the rows do not: every number it returns is a function of the two
rows' published figures and intervals (what their model pages show), never of the per-question
answers. A *paired* comparison cannot promise that: its interval and McNemar's p depend on
which questions the two models disagree on, and with the public bootstrap seed they decoded
50-53 of 56 probe answers from one pair of public rows (the turn-3 red-team review, attack #3;
``perf/probe_attack.py --compare``). Even seeded from the server secret, a paired statistic
leaks each pair's count of disagreements per group, and k published rows make k(k-1)/2 pairs:
more than the publication ration accounts for. Computed from the published figures, Compare
adds no information at all, so the ration's bounds (docs/integrity.md) hold with it.

- **Interval.** The difference +- sqrt(h_a^2 + h_b^2), with h each figure's published 95%
  interval's half-width (from that row's own secret-seeded bootstrap; the board page publishes
  it as shown, "±"): the normal approximation
  for independent figures. Two models scored on the same questions are usually positively
  correlated, so this interval is wider than the paired one: conservative, a difference it calls
  clear is clear.
- **Test.** The two-sided normal test of the same approximation: z = difference / (sqrt(h_a^2 +
  h_b^2) / 1.96). A metric without a published interval gets neither.

The board page computes the same in the browser from its own data (``ui/static/compare.js``, a
port of this module: ``tests/ui/test_browser_compare.py`` holds the two equal on the demo data),
so Compare costs the server nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.benchmarks import Benchmark, Metric

MIN_MODELS, MAX_MODELS = 2, 4
Z95 = 1.959963984540054  # the normal quantile of a 95% interval
TEST = "from the published intervals"


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
    test: str


@dataclass(frozen=True)
class Pairing:
    """The reference model against one other, every metric and group."""

    a: str
    b: str
    differences: tuple[Difference, ...]


def normal_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic.

    >>> normal_p(0.0), round(normal_p(1.959963984540054), 4)
    (1.0, 0.05)
    """
    return math.erfc(abs(z) / math.sqrt(2))


def _number(value: object) -> float | None:
    return float(value) if type(value) in (int, float) and math.isfinite(value) else None


def _half_width(stats: Mapping, metric: Metric) -> float | None:
    """The interval's half-width: from its bounds (a row's figures), or as the public table and the
    board page publish it (one number, the "±" of the shown figure)."""
    ci = stats.get(metric.ci) if metric.ci else None
    if not isinstance(ci, list | tuple):
        return _number(ci)
    if len(ci) != 2:
        return None
    low, high = (_number(v) for v in ci)
    return None if low is None or high is None else (high - low) / 2


def compare_stats(metric: Metric, a: Mapping, b: Mapping) -> tuple:
    """(a, b, difference, low, high, p) of one metric in one group from two rows' published stats."""
    fa, fb = _number(a.get(metric.name)), _number(b.get(metric.name))
    if fa is None or fb is None:
        return fa, fb, None, None, None, None
    diff = fa - fb
    ha, hb = _half_width(a, metric), _half_width(b, metric)
    if ha is None or hb is None:
        return fa, fb, diff, None, None, None
    spread = math.sqrt(ha * ha + hb * hb)  # not hypot: the board page's script (compare.js) gets the same bits
    p = normal_p(diff / (spread / Z95)) if spread > 0 else float(diff == 0)
    return fa, fb, diff, diff - spread, diff + spread, p


def _groups(bench: Benchmark, a: Mapping, b: Mapping):
    """(grouping, label, a's stats, b's stats): overall, then each declared group both rows have."""
    yield "overall", "", a.get("overall") or {}, b.get("overall") or {}
    for grouping in bench.groupings:
        ga, gb = a.get(grouping.name) or {}, b.get(grouping.name) or {}
        for label in grouping.order:
            if label in ga and label in gb:
                yield grouping.name, label, ga[label], gb[label]


def compare_pair(bench: Benchmark, a: Mapping, b: Mapping, names: tuple[str, str]) -> Pairing:
    """Every metric in every group of two rows' published ``figures`` (module doc)."""
    out = []
    for metric in bench.metrics:
        for grouping, label, sa, sb in _groups(bench, a, b):
            questions = sa.get("questions", sb.get("questions", 0))
            stats = compare_stats(metric, sa, sb)
            out.append(Difference(metric.name, grouping, label, int(questions or 0), *stats, TEST))
    return Pairing(names[0], names[1], tuple(out))


def compare(bench: Benchmark, rows: Sequence[tuple[str, Mapping]]) -> tuple[Pairing, ...]:
    """The first row against each of the others (2 to 4 (name, figures) rows)."""
    if not MIN_MODELS <= len(rows) <= MAX_MODELS:
        raise ValueError(f"compare {MIN_MODELS} to {MAX_MODELS} models, not {len(rows)}")
    (ref, ref_figures), *others = rows
    return tuple(compare_pair(bench, ref_figures, figures, (ref, name)) for name, figures in others)
