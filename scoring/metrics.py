"""Metrics: per-question statistic columns, then one reducer for every declared figure (after torchmetrics).

Three pure steps, used alike by the CLI, the app and rescoring:

1. :func:`question_stats`: the engine's per-question arrays become :class:`~scoring.benchmarks.base.Stat`
   columns (``questions``, ``correct`` and, when the submission grounds anything, ``iou``,
   ``hit50``, ``inter``, ``union``);
2. column sums per group (a 0/1 membership matrix), and the same sums on 1,000 bootstrap
   resamples of the questions for the metrics that report an interval;
3. :func:`reduce`: every declared :class:`~scoring.benchmarks.base.Metric` is
   ``100 * sum(numerator) / sum(denominator)``, point figures and resamples alike.

Edge cases are named choices, written in the declaration and in SPEC:

- a group whose denominator sums to 0 gives the metric's ``if_empty`` (None: no figure), so an
  empty group has ``acc`` None and ``miou``/``ciou`` are None where no question was answered right;
- a metric over grounding columns is None when the submission grounds nothing at all;
- a correct answer with no grounding has IoU 0 (``inter`` 0, ``union`` = gold area).

Bootstrap intervals resample the questions of the whole test set 1,000 times and compute every
group's figure on each resample; the weights matrix depends only on the number of questions and
the seed. The seed is an argument: the CLI and the paper-parity figures use the fixed
:data:`BOOTSTRAP_SEED`; the leaderboard passes a seed derived from a server secret and the
submission id, so a submitter cannot rebuild the weights and decode which questions were right
from the interval endpoints (docs/integrity.md).

The weights of :data:`BOOTSTRAP_SEED` are its draws (1,000 times n questions drawn with
replacement, counted). Any other seed permutes the questions of those counts with a permutation
drawn from that seed: for any fixed permutation, permuted independent uniform-multinomial rows
are independent uniform-multinomial rows, so each seed's weights are a bootstrap all the same,
and without the seed the permutation, hence which question got which count, is unknown. Drawing
and counting 3.2 million integers per submission cost 20 ms, more than scoring the file; a
permutation costs 0.1 ms.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from scoring.benchmarks.base import Metric, Stat

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_PERCENTILES = (2.5, 97.5)
IOU_THRESHOLD = 0.5

Groups = Mapping[str, tuple[list[str], np.ndarray]]
"""Grouping name -> (labels, label index of every question), as :class:`scoring.gold.Gold` holds them."""


@lru_cache(maxsize=8)
def _draw_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """``n x resamples`` counts (uint8 while they fit): how often each question is drawn in each
    resample. Questions are rows, so that summing a run of questions adds whole rows."""
    rng = np.random.default_rng(seed)
    # One call draws what one call per resample drew: the generator's stream does not depend on
    # how the draws are cut. Row offsets then make one flat bincount of a block of resamples: a
    # block's counts stay in the CPU's cache (one bincount of all of them took twice as long).
    draws = rng.integers(0, n, size=(resamples, n))
    counts = np.empty((resamples, n), dtype=np.min_scalar_type(n))
    offsets = np.arange(0, _COUNT_BLOCK * n, n)[:, None]
    for a in range(0, resamples, _COUNT_BLOCK):
        block = draws[a : a + _COUNT_BLOCK]
        block += offsets[: block.shape[0]]
        counts[a : a + block.shape[0]] = np.bincount(block.ravel(), minlength=block.size).reshape(block.shape)
    small = np.uint8 if counts.max(initial=0) <= np.iinfo(np.uint8).max else counts.dtype
    weights = np.ascontiguousarray(counts.T, dtype=small)
    weights.flags.writeable = False
    return weights


_COUNT_BLOCK = 32
"""Resamples counted by one bincount (32 x 3,178 counts: 0.8 MB)."""


@lru_cache(maxsize=8)
def _question_order(n: int, seed: int) -> np.ndarray | None:
    """Which question's counts of the :data:`BOOTSTRAP_SEED` draws each question takes under
    ``seed`` (module doc); None for that seed itself."""
    if seed == BOOTSTRAP_SEED:
        return None
    order = np.random.default_rng(seed).permutation(n)
    order.flags.writeable = False
    return order


def _counts(n: int, resamples: int, seed: int, questions: np.ndarray | None = None) -> np.ndarray:
    """``n x resamples`` counts of ``seed`` (module doc), of the ``questions`` rows only if given."""
    base = _draw_counts(n, resamples, BOOTSTRAP_SEED)
    order = _question_order(n, seed)
    if order is None:
        return base if questions is None else base[questions]
    return base[order] if questions is None else base[order[questions]]


def bootstrap_weights(n: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``resamples x n`` matrix of small integers: how often each question is drawn in each
    resample (read-only; ``.astype`` it for arithmetic)."""
    weights = _counts(n, resamples, seed).T
    weights.flags.writeable = False
    return weights


