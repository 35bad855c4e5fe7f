"""A line's geometry is checked in the frame of the option it answers (SPEC "Submission format"),
option images are read and checked with the gold, and the minimum-coverage rule.

Gold ``frames``: one question ``f1`` whose answer C is a 300 x 200 image (gold square
[10, 10]-[50, 50]); its options are A 120 x 80, B 300 x 200, C the gold image, D 4000 x 3000.
``plain`` is the same question in the older format, without options.
"""

from __future__ import annotations

import json

import pytest
from pycocotools import mask as coco_mask

import scoring
from scoring import GoldError, SubmissionError
from scoring.engine import validate_file
from tests.support import demo
from tests.support.scoring import line_iou, option, rect_polygon, scb_record, with_options, write_lines

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

SQUARE = [rect_polygon(10, 10, 50, 50)]
OPTIONS = [option("f1-A", 120, 80), option("f1-B", 300, 200), option("img-f1", 300, 200), option("f1-D", 4000, 3000)]
RED_TEAM_PROBE = {"polygon": [[0, 0, 1000, 0, 1000, 0.001]], "bbox_ref_size": [1, 100_000]}


def gold_of(tmp_path, records, name="gold"):
    return scoring.load_gold("scb", demo.write_jsonl(tmp_path / f"{name}.jsonl", records))


@pytest.fixture
def frames(tmp_path):
    return gold_of(tmp_path, [scb_record("f1", "C", 300, 200, SQUARE, options=OPTIONS)], "frames")


@pytest.fixture
def plain(tmp_path):
    return gold_of(tmp_path, [scb_record("f1", "C", 300, 200, SQUARE)], "plain")


def errors(gold, tmp_path, *lines, **kwargs) -> list[tuple[str, str]]:
    """(code, message) of every issue, [] when the file is valid."""
    path = write_lines(tmp_path / "sub.jsonl", [{"question_id": "f1"} | line for line in lines])
    try:
        validate_file("scb", gold, path, **kwargs)
    except SubmissionError as e:
        return [(i.code, i.message) for i in e.issues]
    return []


def full_mask(height: int, width: int) -> dict:
    return {"size": [height, width], "counts": [0, height * width]}


# --------------------------------------------------------------------------- masks


def test_a_mask_has_the_size_of_the_answered_option(frames, tmp_path):
    assert errors(frames, tmp_path, {"answer": "A", "mask": full_mask(80, 120)}) == []
    assert errors(frames, tmp_path, {"answer": "B", "mask": full_mask(200, 300)}) == []
    assert errors(frames, tmp_path, {"answer": "C", "mask": full_mask(200, 300)}) == []
    [(code, message)] = errors(frames, tmp_path, {"answer": "A", "mask": full_mask(200, 300)})
    assert code == "mask_size_mismatch"
    assert "[80, 120]" in message  # option A's public size, and nothing of the gold image's
    assert "300" not in message.replace("[200, 300]", "")


def test_a_mask_on_an_unreadable_answer_need_only_be_well_formed(frames, tmp_path):
    assert errors(frames, tmp_path, {"response": "no idea", "mask": full_mask(7, 9)}) == []
    assert [
        c for c, _ in errors(frames, tmp_path, {"response": "no idea", "mask": {"size": [7, 9], "counts": [5]}})
    ] == ["bad_mask"]
    assert [c for c, _ in errors(frames, tmp_path, {"response": "?", "mask": full_mask(20_000, 1)})] == ["bad_mask"]


def test_a_gold_without_options_refuses_masks_but_not_polygons_or_boxes(plain, tmp_path):
    for answer in "AC":
        assert [c for c, _ in errors(plain, tmp_path, {"answer": answer, "mask": full_mask(200, 300)})] == [
            "mask_without_image_size"
        ]
    assert [c for c, _ in errors(plain, tmp_path, {"answer": "C", "mask": {"size": [2, 2], "counts": [9]}})] == [
        "bad_mask"
    ]  # a malformed mask is told as such first
    assert errors(plain, tmp_path, {"answer": "A", "polygon": SQUARE}) == []
    assert errors(plain, tmp_path, {"answer": "C", "bbox": [1, 2, 3, 4]}) == []


