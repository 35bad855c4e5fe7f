"""Raw grounding (SPEC "Raw model outputs"): each family's literal model output scores as the
equivalent pixel box; the Qwen2.5-VL frames are the published ones; an output that names no box
is an unparsed grounding, counted and listed whatever the answer.

Literal outputs come from the sources in ../shared/notes/reviews/turn3/model-and-harness-formats.md
(section 1.1): quoted where the note quotes one, else the note's illustrative example of the grammar.
"""

from __future__ import annotations

import json

import pytest

import scoring
from scoring import SubmissionError, batch
from scoring.engine import score_file, validate_file
from scoring.grounding_formats import (
    FAMILIES,
    QWEN_PIXEL_PRESETS,
    UNPARSED_GROUNDING,
    find_boxes,
    kosmos_patch_box,
    parse_format,
    smart_resize,
)
from scoring.jsonl import Limits
from tests.support.scoring import compile_gold, line_iou, rect_polygon, scb_record, with_options

W, H = 2355, 1794  # the issue's example image: not square, so an axis swap shows


@pytest.fixture(scope="module")
def gold(tmp_path_factory) -> scoring.Gold:
    """Two questions on a 2355 x 1794 image (answers A and B); the gold is a two-part region."""
    seg = [rect_polygon(300, 200, 1400, 1300), rect_polygon(1500, 900, 2200, 1700)]
    records = [scb_record("q1", "A", W, H, seg, type=1), scb_record("q2", "B", W, H, seg, type=2)]
    return compile_gold("scb", tmp_path_factory.mktemp("raw") / "gold.jsonl", with_options(records, same_size=1.0))


def raw_iou(gold, text: str, fmt: str, **line) -> float:
    return line_iou(
        gold, 0, {"question_id": "q1", "answer": "A", "grounding_response": text, "grounding_format": fmt, **line}
    )


def pixel_iou(gold, box: list[float]) -> float:
    return line_iou(gold, 0, {"question_id": "q1", "answer": "A", "bbox": box})


def polygon_iou(gold, parts: list[list[float]]) -> float:
    return line_iou(gold, 0, {"question_id": "q1", "answer": "A", "polygon": parts})


def per_mille(values, width=W, height=H) -> list[float]:
    """x1 y1 x2 y2 on a 0-1000 grid -> pixels, as the /1000 families define it."""
    a, b, c, d = values
    return [a * (width / 1000), b * (height / 1000), c * (width / 1000), d * (height / 1000)]


# --- smart_resize: the published frames -------------------------------------------------------

FRAMES = {
    # image: {preset: frame}, the issue's table (and the note's 4000 x 3000 row)
    (2355, 1794): {
        "hub": (2352, 1792),
        "transformers": (1120, 868),
        "lmms-eval": (1428, 1092),
        "vlmevalkit": (2352, 1792),
    },
    (640, 480): {"hub": (644, 476), "transformers": (644, 476), "lmms-eval": (644, 476), "vlmevalkit": (1176, 868)},
    (4000, 3000): {
        "hub": (4004, 2996),
        "transformers": (1148, 840),
        "lmms-eval": (1456, 1092),
        "vlmevalkit": (4004, 2996),
    },
}


@pytest.mark.parametrize("image", list(FRAMES))
@pytest.mark.parametrize("preset", list(QWEN_PIXEL_PRESETS))
def test_qwen2_5_vl_frames_are_the_published_ones(image, preset):
    low, high = QWEN_PIXEL_PRESETS[preset]
    assert smart_resize(*image, low, high) == FRAMES[image][preset]
    assert parse_format(f"qwen2_5_vl:{preset}").frame(*image) == FRAMES[image][preset]


