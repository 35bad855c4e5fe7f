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
  answered image while another format makes nearly all of them valid and inside; or it makes
  a tenth or more of them invalid while another format makes every one valid and nearly all
  inside (an xywh file declared xyxy: only boxes with w < x or h < y come out inverted);
- pixel formats: the boxes look like Qwen2.5-VL's resized input frame (:func:`qwen_frame`):
  on at least :data:`MIN_FRAME_SAMPLES` lines whose answered image a named ``min_pixels`` /
  ``max_pixels`` preset resizes by over 20 %, every box lies within the resized frame and a
  tenth of them reach its far edges, which pixels of the image itself would not.

- grid formats (``xyxy_1000``, ``yxyx_1000``): every value lies in 0-1 (a normalised box read as
  a thousandth of the image);
- pixel formats: most boxes reach well outside the answered image and no other format fits
  (pixels of another frame: ``bbox_ref_size``).

Every grounding is sampled (:class:`BoxSample`): a ``bbox``, and the first box of a
``grounding_response`` in any family (``plain``: its four numbers in the box format; a family on a
0-1000 grid: its corners as ``xyxy_1000``; ``qwen2_5_vl``: :func:`qwen_preset_advice`). Samples are
checked in groups of one reading (:func:`advice`): the file's declaration, or the one its lines
carry (what the lmms-eval and Inspect readers write from the prompt). Lines with ``bbox_ref_size``
are not sampled. A file whose every box is one box (:func:`constant_box`) is told so, as a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scoring.errors import Issue, LineError
from scoring.errors import suggestion as suggestion_of
from scoring.geometry import BOX_FORMATS, read_box
from scoring.grounding_formats import CONFIRM, FAMILIES, QWEN_PIXEL_PRESETS, parse_format, smart_resize

MIN_SAMPLES = 5
"""Fewer boxes than this say too little about a format."""
PIXEL_FORMATS = ("xyxy", "xywh")
GRID_FORMATS = ("yxyx_1000", "xyxy_1000")
_OUTSIDE_TOLERANCE = 0.02  # a box may overshoot an edge by 2% of that side
MIN_FRAME_SAMPLES = 20
"""Lines whose answered image a Qwen preset resizes by over 20 % needed to judge that frame."""
_RESIZED = 0.2  # a frame counts as resized when a side differs from the image's by over 20 %
_REACH = 0.85  # a box "reaches the far edge" of a frame past 85 % of its side
_QWEN_ORDER = ("transformers", "lmms-eval", "hub", "vlmevalkit")  # smaller frames first


@dataclass(frozen=True)
class BoxSample:
    """One line's box as written, and the (width, height) of the option image it answers."""

    values: tuple[float, float, float, float]
    frame: tuple[int, int]
    grounding_format: str = ""
    """For the first box of a raw ``qwen2_5_vl`` text: its declared format (values are then
    pixels of the model's input as printed); "" otherwise."""
    box_format: str = ""
    """The box format the values are read in: "" for the file's, else the line's own ``bbox_format``
    or a family's grid (``xyxy_1000``)."""
    family: str = ""
    """The grounding family of a ``grounding_response`` ("" for a ``bbox``)."""
    own: bool = False
    """The line itself declares the reading (its ``bbox_format``, or its ``grounding_format`` for a
    family other than ``plain``): the submission's settings do not change it."""


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


OTHER_FRAME = "bbox_ref_size"
""":func:`suggestion`'s answer for pixel boxes of a frame other than the answered image's."""


def suggestion(samples: Sequence[BoxSample], declared: str) -> tuple[tuple[str, ...], str]:
    """The formats that fit the boxes better than ``declared``, and why (empty when it looks right)."""
    if len(samples) < MIN_SAMPLES or declared not in BOX_FORMATS:
        return (), ""
    values = [v for s in samples for v in s.values]
    if declared in (*PIXEL_FORMATS, *GRID_FORMATS) and min(values) >= 0 and max(values) <= 1:
        return ("xyxy_norm",), f"every value of the {len(samples):,} boxes lies in 0-1"
    if declared in PIXEL_FORMATS and _grid_like(samples):
        large = sum(max(s.frame) > 1100 for s in samples)
        why = f"every value lies in 0-1000 although {large:,} of the answered images are larger than that"
        return GRID_FORMATS, why
    if declared in PIXEL_FORMATS:
        qwen = qwen_frame(samples, declared)
        if qwen is not None:
            return qwen
    mine = fit(samples, declared)
    if mine.valid > 0.9 and mine.inside >= 0.5:  # no rule below can fire: the other formats need not be read
        return (), ""
    fits = {fmt: fit(samples, fmt) for fmt in BOX_FORMATS if fmt != declared}
    best = max(fits, key=lambda f: fits[f].inside)
    if mine.inside < 0.5 and fits[best].inside >= 0.9:
        why = f"read that way only {mine.inside:.0%} of {len(samples):,} boxes are valid and inside the answered image"
        return (best,), why
    if mine.valid <= 0.9 and fits[best].valid == 1.0 and fits[best].inside >= 0.98:
        invalid = len(samples) - round(mine.valid * len(samples))
        why = f"{invalid:,} of {len(samples):,} boxes are invalid (inverted or out of range) that way, none as {best}"
        return (best,), why
    if declared in PIXEL_FORMATS and mine.valid >= 0.9 and mine.inside < 0.5:
        outside = round((mine.valid - mine.inside) * len(samples))
        why = f"{outside:,} of {len(samples):,} boxes reach well outside the answered image, and no other format fits"
        return (OTHER_FRAME,), why
    return (), ""