def test_a_correct_mask_is_scored_on_the_gold_grid(frames):
    rle = coco_mask.merge(coco_mask.frPyObjects(SQUARE, 200, 300))
    mask = {"size": [200, 300], "counts": rle["counts"].decode()}
    assert line_iou(frames, 0, {"answer": "C", "mask": mask}) == 1.0


# --------------------------------------------------------------------------- boxes and polygons


def test_the_range_check_is_made_in_the_answered_frame(frames, plain, tmp_path):
    far = {"bbox": [0, 0, 5000, 1], "bbox_ref_size": [1, 1]}  # x2 = 5000 x the frame's width
    assert errors(frames, tmp_path, {"answer": "A"} | far) == []  # 600,000 px in a 120 px frame
    assert [c for c, _ in errors(frames, tmp_path, {"answer": "D"} | far)] == ["coordinate_out_of_range"]
    for answer in ("A", "C"):  # no public frame: the largest one any gold image may have
        assert [c for c, _ in errors(plain, tmp_path, {"answer": answer} | far)] == ["coordinate_out_of_range"]
    assert [c for c, _ in errors(frames, tmp_path, {"response": "?"} | far)] == ["coordinate_out_of_range"]


def test_the_red_team_probe_learns_nothing_about_the_gold(frames, tmp_path):
    """attacks.md finding 1: this line's error printed 100 x (w + h) of the gold image."""
    twin = gold_of(
        tmp_path, [scb_record("f1", "A", 120, 80, [rect_polygon(1, 1, 9, 9)], image_id="f1-A", options=OPTIONS)]
    )
    for letter in "ABCD":
        found = errors(frames, tmp_path, {"answer": letter} | RED_TEAM_PROBE)
        assert found == errors(twin, tmp_path, {"answer": letter} | RED_TEAM_PROBE), letter
    [(code, message)] = errors(frames, tmp_path, {"answer": "D"} | RED_TEAM_PROBE)  # 8,000,000 px in D's frame
    assert (
        code == "polygon_too_complex"
        and message == "polygon outline is longer than 1,000,000 px in pixels of the image"
    )
    assert errors(frames, tmp_path, {"answer": "C"} | RED_TEAM_PROBE) == []  # 600,000 px in the gold image's frame


def test_far_polygons_are_refused_like_far_boxes(frames, tmp_path):
    tiny_far = {"answer": "C", "polygon": [[1e12, 1e12, 1e12 + 1, 1e12, 1e12, 1e12 + 1]]}
    assert [c for c, _ in errors(frames, tmp_path, tiny_far)] == ["coordinate_out_of_range"]


@pytest.mark.parametrize(
    "line",
    [
        {"bbox": [12, 8, 44, 61]},
        {"bbox": [40, 40, 230, 260], "bbox_format": "xyxy_1000"},
        {"bbox": [40, 40, 230, 260], "bbox_format": "yxyx_1000"},
        {"bbox": [0.04, 0.05, 0.2, 0.3], "bbox_format": "xyxy_norm"},
        {"bbox": [10, 10, 30, 25], "bbox_format": "xywh", "bbox_ref_size": [150, 100]},
        {"polygon": [[10, 10, 60, 12, 30, 70]], "bbox_ref_size": [600, 400]},
        {"polygon": SQUARE},
    ],
)
def test_a_correct_answer_scores_the_same_with_or_without_options(frames, plain, line):
    assert line_iou(frames, 0, {"answer": "C"} | line) == line_iou(plain, 0, {"answer": "C"} | line)


def test_wrong_answers_in_another_frame_are_valid_and_not_grounded(frames, tmp_path):
    lines = [{"question_id": "f1", "answer": "D", "bbox": [0.5, 0.5, 0.9, 0.9], "bbox_format": "xyxy_norm"}]
    result = scoring.score_file("scb", frames, write_lines(tmp_path / "sub.jsonl", lines))
    assert result.overall["acc"] == 0 and result.counts["grounded"] == 0


# --------------------------------------------------------------------------- gold loading


