"""Raw grounding: a model's stage-2 text read by its own family's convention (SPEC "Raw model outputs").

A line may carry ``grounding_response`` (what the model printed for the image it chose) instead of
a ``bbox``/``polygon``/``mask``; the submission declares its ``grounding_format`` and each family
below is one declaration: the grammar it matches, the grid its numbers are on and their axis
order, and where that convention is documented. Reading is deterministic and looks at the text
and the answered option's public size only:

1. a leading ``<think>...</think>`` and code-fence markers (```` ```json ````, ```` ``` ````) are removed;
2. every match of the family's grammar is one box, written on the family's grid (``plain``: only
   the first four numbers of the text, in the submission's ``bbox_format``);
3. each box's corners are put in order, boxes of zero width or height are dropped, the rest are
   clipped to the grid (what rasterising on the image does anyway) and duplicates dropped;
4. one box is scored as a box, several as the union of their regions (one polygon part per box,
   rasterised and merged as a ``polygon`` is); no box is an *unparsed grounding*: IoU 0 on a
   correct answer, counted in ``counts.grounding_unparsed`` and listed to the team.

Nothing is guessed from the size of the numbers, and no harness's best-of-several reading against
the gold is imitated. The Qwen2.5-VL grid is the resized model input: :func:`smart_resize` of the
answered option's public size under the declared ``min_pixels``/``max_pixels`` (a named preset).

A declaration is a string: the family name, and for ``qwen2_5_vl`` optionally ``:<preset>``
(:data:`QWEN_PIXEL_PRESETS`) or ``:<min_pixels>,<max_pixels>``, e.g. ``qwen2_5_vl:lmms-eval``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scoring.errors import Issue, LineError, suggestion
from scoring.geometry import BOX_FORMATS, MAX_COORDINATE, MAX_OUTLINE, UNKNOWN_FRAME, Box, Polygons

QWEN_FACTOR = 28
"""Qwen2-VL / Qwen2.5-VL merge 2 x 2 patches of 14 px: both sides of the input are multiples of 28."""
QWEN_MAX_RATIO = 200
"""smart_resize refuses images whose long side exceeds 200 times the short side."""
QWEN_PIXEL_PRESETS: dict[str, tuple[int, int]] = {
    "hub": (3136, 12845056),
    "transformers": (3136, 1003520),
    "lmms-eval": (200704, 1605632),
    "vlmevalkit": (1003520, 12845056),
}
"""(min_pixels, max_pixels) of the stacks a Qwen2.5-VL run goes through
(../shared/notes/reviews/turn3/model-and-harness-formats.md section 1.3 item 4):
``hub``: the models' ``preprocessor_config.json`` on the Hub (the default);
``transformers``: ``Qwen2VLImageProcessor``'s class defaults, 56*56 / 28*28*1280;
``lmms-eval``: ``models/simple/qwen2_5_vl.py``, 256*28*28 / 1605632;
``vlmevalkit``: ``config.py`` "Qwen2.5-VL-7B-Instruct", 1280*28*28 / 16384*28*28."""
DEFAULT_QWEN_PRESET = "hub"
MAX_BOXES = 100
"""Distinct boxes one grounding_response may hold; more is a line error (a region of 100 boxes is
no answer, and every box costs a polygon part). Their outline is bounded as a polygon's is
(:data:`scoring.geometry.MAX_OUTLINE` pixels of the answered image): pycocotools' work grows with it."""
MAX_RESPONSE_CHARS = 20_000
"""Characters of a grounding_response that are read; a longer text is a line error."""


