"""The item analysis's inputs from stored readings (submissions/items/job.py) and an accepted suspect
as a corrected gold record (submissions/items/correction.py): pure functions, no store."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.reading import ReadAnswers
from submissions.items.correction import CannotCorrect, corrected
from submissions.items.job import ItemInputs, row_of
from submissions.items.records import MISSING


class FakeMasks:
    def __init__(self, widths, heights):
        self.widths, self.heights = np.array(widths), np.array(heights)


class FakeGold:
    """The fields row_of reads: keys and their rows, the benchmark, and (SCB) the gold images' sizes."""

    def __init__(self, benchmark: str, keys: list, widths=None, heights=None):
        self.benchmark, self.keys, self.size = benchmark, keys, len(keys)
        self.index = {k: i for i, k in enumerate(keys)}
        self.extra = {"masks": FakeMasks(widths, heights)} if widths else {}


def test_a_reading_becomes_a_row_of_the_gold_with_boxes_in_the_gold_images_pixels():
    gold = FakeGold("scb", ["q0", "q1", "q2", "q3"], widths=[1000, 200, 400, 640], heights=[500, 100, 300, 480])
    reading = ReadAnswers(
        "scb",
        ("q2", "gone", "q0", "q3"),
        np.array([1, 2, -1, 3], dtype=np.int8),
        np.array([[100, 100, 500, 500], [1, 1, 2, 2], [0.1, 0.2, 0.5, 0.6], [10, 20, 30, 40]], dtype=np.float64),
        np.array([[1000, np.nan, np.nan], [np.nan] * 3, [1.0, np.nan, np.nan], [np.nan, 320, 240]]),
    )
    letters, boxes = row_of(reading, gold)
    assert letters.tolist() == [MISSING, MISSING, 1, 3]  # q0 read as no letter; q1 not answered; "gone" not asked
    assert boxes.dtype == np.float32
    assert boxes[2].tolist() == pytest.approx([40, 30, 200, 150])  # 0-1000 grid of a 400 x 300 image
    assert boxes[0].tolist() == pytest.approx([100, 100, 500, 300])  # 0-1 of 1000 x 500
    assert boxes[3].tolist() == pytest.approx([20, 40, 60, 80])  # a 320 x 240 frame of a 640 x 480 image
    assert np.isnan(boxes[1]).all()


def test_a_benchmark_without_grounding_has_no_boxes_and_the_basis_names_the_submissions():
    gold = FakeGold("kviscuit", [0, 1, 2])
    reading = ReadAnswers("kviscuit", (2, 0), np.array([3, 0], dtype=np.int8), np.full((2, 4), np.nan), None)
    letters, boxes = row_of(reading, gold)
    assert letters.tolist() == [0, MISSING, 3] and boxes is None
    a, b = ItemInputs(("s1", "s2"), None, None), ItemInputs(("s2", "s1"), None, None)
    assert a.basis == b.basis != ItemInputs(("s1",), None, None).basis


SCB_RECORD = {
    "question_id": "scb-7",
    "answer": "A",
    "image_id": "img-1",
    "width": 300,
    "height": 200,
    "segmentation": [[10, 10, 50, 10, 50, 50]],
    "options": [
        {"image_id": "img-1", "width": 300, "height": 200},
        {"image_id": "img-2", "width": 640, "height": 480},
        {"image_id": "img-3", "width": 10, "height": 10},
        {"image_id": "img-4", "width": 20, "height": 20},
    ],
}


def test_an_answer_suspect_sets_the_letter_and_on_scb_the_new_gold_image():
    other = {**SCB_RECORD, "question_id": "scb-8"}
    out = corrected([SCB_RECORD, other], "scb-7", "answer", {"answer": "B"}, "ABCD")
    assert out[1] == other and out[0]["answer"] == "B" and SCB_RECORD["answer"] == "A"  # the input is unchanged
    assert (out[0]["image_id"], out[0]["width"], out[0]["height"]) == ("img-2", 640, 480)
    assert out[0]["segmentation"] == [[0.0, 0.0, 640.0, 0.0, 640.0, 480.0, 0.0, 480.0]]
    kviscuit = [{"answer": 0, "options": ["a", "b", "c", "d"]}, {"answer": 2, "options": ["a", "b", "c", "d"]}]
    assert corrected(kviscuit, 1, "answer", {"answer": "D"}, "ABCD")[1]["answer"] == 3  # indices stay indices
    no_options = {k: v for k, v in SCB_RECORD.items() if k != "options"}
    with pytest.raises(CannotCorrect, match="option images"):
        corrected([no_options], "scb-7", "answer", {"answer": "B"}, "ABCD")


def test_a_mask_suspect_sets_the_box_clipped_to_the_image_as_four_corners():
    out = corrected([SCB_RECORD], "scb-7", "mask", {"box": [-5, 20, 120.5, 900]}, "ABCD")
    assert out[0]["segmentation"] == [[0.0, 20.0, 120.5, 20.0, 120.5, 200.0, 0.0, 200.0]]
    for box in ([400, 300, 500, 400], [10, 10, 10, 50]):
        with pytest.raises(CannotCorrect, match="outside"):
            corrected([SCB_RECORD], "scb-7", "mask", {"box": box}, "ABCD")
    with pytest.raises(CannotCorrect, match="not one record"):
        corrected([SCB_RECORD], "scb-9", "mask", {"box": [1, 1, 5, 5]}, "ABCD")
    with pytest.raises(CannotCorrect, match="no regions"):
        corrected([{"answer": 1}], 0, "mask", {"box": [1, 1, 5, 5]}, "ABCD")
