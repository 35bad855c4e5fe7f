"""The grounding side (SCB): how the submissions that chose the gold image placed their boxes, and
the ``mask`` suspects.

Per question, the boxes of at most ``max_boxes`` pickers of the gold image are read, the ablest
first: a *slot* table (``max_boxes`` x Q) whose size does not grow with the number of submissions.
Their IoU with the gold region comes from :meth:`scoring.geometry.MaskTable.box_overlaps`, the
scorer's own arithmetic, in chunks of :data:`CHUNK` boxes (time O(Q x max_boxes x box width in
columns), memory O(CHUNK x box width)).

An IoU is read *relative* to the best a box can do on that mask (its bounding box's IoU, the
*ceiling*): a thin or hollow gold region caps every box's IoU, and that is no sign of a wrong mask.
A submission's *usual* relative IoU is its median over every question it grounded; the *able
grounders* of a question are its pickers whose usual relative IoU is at least the median one.

A question is a ``mask`` suspect when its able grounders agree with each other (their median IoU
with their consensus box, the coordinate-wise median, is the *agreement* A) while all doing far
worse than usual against the gold region (the median of usual minus here is the *deficit* D):
score = A x D. A hard question (a small or ambiguous object) scatters the boxes, so A is low; a
submission with a systematic offset does worse everywhere, which its usual IoU already holds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scoring.geometry import MaskTable

MAX_BOXES = 32
"""Boxes read per question at most (the ablest pickers of the gold image first)."""
CHUNK = 1024
"""Boxes intersected with the gold masks per call (bounds the scratch memory of one call)."""
MIN_GROUNDED = 5
"""A submission's usual IoU needs at least this many grounded questions."""
MIN_ABLE = 2
AGREE_IOU = 0.5
MASK_MIN_SCORE = 0.2
"""A question is listed as a ``mask`` suspect from this score (agreement x deficit) on."""


@dataclass(frozen=True, eq=False)
class Slots:
    """The pickers of each question's gold image whose box is read: ``model`` (slots x Q, -1 for
    an empty slot) and their ``boxes`` (slots x Q x 4, NaN for an empty slot)."""

    model: np.ndarray
    boxes: np.ndarray

    @property
    def filled(self) -> np.ndarray:
        return self.model >= 0


@dataclass(frozen=True, eq=False)
class GroundingTable:
    """Per question (arrays of Q): the pickers' IoU quartiles and hit rate, the able grounders'
    consensus box, agreement, deficit, counts and the ``mask`` score."""

    boxes: np.ndarray
    quartiles: np.ndarray  # (Q, 3)
    hit50: np.ndarray
    consensus: np.ndarray  # (Q, 4)
    consensus_iou: np.ndarray
    agreement: np.ndarray
    deficit: np.ndarray
    able: np.ndarray
    against: np.ndarray
    usual: np.ndarray
    relative: np.ndarray

    @property
    def score(self) -> np.ndarray:
        return np.nan_to_num(self.agreement * self.deficit, nan=0.0)