def smart_resize(
    width: int, height: int, min_pixels: int, max_pixels: int, factor: int = QWEN_FACTOR
) -> tuple[int, int]:
    """(width, height) of the Qwen2-VL / Qwen2.5-VL model input for a width x height image.

    A copy of the published rule, ``smart_resize`` in ``qwen_vl_utils/vision_process.py``
    (PyPI ``qwen-vl-utils`` 0.0.14; the same rule as ``QwenLM/Qwen2.5-VL``'s copy of that
    file): both sides rounded to multiples of ``factor``, then scaled down (floor) to at most
    ``max_pixels`` or up (ceil) to at least ``min_pixels``, keeping the aspect ratio. The package
    itself is not a dependency: it pulls in ``av``, ``pillow`` and ``requests`` for video loading,
    far too much for a pure scorer. Note the argument order: width first here (the source takes
    height first); tests/scoring/test_grounding_formats.py pins the published frames. Where the
    downscale would round a side to 0 (only under a custom max_pixels below 156,800), the side is
    ``factor``, as transformers' own copy (``image_processing_qwen2_vl.smart_resize``) has it.

    >>> smart_resize(2355, 1794, 3136, 12845056)
    (2352, 1792)
    >>> smart_resize(640, 480, 1003520, 12845056)
    (1176, 868)
    """
    if max(height, width) / min(height, width) > QWEN_MAX_RATIO:
        raise ValueError(f"absolute aspect ratio must be smaller than {QWEN_MAX_RATIO}")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)  # as transformers' copy: never 0
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return w_bar, h_bar


# --- the grammars -----------------------------------------------------------------------------

_NUM = r"(-?\d+(?:\.\d+)?)"
_SEP = r"\s*,\s*"
_FOUR = r"\[\s*" + _SEP.join([_NUM] * 4) + r"\s*\]"
Corners = tuple[float, float, float, float]


def _numbers(groups: Sequence[str]) -> Corners:
    a, b, c, d = (float(g) for g in groups)
    return a, b, c, d


def _y_first(groups: Sequence[str]) -> Corners:
    ymin, xmin, ymax, xmax = _numbers(groups)
    return xmin, ymin, xmax, ymax


def _florence_bins(groups: Sequence[str]) -> Corners:
    """Florence-2's BoxQuantizer.dequantize: the centre of bin k is (k + 0.5) / 1000 of a side."""
    a, b, c, d = (int(g) + 0.5 for g in groups)
    return a, b, c, d


KOSMOS_PATCHES_PER_SIDE = 32


def kosmos_patch_box(ul: int, lr: int, per_side: int = KOSMOS_PATCHES_PER_SIDE) -> Corners:
    """Normalised (x1, y1, x2, y2) of a Kosmos-2 upper-left / lower-right patch pair, as
    transformers' ``patch_index_to_coordinate`` maps it
    (``src/transformers/models/kosmos2/processing_kosmos2.py``, commit 00ad3b0b, itself copied
    from microsoft/unilm ``kosmos-2/demo/decode_string.py``): cell edges when both corners are
    one cell or share a row or column, else cell centres.

    >>> kosmos_patch_box(44, 863)  # the Kosmos2Processor docstring's "a snowman"
    (0.390625, 0.046875, 0.984375, 0.828125)
    """
    cell = 1.0 / per_side
    ul_x, ul_y, lr_x, lr_y = ul % per_side, ul // per_side, lr % per_side, lr // per_side
    if ul == lr or ul_x == lr_x or ul_y == lr_y:
        return ul_x * cell, ul_y * cell, lr_x * cell + cell, lr_y * cell + cell
    half = cell / 2
    return ul_x * cell + half, ul_y * cell + half, lr_x * cell + half, lr_y * cell + half


def _kosmos(groups: Sequence[str]) -> Corners | None:
    ul, lr = int(groups[0]), int(groups[1])
    top = KOSMOS_PATCHES_PER_SIDE**2
    return kosmos_patch_box(ul, lr) if ul < top and lr < top else None


@dataclass(frozen=True)
class Family:
    """One model family's grounding convention: a grammar, a grid, an axis order, a source."""

    name: str
    prints: str
    """What the model prints, as a literal example (docs/SPEC.md's table)."""
    grid: str
    """The coordinate grid and its denominator, in words."""
    axes: str
    source: str
    pattern: re.Pattern | None
    """Every match is one box; None for ``plain`` (the first four numbers of the text)."""
    corners: Callable[[Sequence[str]], Corners | None] = _numbers
    """A match's groups -> (x1, y1, x2, y2) on the grid (None: not a box of this grid)."""
    grid_size: tuple[float, float] | None = (1000.0, 1000.0)
    """(width, height) of the grid; None: pixels of a frame (qwen2_5_vl, plain's pixel formats)."""