def test_the_presets_are_the_stacks_limits():
    assert QWEN_PIXEL_PRESETS == {
        "hub": (3136, 12845056),
        "transformers": (56 * 56, 28 * 28 * 1280),
        "lmms-eval": (256 * 28 * 28, 1605632),
        "vlmevalkit": (1280 * 28 * 28, 16384 * 28 * 28),
    }
    assert parse_format("qwen2_5_vl").frame(W, H) == (2352, 1792)  # the default is the Hub config
    assert parse_format("qwen2_5_vl:200704,1605632").frame(W, H) == (1428, 1092)


def test_smart_resize_keeps_multiples_of_28_within_the_limits():
    for width, height in [(1, 1), (27, 5000), (10000, 10000), (333, 777), (9999, 50)]:
        for low, high in QWEN_PIXEL_PRESETS.values():
            w, h = smart_resize(width, height, low, high)
            assert w % 28 == 0 and h % 28 == 0 and w >= 28 and h >= 28
            assert w * h <= high
    with pytest.raises(ValueError):
        smart_resize(10000, 40, 3136, 12845056)  # aspect ratio 250 > 200
    assert smart_resize(5000, 30, 1, 28 * 28) == (336, 28)  # a tiny custom budget: a side of 28, never 0


# --- each family: a literal output scores as its pixel box ------------------------------------


def test_qwen2_vl(gold):
    text = "<|object_ref_start|>the dog<|object_ref_end|><|box_start|>(69,306),(250,988)<|box_end|><|im_end|>"
    assert raw_iou(gold, text, "qwen2_vl") == pytest.approx(pixel_iou(gold, per_mille([69, 306, 250, 988])), abs=1e-12)
    # decoded with skip_special_tokens the box tokens are gone; the pair of points remains
    assert raw_iou(gold, "(69,306),(250,988)", "qwen2_vl") == raw_iou(gold, text, "qwen2_vl")


@pytest.mark.parametrize("preset", list(QWEN_PIXEL_PRESETS))
def test_qwen2_5_vl_in_each_preset_frame(gold, preset):
    text = '```json\n[{"bbox_2d": [135, 114, 1016, 672], "label": "house"}]\n```'
    fw, fh = FRAMES[(W, H)][preset]
    expected = pixel_iou(gold, [135 * (W / fw), 114 * (H / fh), 1016 * (W / fw), 672 * (H / fh)])
    assert raw_iou(gold, text, f"qwen2_5_vl:{preset}") == pytest.approx(expected, abs=1e-12)
    # the same numbers under bbox + bbox_ref_size (the hand conversion) give the same IoU
    by_hand = line_iou(
        gold, 0, {"question_id": "q1", "answer": "A", "bbox": [135, 114, 1016, 672], "bbox_ref_size": [fw, fh]}
    )
    assert raw_iou(gold, text, f"qwen2_5_vl:{preset}") == pytest.approx(by_hand, abs=1e-12)


def test_qwen3_vl(gold):
    text = '```json\n[\n  {"bbox_2d": [135, 114, 716, 672], "label": "house"}\n]\n```'
    assert raw_iou(gold, text, "qwen3_vl") == pytest.approx(pixel_iou(gold, per_mille([135, 114, 716, 672])), abs=1e-12)


def test_internvl_with_and_without_box_tags(gold):
    expected = pixel_iou(gold, per_mille([123, 45, 678, 901]))
    assert raw_iou(gold, "<ref>the man</ref><box>[[123, 45, 678, 901]]</box>", "internvl") == pytest.approx(expected)
    assert raw_iou(gold, "[[123, 45, 678, 901]]", "internvl") == pytest.approx(expected)


def test_gemini_is_y_first(gold):
    text = '```json\n[\n  {"box_2d": [269, 39, 782, 530], "label": "kitten"}\n]\n```'
    expected = pixel_iou(gold, per_mille([39, 269, 530, 782]))
    assert raw_iou(gold, text, "gemini") == pytest.approx(expected, abs=1e-12)
    assert raw_iou(gold, text, "gemini") != pytest.approx(pixel_iou(gold, per_mille([269, 39, 782, 530])))


