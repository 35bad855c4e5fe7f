"""Seeing Culture Benchmark (SCB): pick the right image of four, then ground the artifact.

Gold: JSONL or Parquet records (SPEC "SCB gold"), or a COCO annotation JSON whose image
records carry the question fields. Predictions: ``answer``/``response`` plus at most one of
``bbox``/``polygon``/``mask``, in pixels of the option image the line answers (after format
conversion): checked against that image's public size, scored only for a correct answer.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace
from itertools import chain
from pathlib import Path

import numpy as np
from pycocotools import mask as coco_mask

from scoring.benchmarks import protocol
from scoring.benchmarks.base import (
    ACCURACY,
    Benchmark,
    Grouping,
    Heatmap,
    HubInspect,
    HubRegistration,
    HubTask,
    InspectStep,
    Metric,
    Panel,
    Scatter,
    Stat,
)
from scoring.benchmarks.families import TwoStage
from scoring.benchmarks.folder import folder_files
from scoring.benchmarks.scb import demo, site_export
from scoring.benchmarks.scb.release import is_release, release_jsonl, release_rows
from scoring.boxcheck import BoxSample
from scoring.errors import GoldError, LineError
from scoring.geometry import (
    BOX_FORMATS,
    MAX_COORDINATE,
    MAX_IMAGE_SIDE,
    UNKNOWN_FRAME,
    Box,
    BoxSet,
    MaskTable,
    Polygons,
    Runs,
    box_cells,
    coco_rle,
    read_box,
    read_boxes,
    read_polygons,
    scale_polygons,
)
from scoring.gold import Gold, content_version, group_codes, read_records
from scoring.grounding_formats import (
    MAX_RESPONSE_CHARS,
    UNPARSED_GROUNDING,
    UnparsedGrounding,
    describe_formats,
    find_boxes,
    known_format,
    parse_format,
    plain_numbers,
    read_grounding_response,
)

COUNTRIES = ("Cambodia", "Indonesia", "Malaysia", "Myanmar", "Philippines", "Thailand", "Vietnam")
CATEGORIES = ("celebration", "dance", "game", "music", "wedding")
GROUNDING_FIELDS = ("bbox", "polygon", "mask")
RAW_GROUNDING = "grounding_response"
"""The model's stage-2 text, read by its declared family (SPEC "Raw model outputs")."""
CHOICES = "ABCD"  # four images per question


def _gold_record(rec: dict, where: str) -> dict:
    """Normalise one gold record; GoldError says which record and field is wrong."""
    try:
        out = {
            "question_id": str(rec["question_id"]),
            "type": int(rec["type"]),
            "country": str(rec["country"]),
            "category": str(rec["category"]),
            "concept": str(rec.get("concept", "")),
            "answer": str(rec["answer"]).strip().upper(),
            "image_id": str(rec.get("image_id", "")),
            "width": int(rec["width"]),
            "height": int(rec["height"]),
            "segmentation": rec["segmentation"],
        }
    except (KeyError, TypeError, ValueError) as e:
        raise GoldError(f"{where}: missing or bad field {e}") from e
    if out["answer"] not in CHOICES or out["type"] not in (1, 2, 3) or not _side_ok(out["width"], out["height"]):
        raise GoldError(f"{where}: answer must be A-D, type 1-3, width/height 1 to {MAX_IMAGE_SIDE:,} px")
    if rec.get("options") is not None:  # older golds have none: their lines are checked in no public frame
        out["options"] = _options(rec["options"], out, where)
    return out


def _side_ok(width: int, height: int) -> bool:
    return 1 <= width <= MAX_IMAGE_SIDE and 1 <= height <= MAX_IMAGE_SIDE


def _option(opt: object, letter: str, where: str) -> dict:
    """One public option image, normalised; GoldError says which option is wrong."""
    try:
        out = {
            "image_id": str(opt["image_id"]),
            "width": int(opt["width"]),
            "height": int(opt["height"]),
            "url": str(opt.get("url", "")),
        }
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise GoldError(f"{where}: option {letter}: missing or bad field {e}") from e
    if opt.get("letter", letter) != letter:
        raise GoldError(f"{where}: option {letter} is labelled {opt['letter']!r}: options go in letter order A-D")
    if not _side_ok(out["width"], out["height"]):
        raise GoldError(f"{where}: option {letter}: width/height must be 1 to {MAX_IMAGE_SIDE:,} px")
    return out