def _family(name: str, prints: str, grid: str, axes: str, source: str, pattern: str | None, **kw) -> Family:
    return Family(name, prints, grid, axes, source, re.compile(pattern) if pattern else None, **kw)


_BBOX_2D = r"""(?<![\w])["']?bbox_2d["']?\s*:\s*""" + _FOUR
FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        _family(
            "qwen2_vl",
            "<|box_start|>(69,306),(250,988)<|box_end|>",
            "0-1000 of the original image, /1000",
            "x first",
            "QwenLM/Qwen3-VL qwen-vl-finetune/tools/process_bbox.ipynb (Qwen2-VL: relative 0-1000)",
            r"\(\s*" + _NUM + _SEP + _NUM + r"\s*\)\s*,\s*\(\s*" + _NUM + _SEP + _NUM + r"\s*\)",
        ),
        _family(
            "qwen2_5_vl",
            '```json\n[{"bbox_2d": [135, 114, 1016, 672], "label": "house"}]\n```',
            "absolute pixels of the resized input: smart_resize(w, h, factor=28, min_pixels, max_pixels)",
            "x first",
            "QwenLM/Qwen3-VL qwen-vl-finetune/tools/process_bbox.ipynb (Qwen2.5-VL: absolute, resized image)",
            _BBOX_2D,
            grid_size=None,
        ),
        _family(
            "qwen3_vl",
            '[{"bbox_2d": [135, 114, 716, 672], "label": "house"}]',
            "0-1000, /1000",
            "x first",
            "QwenLM/Qwen3-VL README (relative coordinates), evaluation/ODinW-13/run_odinw.py (pred / 1000)",
            _BBOX_2D,
        ),
        _family(
            "internvl",
            "<ref>the man</ref><box>[[123, 45, 678, 901]]</box>",
            "0-1000 of the original image, /1000",
            "x first",
            "OpenGVLab/InternVL internvl_chat/eval/refcoco/evaluate_grounding.py (/1000)",
            _FOUR,
        ),
        _family(
            "gemini",
            '[{"box_2d": [269, 39, 782, 530], "label": "kitten"}]',
            "0-1000, /1000",
            "y first: [ymin, xmin, ymax, xmax]",
            'Gemini API docs "image understanding": box_2d is [ymin, xmin, ymax, xmax] normalized to 0-1000',
            r"""(?<![\w])["']?box_2d["']?\s*:\s*""" + _FOUR,
            corners=_y_first,
        ),
        _family(
            "florence2",
            "car<loc_52><loc_333><loc_932><loc_774>",
            "1000 bins a side, bin centres (k + 0.5) / 1000",
            "x first",
            "microsoft/Florence-2-large-ft processing_florence2.py BoxQuantizer((1000, 1000)).dequantize",
            r"<loc_(\d{1,3})>\s*<loc_(\d{1,3})>\s*<loc_(\d{1,3})>\s*<loc_(\d{1,3})>",
            corners=_florence_bins,
        ),
        _family(
            "kosmos2",
            "<phrase> a snowman</phrase><object><patch_index_0044><patch_index_0863></object>",
            "32 x 32 patch grid: upper-left and lower-right cell (patch_index_to_coordinate)",
            "x first (index = row * 32 + column)",
            "huggingface/transformers src/transformers/models/kosmos2/processing_kosmos2.py",
            r"<patch_index_(\d{4})>\s*<patch_index_(\d{4})>",
            corners=_kosmos,
            grid_size=(1.0, 1.0),
        ),
        _family(
            "cogvlm",
            "[[086,540,400,760]]",
            "000-999, zero-padded three digits (not JSON), /1000",
            "x first",
            'THUDM/CogVLM README.md "Format of coordination" (commit b37f36b)',
            r"\[\s*" + _SEP.join([r"(\d{1,3})"] * 4) + r"\s*\]",
        ),
        _family(
            "plain",
            "[412, 220, 980, 871]",
            "the submission's bbox_format (and the line's bbox_ref_size)",
            "the bbox_format's",
            "SPEC box formats",
            None,
            grid_size=None,
        ),
    )
}
"""Every grounding_format family of SPEC, in its table's order."""