def test_florence2_reads_bin_centres(gold):
    text = "car<loc_52><loc_333><loc_932><loc_774>"
    expected = pixel_iou(gold, per_mille([52.5, 333.5, 932.5, 774.5]))
    assert raw_iou(gold, text, "florence2") == pytest.approx(expected, abs=1e-12)


def test_kosmos2_maps_patches_as_transformers_does(gold):
    # transformers' Kosmos2Processor docstring: "a snowman" -> (0.390625, 0.046875, 0.984375, 0.828125)
    text = "<grounding> An image of<phrase> a snowman</phrase><object><patch_index_0044><patch_index_0863></object>"
    assert find_boxes(text, FAMILIES["kosmos2"]) == [(0.390625, 0.046875, 0.984375, 0.828125)]
    expected = pixel_iou(gold, [0.390625 * W, 0.046875 * H, 0.984375 * W, 0.828125 * H])
    assert raw_iou(gold, text, "kosmos2") == pytest.approx(expected, abs=1e-12)
    # one cell, or corners in one row: cell edges (patch_index_to_coordinate's other branches)
    assert kosmos_patch_box(33, 33) == (1 / 32, 1 / 32, 2 / 32, 2 / 32)
    assert kosmos_patch_box(32, 40) == (0.0, 1 / 32, 9 / 32, 2 / 32)


def test_kosmos2_several_objects_are_a_union(gold):
    text = (
        "<object><patch_index_0044><patch_index_0863></delimiter_of_multi_objects/>"
        "<patch_index_0000><patch_index_0033></object>"
    )
    boxes = find_boxes(text, FAMILIES["kosmos2"])
    assert len(boxes) == 2
    parts = [rect_polygon(b[0] * W, b[1] * H, b[2] * W, b[3] * H) for b in boxes]
    assert raw_iou(gold, text, "kosmos2") == pytest.approx(polygon_iou(gold, parts), abs=1e-9)


def test_cogvlm_reads_zero_padded_numbers(gold):
    assert raw_iou(gold, "[[086,540,400,760]]", "cogvlm") == pytest.approx(
        pixel_iou(gold, per_mille([86, 540, 400, 760]))
    )
    text = "Grounded Operation:[combobox] Search -> TYPE: CogVLM at the box [[212,498,787,564]]"
    assert raw_iou(gold, text, "cogvlm") == pytest.approx(pixel_iou(gold, per_mille([212, 498, 787, 564])), abs=1e-12)


def test_plain_reads_the_first_four_numbers_in_the_bbox_format(gold):
    # LLaVA under lmms-eval's REC prompt answers normalised floats
    text = "The bounding box is [0.12, 0.34, 0.56, 0.78]. Also 5, 6, 7, 8."
    expected = pixel_iou(gold, [0.12 * W, 0.34 * H, 0.56 * W, 0.78 * H])
    assert raw_iou(gold, text, "plain", bbox_format="xyxy_norm") == pytest.approx(expected, abs=1e-12)
    assert raw_iou(gold, "[300, 200, 1400, 1300]", "plain") == pytest.approx(pixel_iou(gold, [300, 200, 1400, 1300]))
    assert raw_iou(gold, "300 200 1100 1100", "plain", bbox_format="xywh") == pytest.approx(
        pixel_iou(gold, [300, 200, 1400, 1300])
    )
    # bbox_ref_size: pixels of a resized input
    ref = raw_iou(gold, "[150, 100, 700, 650]", "plain", bbox_ref_size=[W / 2, H / 2])
    assert ref == pytest.approx(pixel_iou(gold, [300, 200, 1400, 1300]))


def test_every_family_of_spec_is_declared():
    assert list(FAMILIES) == [
        "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "gemini", "florence2", "kosmos2", "cogvlm", "plain",
    ]  # fmt: skip
    for family in FAMILIES.values():
        assert family.prints and family.grid and family.axes and family.source


# --- the shared rules: wrapping, several boxes, what is not a box ------------------------------