def _options(value: object, rec: dict, where: str) -> list[dict]:
    """The four public option images A-D. The answer's option is the gold image: its size (and
    image id, where both are given) must be the record's, or lines would be checked in one frame
    and scored in another. The message names no size: a maintainer's log is no place for one."""
    if not isinstance(value, list) or len(value) != 4:
        raise GoldError(f"{where}: options must be a list of the 4 option images A-D")
    options = [_option(opt, letter, where) for letter, opt in zip(CHOICES, value, strict=True)]
    gold_image = options[CHOICES.index(rec["answer"])]
    if (gold_image["width"], gold_image["height"]) != (rec["width"], rec["height"]):
        raise GoldError(f"{where}: the answer's option differs in width/height from the record (the gold image)")
    if rec["image_id"] and gold_image["image_id"] != rec["image_id"]:
        raise GoldError(f"{where}: the answer's option has another image_id than the record (the gold image)")
    return options


def _from_coco(doc: dict, path: Path) -> list[dict]:
    """Gold records from a COCO annotation file: image records carry the question fields,
    annotations of one image are merged into one mask."""
    segs: dict = {}
    for ann in doc.get("annotations", []):
        seg = ann.get("segmentation")
        if isinstance(seg, dict):
            segs.setdefault(ann["image_id"], []).append(seg)
        else:
            segs.setdefault(ann["image_id"], []).extend(seg or [])
    out = []
    for img in doc["images"]:
        parts = segs.get(img["id"])
        if not parts:
            raise GoldError(f"{path}: image {img['id']} has no annotation with a segmentation")
        rles = [p for p in parts if isinstance(p, dict)]
        if rles and len(parts) > 1:
            raise GoldError(f"{path}: image {img['id']} mixes RLE with other parts")
        rec = {k: img.get(k) for k in ("question_id", "type", "country", "category", "concept", "answer")}
        rec |= {"image_id": str(img.get("file_name", img["id"])), "width": img["width"], "height": img["height"]}
        rec["segmentation"] = rles[0] if rles else parts
        out.append(rec)
    return out


def _rle(rec: dict, where: str) -> dict:
    """The gold region as one COCO RLE (compressed counts), polygon parts merged."""
    h, w, seg = rec["height"], rec["width"], rec["segmentation"]
    try:
        if isinstance(seg, dict):
            if [int(v) for v in seg.get("size", [])] != [h, w]:
                raise GoldError(f"{where}: RLE size {seg.get('size')} differs from [height, width] = {[h, w]}")
            Runs.from_rle(seg)  # checks the counts
            counts = seg["counts"]
            if isinstance(counts, list):
                return coco_mask.frPyObjects(seg, h, w)
            return {"size": [h, w], "counts": counts.encode() if isinstance(counts, str) else counts}
        return coco_rle(scale_polygons(seg, w, h), h, w)
    except LineError as e:
        raise GoldError(f"{where}: segmentation: {e}") from e


PUBLIC_FIELDS = ("question_id", "type", "country", "category", "concept")
PROMPT_FIELDS = ("question", "grounding_prompt")
"""Text a model is given, published when the gold has it (it is not part of the gold version)."""


def _raw_rows(path: Path) -> list[dict]:
    if is_release(path):  # the authors' release shape: MCQ records, image list, COCO masks
        return release_rows(Path(path))
    rows = read_records(path)
    if len(rows) == 1 and isinstance(rows[0], dict) and "images" in rows[0] and "annotations" in rows[0]:
        rows = _from_coco(rows[0], Path(path))
    return rows


def _records(path: Path) -> list[dict]:
    return [_gold_record(r, f"{path}: record {i + 1}") for i, r in enumerate(_raw_rows(path))]


