"""K-Viscuit: multiple choice (4 textual options) on Korean culture, 10 categories.

Gold: the official ``annotations.jsonl`` (or the same columns in Parquet). ``id_`` is not
unique, so a question's key is its 0-based row index in the official file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scoring.benchmarks.base import ACCURACY, Benchmark, Grouping, Heatmap, Panel
from scoring.errors import GoldError, LineError
from scoring.gold import Gold, content_version, group_codes, read_records

CATEGORIES = (
    "Food", "Beverage", "GamePlayPerformance", "Celebrations", "Religion",
    "Tool", "Clothes", "Heritage", "ArchitecturePlaces", "Agriculture",
)  # fmt: skip
CHOICES = "ABCD"  # four textual options
PAPER_NAMES = {"GamePlayPerformance": "Game", "ArchitecturePlaces": "Architecture"}
"""The paper prints two category labels shorter than the data has them."""


def _record(rec: dict, where: str) -> dict:
    try:
        out = {
            "question": str(rec["question"]),
            "options": [str(o) for o in rec["options"]],
            "answer": int(rec["answer"]),
            "category": str(rec["category"]),
            "id_": str(rec["id_"]),
            "question_type": int(rec["question_type"]),
        }
    except (KeyError, TypeError, ValueError) as e:
        raise GoldError(f"{where}: missing or bad field {e}") from e
    n = len(CHOICES)
    if len(out["options"]) != n or out["answer"] not in range(n) or out["question_type"] not in (1, 2):
        raise GoldError(f"{where}: needs {n} options, answer 0-{n - 1} and question_type 1 or 2")
    return out


def load_gold(path: Path) -> Gold:
    """Load K-Viscuit gold in the official row order (the key is the row index)."""
    records = [_record(r, f"{path}: row {i}") for i, r in enumerate(read_records(path))]
    return Gold(
        benchmark="kviscuit",
        version=content_version(records),
        keys=list(range(len(records))),
        answers=np.array([r["answer"] for r in records], dtype=np.int8),
        groups={
            "type": group_codes([str(r["question_type"]) for r in records], ["1", "2"]),
            "category": group_codes([r["category"] for r in records], list(CATEGORIES)),
        },
        extra={"id_": [r["id_"] for r in records]},
        option_texts=[tuple(r["options"]) for r in records],
    )


IMAGE_FIELDS = ("image_url", "image_path")
"""Where a question's image is (kept from the official file; not part of the gold version)."""


def public_questions(path: Path) -> list[dict]:
    """Everything but the answer, with the image's address (the data set is public; the
    leaderboard still hides the answer)."""
    out = []
    for i, raw in enumerate(read_records(path)):
        rec = _record(raw, f"{path}: row {i}")
        images = {k: str(raw[k]) for k in IMAGE_FIELDS if raw.get(k) is not None}
        out.append({"question_id": i, **{k: v for k, v in rec.items() if k != "answer"}, **images})
    return out


def load_public_gold(path: Path) -> Gold:
    """A public question list as a public gold: row keys, ``id_`` and option texts, no answers."""
    rows = read_records(path)
    try:
        keys = [int(r["question_id"]) for r in rows]
        ids = [str(r["id_"]) for r in rows]
        options = [tuple(str(o) for o in r["options"]) for r in rows]
    except (KeyError, TypeError, ValueError) as e:
        raise GoldError(f"{path}: every question needs question_id, id_ and options: {e}") from e
    if len(set(keys)) != len(keys):
        raise GoldError(f"{path}: a question_id is listed twice")
    return Gold(
        benchmark="kviscuit",
        version="public-" + content_version([{"question_id": k, "id_": i} for k, i in zip(keys, ids, strict=True)]),
        keys=keys,
        answers=np.full(len(keys), -1, dtype=np.int8),
        groups={},
        extra={"id_": ids},
        option_texts=options,
        public=True,
    )


def parse_key(value: object) -> int | None:
    """Row index: an integer, or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    return None


def read_line(line: dict, gold: Gold, row: int, box_format: str, letter: str | None = None) -> None:
    """K-Viscuit has no grounding; an echoed ``id_`` must match the gold row's."""
    if "id_" in line and line["id_"] != gold.extra["id_"][row]:
        raise LineError("id_mismatch", f"id_ {str(line['id_'])[:40]!r} is not the id_ of row {row}", "id_")
    for f in ("bbox", "polygon", "mask"):
        if line.get(f) is not None:
            raise LineError("grounding_not_supported", f"K-Viscuit has no grounding stage; remove {f}", f)
    return None


KVISCUIT = Benchmark(
    id="kviscuit",
    name="K-Viscuit",
    description="657 multiple-choice questions (4 textual options) on images of Korean culture, 10 categories.",
    paper="Evaluating Visual and Cultural Interpretation: The K-Viscuit Benchmark with Human-VLM Collaboration",
    key_field="question_id",
    prediction_fields={
        "question_id": "0-based row index of the question in the official annotations.jsonl",
        "answer": 'A-D (any case; "(b)", "B." are read as B)',
        "response": "optional raw model text, read only where answer is absent",
        "id_": "optional echo of the row's id_; must match when present",
    },
    groupings=(
        Grouping(
            "type",
            "Type",
            ("1", "2"),
            {"1": "Type 1 visual recognition", "2": "Type 2 visual reasoning"},
            {"1": "T1", "2": "T2"},
        ),
        Grouping("category", "Category", CATEGORIES, PAPER_NAMES),
    ),
    choices=CHOICES,
    metrics=(ACCURACY,),
    primary_metric="acc",
    headline={"acc": 1.0},
    overview=(Panel("acc", by="type"), Panel("acc", by="category", overall=False)),
    plots=(Heatmap("type"), Heatmap("category")),
    load_gold=load_gold,
    parse_key=parse_key,
    read_line=read_line,
    public_questions=public_questions,
    load_public_gold=load_public_gold,
    questions_note=(
        "One line per question, in the official row order: question_id (the 0-based row index "
        "that submissions use), id_, question, options, category, question_type, and the image's "
        "address (image_url, and image_path in the official release: the Hugging Face dataset "
        "ddehun/k-viscuit, split test, or dataset/images/ in its GitHub repository). Letters A-D "
        "are the options in the listed order: A is options[0], D is options[3]. A response that "
        "is exactly one option's text is read as that option's letter. No answers."
    ),
    example_lines=('{"question_id": 0, "answer": "A"}', '{"question_id": 1, "answer": "(c)", "id_": "Food.1.1"}'),
)
