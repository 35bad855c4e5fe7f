"""SCB demo: a synthetic gold in the SPEC schema (answers, image sizes, polygon or RLE masks),
its public side, and submissions of a chosen accuracy and grounding quality.

- :func:`scb_gold` / :func:`scb_questions`: the gold and its public side;
- :func:`scb_submission`: a submission; :data:`TEAMS` lists ready-made ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
from pycocotools import mask as mask_utils

from scoring.benchmarks.base import DemoData, DemoTeam, Record
from scoring.benchmarks.demo import answer_letters, finish_lines

COUNTRIES: tuple[str, ...] = (
    "Cambodia",
    "Indonesia",
    "Malaysia",
    "Myanmar",
    "Philippines",
    "Thailand",
    "Vietnam",
)
SCB_CATEGORIES: tuple[str, ...] = ("celebration", "dance", "game", "music", "wedding")
SCB_TYPE_SIZES: tuple[int, int, int] = (840, 834, 1504)
LETTERS: str = "ABCD"
BOX_FORMATS: tuple[str, ...] = ("xyxy", "xywh", "xyxy_norm", "xyxy_1000", "yxyx_1000")
GROUNDINGS: tuple[str, ...] = ("none", "bbox_good", "bbox_poor", "polygon")

RLE_SHARE: float = 0.05  # share of SCB gold masks stored as COCO RLE
_MIN_SIDE, _MAX_SIDE = 480, 2400
_ASPECTS: tuple[float, ...] = (4 / 3, 3 / 2, 16 / 9, 1.0, 3 / 4, 2 / 3)
_AREA_RANGE: tuple[float, float] = (
    0.02,
    0.40,
)  # share of the image covered by the mask
_PARTS_P: tuple[float, float, float] = (0.70, 0.20, 0.10)  # 1, 2 or 3 polygon parts
_VERTICES: tuple[int, int] = (8, 40)

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels


# --------------------------------------------------------------------------- gold


def _image_size(rng: np.random.Generator) -> tuple[int, int]:
    """A realistic (width, height): common aspect ratios, both sides in 480..2400."""
    aspect = _ASPECTS[int(rng.integers(len(_ASPECTS)))]
    long_side = int(rng.integers(_MIN_SIDE, _MAX_SIDE + 1))
    if aspect >= 1:
        width, height = long_side, round(long_side / aspect)
    else:
        width, height = round(long_side * aspect), long_side
    return max(width, _MIN_SIDE // 2), max(height, _MIN_SIDE // 2)


def _unit_blob(rng: np.random.Generator) -> np.ndarray:
    """An irregular star-shaped polygon around (0, 0): (n, 2) vertices, counter-clockwise.

    Angles strictly increase over one turn and every radius is positive, so the polygon is
    simple; a random stretch and rotation (affine maps keep it simple) make it irregular.
    """
    n = int(rng.integers(_VERTICES[0], _VERTICES[1] + 1))
    step = 2 * math.pi / n
    theta = np.arange(n) * step + rng.uniform(-0.3, 0.3, n) * step + rng.uniform(0, 2 * math.pi)
    radius = np.ones(n)
    for k in (1, 2, 3):
        radius += rng.uniform(0, 0.25 / k) * np.cos(k * theta + rng.uniform(0, 2 * math.pi))
    radius += rng.uniform(-0.08, 0.08, n)
    radius = np.clip(radius, 0.35, 1.8)
    pts = np.column_stack((radius * np.cos(theta), radius * np.sin(theta)))
    pts[:, 1] *= rng.uniform(0.6, 1.6)
    angle = rng.uniform(0, math.pi)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return pts @ rot.T


def _shoelace(pts: np.ndarray) -> float:
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _place(pts: np.ndarray, area: float, centre: tuple[float, float], width: int, height: int) -> np.ndarray:
    """Scale a unit blob to ``area`` (less if it would not fit) and move it near ``centre``,
    entirely inside the image."""
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    ext = hi - lo
    scale = math.sqrt(area / _shoelace(pts))
    scale = min(scale, 0.95 * width / ext[0], 0.95 * height / ext[1])
    pts = pts * scale
    lo, hi = lo * scale, hi * scale
    cx = min(max(centre[0], -lo[0] + 1), width - hi[0] - 1)
    cy = min(max(centre[1], -lo[1] + 1), height - hi[1] - 1)
    return pts + np.array([cx, cy])


def _flat(pts: np.ndarray, width: int, height: int) -> list[float]:
    """Vertices as a COCO flat list, rounded to 0.1 px and kept inside the image."""
    pts = np.round(pts, 1)
    pts[:, 0] = np.clip(pts[:, 0], 0, width)
    pts[:, 1] = np.clip(pts[:, 1], 0, height)
    return pts.reshape(-1).tolist()


def _polygons(rng: np.random.Generator, width: int, height: int) -> list[list[float]]:
    """1-3 blobs of 8-40 vertices covering about 2-40% of the image, parts close together."""
    n_parts = int(rng.choice(3, p=_PARTS_P)) + 1
    total = math.exp(rng.uniform(*np.log(_AREA_RANGE))) * width * height
    shares = np.array([1.0]) if n_parts == 1 else rng.dirichlet([4.0] + [1.5] * (n_parts - 1))
    shares = np.maximum(shares, 0.15)
    shares /= shares.sum()
    centre = (rng.uniform(0, width), rng.uniform(0, height))
    parts = [_place(_unit_blob(rng), total * shares[0], centre, width, height)]
    reach = 1.3 * math.sqrt(total * shares[0] / math.pi)
    for share in shares[1:]:
        angle = rng.uniform(0, 2 * math.pi)
        near = (
            centre[0] + reach * math.cos(angle),
            centre[1] + reach * math.sin(angle),
        )
        parts.append(_place(_unit_blob(rng), total * share, near, width, height))
    return [_flat(p, width, height) for p in parts]


def polygons_to_rle(polygons: list[list[float]], width: int, height: int) -> Record:
    """COCO RLE of the union of polygon parts, ``counts`` as str (JSON-ready)."""
    rle = mask_utils.merge(mask_utils.frPyObjects(polygons, height, width))
    return {
        "size": [int(v) for v in rle["size"]],
        "counts": rle["counts"].decode("ascii"),
    }


def scb_gold(seed: int = 0, sizes: tuple[int, int, int] = SCB_TYPE_SIZES, options: bool = False) -> list[Record]:
    """A synthetic SCB gold in the SPEC schema, in a deterministic shuffled order; ``options``: with
    the public question, prompt and four option images (:func:`with_options`), as the embedded
    default serves it (tests that edit answers take the gold without them)."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    types = rng.permutation(np.repeat([1, 2, 3], sizes))
    countries = rng.permutation(np.resize(np.arange(len(COUNTRIES)), n))
    categories = rng.permutation(np.resize(np.arange(len(SCB_CATEGORIES)), n))
    concepts = rng.integers(1, 13, n)
    answers = rng.integers(0, 4, n)
    images = rng.permutation(n)
    as_rle = np.zeros(n, dtype=bool)
    as_rle[rng.choice(n, round(RLE_SHARE * n), replace=False)] = True
    records = []
    for i in range(n):
        country, category = COUNTRIES[countries[i]], SCB_CATEGORIES[categories[i]]
        width, height = _image_size(rng)
        polygons = _polygons(rng, width, height)
        records.append(
            {
                "question_id": f"scb-{i:05d}",
                "type": int(types[i]),
                "country": country,
                "category": category,
                "concept": f"{country.lower()} {category} concept {int(concepts[i])}",
                "answer": LETTERS[answers[i]],
                "image_id": f"img-{int(images[i]):05d}",
                "width": width,
                "height": height,
                "segmentation": polygons_to_rle(polygons, width, height) if as_rle[i] else polygons,
            }
        )
    shuffled = [records[i] for i in rng.permutation(n)]
    return with_options(shuffled, np.random.default_rng([seed, 1])) if options else shuffled