def test_think_and_fences_are_stripped_first(gold):
    text = "<think>maybe [[1, 2, 3, 4]] or [[5, 6, 7, 8]]</think>\n```json\n[[123, 45, 678, 901]]\n```"
    assert find_boxes(text, FAMILIES["internvl"]) == [(123.0, 45.0, 678.0, 901.0)]
    assert raw_iou(gold, text, "internvl") == pytest.approx(pixel_iou(gold, per_mille([123, 45, 678, 901])))


def test_several_boxes_are_scored_as_their_union(gold):
    text = json.dumps([{"bbox_2d": [127, 111, 594, 724]}, {"bbox_2d": [637, 502, 934, 947]}])
    parts = [rect_polygon(*per_mille([127, 111, 594, 724])), rect_polygon(*per_mille([637, 502, 934, 947]))]
    union = raw_iou(gold, text, "qwen3_vl")
    assert union == pytest.approx(polygon_iou(gold, parts), abs=1e-9)
    assert union > raw_iou(gold, json.dumps([{"bbox_2d": [127, 111, 594, 724]}]), "qwen3_vl")
    # a repeated box (a model looping) changes nothing
    repeated = json.dumps([{"bbox_2d": [127, 111, 594, 724]}] * 50 + [{"bbox_2d": [637, 502, 934, 947]}])
    assert raw_iou(gold, repeated, "qwen3_vl") == union


def test_inverted_corners_are_ordered_and_flat_boxes_dropped(gold):
    assert raw_iou(gold, "[[678, 901, 123, 45]]", "internvl") == raw_iou(gold, "[[123, 45, 678, 901]]", "internvl")
    assert raw_iou(gold, "[[5, 5, 5, 900]] [[123, 45, 678, 901]]", "internvl") == raw_iou(
        gold, "[[123, 45, 678, 901]]", "internvl"
    )


def test_values_beyond_the_grid_are_clipped_as_rasterising_does(gold):
    assert raw_iou(gold, '{"box_2d": [-20, 39, 1200, 530]}', "gemini") == pytest.approx(
        pixel_iou(gold, per_mille([39, 0, 530, 1000]))
    )


@pytest.mark.parametrize(
    ("fmt", "text"),
    [
        ("qwen2_5_vl", "I cannot see any artifact in this image."),
        ("gemini", '[{"bbox_2d": [1, 2, 3, 4]}]'),  # another family's key
        ("florence2", "<loc_1><loc_2><loc_3>"),  # three bins are no box
        ("kosmos2", "<patch_index_0044><patch_index_1024>"),  # beyond the 32 x 32 grid
        ("cogvlm", "[[1086,540,400,760]]"),  # four digits are no CogVLM number
        ("plain", "box: 1, 2, 3"),
        ("internvl", "[[5, 5, 5, 900]]"),  # zero width: nothing left
    ],
)
def test_no_box_is_an_unparsed_grounding(gold, fmt, text):
    bench = scoring.get_benchmark("scb")
    line = {"question_id": "q1", "answer": "A", "grounding_response": text}
    assert bench.read_line(line, gold, 0, "xyxy", "A", grounding_format=fmt) is UNPARSED_GROUNDING


# --- through the engine: counts, listing, errors, the fast path --------------------------------


def _file(lines: list[dict]) -> bytes:
    return "\n".join(json.dumps(x) for x in lines).encode()


def test_unparsed_groundings_are_counted_and_listed_whatever_the_answer(gold):
    text = "There is no such artifact."
    right = [{"question_id": "q1", "answer": "A", "grounding_response": text}]
    wrong = [{"question_id": "q1", "answer": "C", "grounding_response": text}]
    for lines in (right, wrong):
        lines = lines + [{"question_id": "q2", "answer": "B", "grounding_response": "[[0, 0, 1000, 1000]]"}]
        result = score_file("scb", gold, _file(lines), grounding_format="internvl")
        assert result.counts["grounding_unparsed"] == 1
        assert [(u.line, u.text, u.kind) for u in result.unparsed_lines] == [(1, text, "grounding")]
    result = score_file("scb", gold, _file(right), grounding_format="internvl")
    assert result.overall["acc"] == 50 and result.overall["miou"] == 0  # IoU 0 (not "no grounding"), never a guess


