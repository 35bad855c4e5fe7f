"""The public question list in the input shapes the harnesses read, in the published order.

The order is the public list's (SCB: sorted by ``question_id``; K-Viscuit: the official file's
rows), fixed per gold version: a harness's ``doc_id`` (lmms-eval) or ``index`` (VLMEvalKit) is a
position in it, which is how the site reads their output files back.

- lmms-eval: the list itself as JSONL is the dataset of the shipped tasks (``lmms_eval_tasks/``).
- VLMEvalKit: a TSV in its dataset convention (``index``, ``question``, ``A``-``D``,
  ``image_path``, ``category``; no ``answer``), read by the leaderboard's dataset classes
  (``vlmevalkit/``), which send the benchmark's protocol. SCB's options are images: each option
  cell is an ``<image>`` placeholder, ``image_path`` lists the four option images in letter order,
  and ``grounding_prompt`` is stage 2's prompt. An ``image_path`` resolves from any folder: an
  absolute URL as the list gives it, else the address where the site serves the image
  (``{benchmark}/images/{name}``), relative to the TSV's own (``/questions/{benchmark}.tsv``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

LETTERS = "ABCD"
TSV_COLUMNS = ("index", "question", "A", "B", "C", "D", "image_path", "category", "l2-category")
SCB_TSV_COLUMNS = (*TSV_COLUMNS, "grounding_prompt")


def image_ref(benchmark: str, ref: str) -> str:
    """Where an image of the list is, seen from the TSV's address: an absolute URL as it is, a
    relative one at the site's image route (``/questions/{benchmark}/images/{name}``)."""
    if ref.startswith(("http://", "https://")):
        return ref
    return f"{benchmark}/images/{ref.rsplit('/', 1)[-1]}"


def _scb_row(position: int, q: dict) -> dict:
    return {
        "index": position,
        "question": q.get("question", ""),
        **{letter: "<image>" for letter in LETTERS},
        "image_path": json.dumps([image_ref("scb", o["url"]) for o in q["options"]]),
        "category": q.get("category", ""),
        "l2-category": q.get("country", ""),
        "grounding_prompt": q.get("grounding_prompt", ""),
    }


def _kviscuit_row(position: int, q: dict) -> dict:
    return {
        "index": position,
        "question": q["question"],
        **dict(zip(LETTERS, q["options"], strict=True)),
        "image_path": image_ref("kviscuit", q.get("image_path") or q.get("image_url", "")),
        "category": q.get("category", ""),
        "l2-category": str(q.get("question_type", "")),
    }


def vlmevalkit_tsv(benchmark: str, questions: Sequence[dict]) -> bytes:
    """The list as a VLMEvalKit custom MCQ TSV; ``index`` is the position in the published order."""
    row = _scb_row if benchmark == "scb" else _kviscuit_row
    out = io.StringIO()
    columns = SCB_TSV_COLUMNS if benchmark == "scb" else TSV_COLUMNS
    writer = csv.DictWriter(out, fieldnames=columns, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    for position, q in enumerate(questions):
        writer.writerow(row(position, q))
    return out.getvalue().encode("utf-8")