GROUNDING_PROMPT = "Locate the artifact in the image."
"""SCB's stage-2 prompt (the paper)."""


def _decoy_pool(record: Record, records: Sequence[Record], same_category: Sequence[int]) -> list[int]:
    """Where a question's decoys come from, as in the benchmark: type 1 the same country and
    category (other concepts), type 2 other countries' same category, type 3 either.
    ``same_category``: the positions of the records of the record's category, in order."""
    others = [j for j in same_category if records[j]["concept"] != record["concept"]]
    if record["type"] == 1:
        pool = [j for j in others if records[j]["country"] == record["country"]]
    elif record["type"] == 2:
        pool = [j for j in others if records[j]["country"] != record["country"]]
    else:
        pool = others
    if len(pool) >= 3:
        return pool
    if len(others) >= 3:
        return others
    return [j for j, r in enumerate(records) if r["image_id"] != record["image_id"]]  # a tiny gold: any other image


def with_options(records: list[Record], rng: np.random.Generator) -> list[Record]:
    """The records with their public question, grounding prompt and four option images: the
    answer's option is the record's gold image, the decoys are other questions' gold images with
    their real sizes (so no id pattern or size names the answer). Drawn from their own generator:
    answers and masks are those of the records as given."""
    pools: dict[tuple, list[int]] = {}
    by_category: dict[str, list[int]] = {}  # looked up, not searched: the demo's 3,178 questions drew in O(n^2)
    for j, record in enumerate(records):
        by_category.setdefault(record["category"], []).append(j)
    out = []
    for record in records:
        key = (record["type"], record["country"], record["category"], record["concept"])
        if key not in pools:
            pools[key] = _decoy_pool(record, records, by_category[record["category"]])
        pool = pools[key]
        decoys = iter(records[j] for j in rng.choice(pool, 3, replace=False))
        options = []
        for letter in LETTERS:
            image = record if letter == record["answer"] else next(decoys)
            options.append(
                {
                    "image_id": image["image_id"],
                    "width": image["width"],
                    "height": image["height"],
                    "url": f"images/{image['image_id']}.png",
                }
            )
        question = f"Which of these images shows {record['concept']} ({record['country']} {record['category']})?"
        out.append(record | {"question": question, "grounding_prompt": GROUNDING_PROMPT, "options": options})
    return out


