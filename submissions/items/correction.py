"""A suspect accepted: the gold's records with that one question corrected, to stage through the
usual correction path (leaderboard.corrections: preview, keep every row, reversible).

Pure: records in (a JSON Lines gold as the maintainer gave it), records out. An ``answer`` suspect
sets the suggested letter (an index where the gold writes indices: K-Viscuit). Where the answer
names a gold image (SCB: the answer's option is the image the region is drawn on), the record
takes the new option's image id and size, and its region becomes the whole new image: the old
one was drawn on another picture; the maintainer redraws it before the rescore (the tab says so).
A ``mask`` suspect sets the region to the consensus box as a 4-corner polygon in the gold image's
pixels. A gold given in another shape (Parquet, COCO, a release folder) is corrected by hand.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence


class CannotCorrect(ValueError):
    """The suspect cannot be turned into a corrected gold here; the message says why."""


def _row_of(records: Sequence[dict], question_id: object) -> int:
    """The record of ``question_id``: by its ``question_id`` field, else by position (row keys)."""
    if records and all("question_id" in r for r in records):
        found = [i for i, r in enumerate(records) if str(r["question_id"]) == str(question_id)]
        if len(found) == 1:
            return found[0]
    elif isinstance(question_id, int) and 0 <= question_id < len(records):
        return question_id
    raise CannotCorrect(f"question {question_id!r} is not one record of this gold file")


def box_polygon(box: Sequence[float]) -> list[list[float]]:
    """A box (x0, y0, x1, y1) as one 4-corner polygon part, flat, clockwise from the top left."""
    x0, y0, x1, y1 = (float(v) for v in box)
    return [[x0, y0, x1, y0, x1, y1, x0, y1]]


def _new_answer(record: dict, letter: str, choices: str) -> None:
    old = record.get("answer")
    if letter not in choices:
        raise CannotCorrect(f"the suggested answer {letter!r} is not one of {choices}")
    record["answer"] = choices.index(letter) if isinstance(old, int) and not isinstance(old, bool) else letter
    if "segmentation" not in record:
        return
    options = record.get("options")
    if not isinstance(options, list) or len(options) != len(choices):
        raise CannotCorrect("the record lists no option images: the new gold image's size is unknown")
    image = options[choices.index(letter)]
    record["image_id"] = str(image.get("image_id", ""))
    record["width"], record["height"] = int(image["width"]), int(image["height"])
    record["segmentation"] = box_polygon((0, 0, record["width"], record["height"]))


def corrected(records: Sequence[dict], question_id: object, kind: str, suggestion: dict, choices: str) -> list[dict]:
    """``records`` with the one question corrected as the suspect suggests (module doc)."""
    out = [copy.deepcopy(r) for r in records]
    record = out[_row_of(out, question_id)]
    if kind == "answer":
        _new_answer(record, str(suggestion["answer"]), choices)
    elif kind == "mask":
        if "segmentation" not in record:
            raise CannotCorrect("this gold has no regions to correct")
        x0, y0, x1, y1 = (float(v) for v in suggestion["box"])
        w, h = float(record.get("width", x1)), float(record.get("height", y1))
        clipped = (min(max(x0, 0.0), w), min(max(y0, 0.0), h), min(max(x1, 0.0), w), min(max(y1, 0.0), h))
        if clipped[2] <= clipped[0] or clipped[3] <= clipped[1]:
            raise CannotCorrect("the consensus box lies outside the gold image")
        record["segmentation"] = box_polygon(clipped)
    else:
        raise CannotCorrect(f"unknown suspect kind {kind!r}")
    return out