def qwen_frame(samples: Sequence[BoxSample], declared: str) -> tuple[tuple[str, ...], str] | None:
    """The Qwen2.5-VL preset whose resized input frames the pixel boxes fit (see module doc), as a
    suggestion, or None. Only the answered options' public sizes and the boxes are read."""
    corners = []
    for sample in samples:
        try:
            corners.append(
                (read_box(sample.values, declared, None, sample.frame).in_image(*sample.frame), sample.frame)
            )
        except LineError:
            continue
    fitting = {}
    for preset in _QWEN_ORDER:
        evidence = _frame_evidence(corners, *QWEN_PIXEL_PRESETS[preset])
        if evidence is not None:
            fitting[preset] = evidence
    if not fitting:
        return None
    preset = max(fitting, key=lambda p: fitting[p][0])  # the most lines explained (first: smaller frames)
    informative, reach = fitting[preset]
    low, high = QWEN_PIXEL_PRESETS[preset]
    why = (
        f"on the {informative:,} lines whose answered image Qwen2.5-VL's processor resizes under the "
        f"{preset} preset (min_pixels {low:,}, max_pixels {high:,}), every box lies within that resized "
        f"frame and {reach:,} reach its far edge: pixels of the resized input, not of the image"
    )
    return (f"qwen2_5_vl:{preset}",), why


def _frame_evidence(corners: list, low: int, high: int) -> tuple[int, int] | None:
    """(lines resized by over 20 %, boxes reaching the resized frame's far edge) when the boxes of
    the resized lines fit those frames: each box within its frame, and in each direction (shrunk,
    enlarged) a tenth of the boxes reaching its far edge; None when they do not."""
    groups: dict[bool, list[tuple[bool, bool]]] = {True: [], False: []}  # shrunk? -> (within, reaches)
    for (x0, y0, x1, y1), (w, h) in corners:
        try:
            fw, fh = smart_resize(w, h, low, high)
        except ValueError:
            continue
        if abs(fw - w) <= _RESIZED * w and abs(fh - h) <= _RESIZED * h:
            continue
        dx, dy = 0.01 * fw, 0.01 * fh
        within = x0 >= -dx and y0 >= -dy and x1 <= fw + dx and y1 <= fh + dy
        groups[fw * fh < w * h].append((within, x1 >= _REACH * fw or y1 >= _REACH * fh))
    informative = sum(map(len, groups.values()))
    if informative < MIN_FRAME_SAMPLES:
        return None
    reach = 0
    for group in groups.values():
        reaching = sum(r for _, r in group)
        if not all(w for w, _ in group) or reaching < math.ceil(0.1 * len(group)):
            return None
        reach += reaching
    return informative, reach


def _described(name: str) -> str:
    if name in BOX_FORMATS:
        return f"{name} ({BOX_FORMATS[name]})"
    if name == OTHER_FRAME:
        return (
            "pixels of another frame than the answered image (a resized input): give each line the "
            "bbox_ref_size [w, h] of the image the model saw"
        )
    w_h = "smart_resize of the answered image's width and height under that preset"
    return (
        f"grounding_format {name} (send the model's text as grounding_response), or the same boxes with "
        f"bbox_ref_size [w, h] on each line ({w_h})"
    )


def qwen_preset_advice(samples: Sequence[BoxSample]) -> Issue | None:
    """A whole-file ``suspect_grounding_format`` issue when raw Qwen2.5-VL boxes fit another
    preset's resized frames (:func:`_frame_evidence`) better than the declared one's, or None."""
    raw = [s for s in samples if s.grounding_format]
    if len(raw) < MIN_FRAME_SAMPLES:
        return None
    declared = max(set(s.grounding_format for s in raw), key=[s.grounding_format for s in raw].count)
    try:
        limits = parse_format(declared)
    except LineError:
        return None
    corners = [
        ((min(a, c), min(b, d), max(a, c), max(b, d)), s.frame)
        for s in raw
        if s.grounding_format == declared
        for a, b, c, d in [s.values]
    ]
    mine = _frame_evidence(corners, limits.min_pixels, limits.max_pixels)
    fitting = {p: e for p in _QWEN_ORDER if (e := _frame_evidence(corners, *QWEN_PIXEL_PRESETS[p])) is not None}
    if not fitting:
        return None
    best = max(fitting, key=lambda p: fitting[p][0])
    if QWEN_PIXEL_PRESETS[best] == (limits.min_pixels, limits.max_pixels) or (mine and mine[0] >= fitting[best][0]):
        return None
    informative, reach = fitting[best]
    low, high = QWEN_PIXEL_PRESETS[best]
    return Issue(
        "suspect_grounding_format",
        0,
        "grounding_format",
        f"the Qwen2.5-VL boxes do not look like pixels of the {declared} input frames: on the {informative:,} "
        f"lines whose answered image the {best} preset (min_pixels {low:,}, max_pixels {high:,}) resizes by "
        f"over 20 %, every box lies within that preset's frame and {reach:,} reach its far edge. Did you mean "
        f"grounding_format qwen2_5_vl:{best}? If {declared} is right, {CONFIRM}.",
        suggestion_of(grounding_format=f"qwen2_5_vl:{best}"),
    )