_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_THINK = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class GroundingFormat:
    """A parsed declaration: a family and, for qwen2_5_vl, the processor's pixel limits."""

    family: Family
    min_pixels: int = QWEN_PIXEL_PRESETS[DEFAULT_QWEN_PRESET][0]
    max_pixels: int = QWEN_PIXEL_PRESETS[DEFAULT_QWEN_PRESET][1]

    def frame(self, width: int, height: int) -> tuple[int, int]:
        """The Qwen2.5-VL input (width, height) for an option image of that size."""
        return smart_resize(width, height, self.min_pixels, self.max_pixels)


def describe_formats() -> str:
    presets = ", ".join(f"qwen2_5_vl:{p}" for p in QWEN_PIXEL_PRESETS)
    return f"{', '.join(FAMILIES)} (qwen2_5_vl takes a preset: {presets}, or qwen2_5_vl:MIN_PIXELS,MAX_PIXELS)"


def parse_format(text: object) -> GroundingFormat:
    """A ``grounding_format`` declaration; LineError ``unknown_grounding_format`` when it is none."""
    if isinstance(text, str) and len(text) <= 64:
        return _parse_format(text)  # a file's lines repeat a few declarations: each is parsed once
    return _parse_format.__wrapped__(text)


@lru_cache(maxsize=64)
def _parse_format(text: object) -> GroundingFormat:
    value = text.strip() if isinstance(text, str) else ""
    name, _, option = value.partition(":")
    family = FAMILIES.get(name)
    if family is None or (option and name != "qwen2_5_vl"):
        raise LineError(
            "unknown_grounding_format",
            f"unknown grounding_format {str(text)[:40]!r}; known: {describe_formats()}",
            "grounding_format",
        )
    if not option:
        return GroundingFormat(family)
    if option in QWEN_PIXEL_PRESETS:
        return GroundingFormat(family, *QWEN_PIXEL_PRESETS[option])
    low, _, high = option.partition(",")
    if low.isdigit() and high.isdigit() and 1 <= int(low) <= int(high) <= 10**9:
        return GroundingFormat(family, int(low), int(high))
    raise LineError(
        "unknown_grounding_format",
        f"qwen2_5_vl takes a preset ({', '.join(QWEN_PIXEL_PRESETS)}) or MIN_PIXELS,MAX_PIXELS "
        f"with MIN <= MAX, got {option[:40]!r}",
        "grounding_format",
    )


def known_format(text: object) -> bool:
    try:
        parse_format(text)
    except LineError:
        return False
    return True


def strip_wrapping(text: str) -> str:
    """The text without a leading ``<think>...</think>`` and without code-fence markers."""
    return _FENCE.sub(" ", _THINK.sub("", text, count=1))


def plain_numbers(text: str) -> Corners | None:
    """The first four numbers of a text as written (``plain``'s reading before its box format), or None."""
    numbers = _PLAIN_NUMBER.findall(strip_wrapping(text))[:4]
    return _numbers(numbers) if len(numbers) == 4 else None


def find_boxes(text: str, family: Family, bbox_format: str = "xyxy") -> list[Corners]:
    """Every box the family's grammar matches, as (x1, y1, x2, y2) on its grid, in text order.
    ``plain``: the first four numbers, read in ``bbox_format`` (xywh and yxyx_1000 become x1 y1 x2 y2)."""
    body = strip_wrapping(text)
    if family.pattern is None:
        numbers = plain_numbers(body)
        if numbers is None:
            return []
        a, b, c, d = numbers
        if bbox_format == "xywh":
            return [(a, b, a + c, b + d)] if c > 0 and d > 0 else []
        return [(b, a, d, c)] if bbox_format == "yxyx_1000" else [(a, b, c, d)]
    boxes = []
    for match in family.pattern.finditer(body):
        corners = family.corners(match.groups())
        if corners is not None:
            boxes.append(corners)
    return boxes


@dataclass(frozen=True)
class UnparsedGrounding:
    """A grounding_response whose grammar matched no box: scored as no grounding (IoU 0 on a
    correct answer), counted and listed to the team."""