def _public(raw: dict, rec: dict) -> dict:
    """One question as a team receives it: the public fields, the prompts, the four option images
    (id, size, where it is) in letter order. Never the record's own image id or size, the answer
    or the mask."""
    out = {k: rec[k] for k in PUBLIC_FIELDS}
    out |= {k: str(raw[k]) for k in PROMPT_FIELDS if raw.get(k) is not None}
    if "options" in rec:
        out["options"] = [{"letter": letter, **opt} for letter, opt in zip(CHOICES, rec["options"], strict=True)]
    return out


def public_questions(path: Path) -> list[dict]:
    """Every question's public side (:func:`_public`), sorted by id."""
    rows = _raw_rows(path)
    records = (_gold_record(r, f"{path}: record {i + 1}") for i, r in enumerate(rows))
    return sorted((_public(raw, rec) for raw, rec in zip(rows, records, strict=True)), key=lambda q: q["question_id"])


def _public_record(rec: dict, where: str) -> dict:
    """A question of a public list, checked as strictly as gold (GoldError says where)."""
    try:
        out = {"question_id": str(rec["question_id"]), **{k: str(rec.get(k, "")) for k in ("country", "category")}}
    except (KeyError, TypeError) as e:
        raise GoldError(f"{where}: missing or bad field {e}") from e
    if rec.get("options") is not None:
        out["options"] = [_option(o, letter, where) for letter, o in zip(CHOICES, _four(rec["options"], where))]
    return out


def _four(value: object, where: str) -> list:
    if not isinstance(value, list) or len(value) != len(CHOICES):
        raise GoldError(f"{where}: options must be a list of the 4 option images A-D")
    return value


def load_public_gold(path: Path) -> Gold:
    """A public question list as a public gold: ids and option image sizes, no answers or masks."""
    records = [_public_record(r, f"{path}: question {i + 1}") for i, r in enumerate(read_records(path))]
    records.sort(key=lambda r: r["question_id"])
    keys = [r["question_id"] for r in records]
    if len(set(keys)) != len(keys):
        raise GoldError(f"{path}: a question_id is listed twice")
    return Gold(
        benchmark="scb",
        version="public-" + content_version(records),
        keys=keys,
        answers=np.full(len(keys), -1, dtype=np.int8),
        groups={},
        extra={"option_sizes": _option_sizes(records)},
        public=True,
    )


def load_gold(path: Path) -> Gold:
    """Load and compile SCB gold (JSONL, Parquet or COCO JSON)."""
    records = _records(path)
    seen: set[str] = set()
    for i, r in enumerate(records):
        if r["question_id"] in seen:
            raise GoldError(f"{path}: record {i + 1}: duplicate question_id {r['question_id']}")
        seen.add(r["question_id"])
    records.sort(key=lambda r: r["question_id"])
    masks = MaskTable.of(_checked_runs(path, records))
    return Gold(
        benchmark="scb",
        version=content_version(records),
        keys=[r["question_id"] for r in records],
        answers=np.array([CHOICES.index(r["answer"]) for r in records], dtype=np.int8),
        groups={
            "type": group_codes([str(r["type"]) for r in records], ["1", "2", "3"]),
            "country": group_codes([r["country"] for r in records], list(COUNTRIES)),
            "category": group_codes([r["category"] for r in records], list(CATEGORIES)),
        },
        extra={
            "height": np.array([r["height"] for r in records], dtype=np.int64),
            "width": np.array([r["width"] for r in records], dtype=np.int64),
            "masks": masks,
            "option_sizes": _option_sizes(records),
        },
    )


def _checked_runs(path: Path, records: list[dict]):
    """Each record's gold region as Runs, one at a time; GoldError for an empty one."""
    for r in records:
        mask = Runs.from_rle(_rle(r, f"{path}: question {r['question_id']}"))
        if mask.area == 0:
            raise GoldError(
                f"{path}: question {r['question_id']}: the mask is empty on its {r['width']}x{r['height']} image"
            )
        yield mask


def _option_sizes(records: list[dict]) -> np.ndarray:
    """(width, height) of each question's options A-D, the public frames lines are checked in;
    zeros for a question whose gold lists no options."""
    sizes = np.zeros((len(records), len(CHOICES), 2), dtype=np.int64)
    for row, r in enumerate(records):
        for k, opt in enumerate(r.get("options", ())):
            sizes[row, k] = opt["width"], opt["height"]
    return sizes