def scb_questions(gold: Iterable[Record]) -> list[Record]:
    """The public side of an SCB gold: no answer, no geometry, no gold image id or size; the
    question, the prompt and the four option images as a team receives them."""
    keys = ("question_id", "type", "country", "category", "concept", "question", "grounding_prompt", "options")
    return [{k: r[k] for k in keys if k in r} for r in gold]


# --------------------------------------------------------------------------- submissions


def gold_bbox(record: Record) -> Box:
    """Bounding box (x1, y1, x2, y2) of a gold SCB mask, in pixels."""
    seg = record["segmentation"]
    if isinstance(seg, dict):
        x, y, w, h = (float(v) for v in mask_utils.toBbox(seg))
        return x, y, x + w, y + h
    xs = [v for part in seg for v in part[0::2]]
    ys = [v for part in seg for v in part[1::2]]
    return min(xs), min(ys), max(xs), max(ys)


def _clip_box(box: Box, width: int, height: int) -> Box:
    """Clip to the image and keep at least 2 px per side (moving inwards if needed)."""
    x1, y1, x2, y2 = box
    x1, x2 = sorted((min(max(x1, 0.0), width), min(max(x2, 0.0), width)))
    y1, y2 = sorted((min(max(y1, 0.0), height), min(max(y2, 0.0), height)))
    if x2 - x1 < 2:
        x1 = min(x1, width - 2.0)
        x2 = x1 + 2.0
    if y2 - y1 < 2:
        y1 = min(y1, height - 2.0)
        y2 = y1 + 2.0
    return x1, y1, x2, y2


def _good_box(rng: np.random.Generator, box: Box) -> Box:
    """The gold box with each edge moved by a little noise (3% of the side)."""
    x1, y1, x2, y2 = box
    jx, jy = rng.normal(0, 0.03 * (x2 - x1), 2), rng.normal(0, 0.03 * (y2 - y1), 2)
    return x1 + jx[0], y1 + jy[0], x2 + jx[1], y2 + jy[1]