UNPARSED_GROUNDING = UnparsedGrounding()

_PLAIN_GRIDS = {"xyxy_norm": (1.0, 1.0), "xyxy_1000": (1000.0, 1000.0), "yxyx_1000": (1000.0, 1000.0)}


def read_grounding_response(
    text: str,
    declared: GroundingFormat,
    frame: tuple[int, int] | None,
    *,
    bbox_format: str = "xyxy",
    ref_size: Sequence[float] | None = None,
) -> Box | Polygons | None:
    """The region a grounding_response names, still on its own grid (a Box or Polygons whose
    ``ref`` is the grid, or None for pixels of the image): None when the grammar matches no box
    (an unparsed grounding).

    ``frame``: (width, height) of the option image the line answers, a public size, or None
    when it has none (pixel grids are then clipped to no image; a Qwen2.5-VL grid cannot be
    made and is a LineError). Raises LineError for what no text can fix: too many boxes, or a
    frame that smart_resize refuses."""
    boxes = find_boxes(text, declared.family, bbox_format)
    if not boxes:
        return None
    ref, (gw, gh) = _grid(declared, frame, bbox_format, ref_size)
    regions: dict[Corners, None] = {}  # ordered and without duplicates: the union is the same
    for a, b, c, d in boxes:
        if not all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in (a, b, c, d)):
            continue
        x0, x1 = max(0.0, min(a, c)), min(gw, max(a, c))
        y0, y1 = max(0.0, min(b, d)), min(gh, max(b, d))
        if x1 > x0 and y1 > y0:
            regions[(x0, y0, x1, y1)] = None
    if not regions:
        return None
    if len(regions) > MAX_BOXES:
        raise LineError(
            "too_many_boxes",
            f"grounding_response holds {len(regions):,} distinct boxes; at most {MAX_BOXES:,}",
            "grounding_response",
        )
    if len(regions) == 1:
        ((x0, y0, x1, y1),) = regions
        return Box(x0, y0, x1, y1, ref=ref)
    width, height = frame or UNKNOWN_FRAME
    sx, sy = (1.0, 1.0) if ref is None else (width / ref[0], height / ref[1])
    outline = sum(2 * ((x1 - x0) * sx + (y1 - y0) * sy) for x0, y0, x1, y1 in regions)
    if outline > MAX_OUTLINE:
        raise LineError(
            "polygon_too_complex",
            f"the {len(regions)} boxes of grounding_response have an outline longer than {MAX_OUTLINE:,} px "
            "in pixels of the image",
            "grounding_response",
        )
    # one polygon part per box, its corners in pycocotools' own box order (rleFrBbox)
    parts = tuple(np.array([x0, y0, x0, y1, x1, y1, x1, y0], dtype=np.float64) for x0, y0, x1, y1 in regions)
    return Polygons(parts, ref)


CONFIRM = (
    "send the file again with the format confirmed (form: tick 'The box format is right'; API: "
    "confirm_box_format=True; command line: --confirm-box-format)"
)
"""How every suspect-format message says to keep the declaration: the one override."""
MARKED = ("gemini", "qwen2_5_vl", "qwen3_vl", "florence2", "kosmos2")
"""Families whose grammar has a marker of its own (a JSON key or a token); the others read bare
brackets. A text another family reads is named by a marked family when one reads it."""
MIN_UNPARSED_FOR_HINT = 5


def other_readings(text: str, declared: Family) -> tuple[str, ...]:
    """The families other than ``declared`` (and plain) whose grammar finds a box in ``text``."""
    return tuple(
        name
        for name, family in FAMILIES.items()
        if family.pattern is not None and family is not declared and find_boxes(text, family)
    )