def box_sample(line: dict, gold: Gold, row: int, letter: str | None, grounding_format: str = "") -> BoxSample | None:
    """The line's box for the box-format sanity check (scoring/boxcheck.py), in a public frame: a
    ``bbox`` of 4 numbers in its box format, or the first box of a ``grounding_response`` in its
    family (:func:`_raw_sample`). Lines with ``bbox_ref_size`` are not sampled."""
    if isinstance(line.get(RAW_GROUNDING), str):
        return _raw_sample(line, gold, row, letter, grounding_format)
    values = line.get("bbox")
    if type(values) is not list or len(values) != 4 or letter is None or line.get("bbox_ref_size") is not None:
        return None
    own = _own_box_format(line)
    if own is None:
        return None
    a, b, c, d = values
    if not (_NUMBER[type(a)] and _NUMBER[type(b)] and _NUMBER[type(c)] and _NUMBER[type(d)]):
        return None
    frame = answered_frame(gold, row, letter)
    try:
        return (
            BoxSample((float(a), float(b), float(c), float(d)), frame, box_format=own, own=bool(own)) if frame else None
        )
    except OverflowError:  # an integer with hundreds of digits: read_line reports it
        return None


def _own_box_format(line: dict) -> str | None:
    """The line's own box format, "" when it has none; None when it is not one (read_line reports it)."""
    fmt = line.get("bbox_format")
    if fmt is None:
        return ""
    return fmt if isinstance(fmt, str) and fmt in BOX_FORMATS else None


def _raw_sample(line: dict, gold: Gold, row: int, letter: str | None, declared: str) -> BoxSample | None:
    """The first box of a grounding_response: ``qwen2_5_vl``'s as printed (its preset's check),
    ``plain``'s four numbers in the box format, a 0-1000 family's corners as ``xyxy_1000``."""
    name = line.get("grounding_format") or declared
    frame = answered_frame(gold, row, letter)
    if frame is None or line.get("bbox_ref_size") is not None or not isinstance(name, str) or not known_format(name):
        return None
    family = parse_format(name).family
    text = line[RAW_GROUNDING][:MAX_RESPONSE_CHARS]
    if family.name == "plain":
        own = _own_box_format(line)
        numbers = plain_numbers(text)
        if own is None or numbers is None or not all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in numbers):
            return None
        return BoxSample(numbers, frame, box_format=own, family="plain", own=bool(own))
    if family.grid_size != (1000.0, 1000.0) and family.name != "qwen2_5_vl":
        return None  # kosmos2's patch cells are always on their grid
    boxes = find_boxes(text, family)
    finite = [b for b in boxes if all(math.isfinite(v) and abs(v) <= MAX_COORDINATE for v in b)]
    if not finite:
        return None
    if family.name == "qwen2_5_vl":
        return BoxSample(finite[0], frame, name)
    own = line.get("grounding_format") is not None
    return BoxSample(finite[0], frame, box_format="xyxy_1000", family=family.name, own=own)