def test_an_unparsed_grounding_scores_as_a_correct_answer_without_grounding(gold):
    none = [{"question_id": "q1", "answer": "A"}, {"question_id": "q2", "answer": "B", "bbox": [300, 200, 1400, 1300]}]
    unparsed = [dict(none[0], grounding_response="no box"), none[1]]
    a = score_file("scb", gold, _file(none))
    b = score_file("scb", gold, _file(unparsed), grounding_format="gemini")
    assert a.overall == b.overall and a.overall["miou"] > 0
    assert "grounding_unparsed" not in a.counts and b.counts["grounding_unparsed"] == 1


def test_the_line_format_overrides_the_submission_format(gold):
    lines = [
        {
            "question_id": "q1",
            "answer": "A",
            "grounding_response": '{"box_2d": [269, 39, 782, 530]}',
            "grounding_format": "gemini",
        },
        {"question_id": "q2", "answer": "B", "grounding_response": "[[123, 45, 678, 901]]"},
    ]
    result = score_file("scb", gold, _file(lines), grounding_format="internvl")
    expected = score_file(
        "scb", gold, _file([
            {"question_id": "q1", "answer": "A", "bbox": per_mille([39, 269, 530, 782])},
            {"question_id": "q2", "answer": "B", "bbox": per_mille([123, 45, 678, 901])},
        ]),
    )  # fmt: skip
    assert result.overall["miou"] == pytest.approx(expected.overall["miou"], abs=1e-9)


def test_grounding_responses_without_a_format_are_one_whole_file_issue(gold):
    lines = [{"question_id": q, "answer": "A", "grounding_response": "[[1, 2, 300, 400]]"} for q in ("q1", "q2")]
    with pytest.raises(SubmissionError) as e:
        validate_file("scb", gold, _file(lines))
    assert [(i.code, i.line) for i in e.value.issues] == [("missing_grounding_format", 1)]
    assert "2 line(s)" in e.value.issues[0].message


def test_unknown_formats_are_refused(gold):
    lines = [{"question_id": "q1", "answer": "A", "grounding_response": "[[1, 2, 300, 400]]"}]
    with pytest.raises(SubmissionError) as e:
        validate_file("scb", gold, _file(lines), grounding_format="qwen25")
    assert e.value.issues[0].code == "unknown_grounding_format" and e.value.issues[0].line == 0
    for bad in ("qwen2_5_vl:huge", "gemini:hub", "qwen2_5_vl:9,3"):
        with pytest.raises(SubmissionError) as e:
            validate_file("scb", gold, _file([dict(lines[0], grounding_format=bad)]))
        assert e.value.issues[0].code == "unknown_grounding_format" and e.value.issues[0].line == 1


def test_a_grounding_response_is_one_grounding_of_at_most_one(gold):
    lines = [{"question_id": "q1", "answer": "A", "bbox": [1, 2, 3, 4], "grounding_response": "[[1, 2, 300, 400]]"}]
    with pytest.raises(SubmissionError) as e:
        validate_file("scb", gold, _file(lines), grounding_format="internvl")
    assert e.value.issues[0].code == "multiple_grounding"
    lines = [{"question_id": "q1", "answer": "A", "grounding_response": ["[[1, 2, 300, 400]]"]}]
    with pytest.raises(SubmissionError) as e:
        validate_file("scb", gold, _file(lines), grounding_format="internvl")
    assert e.value.issues[0].code == "bad_grounding_response"
    lines = [{"question_id": "q1", "answer": "A", "grounding_response": "[[1, 2, 3, 4]]", "bbox_ref_size": [10, 10]}]
    with pytest.raises(SubmissionError) as e:
        validate_file("scb", gold, _file(lines), grounding_format="internvl")
    assert e.value.issues[0].code == "bad_bbox_ref_size"