def grounding_advice(declared: str, responses: int, unparsed: int, readings: dict[str, int]) -> Issue | None:
    """A whole-file ``suspect_grounding_format`` issue when most grounding_response lines name no
    box in the declared family and another family's grammar reads nearly all of them (``readings``:
    family -> how many of the unparsed lines it reads); None otherwise. Only the texts are read."""
    if unparsed < MIN_UNPARSED_FOR_HINT or unparsed < 0.5 * responses:
        return None
    fitting = [name for name, n in readings.items() if n >= 0.9 * unparsed]
    marked = [name for name in MARKED if name in fitting]
    better = marked or [name for name in FAMILIES if name in fitting]
    if not better:
        return None
    described = " or ".join(f"{name} ({FAMILIES[name].grid})" for name in better)
    return Issue(
        "suspect_grounding_format",
        0,
        "grounding_format",
        f"{unparsed:,} of {responses:,} grounding_response lines name no box in the {declared} grammar "
        f"(they would score IoU 0), while {better[0]}'s reads {readings[better[0]]:,} of them. Did you mean "
        f"grounding_format {described}? If {declared} is right, {CONFIRM}.",
        suggestion(grounding_format=better[0]) if len(better) == 1 else "",
    )


NO_REGION = Box(0.0, 0.0, 0.0, 0.0)
"""What an unparsed grounding is scored as: a region of no pixels (IoU 0 on a correct answer),
so that a file whose texts all fail still has an mIoU (0), not "no grounding"."""


class GroundingTally:
    """The grounding_response lines of one file as the engine reads them: how many, which name no
    box (counted, and the first ``listed`` kept with their text), the lines that lack a declared
    format (one whole-file issue), and which other families read the unparsed texts of the file's
    own format (the ``suspect_grounding_format`` hint). Only the texts are read, never the gold."""

    def __init__(self, declared: str, listed: int, text_chars: int) -> None:
        self.declared, self.listed, self.text_chars = declared, listed, text_chars
        self.responses = self.unparsed = 0
        self.unparsed_lines: list[tuple[int, str]] = []
        self.without_format: list[int] = []
        self._own = self._own_unparsed = 0  # lines in the file's own format (no per-line grounding_format)
        self._readings: dict[str, int] = {}
        self._undeclared = UndeclaredTexts()

    def absorbs(self, error: LineError, line_no: int, text: object = None) -> bool:
        """Whether a line error is this tally's to report (once, in :meth:`issue`); ``text``, the
        line's grounding_response, tells which declaration would read it."""
        if error.code != "missing_grounding_format":
            return False
        self.without_format.append(line_no)
        self._undeclared.note(text)
        return True

    def note(self, line_no: int, line: dict, grounding: object) -> object:
        """Count a read line; returns its grounding, :data:`NO_REGION` for an unparsed one."""
        if line.get("grounding_response") is None:
            return grounding
        self.responses += 1
        own = line.get("grounding_format") is None
        self._own += own
        if not isinstance(grounding, UnparsedGrounding):
            return grounding
        self.unparsed += 1
        if len(self.unparsed_lines) < self.listed:
            self.unparsed_lines.append((line_no, str(line["grounding_response"])[: self.text_chars]))
        if own:
            self._own_unparsed += 1
            for name in other_readings(line["grounding_response"], parse_format(self.declared).family):
                self._readings[name] = self._readings.get(name, 0) + 1
        return NO_REGION

    def issue(self) -> Issue | None:
        """The one whole-file issue for grounding_response lines without a declared format."""
        lines = self.without_format
        if not lines:
            return None
        head = (
            f"{len(lines):,} line(s) give a grounding_response but no grounding_format is declared (first on "
            f"line {lines[0]}; SCB's stage-2 text)"
        )
        likely = self._undeclared.likely()
        if likely is None:
            return Issue(
                "missing_grounding_format",
                lines[0],
                "grounding_format",
                f"{head}: declare the model family for the submission (form field, API parameter "
                f"grounding_format, --grounding-format) or per line; known: {describe_formats()}",
            )
        settings, why = likely
        return Issue("missing_grounding_format", lines[0], "grounding_format", f"{head}. {why}", suggestion(**settings))

    def hint(self) -> Issue | None:
        return grounding_advice(self.declared, self._own, self._own_unparsed, self._readings) if self.declared else None