def parse_key(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 200 else None


_NUMBER = defaultdict(bool, {int: True, float: True})
"""Whether a value's exact type is a JSON number (bool is not), one dict lookup per value."""


def _numbers(value: object, n: int | None, field: str, what: str) -> list:
    """``value`` if it is a list of (``n``) numbers. JSON input cannot hold NaN or infinities
    (the reader refuses them), so only types are checked here."""
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise LineError(f"bad_{field}", f"{field} must be {what}, got {str(value)[:80]}", field)
    for v in value:
        if not _NUMBER[type(v)]:
            raise LineError(f"bad_{field}", f"{field} must be {what}, got {str(value)[:80]}", field)
    return value


def _option_frames(gold: Gold) -> list[dict[str, tuple[int, int] | None]]:
    """Per row, letter -> (width, height) of that option image, or None where the gold lists none."""
    sizes = gold.extra["option_sizes"].tolist()
    return [
        {letter: (w, h) if w else None for letter, (w, h) in zip(CHOICES, options, strict=True)} for options in sizes
    ]


def answered_frame(gold: Gold, row: int, letter: str | None) -> tuple[int, int] | None:
    """(width, height) of the option image a line answers, a public fact; None when the answer
    cannot be read or the gold lists no options for the question."""
    if letter is None:
        return None
    return gold.derived("option_frames", _option_frames)[row][letter]


def _read_mask(mask: object, frame: tuple[int, int] | None, has_options: bool) -> Runs:
    """Check a COCO RLE against the answered option's size. Without a frame: a line whose answer
    cannot be read is never scored, so its mask need only be well formed; a gold without options
    gives no public size to check a mask against, so masks are refused there."""
    if not isinstance(mask, dict) or not isinstance(mask.get("counts"), (str, list)):
        raise LineError("bad_mask", 'mask must be a COCO RLE {"size": [h, w], "counts": ...}')
    size = mask.get("size")
    if not isinstance(size, list) or len(size) != 2 or not all(type(v) is int for v in size):
        raise LineError("bad_mask", f"mask size must be [height, width] in whole pixels, got {str(size)[:40]}")
    if isinstance(mask["counts"], list) and not all(type(v) is int and 0 <= v < 2**40 for v in mask["counts"]):
        raise LineError("bad_mask", "mask counts must be non-negative whole numbers (run lengths)")
    if frame is not None and size != [frame[1], frame[0]]:
        raise LineError(
            "mask_size_mismatch",
            f"mask size {size} differs from the answered option image's [height, width] {[frame[1], frame[0]]}",
        )
    if not _side_ok(size[1], size[0]):
        raise LineError("bad_mask", f"mask size must be [height, width], each 1 to {MAX_IMAGE_SIDE:,}, got {size}")
    runs = Runs.from_rle(mask)
    if frame is None and not has_options:
        raise LineError(
            "mask_without_image_size",
            "this gold publishes no option image sizes, so a mask cannot be checked: send a polygon or a bbox",
        )
    return runs


def read_line(
    line: dict, gold: Gold, row: int, box_format: str, letter: str | None = None, grounding_format: str = ""
) -> Box | Polygons | Runs | UnparsedGrounding | None:
    """Check a line's grounding fields and return its grounding, still in its own units.

    Every check is made in the frame of the option image the line answers (``letter``), whose
    size is public, or in :data:`UNKNOWN_FRAME` when there is none: nothing here reads the gold
    image or its mask, so no error depends on them. The grounding meets the gold only in
    :func:`intersection_and_union`, for a correct answer, whose frame is the gold image's.
    A ``grounding_response`` is read in the line's or the submission's ``grounding_format``
    (scoring/grounding_formats.py); one that names no box gives :data:`UNPARSED_GROUNDING`.
    """
    present = [f for f in (*GROUNDING_FIELDS, RAW_GROUNDING) if line.get(f) is not None]
    if len(present) > 1:
        fields = ", ".join(GROUNDING_FIELDS) + (f", {RAW_GROUNDING}" if RAW_GROUNDING in present else "")
        raise LineError("multiple_grounding", f"at most one of {fields}; got {', '.join(present)}", present[1])
    fmt = line.get("bbox_format", box_format)
    if not isinstance(fmt, str) or fmt not in BOX_FORMATS:
        raise LineError(
            "unknown_bbox_format",
            f"unknown bbox_format {str(fmt)[:40]!r}; known: {', '.join(BOX_FORMATS)}",
            "bbox_format",
        )
    ref = line.get("bbox_ref_size")
    if ref is not None:
        ref = _numbers(ref, 2, "bbox_ref_size", "[width, height] of the frame the pixels refer to")
        if not all(1 <= v <= 100_000 for v in ref):
            raise LineError(
                "bad_bbox_ref_size", "bbox_ref_size must be [width, height] in pixels, 1 to 100,000", "bbox_ref_size"
            )
        if fmt not in ("xyxy", "xywh"):
            raise LineError("bad_bbox_ref_size", f"bbox_ref_size applies to pixel formats, not {fmt}", "bbox_ref_size")
    if not present:
        return None
    field = present[0]
    frame = answered_frame(gold, row, letter)
    if field == RAW_GROUNDING:
        return _read_grounding_response(line, grounding_format, fmt, ref, frame, letter)
    try:
        if field == "bbox":
            return read_box(_numbers(line["bbox"], 4, "bbox", "a list of 4 numbers"), fmt, ref, frame or UNKNOWN_FRAME)
        if field == "polygon":
            return read_polygons(line["polygon"], ref, frame or UNKNOWN_FRAME)
        return _read_mask(line["mask"], frame, bool(gold.extra["option_sizes"][row, 0, 0]))
    except LineError as e:
        raise LineError(e.code, str(e), e.field or field) from None


def _read_grounding_response(
    line: dict, declared: str, box_format: str, ref: list | None, frame: tuple[int, int] | None, letter: str | None
) -> Box | Polygons | UnparsedGrounding | None:
    """A line's raw grounding text, read in its declared family (the line's own
    ``grounding_format`` first). A line whose answer cannot be read is never scored: its text is
    only parsed, so that an unparsed grounding is counted whatever the answer."""
    text = line[RAW_GROUNDING]
    if not isinstance(text, str) or len(text) > MAX_RESPONSE_CHARS:
        raise LineError(
            "bad_grounding_response",
            f"grounding_response must be a string of at most {MAX_RESPONSE_CHARS:,} characters",
            RAW_GROUNDING,
        )
    name = line.get("grounding_format") or declared
    if not name:
        raise LineError(
            "missing_grounding_format",
            "grounding_response needs a grounding_format: declare it for the submission (form, API or "
            f"--grounding-format) or on the line; known: {describe_formats()}",
            "grounding_format",
        )
    chosen = parse_format(name)
    if ref is not None and chosen.family.name != "plain":
        raise LineError(
            "bad_bbox_ref_size",
            f"bbox_ref_size applies to bbox and to grounding_format plain, not {chosen.family.name} "
            "(its grid is part of the format)",
            "bbox_ref_size",
        )
    if letter is None:
        return None if find_boxes(text, chosen.family, box_format) else UNPARSED_GROUNDING
    region = read_grounding_response(text, chosen, frame, bbox_format=box_format, ref_size=ref)
    return UNPARSED_GROUNDING if region is None else region


_NOT_BATCHED = frozenset(("polygon", "mask", "bbox_format", "bbox_ref_size", RAW_GROUNDING, "grounding_format"))
"""Fields whose lines :func:`read_lines` leaves to the per-line reader (even when null)."""


def read_lines(
    lines: list[dict], gold: Gold, rows: list[int], letters: list[str], box_format: str
) -> tuple[BoxSet, tuple[BoxSample, ...]] | None:
    """:func:`read_line` and :func:`box_sample` of every line of a file at once (the engine's fast
    path, scoring/batch.py): lines with a box in the file's format, or with none. None when a line
    has any other grounding field, a per-line format or reference size, or a box that
    :func:`read_box` would refuse; the per-line reader then reads the file."""
    if not _NOT_BATCHED.isdisjoint(set().union(*lines)):
        return None
    boxes = [line.get("bbox") for line in lines]
    boxed = [k for k, value in enumerate(boxes) if value is not None]
    values = [boxes[k] for k in boxed]
    if values and (
        set(map(type, values)) != {list}
        or set(map(len, values)) != {4}
        or not set(map(type, chain.from_iterable(values))) <= {int, float}
    ):
        return None
    try:
        written = np.array(values, dtype=np.float64).reshape(-1, 4)
    except OverflowError:  # an integer too large for a float
        return None
    read = read_boxes(written, box_format)
    if read is None:
        return None
    boxed_rows = [rows[k] for k in boxed]
    choice = {letter: k for k, letter in enumerate(CHOICES)}
    frames = gold.extra["option_sizes"][np.array(boxed_rows, dtype=np.int64), [choice[letters[k]] for k in boxed]]
    framed = frames[:, 0] > 0  # answered_frame: the option's (width, height), none where its width is 0
    samples = tuple(
        BoxSample(tuple(box), tuple(frame))
        for box, frame in zip(written[framed].tolist(), frames[framed].tolist(), strict=True)
    )
    return BoxSet(boxed_rows, *read), samples


def intersection_and_union(grounding: object, gold: Gold, row: int) -> tuple[int, int]:
    """Pixels shared with the gold mask and pixels in either, on the gold grid. Called for
    correct answers only: the grounding's frame is then the gold image, so it is converted to
    the gold image's pixels here."""
    masks: MaskTable = gold.extra["masks"]
    h, w, area = int(masks.heights[row]), int(masks.widths[row]), int(masks.areas[row])
    if grounding is None:
        return 0, area
    if isinstance(grounding, Box):
        c0, c1, r0, r1 = box_cells(*grounding.in_image(w, h), h, w)
        inter = masks.columns(row).intersect_box(c0, c1, r0, r1)
        return inter, max(0, c1 - c0 + 1) * max(0, r1 - r0) + area - inter
    if isinstance(grounding, Polygons):  # pycocotools on its own RLEs, no decoding
        pred = coco_rle(grounding.in_image(w, h), h, w)
        inter = int(coco_mask.area(coco_mask.merge([pred, masks.rle(row)], intersect=True)))
        return inter, int(coco_mask.area(pred)) + area - inter
    inter = masks[row].intersect(grounding)
    return inter, grounding.area + area - inter


def overlaps(groundings: dict[int, object], gold: Gold, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`intersection_and_union` of many rows: the boxes in one vectorised pass."""
    masks: MaskTable = gold.extra["masks"]
    inter = np.zeros(rows.size, dtype=np.int64)
    union = masks.areas[rows].copy()
    if isinstance(groundings, BoxSet):  # a plain file's boxes (read_lines): no loop over rows
        has, corners = groundings.in_images(rows, masks.widths[rows], masks.heights[rows], gold.size)
        if has.any():
            inter[has], union[has] = masks.box_overlaps(rows[has], corners)
        return inter, union
    boxed, corners = [], []
    widths, heights = masks.widths[rows].tolist(), masks.heights[rows].tolist()
    for k, row in enumerate(rows.tolist()):
        grounding = groundings.get(row)
        if grounding is None:
            continue
        if isinstance(grounding, Box):
            boxed.append(k)
            corners.append(grounding.in_image(widths[k], heights[k]))
        else:
            inter[k], union[k] = intersection_and_union(grounding, gold, row)
    if boxed:
        inter[boxed], union[boxed] = masks.box_overlaps(rows[boxed], np.array(corners, dtype=np.float64))
    return inter, union


HUB_INSPECT = HubInspect(
    field_spec={
        "input": "question",
        "target": "literal:",  # no target: the release withholds the answers (release.NEVER_PUBLIC)
        "metadata": ["country", "category", "concept", "type"],
    },
    solvers=(
        InspectStep("prompt_template", {"template": f"{{prompt}}\n{protocol.PICK_IMAGE_INSTRUCTION}"}),
        InspectStep("generate"),
    ),
    scorers=(InspectStep("match", {"location": "exact"}),),
    caveat=(
        "inspect-ai's Hub loader cannot run SCB: the release withholds the answers (no target column) and "
        "the masks, and its options are images (the loader reads choices as text and takes one image a "
        "sample), so the field_spec names only the question and its public facts. The Hub has no task "
        "for stage 2's mIoU (no Hub scorer computes IoU); the leaderboard shows it. These fields register "
        "the benchmark; run it with inspect eval scoring/scb and submit the .eval log to the leaderboard, "
        "which scores both stages."
    ),
)
"""``eval.yaml``'s inspect-ai fields, which hub-docs requires, naming only columns the public release
has. A registration, not a runnable task (``caveat``)."""


SCB = Benchmark(
    id="scb",
    name="Seeing Culture Benchmark (SCB)",
    description=(
        "3,178 questions on cultural artifacts of 7 Southeast-Asian countries. Stage 1: pick the "
        "image (A-D) that shows the asked artifact. Stage 2: ground the artifact in that image."
    ),
    paper="Seeing Culture: A Benchmark for Visual Reasoning and Grounding",
    key_field="question_id",
    prediction_fields={
        "question_id": 'the question\'s id, e.g. "scb-00385"',
        "answer": 'A-D (any case; "(b)", "B." are read as B)',
        "response": "optional raw model text, read only where answer is absent",
        "bbox": "4 numbers in the submission's box format",
        "polygon": "a list of polygons, each flat [x, y, ...] or [[x, y], ...], in pixels",
        "mask": 'COCO RLE {"size": [height, width], "counts": ...} of the answered option image\'s size',
        "bbox_format": "optional per-line override of the box format",
        "bbox_ref_size": "optional [w, h] of the frame pixel coordinates refer to (resized input)",
        "grounding_response": "optional raw stage-2 model text instead of bbox/polygon/mask, read by grounding_format",
        "grounding_format": "optional per-line override of the grounding_response family (SPEC 'Raw model outputs')",
    },
    groupings=(
        Grouping(
            "type",
            "Type",
            ("1", "2", "3"),
            {"1": "T1 within culture", "2": "T2 across culture", "3": "T3 mixed"},
            {"1": "T1", "2": "T2", "3": "T3"},
        ),
        Grouping("country", "Country", COUNTRIES),
        Grouping("category", "Category", CATEGORIES, {c: c.capitalize() for c in CATEGORIES}),
    ),
    choices=CHOICES,
    metrics=(
        replace(ACCURACY, description="share of questions whose image (A-D) was picked right"),
        Metric(
            "miou",
            "mIoU",
            "mean IoU over correctly answered questions (paper rule)",
            Stat.IOU,
            Stat.CORRECT,
            interval=True,
        ),
        Metric("gacc50", "GAcc@0.5", "share answered right AND grounded with IoU >= 0.5", Stat.HIT50, Stat.QUESTIONS),
        Metric("ciou", "cIoU", "sum of intersections / sum of unions over correct answers", Stat.INTER, Stat.UNION),
    ),
    primary_metric="acc",
    harness_name="SCB",
    headline={"acc": 1.0, "miou": 1.0},  # a two-stage benchmark: answers, then grounding (issue 19)
    hub=HubRegistration(
        "Multimedia-SMU/seeingculture-benchmark",  # the authors' release (CC BY-NC-SA 4.0, test only)
        (
            HubTask(
                "scb_accuracy",
                "acc",
                "Stage 1: accuracy of picking the culturally right image (A-D)",
                inspect=HUB_INSPECT,
            ),
        ),  # no scb_miou: an eval.yaml task is an Inspect run, and no Hub scorer computes IoU
    ),
    overview=(Panel("acc", by="type"), Panel("miou", by="type"), Panel("gacc50"), Panel("ciou")),
    view_metrics=("acc", "miou"),
    group_metrics=("gacc50",),  # "found the artifact" per country and category (issue 44)
    plots=(
        Scatter(x="miou", y="acc", title="Reasoning vs grounding: accuracy against mIoU (one point per model)"),
        Heatmap("country"),
        Heatmap("category"),
    ),
    load_gold=load_gold,
    parse_key=parse_key,
    read_line=read_line,
    public_questions=public_questions,
    load_public_gold=load_public_gold,
    box_sample=box_sample,
    read_lines=read_lines,
    reading_facts=("option_sizes",),  # the frames boxes, polygons and masks are checked in
    questions_note=(
        "One line per question: question_id, type, country, category, concept, the question text "
        "(question) and the grounding prompt (grounding_prompt) where the release has them, and the "
        "four option images A-D in letter order (options, each with its letter, image id, width, height and url). "
        "Images come from the benchmark's release: url is the image's path in it. Boxes, polygons "
        "and masks are given in pixels of the option image the line answers (its width and height "
        "here), after the box format's conversion. No answers and no masks."
    ),
    overlap=intersection_and_union,
    overlaps=overlaps,
    example_lines=(
        '{"question_id": "scb-00385", "answer": "C", "bbox": [412.0, 220.5, 980.0, 871.0]}',
        '{"question_id": "scb-01196", "answer": "(a)", "bbox": [105, 220, 640, 870], "bbox_format": "xyxy_1000"}',
        '{"question_id": "scb-02674", "response": "The answer is (B).", "polygon": [[10, 10, 200, 15, 120, 180]]}',
    ),
    example_fields={"bbox": [250, 250, 750, 750], "bbox_format": "xyxy_1000"},
    family=TwoStage(),
    site_export=site_export.site_export,
    gold_folder=release_jsonl,
    demo=demo.DEMO,
    **folder_files(__package__),
)