def _poor_box(rng: np.random.Generator, box: Box, width: int, height: int) -> Box:
    """A box with low IoU against the gold: shrunk into a corner, shifted off, or inflated."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    mode = int(rng.integers(3))
    if mode == 1:  # shifted by most of its size
        dx = rng.choice([-1, 1]) * rng.uniform(0.75, 1.1) * w
        dy = rng.choice([-1, 1]) * rng.uniform(0.0, 0.5) * h
        shifted = _clip_box((x1 + dx, y1 + dy, x2 + dx, y2 + dy), width, height)
        if (shifted[2] - shifted[0]) >= 0.3 * w:
            return shifted
    if mode == 2:  # inflated 2.5x around its centre
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        return cx - 1.25 * w, cy - 1.25 * h, cx + 1.25 * w, cy + 1.25 * h
    fx, fy = rng.uniform(0, 0.7, 2)  # a box of 30% of each side, somewhere inside
    return x1 + fx * w, y1 + fy * h, x1 + (fx + 0.3) * w, y1 + (fy + 0.3) * h


def format_box(box: Box, width: int, height: int, box_format: str) -> list[float] | list[int]:
    """Write a pixel box (x1, y1, x2, y2) in one of :data:`BOX_FORMATS`.

    The box is clipped to the image, then rounded outwards (floor for the low edge, ceil for
    the high one) so that it stays valid and in range.
    """
    x1, y1, x2, y2 = _clip_box(box, width, height)
    if box_format in ("xyxy", "xywh"):
        a, b = math.floor(x1 * 10) / 10, math.floor(y1 * 10) / 10
        c, d = math.ceil(x2 * 10) / 10, math.ceil(y2 * 10) / 10
        return [a, b, c, d] if box_format == "xyxy" else [a, b, round(c - a, 1), round(d - b, 1)]
    if box_format == "xyxy_norm":
        k = 10_000
        return [
            math.floor(x1 / width * k) / k,
            math.floor(y1 / height * k) / k,
            min(math.ceil(x2 / width * k) / k, 1.0),
            min(math.ceil(y2 / height * k) / k, 1.0),
        ]
    if box_format in ("xyxy_1000", "yxyx_1000"):
        xa, xb = math.floor(x1 / width * 1000), min(math.ceil(x2 / width * 1000), 1000)
        ya, yb = (
            math.floor(y1 / height * 1000),
            min(math.ceil(y2 / height * 1000), 1000),
        )
        return [xa, ya, xb, yb] if box_format == "xyxy_1000" else [ya, xa, yb, xb]
    raise ValueError(f"unknown box format {box_format!r}; expected one of {BOX_FORMATS}")


def _jitter_polygons(
    rng: np.random.Generator, polygons: list[list[float]], width: int, height: int
) -> list[list[float]]:
    """The gold polygon parts with each vertex moved by ~1.5% of its part's size."""
    out = []
    for part in polygons:
        pts = np.asarray(part, dtype=float).reshape(-1, 2)
        size = float(np.sqrt(np.prod(pts.max(axis=0) - pts.min(axis=0))))
        out.append(_flat(pts + rng.normal(0, 0.015 * size, pts.shape), width, height))
    return out


def _grounding(rng: np.random.Generator, record: Record, grounding: str, box_format: str) -> Record:
    width, height = record["width"], record["height"]
    seg = record["segmentation"]
    if grounding == "none":
        return {}
    if grounding == "polygon" and not isinstance(seg, dict):
        return {"polygon": _jitter_polygons(rng, seg, width, height)}
    box = gold_bbox(record)
    if grounding in ("bbox_good", "polygon"):
        box = _good_box(rng, box)
    elif grounding == "bbox_poor":
        box = _poor_box(rng, box, width, height)
    else:
        raise ValueError(f"unknown grounding {grounding!r}; expected one of {GROUNDINGS}")
    return {"bbox": format_box(box, width, height, box_format)}