def with_option(k: int, **change) -> list[dict]:
    return [o | change if i == k else o for i, o in enumerate(OPTIONS)]


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (OPTIONS[:3], "4 option images"),
        ("A B C D", "4 option images"),
        (with_option(0, letter="B"), "letter order"),
        (with_option(2, width=301), "differs in width/height"),
        (with_option(2, image_id="other"), "image_id"),
        (with_option(1, height=0), "option B"),
        (with_option(3, width=10_001), "option D"),
        ([*OPTIONS[:3], {"image_id": "x"}], "option D"),
    ],
)
def test_bad_options_are_a_gold_error(tmp_path, options, words):
    with pytest.raises(GoldError, match=words) as e:
        gold_of(tmp_path, [scb_record("f1", "C", 300, 200, SQUARE, options=options)])
    assert "record 1" in str(e.value) and "300" not in str(e.value)  # names the record, never a size


def test_a_gold_image_beyond_the_largest_side_is_a_gold_error(tmp_path):
    with pytest.raises(GoldError, match="10,000"):
        gold_of(tmp_path, [scb_record("f1", "A", 10_001, 20, [rect_polygon(1, 1, 9, 9)])])


def test_options_are_part_of_the_gold_version_in_jsonl_and_parquet(scb_small_records, tmp_path):
    pd = pytest.importorskip("pandas")
    records = with_options(scb_small_records, seed=1)
    jsonl = gold_of(tmp_path, records)
    assert jsonl.version != gold_of(tmp_path, scb_small_records, "plain").version
    frame = pd.DataFrame(records)
    frame["segmentation"] = [json.dumps(s) for s in frame["segmentation"]]
    frame.to_parquet(tmp_path / "gold.parquet")
    assert scoring.load_gold("scb", tmp_path / "gold.parquet").version == jsonl.version
    sizes = jsonl.extra["option_sizes"]
    assert sizes.shape == (15, 4, 2) and (sizes > 0).all()


# --------------------------------------------------------------------------- minimum coverage


def test_min_coverage_is_a_whole_file_error_naming_the_missing(scb_square_gold, tmp_path):
    lines = [{"question_id": "q1", "answer": "A"}, {"question_id": "q2", "answer": "B"}]
    path = write_lines(tmp_path / "sub.jsonl", lines)
    assert scoring.score_file("scb", scb_square_gold, path).counts["missing"] == 1  # off unless asked
    assert scoring.score_file("scb", scb_square_gold, path, min_coverage=0.6).counts["missing"] == 1
    with pytest.raises(SubmissionError) as e:
        scoring.score_file("scb", scb_square_gold, path, min_coverage=0.95)
    [issue] = e.value.issues
    assert (issue.code, issue.line) == ("too_few_answers", 0)
    assert "2 of 3" in issue.message and "1 missing" in issue.message and "at least 3 (95%)" in issue.message


def test_min_coverage_comes_with_the_line_errors_and_counts_exactly(scb_square_gold, tmp_path):
    lines = [{"question_id": "q1", "answer": "E"}, {"question_id": "q2", "answer": "B"}]
    path = write_lines(tmp_path / "sub.jsonl", lines)
    with pytest.raises(SubmissionError) as e:
        scoring.score_file("scb", scb_square_gold, path, min_coverage=1.0)
    assert [(i.code, i.line) for i in e.value.issues] == [("bad_answer", 1), ("too_few_answers", 0)]
    with pytest.raises(ValueError, match="share"):
        scoring.score_file("scb", scb_square_gold, path, min_coverage=95)


def test_min_coverage_threshold_is_exact(tmp_path):
    records = [scb_record(f"q{i:02d}", "A", 20, 20, [rect_polygon(1, 1, 9, 9)]) for i in range(20)]
    gold = gold_of(tmp_path, records)
    lines = [{"question_id": r["question_id"], "answer": "A"} for r in records[:19]]
    path = write_lines(tmp_path / "sub.jsonl", lines)
    assert scoring.score_file("scb", gold, path, min_coverage=0.95).counts["submitted"] == 19  # 0.95 x 20 = 19
    with pytest.raises(SubmissionError):
        scoring.score_file("scb", gold, path, min_coverage=0.951)
