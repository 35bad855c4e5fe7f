"""Box-format sanity: does the declared box format fit the boxes of a file?

A wrong box format is the costliest silent mistake (a Gemini ``box_2d`` file scored as ``xyxy``
loses most of its mIoU). Before a file is scored, its boxes are read under every known format
in the frame of the option image each line answers (a public size): never the gold image, its
mask or whether an answer is right, so the advice says nothing about the gold. The file's
declared format is flagged as likely wrong when

- pixel formats (``xyxy``, ``xywh``): every value lies in 0-1 (a normalised box), or every value
  lies in 0-1000 although the answered images of many lines are larger than that (a 0-1000
  grid: Qwen2-VL, InternVL, Gemini);
- any format: it makes most boxes invalid (inverted, out of range) or reach well outside the
  answered image while another format makes nearly all of them valid and inside.

Only lines that use the file's format count (no per-line ``bbox_format`` or ``bbox_ref_size``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.errors import Issue, LineError
from scoring.geometry import BOX_FORMATS, read_box

MIN_SAMPLES = 5
"""Fewer boxes than this say too little about a format."""
PIXEL_FORMATS = ("xyxy", "xywh")
GRID_FORMATS = ("yxyx_1000", "xyxy_1000")
_OUTSIDE_TOLERANCE = 0.02  # a box may overshoot an edge by 2% of that side


@dataclass(frozen=True)
class BoxSample:
    """One line's box as written, and the (width, height) of the option image it answers."""

    values: tuple[float, float, float, float]
    frame: tuple[int, int]


@dataclass(frozen=True)
class Fit:
    """How one format reads a file's boxes: the share valid and the share valid and inside."""

    valid: float
    inside: float


def fit(samples: Sequence[BoxSample], fmt: str) -> Fit:
    valid = inside = 0
    for sample in samples:
        width, height = sample.frame
        try:
            x0, y0, x1, y1 = read_box(sample.values, fmt, None, sample.frame).in_image(width, height)
        except LineError:
            continue
        valid += 1
        dx, dy = _OUTSIDE_TOLERANCE * width, _OUTSIDE_TOLERANCE * height
        inside += x0 >= -dx and y0 >= -dy and x1 <= width + dx and y1 <= height + dy
    n = max(len(samples), 1)
    return Fit(valid / n, inside / n)


def _grid_like(samples: Sequence[BoxSample]) -> bool:
    """Every value within 0-1000 although at least MIN_SAMPLES answered images exceed 1,100 px."""
    large = [s for s in samples if max(s.frame) > 1100]
    values = [v for s in samples for v in s.values]
    return len(large) >= MIN_SAMPLES and min(values) >= 0 and max(values) <= 1000


def suggestion(samples: Sequence[BoxSample], declared: str) -> tuple[tuple[str, ...], str]:
    """The formats that fit the boxes better than ``declared``, and why (empty when it looks right)."""
    if len(samples) < MIN_SAMPLES or declared not in BOX_FORMATS:
        return (), ""
    values = [v for s in samples for v in s.values]
    if declared in PIXEL_FORMATS:
        if min(values) >= 0 and max(values) <= 1:
            return ("xyxy_norm",), f"every value of the {len(samples):,} boxes lies in 0-1"
        if _grid_like(samples):
            large = sum(max(s.frame) > 1100 for s in samples)
            why = f"every value lies in 0-1000 although {large:,} of the answered images are larger than that"
            return GRID_FORMATS, why
    mine = fit(samples, declared).inside
    if mine >= 0.5:
        return (), ""
    fits = {fmt: fit(samples, fmt).inside for fmt in BOX_FORMATS if fmt != declared}
    best = max(fits, key=lambda f: fits[f])
    if fits[best] < 0.9:
        return (), ""
    why = f"read that way only {mine:.0%} of {len(samples):,} boxes are valid and inside the answered image"
    return (best,), why


def advice(samples: Sequence[BoxSample], declared: str) -> Issue | None:
    """A whole-file ``suspect_bbox_format`` issue naming the likely formats, or None."""
    better, why = suggestion(samples, declared)
    if not better:
        return None
    described = " or ".join(f"{f} ({BOX_FORMATS[f]})" for f in better)
    return Issue(
        "suspect_bbox_format",
        0,
        "bbox_format",
        f"the boxes do not look like {declared}: {why}. Did you mean {described}? "
        f"Choose the right box format; if {declared} is right, send the file again with the box "
        "format confirmed (form: tick 'The box format is right'; API: confirm_box_format=True; "
        "offline validator: --confirm-box-format).",
    )
