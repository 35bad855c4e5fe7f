"""A file read once (scoring/reading.py): its reading, stored and loaded again (store.records),
scores exactly as the file read again does, on the gold it was read on and on a corrected gold;
where it cannot answer for a gold (a question's facts changed, a harness file's positions, a
rejected file) it says so, and the file is read again.

Each case compares with ``validate_file`` + ``score_predictions`` on the same file: the
reference path, an independent reading of the bytes."""

from __future__ import annotations

import dataclasses
import json
import random

import numpy as np
import pytest

import scoring
from scoring import SubmissionError, get_benchmark
from scoring.engine import score_predictions, validate_file
from scoring.reading import FileReading, read, reading_basis
from store.records import CorruptRecord, StoredReading
from tests.support.scoring import compile_gold, rect_polygon, with_options

SCB = get_benchmark("scb")


@pytest.fixture(scope="module")
def records(scb_small_records) -> list[dict]:
    """The 15-question demo gold with public option sizes (every grounding is checked in them)."""
    return with_options(scb_small_records, seed=3)


@pytest.fixture(scope="module")
def gold(records, tmp_path_factory) -> scoring.Gold:
    return compile_gold("scb", tmp_path_factory.mktemp("reading") / "gold.jsonl", records)


def _frame(gold: scoring.Gold, row: int, letter: str) -> tuple[int, int]:
    w, h = gold.extra["option_sizes"][row, "ABCD".index(letter)].tolist()
    return w, h


