"""SCB gold from the shape its authors release: a folder with the MCQ generator's records, an
image list and COCO masks, turned into the SPEC's gold records (the same version as their JSONL twin).

- MCQ records (JSONL; ``buraksatar/seeingculture`` ``src/mcq_generator.py``): ``choice_a`` ...
  ``choice_d`` are image paths, ``correct_answer`` is the path of the right one (not a letter),
  ``type``, ``country``, ``category``, ``concept``, ``question``; ``scores`` (``-1.0`` at the
  correct option) and ``rationale`` are dropped here: both name the answer, and nothing of them
  may reach a public file. A record's ``question_id`` (or ``Unique Index``) is kept when present,
  else it is ``scb-`` and its 0-based row, zero-padded to 5 digits.
- The image list (CSV or JSONL): ``path`` (or ``Image Path``), ``width``, ``height`` and optionally
  ``image_id`` (default: the file name without its extension).
- The masks (COCO JSON): ``images`` (``file_name`` = an image path) and ``annotations`` with
  ``segmentation``; the parts of one image are merged, as for a COCO gold.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path, PurePosixPath

from scoring.errors import GoldError

LETTERS = "ABCD"
CHOICE_FIELDS = ("choice_a", "choice_b", "choice_c", "choice_d")


def _jsonl(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise GoldError(f"{path}: line {n}: not valid JSON: {e.msg}") from e
    return rows


def _table(path: Path) -> list[dict]:
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as f:
            return list(csv.DictReader(f))
    return _jsonl(path)


def _parts(folder: Path) -> tuple[Path, Path, Path]:
    """The MCQ file, the image list and the COCO masks of a release folder (told apart by their fields)."""
    mcq = images = masks = None
    for path in sorted(folder.iterdir()):
        suffix = path.suffix.lower()
        if suffix == ".json":
            masks = path
        elif suffix in (".jsonl", ".csv"):
            first = next(iter(_table(path)), {})
            if "choice_a" in first:
                mcq = path
            elif {"width", "height"} <= set(first):
                images = path
    missing = [name for name, p in (("MCQ records", mcq), ("image list", images), ("COCO masks", masks)) if p is None]
    if missing:
        raise GoldError(f"{folder}: a release folder needs {', '.join(missing)} (see scoring.benchmarks.scb.release)")
    return mcq, images, masks


def is_release(path: Path) -> bool:
    return Path(path).is_dir()


def _image_key(path: str) -> str:
    return str(PurePosixPath(path.replace("\\", "/")))


def _sizes(path: Path) -> dict[str, dict]:
    out = {}
    for i, row in enumerate(_table(path)):
        ref = row.get("path") or row.get("Image Path")
        if not ref:
            raise GoldError(f"{path}: row {i + 1} has no path")
        try:
            size = {"width": int(row["width"]), "height": int(row["height"])}
        except (KeyError, TypeError, ValueError) as e:
            raise GoldError(f"{path}: row {i + 1}: bad width/height") from e
        image_id = row.get("image_id") or PurePosixPath(_image_key(ref)).stem
        out[_image_key(ref)] = {"image_id": str(image_id), **size}
    return out


def _masks(path: Path) -> dict[str, list | dict]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    by_id = {img["id"]: _image_key(str(img["file_name"])) for img in doc.get("images", [])}
    segs: dict[str, list] = {}
    for ann in doc.get("annotations", []):
        seg = ann.get("segmentation")
        key = by_id.get(ann.get("image_id"))
        if key is None or not seg:
            continue
        segs.setdefault(key, []).extend([seg] if isinstance(seg, dict) else seg)
    out = {}
    for key, parts in segs.items():
        rles = [p for p in parts if isinstance(p, dict)]
        if rles and len(parts) > 1:
            raise GoldError(f"{path}: image {key} mixes RLE with other parts")
        out[key] = rles[0] if rles else parts
    return out


def release_rows(folder: Path) -> list[dict]:
    """The SPEC gold records of a release folder, in the MCQ file's order."""
    mcq_path, images_path, masks_path = _parts(Path(folder))
    sizes, masks = _sizes(images_path), _masks(masks_path)
    rows = []
    for i, rec in enumerate(_jsonl(mcq_path)):
        where = f"{mcq_path}: record {i + 1}"
        try:
            choices = [_image_key(str(rec[f])) for f in CHOICE_FIELDS]
            correct = _image_key(str(rec["correct_answer"]))
        except KeyError as e:
            raise GoldError(f"{where}: missing field {e}") from e
        if choices.count(correct) != 1:
            raise GoldError(f"{where}: correct_answer is not exactly one of choice_a..choice_d")
        unknown = [c for c in choices if c not in sizes]
        if unknown:
            raise GoldError(f"{where}: image(s) not in the image list: {', '.join(unknown)}")
        if correct not in masks:
            raise GoldError(f"{where}: the correct image {correct} has no mask in {masks_path.name}")
        gold = sizes[correct]
        qid = rec.get("question_id") or rec.get("Unique Index")
        row = {
            "question_id": str(qid) if qid not in (None, "") else f"scb-{i:05d}",
            **{k: rec.get(k) for k in ("type", "country", "category", "concept")},
            "answer": LETTERS[choices.index(correct)],
            "image_id": gold["image_id"],
            "width": gold["width"],
            "height": gold["height"],
            "segmentation": masks[correct],
            "options": [{**sizes[c], "url": c} for c in choices],
        }
        for k in ("question", "grounding_prompt"):
            if rec.get(k) is not None:
                row[k] = rec[k]
        rows.append(row)
    if not rows:
        raise GoldError(f"{mcq_path}: no records")
    return rows


def release_jsonl(folder: Path) -> bytes:
    """The release folder as one SPEC gold JSONL file: what the store keeps (one file per version)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in release_rows(folder)).encode("utf-8")
