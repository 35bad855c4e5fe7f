"""The public list as a VLMEvalKit MCQ TSV: every question once, in the published order, no answer."""

from __future__ import annotations

import csv
import io
import json

from scoring.benchmarks.scb.demo import scb_gold, scb_questions
from scoring.benchmarks.tsv import vlmevalkit_tsv


def read(tsv: bytes) -> list[dict]:
    return list(csv.DictReader(io.StringIO(tsv.decode()), delimiter="\t"))


def test_scb_tsv_keeps_the_published_order_and_names_no_answer():
    gold = scb_gold(options=True)[:40]
    public = sorted(scb_questions(gold), key=lambda q: q["question_id"])  # the published order
    rows = read(vlmevalkit_tsv("scb", public))
    assert [int(r["index"]) for r in rows] == list(range(40))
    assert "answer" not in rows[0]
    for row, q in zip(rows, public, strict=True):
        # the site's image route, relative to the TSV's own address /questions/scb.tsv (issue 28: the
        # list's relative urls opened from VLMEvalKit's working folder)
        expected = [f"scb/images/{o['url'].rsplit('/', 1)[-1]}" for o in q["options"]]
        assert json.loads(row["image_path"]) == expected
        assert [row[c] for c in "ABCD"] == ["<image>"] * 4
        assert row["grounding_prompt"] == q["grounding_prompt"]  # stage 2's prompt
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
    expected = ("0", "a", "d", "kviscuit/images/0.jpg", "Food")
    assert (row["index"], row["A"], row["D"], row["image_path"], row["category"]) == expected


def test_an_absolute_image_url_is_kept():
    """A deployment's list names where the benchmark publishes its images: the TSV keeps that URL."""
    q = {"question": "Q?", "options": ["a", "b", "c", "d"], "image_url": "https://img.example.org/k/0.jpg"}
    (row,) = read(vlmevalkit_tsv("kviscuit", [q]))
    assert row["image_path"] == "https://img.example.org/k/0.jpg"
