"""The public question list in the input shapes the harnesses read, in the published order.

The order is the public list's (SCB: sorted by ``question_id``; K-Viscuit: the official file's
rows), fixed per gold version: a harness's ``doc_id`` (lmms-eval) or ``index`` (VLMEvalKit) is a
position in it, which is how the site reads their output files back.

- lmms-eval: the list itself as JSONL is the dataset of the shipped tasks (``lmms_eval_tasks/``).
- VLMEvalKit: a custom MCQ TSV (``index``, ``question``, ``A``-``D``, ``image_path``,
  ``category``; no ``answer``). SCB's options are images, written the way VLMEvalKit's
  multi-image MCQ (MUIRBench) writes them: each option is an ``<image>`` placeholder and
  ``image_path`` lists the four option images in letter order.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

LETTERS = "ABCD"
TSV_COLUMNS = ("index", "question", "A", "B", "C", "D", "image_path", "category", "l2-category")


def _scb_row(position: int, q: dict) -> dict:
    return {
        "index": position,
        "question": q.get("question", ""),
        **{letter: "<image>" for letter in LETTERS},
        "image_path": json.dumps([o["url"] for o in q["options"]]),
        "category": q.get("category", ""),
        "l2-category": q.get("country", ""),
    }


def _kviscuit_row(position: int, q: dict) -> dict:
    return {
        "index": position,
        "question": q["question"],
        **dict(zip(LETTERS, q["options"], strict=True)),
        "image_path": q.get("image_path") or q.get("image_url", ""),
        "category": q.get("category", ""),
        "l2-category": str(q.get("question_type", "")),
    }


def vlmevalkit_tsv(benchmark: str, questions: Sequence[dict]) -> bytes:
    """The list as a VLMEvalKit custom MCQ TSV; ``index`` is the position in the published order."""
    row = _scb_row if benchmark == "scb" else _kviscuit_row
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=TSV_COLUMNS, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    for position, q in enumerate(questions):
        writer.writerow(row(position, q))
    return out.getvalue().encode("utf-8")