def membership(groups: Groups, n: int) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Columns ``[("overall", ""), (grouping, label), ...]`` and the ``n x columns`` 0/1 matrix."""
    columns: list[tuple[str, str]] = [("overall", "")]
    blocks = [np.ones((n, 1), dtype=np.float32)]
    for name, (labels, codes) in groups.items():
        columns += [(name, label) for label in labels]
        block = np.zeros((n, len(labels)), dtype=np.float32)
        block[np.arange(n), codes] = 1.0
        blocks.append(block)
    return columns, np.hstack(blocks)


def question_stats(
    correct: np.ndarray,
    inter: np.ndarray | None = None,
    union: np.ndarray | None = None,
    strict: np.ndarray | None = None,
) -> dict[Stat, np.ndarray]:
    """Per-question columns (float64) from the engine's arrays; grounding columns only when
    ``inter``/``union`` are given (the submission grounds something), the strict-protocol column
    only when ``strict`` is (right by the exact-letter rule; a benchmark that declares it).

    >>> s = question_stats(np.array([True, True, False]), np.array([1.0, 0.0, 5.0]), np.array([2.0, 4.0, 5.0]))
    >>> s[Stat.IOU].tolist(), s[Stat.HIT50].tolist(), s[Stat.UNION].tolist()
    ([0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 4.0, 0.0])
    """
    n = correct.size
    stats = {Stat.QUESTIONS: np.ones(n), Stat.CORRECT: correct.astype(np.float64)}
    if strict is not None:
        stats[Stat.CORRECT_STRICT] = (correct & strict).astype(np.float64)
    if inter is None or union is None:
        return stats
    iou = np.zeros(n)
    np.divide(inter, union, out=iou, where=union > 0)
    iou = np.where(correct, iou, 0.0)
    return stats | {
        Stat.IOU: iou,
        Stat.HIT50: ((iou >= IOU_THRESHOLD) & correct).astype(np.float64),
        Stat.INTER: np.where(correct, inter, 0).astype(np.float64),
        Stat.UNION: np.where(correct, union, 0).astype(np.float64),
    }


def ratio(num: np.ndarray, den: np.ndarray, *, if_empty: float | None) -> np.ndarray:
    """100 * num / den, element-wise; ``if_empty`` where den is 0 (None -> NaN, shown as "-").

    >>> ratio(np.array([1.0, 0.0]), np.array([2.0, 0.0]), if_empty=None).tolist()
    [50.0, nan]
    >>> ratio(np.array([0.0]), np.array([0.0]), if_empty=0.0).tolist()
    [0.0]
    """
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan if if_empty is None else if_empty)
    np.divide(100.0 * num, den, out=out, where=den > 0)
    return out


def reduce(metrics: Sequence[Metric], sums: Mapping[Stat, np.ndarray]) -> dict[str, np.ndarray]:
    """The one reducer: point figures from group sums, and resampled figures from resampled sums alike."""
    return {m.name: ratio(sums[m.numerator], sums[m.denominator], if_empty=m.if_empty) for m in metrics}


def _interval(samples: np.ndarray) -> list[list[float] | None]:
    """Percentile interval per column of a resamples x columns array (None when undefined): the
    columns without a missing figure in one call (the same values as one call per column),
    the others one by one, over their finite figures."""
    out: list[list[float] | None] = [None] * samples.shape[1]
    complete = np.isfinite(samples).all(axis=0)
    if complete.any():
        low, high = np.percentile(samples[:, complete], CI_PERCENTILES, axis=0).tolist()
        for j, lo, hi in zip(np.flatnonzero(complete).tolist(), low, high, strict=True):
            out[j] = [lo, hi]
    for j in np.flatnonzero(~complete).tolist():
        col = samples[:, j][np.isfinite(samples[:, j])]
        out[j] = [float(v) for v in np.percentile(col, CI_PERCENTILES)] if col.size else None
    return out


def _num(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


GRID_BITS = 24
"""Resampled sums are exact: a column that is not whole numbers below ``2**GRID_BITS`` is first
rounded to a binary grid of ``GRID_BITS`` significant bits of its largest value (IoU: multiples
of ``2**-23``, at most ``6e-8`` from the value), and every sum of weight x grid value is then an
integer, whatever the summation order, machine or thread count."""
_PACK_BITS = 63
"""Bits of an int64 that hold packed sums (its sign bit unused)."""


def _on_grid(column: np.ndarray) -> tuple[np.ndarray, int]:
    """``(q, e)``: non-negative int64 ``q`` with ``column ~ q / 2**e``, every ``q < 2**GRID_BITS``
    (exactly ``column`` when it holds whole numbers below that)."""
    top = float(column.max(initial=0.0))
    if not (np.isfinite(top) and column.min(initial=0.0) >= 0):
        raise ValueError("bootstrap columns must be finite and non-negative")
    if top < 2**GRID_BITS and np.array_equal(column, np.floor(column)):
        return column.astype(np.int64), 0
    exponent = GRID_BITS - math.frexp(top)[1]  # top < 2**frexp(top)[1], so q < 2**GRID_BITS
    return np.rint(np.ldexp(column, exponent)).astype(np.int64), exponent


def _packs(stats: Mapping[Stat, np.ndarray], order: list[Stat], n: int) -> list[list[tuple]]:
    """Columns packed side by side into int64 fields: ``(stat, grid values, exponent, shift,
    bits)`` per field.
    A field holds any resample's sum of its column (at most ``n`` times its largest value: the
    weights of a resample add up to ``n``), so packed sums never carry from field to field."""
    packs: list[list[tuple]] = []
    used = _PACK_BITS
    for s in order:
        q, exponent = _on_grid(stats[s])
        bits = int(q.max(initial=0)).bit_length() + n.bit_length()
        if bits > 53:  # beyond float64's integers (n over 2**29 questions)
            raise ValueError(f"too many questions for exact bootstrap sums: {n:,}")
        if used + bits > _PACK_BITS:
            packs.append([])
            used = 0
        packs[-1].append((s, q, exponent, used, bits))
        used += bits
    return packs


def cells(groups: Groups, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Questions ordered by cell (one label of every grouping), and where each cell starts: every
    group is a union of cells, so group sums are sums of cell sums."""
    key = np.zeros(n, dtype=np.int64)
    for labels, codes in groups.values():
        key = np.unique(key * len(labels) + codes, return_inverse=True)[1].reshape(-1)
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    return order, np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if n else np.zeros(0, dtype=np.int64)


