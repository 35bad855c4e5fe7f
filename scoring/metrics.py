"""Metrics: per-question records in, one reducer per figure out (after torchmetrics).

The engine turns a submission into per-question arrays (``correct``, ``inter``, ``union``);
everything below is a pure function of those arrays and the gold's groups, used alike by the
CLI, the app and rescoring. Edge cases are named choices, written in SPEC:

- an empty group has ``acc`` None (no question to count);
- ``miou``/``ciou`` are None when no question of the group was answered correctly, and
  ``miou``/``gacc50``/``ciou`` are None when the submission grounds nothing at all;
- a correct answer with no grounding has IoU 0 (``inter`` 0, ``union`` = gold area).

Bootstrap intervals resample the questions of the whole test set 1,000 times with a fixed
seed and compute every group's figure on each resample; the weights matrix depends only on
the number of questions, so it is built once per gold and shared by every submission.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601
CI_PERCENTILES = (2.5, 97.5)
IOU_THRESHOLD = 0.5


@lru_cache(maxsize=8)
def bootstrap_weights(n: int, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """``resamples x n`` matrix: how often each question is drawn in each resample."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(resamples, n))
    flat = (draws + np.arange(resamples)[:, None] * n).ravel()
    weights = np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(np.float32)
    weights.flags.writeable = False
    return weights


def membership(groups: dict[str, tuple[list[str], np.ndarray]], n: int) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Columns ``[("overall", ""), (grouping, label), ...]`` and the ``n x columns`` 0/1 matrix."""
    columns: list[tuple[str, str]] = [("overall", "")]
    blocks = [np.ones((n, 1), dtype=np.float32)]
    for name, (labels, codes) in groups.items():
        columns += [(name, label) for label in labels]
        block = np.zeros((n, len(labels)), dtype=np.float32)
        block[np.arange(n), codes] = 1.0
        blocks.append(block)
    return columns, np.hstack(blocks)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """100 * num / den, NaN where den is 0 (an empty group is 'no figure', not 0)."""
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(100.0 * num, den, out=out, where=den > 0)
    return out


def _interval(samples: np.ndarray) -> list[list[float] | None]:
    """Percentile interval per column of a resamples x columns array (None when undefined)."""
    out: list[list[float] | None] = []
    for col in samples.T:
        col = col[np.isfinite(col)]
        out.append([float(v) for v in np.percentile(col, CI_PERCENTILES)] if col.size else None)
    return out


def _num(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def group_figures(
    correct: np.ndarray,
    inter: np.ndarray | None,
    union: np.ndarray | None,
    groups: dict[str, tuple[list[str], np.ndarray]],
    with_grounding: bool = False,
) -> dict[str, dict[str, dict]]:
    """Figures per group: ``{"overall": {"": stats}, "type": {"1": stats, ...}, ...}``.

    ``inter``/``union`` are None for benchmarks without grounding or submissions that ground
    nothing; ``with_grounding`` (the benchmark has grounding) then reports its figures as
    None. Each stats dict holds ``questions``, ``correct``, ``acc``, ``acc_ci`` and, with
    grounding, ``miou``, ``miou_ci``, ``gacc50``, ``ciou``.

    >>> g = {"type": (["1", "2"], np.array([0, 0, 1, 1]))}
    >>> f = group_figures(np.array([True, False, True, True]), None, None, g)
    >>> f["overall"][""]["acc"], f["type"]["1"]["acc"], f["type"]["2"]["acc"]
    (75.0, 50.0, 100.0)
    """
    n = correct.size
    columns, member = membership(groups, n)
    hit = correct.astype(np.float64)
    sizes = member.sum(axis=0, dtype=np.float64)
    n_correct = hit @ member
    acc = _ratio(n_correct, sizes)
    weights = bootstrap_weights(n)
    stacks = [member, member * hit[:, None].astype(np.float32)]
    grounded = inter is not None
    if grounded:
        iou = np.zeros(n)
        np.divide(inter, union, out=iou, where=union > 0)
        iou = np.where(correct, iou, 0.0)
        stacks.append(member * iou[:, None].astype(np.float32))
    boot = (weights @ np.hstack(stacks)).astype(np.float64)  # resamples x (k * columns)
    k = len(columns)
    acc_ci = _interval(_ratio(boot[:, k : 2 * k], boot[:, :k]))
    if grounded:
        miou = _ratio(iou @ member, n_correct)
        gacc = _ratio(((iou >= IOU_THRESHOLD) & correct).astype(np.float64) @ member, sizes)
        ciou = _ratio(np.where(correct, inter, 0) @ member, np.where(correct, union, 0) @ member)
        miou_ci = _interval(_ratio(boot[:, 2 * k :], boot[:, k : 2 * k]))
    out: dict[str, dict[str, dict]] = {}
    for j, (name, label) in enumerate(columns):
        stats: dict = {
            "questions": int(sizes[j]),
            "correct": int(n_correct[j]),
            "acc": _num(acc[j]),
            "acc_ci": acc_ci[j],
        }
        if grounded:
            stats |= {"miou": _num(miou[j]), "miou_ci": miou_ci[j], "gacc50": _num(gacc[j]), "ciou": _num(ciou[j])}
        elif with_grounding:
            stats |= {"miou": None, "miou_ci": None, "gacc50": None, "ciou": None}
        out.setdefault(name, {})[label] = stats
    return out


def weighted_miou(type_mious: list[float], type_correct: list[int]) -> float:
    """Overall mIoU from per-type mIoUs: the mean over all correct answers, i.e. the type
    figures weighted by their correct counts (the papers' rule).

    >>> round(weighted_miou([44.90, 48.22, 47.60], [371, 513, 825]), 2)
    47.2
    """
    return float(np.dot(type_mious, type_correct) / np.sum(type_correct))