def _in_answered_frame(record: Record, letter: str) -> Record:
    """The record as a model answering ``letter`` grounds it: on a wrong answer, the gold region
    scaled onto the chosen image (its box is checked against that image's public size)."""
    options = record.get("options")
    if not options or letter == record["answer"]:
        return record
    chosen = options[LETTERS.index(letter)]
    sx, sy = chosen["width"] / record["width"], chosen["height"] / record["height"]
    w, h = chosen["width"], chosen["height"]
    seg = record["segmentation"]
    if isinstance(seg, dict):  # an RLE gold stays an RLE (its lines get boxes, not polygons)
        x1, y1, x2, y2 = gold_bbox(record)
        box = [[x1 * sx, y1 * sy, x2 * sx, y1 * sy, x2 * sx, y2 * sy, x1 * sx, y2 * sy]]
        return record | {"width": w, "height": h, "segmentation": polygons_to_rle(box, w, h)}
    scaled = [[v * (sx if k % 2 == 0 else sy) for k, v in enumerate(part)] for part in seg]
    return record | {"width": w, "height": h, "segmentation": scaled}


def scb_submission(
    gold: Sequence[Record],
    accuracy: float,
    grounding: str,
    seed: int,
    box_format: str = "xyxy",
    *,
    missing: int = 0,
    as_response: float = 0.0,
) -> list[Record]:
    """An SCB submission: ``round(accuracy * N)`` correct answers, grounding of a given kind.

    ``grounding``: ``none`` | ``bbox_good`` | ``bbox_poor`` | ``polygon`` (RLE-gold questions get
    a good box instead). Boxes are written in ``box_format``. ``missing`` lines are dropped and
    a share ``as_response`` of lines carry ``response`` text instead of ``answer``.
    """
    if box_format not in BOX_FORMATS:
        raise ValueError(f"unknown box format {box_format!r}; expected one of {BOX_FORMATS}")
    rng = np.random.default_rng(seed)
    letters = answer_letters(rng, [r["answer"] for r in gold], accuracy, LETTERS)
    lines = [
        {
            "question_id": r["question_id"],
            "answer": letter,
            **_grounding(rng, _in_answered_frame(r, letter), grounding, box_format),
        }
        for r, letter in zip(gold, letters)
    ]
    return finish_lines(rng, lines, missing, as_response)


def _team_submission(team: DemoTeam, gold: Sequence[Record]) -> list[Record]:
    return scb_submission(
        gold,
        team.accuracy,
        team.grounding,
        team.seed,
        team.box_format,
        missing=team.missing,
        as_response=team.as_response,
    )


TEAMS: tuple[DemoTeam, ...] = (
    DemoTeam("scb", "Demo-GPT-o3 (synthetic)", "gpt-o3", 0.85, 101, "API"),
    DemoTeam(
        "scb",
        "Demo-Gemini-2.5-Pro (synthetic)",
        "gemini-2.5-pro",
        0.81,
        102,
        "API",
        grounding="bbox_good",
        box_format="yxyx_1000",
    ),
    DemoTeam(
        "scb",
        "Demo-Qwen2.5-VL-7B (synthetic)",
        "qwen2.5-vl-7b",
        0.54,
        103,
        "open",
        grounding="bbox_good",
        box_format="xyxy",
        as_response=0.1,
    ),
    DemoTeam(
        "scb",
        "Demo-InternVL3-8B (synthetic)",
        "internvl3-8b",
        0.58,
        104,
        "open",
        grounding="bbox_poor",
        box_format="xyxy_1000",
    ),
    DemoTeam(
        "scb",
        "Demo-InHouse-Segmenter (synthetic)",
        "inhouse-segmenter",
        0.63,
        105,
        "closed",
        grounding="polygon",
        box_format="xywh",
        missing=25,
    ),
    DemoTeam(
        "scb",
        "Demo-LLaVA-1.6-13B (synthetic)",
        "llava-1.6-13b",
        0.41,
        106,
        "open",
        grounding="bbox_poor",
        box_format="xyxy_norm",
        missing=40,
    ),
)


def demo_gold(seed: int = 0) -> list[Record]:
    """The embedded default's SCB gold: with its public side, so a model can be run on it."""
    return scb_gold(seed, options=True)


DEMO = DemoData(gold=demo_gold, submission=_team_submission, teams=TEAMS, questions=scb_questions)