def bootstrap_sums(
    stats: Mapping[Stat, np.ndarray],
    member: np.ndarray,
    groups: Groups,
    wanted: set[Stat],
    seed: int = BOOTSTRAP_SEED,
) -> dict[Stat, np.ndarray]:
    """Group sums of the ``wanted`` columns on every resample (resamples x groups each), exact:
    the columns on their grid (:data:`GRID_BITS`) are packed into int64 fields, weighted by the
    resample counts and summed per cell, then per group, in integers. No BLAS: no thread count
    or kernel can move a digit, and no BLAS thread is woken (its spinning doubled the CPU time)."""
    order = [s for s in Stat if s in wanted]
    n = member.shape[0]
    if not order:
        return {}
    rows, starts = cells(groups, n)
    weights = _counts(n, BOOTSTRAP_RESAMPLES, seed, rows)  # questions x resamples, by cell
    in_group = member[rows[starts]] > 0  # cells x groups
    spans = list(zip(starts.tolist(), np.r_[starts[1:], n].tolist(), strict=True))
    out = {}
    for pack in _packs(stats, order, n):
        packed = np.zeros(n, dtype=np.int64)
        for _, q, _, shift, _ in pack:
            packed |= q << shift
        packed = packed[rows]
        per_cell = np.empty((len(spans), weights.shape[1]), dtype=np.int64)
        for j, (a, b) in enumerate(spans):  # one cell's weights at a time: they stay in the cache
            np.matmul(packed[a:b], weights[a:b].astype(np.int64), out=per_cell[j])
        per_group = np.stack([per_cell[in_group[:, k]].sum(axis=0) for k in range(member.shape[1])], axis=1)
        for s, _, exponent, shift, bits in pack:
            field = (per_group >> shift) & ((1 << bits) - 1)
            out[s] = np.ldexp(field.astype(np.float64), -exponent)
    return out