def advice(samples: Sequence[BoxSample], declared: str) -> Issue | None:
    """One whole-file issue (``suspect_bbox_format`` or ``suspect_grounding_format``) naming the
    declaration that reads the boxes, for the largest group of one reading that the boxes do not fit
    (``declared``: the file's box format); None when every group fits. Raw Qwen2.5-VL samples are
    :func:`qwen_preset_advice`'s."""
    groups: dict[tuple[str, str, bool], list[BoxSample]] = {}
    for sample in samples:
        if not sample.grounding_format:
            groups.setdefault((sample.family, sample.box_format or declared, sample.own), []).append(sample)
    for (family, fmt, own), members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        better, why = suggestion(members, fmt)
        issue = _family_issue(family, fmt, own, better, why) if family and family != "plain" else None
        if family in ("", "plain") and better:
            issue = _format_issue(family, fmt, own, better, why)
        if issue is not None:
            return issue
    return None


def _format_issue(family: str, fmt: str, own: bool, better: tuple[str, ...], why: str) -> Issue:
    """A ``bbox`` or ``plain`` group whose boxes do not fit its box format."""
    what = "the boxes" if not family else "the stage-2 boxes (grounding_response texts read as plain)"
    described = " or ".join(_described(f) for f in better)
    settable = not own and len(better) == 1 and better[0] in BOX_FORMATS
    if own:
        fix = (
            f"The lines declare bbox_format {fmt} themselves: correct it on the lines, or if {fmt} is right, {CONFIRM}."
        )
    else:
        fix = f"Choose the right box format; if {fmt} is right, {CONFIRM}."
    return Issue(
        "suspect_bbox_format",
        0,
        "bbox_format",
        f"{what} do not look like {fmt}: {why}. Did you mean {described}? {fix}",
        suggestion_of(bbox_format=better[0]) if settable else "",
    )


def _family_issue(family: str, fmt: str, own: bool, better: tuple[str, ...], why: str) -> Issue | None:
    """A group of a family on a 0-1000 grid whose numbers do not fit that grid: plain with the box
    format they fit (Qwen3-VL's bbox_2d in pixels: Qwen2.5-VL); None when nothing names another reading."""
    if not better or better[0] not in ("xyxy_norm", *PIXEL_FORMATS):
        return None
    if family == "qwen3_vl" and better[0] in PIXEL_FORMATS:
        settings, named = (
            {"grounding_format": "qwen2_5_vl"},
            "grounding_format qwen2_5_vl (pixels of the resized input)",
        )
    else:
        settings = {"grounding_format": "plain", "bbox_format": better[0]}
        named = f"grounding_format plain with bbox_format {better[0]} ({BOX_FORMATS[better[0]]})"
    where = "its lines declare" if own else "is declared"
    fix = (
        "The lines name their family themselves (lmms-eval and Inspect files: the family their stage-2 prompt "
        f"asked for), so only the lines can change it; if {family} is right, {CONFIRM}."
        if own
        else f"If {family} is right, {CONFIRM}."
    )
    return Issue(
        "suspect_grounding_format",
        0,
        "grounding_format",
        f"the stage-2 boxes (grounding_response texts) do not fit the {family} convention that {where} "
        f"({FAMILIES[family].grid}): "
        f"{why}, so every box would be a sliver of the image and score IoU 0. Did you mean {named}? {fix}",
        "" if own else suggestion_of(**settings),
    )


def constant_box(samples: Sequence[BoxSample]) -> Issue | None:
    """A ``constant_box`` warning when every sampled box (at least :data:`MIN_FRAME_SAMPLES`) is the
    same numbers in the same reading, whatever image it answers: a weak answer, not a misread one,
    so it is scored as it is; None otherwise."""
    if len(samples) < MIN_FRAME_SAMPLES:
        return None
    first = samples[0]
    if any((s.values, s.family, s.box_format) != (first.values, first.family, first.box_format) for s in samples):
        return None
    box = "[" + ", ".join(f"{v:g}" for v in first.values) + "]"
    return Issue(
        "constant_box",
        0,
        "",
        f"every one of the {len(samples):,} boxes is {box}, whatever image it answers: the model gave one box "
        "for every question (it is scored as it is: mIoU then measures how much that one box covers each artifact)",
    )