def mask_extents(masks: MaskTable) -> tuple[np.ndarray, np.ndarray]:
    """Each mask's bounding box ``(x0, y0, x1, y1)`` in pixel edges (Q x 4, NaN for an empty mask)
    and its *ceiling*: the IoU of that box with the mask (area / box area). Counts and searches
    per mask over the table's columns; no array of the runs' size but the table's own."""
    extents = np.full((len(masks), 4), np.nan)
    first = masks.first_column.astype(np.int64)
    widths = masks.widths.astype(np.int64)
    seen = np.cumsum(masks.column_runs > 0, dtype=np.int32)  # filled columns up to each column
    before = np.where(first > 0, seen[np.maximum(first - 1, 0)], 0)
    through = seen[first + widths - 1]
    rows = np.flatnonzero(through > before)
    extents[rows, 0] = np.searchsorted(seen, before[rows] + 1) - first[rows]
    extents[rows, 2] = np.searchsorted(seen, through[rows]) - first[rows] + 1
    runs = np.add.reduceat(masks.column_runs, first, dtype=np.int32).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(runs)[:-1]))[rows]
    extents[rows, 1] = np.minimum.reduceat(masks.top, starts)
    extents[rows, 3] = np.maximum.reduceat(masks.bottom, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        ceiling = masks.areas / ((extents[:, 2] - extents[:, 0]) * (extents[:, 3] - extents[:, 1]))
    return extents, ceiling


def has_box(boxes: np.ndarray) -> np.ndarray:
    """S x Q: a finite box with positive width and height."""
    x0, y0, x1, y1 = (boxes[..., k] for k in range(4))
    with np.errstate(invalid="ignore"):
        return np.isfinite(boxes).all(axis=-1) & (x1 > x0) & (y1 > y0)


def pickers(choices: np.ndarray, gold: np.ndarray, boxes: np.ndarray, ability: np.ndarray, cap: int) -> Slots:
    """The slot table: per question, the ``cap`` ablest submissions that chose the gold image
    and gave a box (the ablest in slot 0)."""
    order = np.argsort(-ability, kind="stable")
    picked = (choices[order] == gold[None, :]) & has_box(boxes[order])
    rank = np.cumsum(picked, axis=0, dtype=np.int32) - 1
    keep = picked & (rank < cap)
    who, question = np.nonzero(keep)
    slot = rank[who, question]
    model = np.full((cap, gold.size), -1, dtype=np.int64)
    model[slot, question] = order[who]
    placed = np.full((cap, gold.size, 4), np.nan)
    placed[slot, question] = boxes[order[who], question]
    return Slots(model, placed)


def gold_ious(masks: MaskTable, slots: Slots) -> np.ndarray:
    """IoU with the gold region of every filled slot (slots x Q, NaN where empty), in chunks."""
    slot, question = np.nonzero(slots.filled)
    iou = np.full(slots.model.shape, np.nan)
    for a in range(0, slot.size, CHUNK):
        s, q = slot[a : a + CHUNK], question[a : a + CHUNK]
        inter, union = masks.box_overlaps(q, slots.boxes[s, q])
        iou[s, q] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return iou


def column_quantile(values: np.ndarray, valid: np.ndarray, share: float) -> np.ndarray:
    """Per column (axis 0), the ``share`` quantile of the valid entries (linear between the two
    nearest ranks), NaN where a column has none. Trailing axes are carried along."""
    data = np.where(valid, values, np.inf) if values.ndim == valid.ndim else np.where(valid[..., None], values, np.inf)
    ordered = np.sort(data, axis=0)
    n = valid.sum(axis=0)
    position = np.maximum(n - 1, 0) * share
    lo, hi = np.floor(position).astype(np.int64), np.ceil(position).astype(np.int64)
    if values.ndim > valid.ndim:
        lo, hi, position = lo[..., None], hi[..., None], position[..., None]
        n = n[..., None]
    low = np.take_along_axis(ordered, lo[None], axis=0)[0]
    high = np.take_along_axis(ordered, hi[None], axis=0)[0]
    with np.errstate(invalid="ignore"):
        out = low + (high - low) * (position - lo)
    return np.where(n > 0, out, np.nan)


def usual_relative_iou(slots: Slots, relative: np.ndarray, submissions: int) -> np.ndarray:
    """Each submission's median relative IoU over the questions it grounded (NaN under
    :data:`MIN_GROUNDED` of them)."""
    filled = slots.filled & np.isfinite(relative)
    model, value = slots.model[filled], relative[filled]
    order = np.lexsort((value, model))
    model, value = model[order], value[order]
    counts = np.bincount(model, minlength=submissions)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    median = np.full(submissions, np.nan)
    enough = counts >= MIN_GROUNDED
    lo, hi = starts + (counts - 1) // 2, starts + counts // 2
    median[enough] = 0.5 * (value[lo[enough]] + value[hi[enough]])
    return median


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of boxes ``(x0, y0, x1, y1)`` (last axis), broadcast; NaN where either is missing."""
    ix = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    iy = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = ix * iy
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    union = area_a + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, np.nan)


def _consensus_iou(masks: MaskTable, consensus: np.ndarray) -> np.ndarray:
    rows = np.flatnonzero(np.isfinite(consensus).all(axis=1))
    out = np.full(consensus.shape[0], np.nan)
    if rows.size:
        inter, union = masks.box_overlaps(rows, consensus[rows])
        out[rows] = np.where(union > 0, inter / np.maximum(union, 1), 0.0)
    return out


def grounding_table(masks: MaskTable, slots: Slots, submissions: int) -> GroundingTable:
    """Every question's grounding figures from its slots (module doc)."""
    iou = gold_ious(masks, slots)
    _, ceiling = mask_extents(masks)
    filled = slots.filled
    read = filled.sum(axis=0)
    relative = np.clip(iou / ceiling[None, :], 0.0, 1.0)
    usual = usual_relative_iou(slots, relative, submissions)
    mine = np.where(filled, usual[np.maximum(slots.model, 0)], np.nan)
    with np.errstate(invalid="ignore"):
        able = filled & (mine >= np.nanmedian(usual)) if np.isfinite(usual).any() else np.zeros_like(filled)
    consensus = column_quantile(slots.boxes, able, 0.5)
    agree = box_iou(slots.boxes, consensus[None])
    with np.errstate(invalid="ignore"):
        against = able & (agree >= AGREE_IOU) & (relative < mine / 2)
    return GroundingTable(
        boxes=read,
        quartiles=np.stack([column_quantile(iou, filled, s) for s in (0.25, 0.5, 0.75)], axis=1),
        hit50=np.where(read > 0, (filled & (iou >= 0.5)).sum(axis=0) / np.maximum(read, 1), np.nan),
        consensus=consensus,
        consensus_iou=_consensus_iou(masks, consensus),
        agreement=column_quantile(agree, able, 0.5),
        deficit=column_quantile(mine - relative, able, 0.5),
        able=able.sum(axis=0),
        against=against.sum(axis=0),
        usual=column_quantile(mine, able, 0.5),
        relative=column_quantile(relative, able, 0.5),
    )


def mask_candidates(table: GroundingTable, min_score: float) -> list[tuple[int, float]]:
    """(question row, score) of every listed ``mask`` suspect."""
    needed = np.maximum(MIN_ABLE, np.ceil(table.able / 2))
    listed = (table.able >= MIN_ABLE) & (table.against >= needed) & (table.score >= min_score)
    return [(int(r), float(table.score[r])) for r in np.flatnonzero(listed)]