def group_figures(
    stats: Mapping[Stat, np.ndarray], groups: Groups, metrics: Sequence[Metric], seed: int = BOOTSTRAP_SEED
) -> dict[str, dict[str, dict]]:
    """Figures per group: ``{"overall": {"": stats}, "type": {"1": stats, ...}, ...}``.

    Each group's stats hold ``questions``, ``correct``, then every declared metric (and its
    interval, if it reports one) in declaration order; a metric whose columns the submission
    lacks (no grounding) is None. ``seed`` seeds the bootstrap (see module doc).

    >>> from scoring.benchmarks.base import ACCURACY
    >>> g = {"type": (["1", "2"], np.array([0, 0, 1, 1]))}
    >>> f = group_figures(question_stats(np.array([True, False, True, True])), g, [ACCURACY])
    >>> f["overall"][""]["acc"], f["type"]["1"]["acc"], f["type"]["2"]["acc"]
    (75.0, 50.0, 100.0)
    """
    columns, member = membership(groups, stats[Stat.QUESTIONS].size)
    measured = [m for m in metrics if m.numerator in stats and m.denominator in stats]
    sums = {s: col @ member for s, col in stats.items()}
    point = reduce(measured, sums)
    with_ci = [m for m in measured if m.interval]
    resampled = reduce(
        with_ci,
        bootstrap_sums(stats, member, groups, {s for m in with_ci for s in (m.numerator, m.denominator)}, seed),
    )
    intervals = {name: _interval(samples) for name, samples in resampled.items()}
    out: dict[str, dict[str, dict]] = {}
    for j, (name, label) in enumerate(columns):
        figures: dict = {s.value: int(sums[s][j]) for s in (Stat.QUESTIONS, Stat.CORRECT)}
        for m in metrics:
            figures[m.name] = _num(point[m.name][j]) if m.name in point else None
            if m.ci:
                figures[m.ci] = intervals[m.name][j] if m.name in intervals else None
        out.setdefault(name, {})[label] = figures
    return out


def weighted_miou(type_mious: list[float], type_correct: list[int]) -> float:
    """Overall mIoU from per-type mIoUs: the mean over all correct answers, i.e. the type
    figures weighted by their correct counts (the papers' rule).

    >>> round(weighted_miou([44.90, 48.22, 47.60], [371, 513, 825]), 2)
    47.2
    """
    return float(np.dot(type_mious, type_correct) / np.sum(type_correct))
