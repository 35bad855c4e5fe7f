"""Helpers shared by the scoring tests: paths of the shared data, writing submissions,
hand-made gold records."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from pathlib import Path

import numpy as np

import scoring
from tests.support import demo

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = Path(os.environ.get("SHARED_DATA_DIR") or REPO_ROOT / "../shared/data").resolve()  # beside the repo
REAL_KVISCUIT = SHARED_DATA / "k-viscuit" / "annotations.jsonl"
SYNTHETIC_SCB = SHARED_DATA / "scb-synthetic" / "gold.jsonl"
PAPER_BASELINES = {b: REPO_ROOT / "scoring" / "benchmarks" / b / "baselines.json" for b in ("scb", "kviscuit")}
"""Each shipped folder's paper rows, read as the files they are (the tests check them against the papers)."""


def write_lines(path: Path, lines: Iterable[object]) -> Path:
    """Write a submission: dicts become compact JSON, str/bytes are written as they are."""
    out = bytearray()
    for line in lines:
        if isinstance(line, bytes):
            out += line
        elif isinstance(line, str):
            out += line.encode("utf-8")
        else:
            out += json.dumps(line, separators=(",", ":")).encode("utf-8")
        out += b"\n"
    path.write_bytes(bytes(out))
    return path


def rect_polygon(x0: float, y0: float, x1: float, y1: float) -> list[float]:
    """An axis-aligned rectangle as a flat COCO polygon."""
    return [x0, y0, x1, y0, x1, y1, x0, y1]


def scb_record(qid: str, answer: str, width: int, height: int, segmentation, **extra) -> dict:
    """One SCB gold record with neutral defaults for the grouping fields."""
    rec = {
        "question_id": qid,
        "type": 1,
        "country": "Vietnam",
        "category": "game",
        "concept": "test concept",
        "answer": answer,
        "image_id": f"img-{qid}",
        "width": width,
        "height": height,
        "segmentation": segmentation,
    }
    return rec | extra


OTHER_OPTION_SIZES = ((2048, 1536), (1536, 2048), (1024, 768), (640, 640))
"""Sizes given to the options that are not the gold image, where they differ from it."""


def option(image_id: str, width: int, height: int) -> dict:
    """One public option image of an SCB question."""
    return {"image_id": image_id, "width": width, "height": height, "url": f"images/{image_id}.jpg"}


def with_options(records: list[dict], seed: int = 0, same_size: float = 0.5) -> list[dict]:
    """The records with their public question, prompt and four options (SPEC "SCB gold"): the
    answer's option is the gold image; another option has the gold's size with probability
    ``same_size``, else one of :data:`OTHER_OPTION_SIZES` (then the sizes name the answer)."""
    rng = random.Random(seed)
    out = []
    for r in records:
        options = []
        for letter in "ABCD":
            if letter == r["answer"]:
                options.append(option(r["image_id"], r["width"], r["height"]))
            else:
                w, h = (r["width"], r["height"]) if rng.random() < same_size else rng.choice(OTHER_OPTION_SIZES)
                options.append(option(f"{r['question_id']}-{letter}", w, h))
        public = {
            "question": f"Which image shows {r['concept']}?",
            "grounding_prompt": "Locate the artifact in the image.",
        }
        out.append(r | public | {"options": options})
    return out


def compile_gold(benchmark: str, path: Path, records: list[dict]) -> scoring.Gold:
    demo.write_jsonl(path, records)
    return scoring.load_gold(benchmark, path)


def line_iou(gold: scoring.Gold, row: int, line: dict, bbox_format: str = "xyxy") -> float:
    """IoU of one prediction line with gold row ``row`` through the SCB declaration's hooks
    (the same read_line/overlap the engine calls)."""
    bench = scoring.get_benchmark("scb")
    letter = "ABCD"[int(gold.answers[row])]  # read as a correct answer: in the gold image's frame
    inter, union = bench.overlap(bench.read_line(line, gold, row, bbox_format, letter), gold, row)
    return inter / union


def gold_box(record: dict) -> list[float]:
    """The tight [x1, y1, x2, y2] box of a gold record's region (polygons or RLE), in its pixels:
    what a good model would answer."""
    from pycocotools import mask as coco_mask

    seg, w, h = record["segmentation"], record["width"], record["height"]
    if isinstance(seg, dict):
        counts = seg["counts"].encode() if isinstance(seg["counts"], str) else seg["counts"]
        rle = (
            coco_mask.frPyObjects({"size": seg["size"], "counts": counts}, h, w)
            if isinstance(counts, list)
            else {"size": seg["size"], "counts": counts}
        )
        x, y, bw, bh = coco_mask.toBbox(rle).tolist()
        return [x, y, x + bw, y + bh]
    xs = [v for part in seg for v in part[0::2]]
    ys = [v for part in seg for v in part[1::2]]
    return [max(0.0, min(xs)), max(0.0, min(ys)), min(float(w), max(xs)), min(float(h), max(ys))]


def runs_to_dense(runs) -> np.ndarray:
    """A Runs as a dense (height, width) 0/1 array (column-major linear indices)."""
    flat = np.zeros(runs.height * runs.width, dtype=np.uint8)
    for start, length in zip(runs.starts.tolist(), runs.lengths.tolist(), strict=True):
        flat[start : start + length] = 1
    return flat.reshape(runs.width, runs.height).T
