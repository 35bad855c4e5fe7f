"""Where a model fails: its groups, worst first, against its own overall and against the board.

Computed from what the team already sees and nothing else: the entry's result as its team may see
it (``submissions.answer.public_result``: rounded, and None where the Ladder withholds it, so a
withheld entry gets no line at all) and the board's public rows, their figures as shown. Never a
per-question outcome.

For each group (a country, a category, a type) and each headline metric of the benchmark:

- **Against its own overall.** ``d = group - overall``, with the 95% interval ``d ± sqrt(h_g² + h_o²)``
  where ``h`` are the half-widths of the two published intervals (each a bootstrap over the
  questions, as on the board). The group's questions are part of the overall ones, so the two
  figures are positively correlated and the true interval is narrower: this one is conservative,
  a gap it flags is real (the same approximation as Compare, leaderboard/compare.py).
- **Against the board.** ``d = group - the median of the board's rows' figures in that group``
  (scored and paper rows, as the board shows them), with the interval ``d ± h_g``: the median is
  a fixed reference, not an estimate of this model.
- **Flagged** where the interval excludes 0 (a shortfall is negative).

Groups are ordered worst first: by the most negative ``d / half-width`` against the model's own
overall over the headline metrics (the group whose shortfall is clearest comes first).

**The split** (a benchmark that declares both an answer accuracy and a grounded accuracy as
shares of the questions, SCB): per group, *wrong answer* ``100 - Acc`` (the wrong image), *right
answer, IoU < 0.5* ``Acc - GAcc@0.5`` (the right image, the box missed), *grounded* ``GAcc@0.5``.
Three published figures' differences: nothing new.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.benchmarks import Benchmark, Grouping, Metric
from scoring.benchmarks.base import Stat


def _number(value: object) -> float | None:
    return float(value) if type(value) in (int, float) and math.isfinite(value) else None


def half_width(stats: Mapping, metric: Metric) -> float | None:
    """The half-width of a figure's interval as the board shows it (its bounds rounded first)."""
    ci = stats.get(metric.ci) if metric.ci else None
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return None
    low, high = (_number(v) for v in ci)
    if low is None or high is None:
        return None
    return (round(high, metric.decimals) - round(low, metric.decimals)) / 2


@dataclass(frozen=True)
class Difference:
    """A figure minus a reference, with the half-width of its 95% interval (None: no interval)."""

    value: float
    half: float | None
    reference: float

    @property
    def flagged(self) -> bool:
        """The interval excludes 0."""
        return self.half is not None and abs(self.value) > self.half

    @property
    def score(self) -> float:
        """``d / half-width``: how clear the gap is (0 without an interval)."""
        return self.value / self.half if self.half else 0.0


@dataclass(frozen=True)
class Gap:
    """One metric of one group: the figure, its interval, and the two differences."""

    metric: Metric
    value: float
    half: float | None
    own: Difference | None
    board: Difference | None


@dataclass(frozen=True)
class Split:
    """What became of a group's questions, in percent: the three add up to 100."""

    wrong: float  # the wrong answer (SCB: the wrong image)
    missed: float  # the right answer, IoU < 0.5
    grounded: float  # the right answer, IoU >= 0.5


@dataclass(frozen=True)
class GroupLine:
    grouping: Grouping
    label: str
    questions: int | None
    gaps: tuple[Gap, ...]
    split: Split | None

    @property
    def name(self) -> str:
        return f"{self.grouping.label}: {self.grouping.show(self.label)}"

    @property
    def flagged(self) -> bool:
        return any(g.own is not None and g.own.flagged and g.own.value < 0 for g in self.gaps)

    @property
    def worst(self) -> float:
        """The most negative ``d / half-width`` against the own overall (the sort key)."""
        return min((g.own.score for g in self.gaps if g.own is not None), default=math.inf)


def split_metrics(bench: Benchmark) -> tuple[Metric, Metric] | None:
    """(answer accuracy, grounded accuracy) when the benchmark declares both as shares of the questions."""

    def share_of(numerator: Stat) -> Metric | None:
        return next((m for m in bench.metrics if (m.numerator, m.denominator) == (numerator, Stat.QUESTIONS)), None)

    answered, grounded = share_of(Stat.CORRECT), share_of(Stat.HIT50)
    return (answered, grounded) if answered is not None and grounded is not None else None


def split_of(bench: Benchmark, stats: Mapping) -> Split | None:
    """The split of one group's (or the overall) figures; None where a figure is missing."""
    metrics = split_metrics(bench)
    if metrics is None:
        return None
    answered, grounded = (_number(stats.get(m.name)) for m in metrics)
    if answered is None or grounded is None:
        return None
    decimals = max(m.decimals for m in metrics)
    return Split(round(100 - answered, decimals), round(answered - grounded, decimals), grounded)


def board_medians(bench: Benchmark, grouping: Grouping, label: str, rows: Sequence[Mapping]) -> dict[str, float]:
    """Metric -> the median of the board rows' figures (as shown) in one group."""
    out = {}
    for metric, _ in bench.headline_metrics:
        values = []
        for figures in rows:
            stats = (figures.get(grouping.name) or {}).get(label) or {}
            if (v := _number(stats.get(metric.name))) is not None:
                values.append(round(v, metric.decimals))
        if values:
            out[metric.name] = statistics.median(values)
    return out


def _gap(metric: Metric, stats: Mapping, overall: Mapping, median: float | None) -> Gap | None:
    value = _number(stats.get(metric.name))
    if value is None:
        return None
    half, own_value = half_width(stats, metric), _number(overall.get(metric.name))
    own = None
    if own_value is not None:
        own_half = half_width(overall, metric)
        spread = math.sqrt(half * half + own_half * own_half) if half is not None and own_half is not None else None
        own = Difference(value - own_value, spread, own_value)
    board = Difference(value - median, half, median) if median is not None else None
    return Gap(metric, value, half, own, board)


def group_lines(bench: Benchmark, result: Mapping, board: Sequence[Mapping] = ()) -> list[GroupLine]:
    """Every group of ``result`` (a public result dict), worst first (module doc); ``board`` holds
    the public rows' figures (``BoardRow.figures``)."""
    overall = result.get("overall") or {}
    lines = []
    for grouping in bench.groupings:
        for label in grouping.order:
            stats = (result.get(grouping.name) or {}).get(label)
            if not stats:
                continue
            medians = board_medians(bench, grouping, label, board)
            gaps = [_gap(m, stats, overall, medians.get(m.name)) for m, _ in bench.headline_metrics]
            found = tuple(g for g in gaps if g is not None)
            if found:
                questions = stats.get(Stat.QUESTIONS.value)
                lines.append(GroupLine(grouping, label, questions, found, split_of(bench, stats)))
    return sorted(lines, key=lambda line: line.worst)