def test_kviscuit_refuses_a_grounding_response(tmp_path):
    from tests.support.scoring import REAL_KVISCUIT

    if not REAL_KVISCUIT.is_file():
        pytest.skip("K-Viscuit annotations not found")
    gold = scoring.load_gold("kviscuit", REAL_KVISCUIT)
    with pytest.raises(SubmissionError) as e:
        validate_file("kviscuit", gold, _file([{"question_id": 0, "answer": "A", "grounding_response": "[[1,2,3,4]]"}]))
    assert e.value.issues[0].code == "grounding_not_supported"


def test_grounding_response_files_leave_the_fast_path_and_read_alike(gold):
    lines = [
        {"question_id": "q1", "answer": "A", "grounding_response": "[[123, 45, 678, 901]]"},
        {"question_id": "q2", "answer": "B", "bbox": per_mille([123, 45, 678, 901])},
    ]
    bench = scoring.get_benchmark("scb")
    assert batch.read_plain(bench, gold, _file(lines), "xyxy", Limits()) is None
    result = score_file("scb", gold, _file(lines), grounding_format="internvl")
    pixel = score_file("scb", gold, _file([dict(lines[1], question_id="q1", answer="A"), lines[1]]))
    assert result.overall["miou"] == pytest.approx(pixel.overall["miou"], abs=1e-9)


def test_the_examples_of_docs_submitting_read_as_documented(gold):
    """docs/submitting.md's one line per family: each names a region in its declared format, and
    the four that print the same 0-1000 box (x first or, for Gemini, y first) score alike."""
    from tests.support.scoring import REPO_ROOT

    guide = (REPO_ROOT / "docs" / "submitting.md").read_text(encoding="utf-8")
    block = guide.split("### Raw model outputs", 1)[1].split("```jsonl\n", 1)[1].split("\n```", 1)[0]
    examples = [json.loads(text) for text in block.splitlines()]
    assert sorted({parse_format(x["grounding_format"]).family.name for x in examples}) == sorted(FAMILIES)
    bench = scoring.get_benchmark("scb")
    ious = {}
    for example in examples:
        line = example | {"question_id": "q1", "answer": "A"}
        assert bench.read_line(line, gold, 0, "xyxy", "A") is not UNPARSED_GROUNDING, example
        ious[example["grounding_format"]] = line_iou(gold, 0, line)
    same = [ious[f] for f in ("qwen3_vl", "internvl", "gemini", "cogvlm")]
    assert same == [pytest.approx(same[0], abs=1e-12)] * 4 and same[0] > 0.1


def test_a_response_of_too_many_or_too_long_boxes_is_a_line_error():
    """Bounds as for polygons: at most MAX_BOXES distinct boxes, an outline of at most
    MAX_OUTLINE pixels of the answered image (pycocotools' work grows with it)."""
    from scoring.errors import LineError
    from scoring.geometry import MAX_OUTLINE
    from scoring.grounding_formats import MAX_BOXES, read_grounding_response

    internvl = parse_format("internvl")
    many = " ".join(f"[[{k}, 0, {k + 500}, 1000]]" for k in range(MAX_BOXES + 1))
    with pytest.raises(LineError) as e:
        read_grounding_response(many, internvl, (1000, 1000))
    assert e.value.code == "too_many_boxes"
    fewer = " ".join(f"[[{k}, 0, {k + 500}, 1000]]" for k in range(MAX_BOXES))
    assert len(read_grounding_response(fewer, internvl, (1000, 1000)).parts) == MAX_BOXES  # 100 x 3,000 px
    side = 10_000  # the largest image: 100 boxes of 30,000 px outline each
    assert MAX_BOXES * 2 * (side / 2 + side) > MAX_OUTLINE
    with pytest.raises(LineError) as e:
        read_grounding_response(fewer, internvl, (side, side))
    assert e.value.code == "polygon_too_complex"