def mixed_lines(gold: scoring.Gold, seed: int) -> list[dict]:
    """One line per question, of every kind the reader keeps: answers and responses (strict,
    lenient, unreadable), boxes in the file's and a line's own format, polygons, masks in the
    answered frame, grounding responses that name a box or none."""
    rng = random.Random(seed)
    lines = []
    for row, key in enumerate(gold.keys):
        letter = "ABCD"[rng.randrange(4)]
        w, h = _frame(gold, row, letter)
        line = rng.choice(
            [
                {"answer": letter},
                {"response": letter},
                {"response": f"The answer is ({letter.lower()})."},
                {"response": "I cannot tell."},
            ]
        )
        kind = rng.randrange(6)
        if kind == 1:
            line["bbox"] = [1, 2, w // 2, h // 2]
        elif kind == 2:
            line |= {"bbox": [100, 200, 600, 700], "bbox_format": "xyxy_1000"}
        elif kind == 3:
            line["polygon"] = [[2, 2, w // 3, 3, w // 4, h // 3], [[5, 5], [9, 5], [9, 9]]]
        elif kind == 4:
            line["mask"] = {"size": [h, w], "counts": [w * h // 3, w * h - w * h // 3]}
        elif kind == 5:
            text = rng.choice(["[0.1, 0.2, 0.5, 0.6]", "nothing to see"])
            line |= {"grounding_response": text, "grounding_format": "plain", "bbox_format": "xyxy_norm"}
        lines.append({"question_id": key, **line})
    return lines


def encode(lines: list[dict]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def stored(reading: FileReading) -> FileReading:
    """The reading as it comes back from the store."""
    return StoredReading.from_bytes(StoredReading.to_bytes(reading), "reading.npz")


def reference(gold: scoring.Gold, data: bytes, fmt: str = "xyxy"):
    """What reading the file again gives: the scores, or the issues."""
    try:
        predictions = validate_file(SCB, gold, data, bbox_format=fmt)
    except SubmissionError as e:
        return "rejected", [(i.code, i.line, i.message) for i in e.issues], e.total
    result = score_predictions(SCB, gold, predictions, seed=11)
    return "scored", result.to_dict(), result.unparsed_lines


def from_reading(reading: FileReading, gold: scoring.Gold):
    if reading.rejected:
        return "rejected", [(i.code, i.line, i.message) for i in reading.issues], reading.total
    result = score_predictions(SCB, gold, reading.predictions(gold), seed=11)
    return "scored", result.to_dict(), result.unparsed_lines


@pytest.mark.parametrize("seed", range(6))
def test_a_stored_reading_scores_as_the_file_read_again(gold, seed):
    data = encode(mixed_lines(gold, seed))
    reading, _ = read(SCB, gold, data)
    back = stored(reading)
    assert from_reading(back, gold) == reference(gold, data)
    assert back.basis == reading_basis(gold) and back.fits(gold)


@pytest.mark.parametrize("fmt", ["xyxy", "xywh", "xyxy_1000", "yxyx_1000", "xyxy_norm"])
def test_a_plain_files_boxes_come_back_as_one_box_set(gold, fmt):
    box = [0.1, 0.2, 0.5, 0.75] if fmt == "xyxy_norm" else [10, 20, 300, 400]
    lines = [{"question_id": key, "answer": "ABCD"[k % 4], "bbox": box} for k, key in enumerate(gold.keys)]
    data = encode(lines)
    back = stored(read(SCB, gold, data, fmt)[0])
    assert back.plain_boxes
    assert from_reading(back, gold) == reference(gold, data, fmt)


def test_a_rejected_file_keeps_its_rejection_and_what_it_answered(gold):
    lines = mixed_lines(gold, 1)
    lines[3]["answer"] = "Z"
    lines.insert(5, {"question_id": "scb-99999", "answer": "A"})
    data = encode(lines)
    back = stored(read(SCB, gold, data)[0])
    assert back.predictions(gold) is None
    assert from_reading(back, gold) == reference(gold, data)
    assert back.answered == len(gold.keys)  # the probe detector still sees every line it could read


def _gold_of(tmp_path, records, retired=()) -> scoring.Gold:
    new = compile_gold("scb", tmp_path / "gold.jsonl", records)
    new.retired = frozenset(retired)
    return new


def _answer_moved(record: dict) -> dict | None:
    """The record answered by another option of the gold image's size (the options' image ids
    swapped, their sizes as they were): a correction of the answer that changes no public fact."""
    options = [dict(o) for o in record["options"]]
    old = "ABCD".index(record["answer"])
    same = [
        k
        for k, o in enumerate(options)
        if k != old and (o["width"], o["height"]) == (record["width"], record["height"])
    ]
    if not same:
        return None
    new = same[0]
    options[old]["image_id"], options[new]["image_id"] = options[new]["image_id"], options[old]["image_id"]
    return dict(record, answer="ABCD"[new], options=options)


def test_corrected_answers_and_masks_keep_the_basis_and_the_reading(gold, records, tmp_path):
    changed = [_answer_moved(r) or r for r in records]
    changed[0] = dict(changed[0], segmentation=[rect_polygon(0, 0, records[0]["width"] / 2, records[0]["height"] / 3)])
    new = _gold_of(tmp_path, changed)
    assert (new.answers != gold.answers).any()
    data = encode(mixed_lines(gold, 2))
    back = stored(read(SCB, gold, data)[0])
    assert reading_basis(new) == reading_basis(gold)
    assert from_reading(back, new) == reference(new, data)


def test_removed_questions_are_set_aside_and_added_ones_missing_without_reading_again(gold, records, tmp_path):
    data = encode(mixed_lines(gold, 3))
    back = stored(read(SCB, gold, data)[0])
    assert not back.rejected
    removed = [r["question_id"] for r in records[4:6]]
    fewer = _gold_of(tmp_path / "fewer", [r for r in records if r["question_id"] not in removed], retired=removed)
    assert reading_basis(fewer) != reading_basis(gold)
    assert from_reading(back, fewer) == reference(fewer, data)
    assert from_reading(back, fewer)[1]["counts"]["set_aside"] == 2
    added = dict(records[0], question_id="scb-new-1")
    more = _gold_of(tmp_path / "more", [*records, added])
    assert from_reading(back, more) == reference(more, data)
    restored = _gold_of(tmp_path / "restored", records, retired=["scb-new-1"])
    assert stored(read(SCB, fewer, data)[0]).predictions(restored) is None  # set-aside lines asked again: read again


def test_a_question_whose_public_facts_changed_is_read_again(gold, records, tmp_path):
    data = encode([{"question_id": key, "answer": "A", "bbox": [1, 1, 5, 5]} for key in gold.keys])
    back = stored(read(SCB, gold, data)[0])
    changed = [dict(r) for r in records]
    answer = "ABCD".index(records[0]["answer"])
    changed[0]["options"] = [dict(o, width=o["width"] + (k != answer)) for k, o in enumerate(records[0]["options"])]
    new = _gold_of(tmp_path, changed)
    assert back.predictions(new) is None and not back.fits(new)


def test_a_harness_file_is_read_again_on_other_positions(gold, records, tmp_path):
    """VLMEvalKit's rows name questions by position: a gold with other questions reads them anew."""
    data = encode([{"index": k, "prediction": "ABCD"[k % 4]} for k in range(len(gold.keys))])
    back = stored(read(SCB, gold, data)[0])
    assert back.converted and from_reading(back, gold) == reference(gold, data)
    fewer = _gold_of(tmp_path, records[1:], retired=[records[0]["question_id"]])
    assert back.predictions(fewer) is None


def test_a_reading_of_another_reader_version_is_not_used(gold):
    back = dataclasses.replace(read(SCB, gold, encode(mixed_lines(gold, 4)))[0], reader="0")
    assert back.predictions(gold) is None and not back.fits(gold)


def test_box_extents_are_in_the_files_own_units(gold):
    key = gold.keys[0]
    lines = [
        {"question_id": key, "answer": "A", "bbox": [10, 20, 30, 40], "bbox_format": "xywh"},
        {"question_id": gold.keys[1], "answer": "A", "polygon": [[2, 3, 9, 3, 9, 11]]},
        {"question_id": gold.keys[2], "answer": "A"},
    ]
    extents = stored(read(SCB, gold, encode(lines))[0]).box_extents()
    assert extents[0].tolist() == [10, 20, 40, 60]
    assert extents[1].tolist() == [2, 3, 9, 11]
    assert np.isnan(extents[2]).all()


@pytest.mark.parametrize("damage", [b"", b"not a zip", b"PK\x03\x04broken"])
def test_a_damaged_reading_is_a_corrupt_record(damage):
    with pytest.raises(CorruptRecord):
        StoredReading.from_bytes(damage, "reading.npz")


def test_kviscuit_responses_read_with_option_texts_and_removed_rows(
    kviscuit_demo_gold, kviscuit_demo_records, tmp_path
):
    """K-Viscuit's keys are row numbers and its responses are read with the option texts."""
    gold, bench = kviscuit_demo_gold, get_benchmark("kviscuit")
    rng = random.Random(5)
    lines = []
    for row, options in enumerate(gold.option_texts):
        pick = rng.randrange(4)
        said = rng.choice([f"The answer is {options[pick]}.", "ABCD"[pick], "no idea", f"({'abcd'[pick]})"])
        lines.append({"question_id": row, "response": said, "id_": gold.extra["id_"][row]})
    data = encode(lines)
    back = stored(read(bench, gold, data)[0])
    expected = score_predictions(bench, gold, validate_file(bench, gold, data), seed=3)
    got = score_predictions(bench, gold, back.predictions(gold), seed=3)
    assert (got.to_dict(), got.unparsed_lines) == (expected.to_dict(), expected.unparsed_lines)
    assert expected.counts["unparsed"] and expected.counts["lenient"]
    last = compile_gold("kviscuit", tmp_path / "fewer.jsonl", kviscuit_demo_records[:-1])
    last.retired = frozenset({gold.size - 1})
    again = score_predictions(bench, last, validate_file(bench, last, data), seed=3)
    rebased = score_predictions(bench, last, back.predictions(last), seed=3)
    assert (rebased.to_dict(), rebased.unparsed_lines) == (again.to_dict(), again.unparsed_lines)


def test_a_reading_is_stored_as_the_same_bytes_every_time(gold):
    """Create-only storage: two writers of one upload's reading write the same bytes (no clock in them)."""
    import io
    import zipfile

    data = StoredReading.to_bytes(read(SCB, gold, encode(mixed_lines(gold, 5)))[0])
    assert {i.date_time for i in zipfile.ZipFile(io.BytesIO(data)).infolist()} == {(1980, 1, 1, 0, 0, 0)}
    assert StoredReading.to_bytes(StoredReading.from_bytes(data, "r")) == data


@pytest.mark.parametrize("seed", range(3))
def test_the_answers_alone_read_as_the_whole_reading_gives_them(gold, seed):
    """The probe detector and item analysis read only keys, letters and extents from many stored
    readings: the same values the whole reading gives."""
    reading = read(SCB, gold, encode(mixed_lines(gold, seed)))[0]
    alone = StoredReading.answers(StoredReading.to_bytes(reading), "reading.npz")
    whole = reading.answers()
    assert alone.keys == whole.keys and np.array_equal(alone.letters, whole.letters)
    assert np.array_equal(alone.extents, whole.extents, equal_nan=True)
    assert {int(k) for k in np.flatnonzero(~np.isnan(whole.extents[:, 0]))}  # boxes, polygons and masks among them


@pytest.mark.parametrize("seed", range(3))
def test_pixel_extents_are_the_scorers_pixels(gold, seed):
    """Item analysis compares boxes with the gold region in the gold image's pixels: each stored
    extent converted by its units equals the extent of the grounding as the scorer converts it
    (Box.in_image, Polygons.in_image) in an image of the same size; with ``bbox_ref_size`` too."""
    from scoring.geometry import Box, Polygons

    lines = mixed_lines(gold, seed)
    lines[0] |= {"answer": "A", "bbox": [100, 200, 600, 700], "bbox_format": "xyxy_1000"}
    lines[1] |= {"answer": "A", "bbox": [10, 20, 300, 400], "bbox_ref_size": [640, 480]}
    lines[2] |= {"answer": "A", "bbox": [1, 2, 30, 40]}
    for line in lines[:3]:
        for other in ("response", "polygon", "mask", "grounding_response", "grounding_format"):
            line.pop(other, None)
    lines[1]["bbox_format"] = lines[2]["bbox_format"] = "xyxy"
    reading = read(SCB, gold, encode(lines))[0]
    alone = StoredReading.answers(StoredReading.to_bytes(reading), "reading.npz")
    assert np.array_equal(alone.units, reading.answers().units, equal_nan=True)
    widths = np.arange(len(alone.keys)) * 37 + 300
    heights = np.arange(len(alone.keys)) * 11 + 200
    pixels = alone.pixel_extents(widths, heights)
    seen = set()
    for i, g in enumerate(reading.groundings):
        w, h = int(widths[i]), int(heights[i])
        if isinstance(g, Box):
            expected = g.in_image(w, h)
            seen.add("scaled box" if g.scale else "ref box" if g.ref else "box")
        elif isinstance(g, Polygons):
            flat = np.concatenate([np.asarray(p) for p in g.in_image(w, h)])
            expected = (flat[0::2].min(), flat[1::2].min(), flat[0::2].max(), flat[1::2].max())
            seen.add("polygon")
        else:
            continue
        assert pixels[i].tolist() == list(expected)
    assert {"scaled box", "ref box", "box"} <= seen