class UndeclaredTexts:
    """The grounding_response texts of lines with no declared family, tallied for the declaration
    that would read them (:meth:`likely`): four numbers all in 0-1 (what a model answers when asked
    for a box with no convention, as the project's lmms-eval SCB stage 2 asked before 2026-12-04:
    ``plain`` with ``xyxy_norm``), or a marked family's grammar. Only the texts are read."""

    def __init__(self) -> None:
        self.texts = self.unit = 0
        self.example = ""
        self.readings: dict[str, int] = {}

    def note(self, text: object) -> None:
        if not isinstance(text, str):
            return
        text = text[:MAX_RESPONSE_CHARS]
        self.texts += 1
        numbers = plain_numbers(text)
        if numbers is not None and all(0 <= v <= 1 for v in numbers):
            self.unit += 1
            self.example = self.example or text[:60]
        for name in MARKED:
            if find_boxes(text, FAMILIES[name]):
                self.readings[name] = self.readings.get(name, 0) + 1

    def likely(self) -> tuple[dict[str, str], str] | None:
        """(the settings that read nearly all the texts, a sentence saying so and how to send them), or None."""
        if self.texts < 1:
            return None
        if self.unit >= 0.9 * self.texts:
            return {"grounding_format": "plain", "bbox_format": "xyxy_norm"}, (
                f"{self.unit:,} of them are four numbers between 0 and 1 (e.g. {self.example!r}), a box normalised "
                "to the image, as a model answers when asked for a box with no convention (the project's lmms-eval "
                "SCB stage 2 asked so before 2026-12-04): declare grounding_format plain with bbox_format xyxy_norm "
                "(form: those two fields; API: grounding_format='plain', bbox_format='xyxy_norm'; command line: "
                "--grounding-format plain --bbox-format xyxy_norm)"
            )
        name = next((n for n in MARKED if self.readings.get(n, 0) >= 0.9 * self.texts), None)
        if name is None:
            return None
        if (
            name == "qwen2_5_vl"
        ):  # bbox_2d: Qwen3-VL's 0-1000 grid or Qwen2.5-VL's resized pixels, the texts cannot tell
            return {}, (
                f"{self.readings[name]:,} of them are bbox_2d boxes: declare grounding_format qwen3_vl "
                f"({FAMILIES['qwen3_vl'].grid}) or qwen2_5_vl (pixels of the resized input; with the preset the "
                f"model was served with: {describe_formats()})"
            )
        return {"grounding_format": name}, (
            f"{self.readings[name]:,} of them are in {name}'s grammar ({FAMILIES[name].grid}): declare "
            f"grounding_format {name} (form field, API parameter grounding_format, --grounding-format {name})"
        )


_NO_IMAGE = (MAX_COORDINATE, MAX_COORDINATE)


def _grid(
    declared: GroundingFormat, frame: tuple[int, int] | None, bbox_format: str, ref_size: Sequence[float] | None
) -> tuple[tuple[float, float] | None, tuple[float, float]]:
    """(the ``ref`` of the region: its grid, None for the image's own pixels; the clipping bounds)."""
    family = declared.family
    if family.grid_size is not None:
        return family.grid_size, family.grid_size
    if family.name == "plain":
        if bbox_format in _PLAIN_GRIDS:
            return _PLAIN_GRIDS[bbox_format], _PLAIN_GRIDS[bbox_format]
        if ref_size is not None:
            ref = (float(ref_size[0]), float(ref_size[1]))
            return ref, ref
        return None, (float(frame[0]), float(frame[1])) if frame else _NO_IMAGE
    if frame is None:
        raise LineError(
            "grounding_without_image_size",
            f"{family.name} boxes are pixels of the resized input, and this question publishes no option "
            "image size to resize: send this line's grounding as a bbox",
            "grounding_response",
        )
    try:
        width, height = declared.frame(*frame)
    except ValueError:
        raise LineError(
            "qwen_frame_undefined",
            f"smart_resize refuses the answered image's aspect ratio (over {QWEN_MAX_RATIO}:1): "
            "send this line's grounding as a bbox",
            "grounding_response",
        ) from None
    return (float(width), float(height)), (float(width), float(height))


assert set(_PLAIN_GRIDS) | {"xyxy", "xywh"} == set(BOX_FORMATS)
