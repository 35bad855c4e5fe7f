"""The public list as a VLMEvalKit MCQ TSV: every question once, in the published order, no answer."""

from __future__ import annotations

import csv
import io
import json

from leaderboard.demo import scb_gold, scb_questions
from leaderboard.harness_inputs import vlmevalkit_tsv


def read(tsv: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(tsv.decode()), delimiter="\t"))


def test_scb_tsv_keeps_the_published_order_and_names_no_answer():
    gold = scb_gold(options=True)[:40]
    public = sorted(scb_questions(gold), key=lambda q: q["question_id"])  # the published order
    rows = read(vlmevalkit_tsv("scb", public))
    assert [int(r["index"]) for r in rows] == list(range(40))
    assert "answer" not in rows[0]
    for row, q in zip(rows, public, strict=True):
        assert json.loads(row["image_path"]) == [o["url"] for o in q["options"]]
        assert [row[c] for c in "ABCD"] == ["<image>"] * 4
    gold_ids = {r["image_id"] for r in gold}
    assert not any(g in row["question"] for row in rows for g in gold_ids)


def test_kviscuit_tsv_has_the_option_texts():
    questions = [
        {
            "question_id": 0,
            "question": "Q?",
            "options": ["a", "b", "c", "d"],
            "category": "Food",
            "question_type": 1,
            "image_path": "0.jpg",
            "id_": "Food.1.0",
        }
    ]
    (row,) = read(vlmevalkit_tsv("kviscuit", questions))
    assert (row["index"], row["A"], row["D"], row["image_path"], row["category"]) == ("0", "a", "d", "0.jpg", "Food")
