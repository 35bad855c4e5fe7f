"""Format errors: one case per error code, compared as (code, line) pairs, never by wording.

Gold used: the 3-question square gold (``q1``/``q2``/``q3``, answers A/B/C, 200 x 100 images) and
the demo K-Viscuit gold (657 rows; row 0 has ``id_`` "Food.1.0").
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scoring
from scoring import Limits, SubmissionError
from tests.support.scoring import REPO_ROOT, write_lines

OK = '{"question_id": "q1", "answer": "A"}'
BIG_INT = "1" + "0" * 400  # a JSON integer no float can hold


def issues(exc: SubmissionError) -> list[tuple[str, int]]:
    return [(i.code, i.line) for i in exc.issues]


def score_lines(gold, tmp_path, lines, benchmark="scb", **kwargs):
    path = write_lines(tmp_path / "sub.jsonl", lines)
    return scoring.score_file(benchmark, gold, path, **kwargs)


def errors_of(gold, tmp_path, lines, benchmark="scb", **kwargs) -> list[tuple[str, int]]:
    with pytest.raises(SubmissionError) as e:
        score_lines(gold, tmp_path, lines, benchmark, **kwargs)
    assert e.value.total == len(e.value.issues) or e.value.total > 20
    return issues(e.value)


def line(**fields) -> str:
    return json.dumps({"question_id": "q1", "answer": "A"} | fields)


SCB_CASES = {
    "json_decode": ([OK, '{"question_id": "q2", "answer": "B"'], [("json_decode", 2)]),
    "json_decode_trailing_comma": (['{"question_id": "q1", "answer": "A",}'], [("json_decode", 1)]),
    "json_decode_deep_nesting": (["[" * 100_000 + "]" * 100_000], [("json_decode", 1)]),
    "not_object": ([OK, "[1, 2]", '"q2"', "3"], [("not_object", 2), ("not_object", 3), ("not_object", 4)]),
    "not_object_null": ([OK, "null", " null "], [("not_object", 2), ("not_object", 3)]),  # not a blank line
    "missing_question_id": ([OK, '{"answer": "B"}'], [("missing_question_id", 2)]),
    "unknown_question_id": (
        [
            '{"question_id": "nope", "answer": "A"}',
            '{"question_id": 1, "answer": "A"}',
            '{"question_id": null, "answer": "A"}',
        ],
        [("unknown_question_id", 1), ("unknown_question_id", 2), ("unknown_question_id", 3)],
    ),
    "duplicate_question_id": ([OK, '{"question_id": "q2", "answer": "B"}', OK], [("duplicate_question_id", 3)]),
    "bad_answer": (
        [line(answer="E"), line(answer="AB").replace("q1", "q2"), line(answer=1).replace("q1", "q3")],
        [("bad_answer", 1), ("bad_answer", 2), ("bad_answer", 3)],
    ),
    "bad_answer_null": ([line(answer=None)], [("bad_answer", 1)]),
    "missing_answer": (
        ['{"question_id": "q1"}', '{"question_id": "q2", "bbox": [1, 1, 5, 5]}'],
        [("missing_answer", 1), ("missing_answer", 2)],
    ),
    "bad_response": (
        ['{"question_id": "q1", "response": 5}', '{"question_id": "q2", "response": ["A"]}'],
        [("bad_response", 1), ("bad_response", 2)],
    ),
    "non_finite_nan": ([OK.replace("}", ', "x": NaN}').replace("q1", "q2")], [("non_finite_number", 1)]),
    "non_finite_infinity": (
        ['{"question_id": "q1", "answer": "A", "bbox": [0, 0, Infinity, 5]}'],
        [("non_finite_number", 1)],
    ),
    "non_finite_minus_infinity": (
        ['{"question_id": "q1", "answer": "A", "bbox": [-Infinity, 0, 5, 5]}'],
        [("non_finite_number", 1)],
    ),
    "non_finite_1e999": (
        [OK.replace("q1", "q2"), '{"question_id": "q1", "answer": "A", "bbox": [0, 0, 1e999, 5]}'],
        [("non_finite_number", 2)],
    ),
    "non_finite_in_polygon": (
        ['{"question_id": "q1", "answer": "A", "polygon": [[0, 0, 5, NaN, 5, 5]]}'],
        [("non_finite_number", 1)],
    ),
    "non_finite_in_ref_size": (
        ['{"question_id": "q1", "answer": "A", "bbox": [0, 0, 5, 5], "bbox_ref_size": [1e999, 5]}'],
        [("non_finite_number", 1)],
    ),
    "inverted_box": (
        [line(bbox=[50, 10, 20, 40]), line(bbox=[10, 50, 40, 20]).replace("q1", "q2")],
        [("inverted_box", 1), ("inverted_box", 2)],
    ),
    "inverted_box_xywh": ([line(bbox=[10, 10, -5, 20], bbox_format="xywh")], [("inverted_box", 1)]),
    "inverted_box_yxyx": ([line(bbox=[10, 500, 20, 400], bbox_format="yxyx_1000")], [("inverted_box", 1)]),
    "degenerate_box": (
        [line(bbox=[10, 10, 10, 40]), line(bbox=[10, 10, 0, 30], bbox_format="xywh").replace("q1", "q2")],
        [("degenerate_box", 1), ("degenerate_box", 2)],
    ),
    "box_out_of_range_norm": ([line(bbox=[0, 0, 1.5, 0.5], bbox_format="xyxy_norm")], [("box_out_of_range", 1)]),
    "box_out_of_range_1000": ([line(bbox=[0, 0, 1001, 10], bbox_format="xyxy_1000")], [("box_out_of_range", 1)]),
    "box_out_of_range_yxyx": ([line(bbox=[-1, 0, 10, 10], bbox_format="yxyx_1000")], [("box_out_of_range", 1)]),
    "bad_bbox": (
        [line(bbox="0 0 5 5"), line(bbox=[1, 2, 3]).replace("q1", "q2"), line(bbox=[1, 2, "3", 4]).replace("q1", "q3")],
        [("bad_bbox", 1), ("bad_bbox", 2), ("bad_bbox", 3)],
    ),
    "bad_bbox_bool": ([line(bbox=[True, 0, 5, 5])], [("bad_bbox", 1)]),
    "polygon_too_few_points": (
        [line(polygon=[[0, 0, 10, 0]]), line(polygon=[[[0, 0], [5, 5]]]).replace("q1", "q2")],
        [("polygon_too_few_points", 1), ("polygon_too_few_points", 2)],
    ),
    "bad_polygon": (
        [
            line(polygon="x"),
            line(polygon=[]).replace("q1", "q2"),
            line(polygon=[[0, 0, 10, 0, 10]]).replace("q1", "q3"),
        ],
        [("bad_polygon", 1), ("bad_polygon", 2), ("bad_polygon", 3)],
    ),
    "bad_polygon_values": (
        [line(polygon=[[0, 0, "a", 0, 10, 10]]), line(polygon=[[[0, 0, 1], [5, 5], [9, 0]]]).replace("q1", "q2")],
        [("bad_polygon", 1), ("bad_polygon", 2)],
    ),
    "polygon_too_complex": ([line(polygon=[[0, 0, 1e7, 0, 1e7, 1e7]])], [("polygon_too_complex", 1)]),
    "bad_mask_counts_sum": ([line(mask={"size": [100, 200], "counts": [0, 5, 5]})], [("bad_mask", 1)]),
    "bad_mask_negative": ([line(mask={"size": [100, 200], "counts": [-5, 20005]})], [("bad_mask", 1)]),
    "bad_mask_alphabet": ([line(mask={"size": [100, 200], "counts": "\u00e9\u00e9"})], [("bad_mask", 1)]),
    "bad_mask_not_rle": (
        [line(mask=[1, 2, 3]), line(mask={"size": [100, 200]}).replace("q1", "q2")],
        [("bad_mask", 1), ("bad_mask", 2)],
    ),
    "mask_size_mismatch": ([line(mask={"size": [200, 100], "counts": [0, 20000]})], [("mask_size_mismatch", 1)]),
    "multiple_grounding": ([line(bbox=[0, 0, 5, 5], polygon=[[0, 0, 5, 0, 5, 5]])], [("multiple_grounding", 1)]),
    "unknown_bbox_format_line": (
        [line(bbox=[0, 0, 5, 5], bbox_format="cxcywh"), line(bbox_format=3).replace("q1", "q2")],
        [("unknown_bbox_format", 1), ("unknown_bbox_format", 2)],
    ),
    "bad_bbox_ref_size": (
        [
            line(bbox=[0, 0, 5, 5], bbox_ref_size=[0, 10]),
            line(bbox_ref_size=[10]).replace("q1", "q2"),
            line(bbox_ref_size="x").replace("q1", "q3"),
        ],
        [("bad_bbox_ref_size", 1), ("bad_bbox_ref_size", 2), ("bad_bbox_ref_size", 3)],
    ),
    "bad_bbox_ref_size_normalised": (
        [line(bbox=[0, 0, 5, 5], bbox_format="xyxy_1000", bbox_ref_size=[10, 10])],
        [("bad_bbox_ref_size", 1)],
    ),
    "encoding": ([OK, b'{"question_id": "q2", "answer": "\xff"}'], [("encoding", 2)]),
    "encoding_latin1": ([b'{"question_id": "q1", "answer": "A", "note": "caf\xe9"}'], [("encoding", 1)]),
    "errors_on_several_lines_in_file_order": (
        ['{"question_id": "zz", "answer": "A"}', "not json", line(answer="Z").replace("q1", "q2")],
        [("unknown_question_id", 1), ("json_decode", 2), ("bad_answer", 3)],
    ),
}


@pytest.mark.parametrize(("lines", "expected"), list(SCB_CASES.values()), ids=list(SCB_CASES))
def test_scb_line_errors(scb_square_gold, tmp_path, lines, expected):
    assert errors_of(scb_square_gold, tmp_path, lines) == expected


# Regression: an integer literal too large for a float (400 digits, valid JSON) once escaped
# score_file as an OverflowError. SPEC: a file with errors is reported, never a crash.
BIG_INT_CASES = {
    "in_bbox": [f'{{"question_id": "q1", "answer": "A", "bbox": [{BIG_INT}, 0, 5, 5]}}'],
    "in_polygon": [f'{{"question_id": "q1", "answer": "A", "polygon": [[{BIG_INT}, 0, 5, 5, 6, 7]]}}'],
    "in_bbox_ref_size": [f'{{"question_id": "q1", "answer": "A", "bbox_ref_size": [{BIG_INT}, 5]}}'],
}


@pytest.mark.parametrize("lines", list(BIG_INT_CASES.values()), ids=list(BIG_INT_CASES))
def test_huge_integer_is_a_format_error_not_a_crash(scb_square_gold, tmp_path, lines):
    with pytest.raises(SubmissionError) as e:
        score_lines(scb_square_gold, tmp_path, lines)
    assert issues(e.value)[0][1] == 1


# Regression: mask counts too large for int64 (e.g. 1e300) once raised OverflowError.
def test_mask_counts_too_large_is_bad_mask_not_a_crash(scb_square_gold, tmp_path):
    assert errors_of(scb_square_gold, tmp_path, [line(mask={"size": [100, 200], "counts": [1e300, 5]})]) == [
        ("bad_mask", 1)
    ]


# Regression: a positive but tiny bbox_ref_size (1e-300) once scaled box coordinates to infinity
# and math.trunc(NaN) raised ValueError out of score_file.
def test_tiny_bbox_ref_size_is_a_format_error_not_a_crash(scb_square_gold, tmp_path):
    lines = [line(bbox=[1e10, 1e10, 2e10, 2e10], bbox_ref_size=[1e-300, 1e-300])]
    found = errors_of(scb_square_gold, tmp_path, lines)
    assert len(found) == 1 and found[0][1] == 1
    assert found[0][0] in {"bad_bbox_ref_size", "non_finite_number", "box_out_of_range"}


# Regression (was severe: one line killed the scoring process): a tiny bbox_ref_size scaled polygon
# coordinates to infinity, the outline guard compared NaN and let them reach pycocotools' C
# rasteriser, which segfaulted (exit -11 under a 3 GB address-space limit).
# Run in a subprocess with a memory limit so that the crash cannot take pytest down.
def test_tiny_bbox_ref_size_on_a_polygon_does_not_crash_the_process(scb_square_gold_path, tmp_path):
    sub = write_lines(tmp_path / "sub.jsonl", [line(polygon=[[1e10, 0, 1e10, 50, 0, 50]], bbox_ref_size=[1e-300, 100])])

    def limit_memory():  # runs in the child only
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))

    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "scoring", "score", "--benchmark", "scb", "--gold",
         str(scb_square_gold_path), "--predictions", str(sub), "--json", "--no-cache"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, preexec_fn=limit_memory,
    )  # fmt: skip
    assert proc.returncode == 2, f"exit {proc.returncode}: {proc.stderr[-500:]}"
    errors = json.loads(proc.stdout)["errors"]
    assert [e["line"] for e in errors] == [1]
    assert errors[0]["code"] in {"bad_bbox_ref_size", "non_finite_number", "polygon_too_complex"}


def test_unknown_bbox_format_for_the_whole_submission(scb_square_gold, tmp_path):
    assert errors_of(scb_square_gold, tmp_path, [OK], bbox_format="cxcywh") == [("unknown_bbox_format", 0)]


def test_file_level_errors_come_before_reading(scb_square_gold, tmp_path):
    assert errors_of(scb_square_gold, tmp_path, [OK], limits=Limits(max_bytes=10)) == [("file_too_large", 0)]


def test_line_too_long_is_reported_and_reading_goes_on(scb_square_gold, tmp_path):
    long_line = json.dumps({"question_id": "q2", "answer": "B", "pad": "x" * 500})
    lines = [OK, long_line, "not json"]
    assert errors_of(scb_square_gold, tmp_path, lines, limits=Limits(max_line_bytes=200)) == [
        ("line_too_long", 2),
        ("json_decode", 3),
    ]


def test_too_many_lines(scb_square_gold, tmp_path):
    lines = [OK, "", "", "", ""]  # blank lines count as lines of the file
    assert errors_of(scb_square_gold, tmp_path, lines, limits=Limits(max_lines=3)) == [("too_many_lines", 4)]


def test_too_many_lines_by_default_is_twice_the_gold_plus_1000(scb_square_gold, tmp_path):
    assert errors_of(scb_square_gold, tmp_path, [""] * 1007) == [("too_many_lines", 1007)]
    with pytest.raises(SubmissionError) as e:  # 1006 lines are read: only blank, so the file is empty
        score_lines(scb_square_gold, tmp_path, [""] * 1006)
    assert issues(e.value) == [("empty_file", 0)]


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf\n"])
def test_empty_file(scb_square_gold, tmp_path, content):
    path = tmp_path / "sub.jsonl"
    path.write_bytes(content)
    with pytest.raises(SubmissionError) as e:
        scoring.score_file("scb", scb_square_gold, path)
    assert issues(e.value) == [("empty_file", 0)]


# --------------------------------------------------------------------------- K-Viscuit


KV_CASES = {
    "id_mismatch": (['{"question_id": 0, "answer": "A", "id_": "Food.9.9"}'], [("id_mismatch", 1)]),
    "grounding_not_supported": (
        ['{"question_id": 0, "answer": "A", "bbox": [0, 0, 5, 5]}', '{"question_id": 1, "answer": "A", "mask": {}}'],
        [("grounding_not_supported", 1), ("grounding_not_supported", 2)],
    ),
    "unknown_question_id": (
        [
            '{"question_id": 657, "answer": "A"}',
            '{"question_id": -1, "answer": "A"}',
            '{"question_id": true, "answer": "A"}',
            '{"question_id": "x1", "answer": "A"}',
        ],
        [
            ("unknown_question_id", 1),
            ("unknown_question_id", 2),
            ("unknown_question_id", 3),
            ("unknown_question_id", 4),
        ],
    ),
    "duplicate_question_id_int_and_str": (
        ['{"question_id": 5, "answer": "A"}', '{"question_id": "5", "answer": "B"}'],
        [("duplicate_question_id", 2)],
    ),
    "bad_answer": (['{"question_id": 0, "answer": "0"}'], [("bad_answer", 1)]),
}


@pytest.mark.parametrize(("lines", "expected"), list(KV_CASES.values()), ids=list(KV_CASES))
def test_kviscuit_line_errors(kviscuit_demo_gold, tmp_path, lines, expected):
    assert errors_of(kviscuit_demo_gold, tmp_path, lines, benchmark="kviscuit") == expected


def test_kviscuit_matching_id_is_accepted(kviscuit_demo_gold, kviscuit_demo_records, tmp_path):
    row0 = kviscuit_demo_records[0]
    lines = [{"question_id": 0, "answer": "ABCD"[row0["answer"]], "id_": row0["id_"]}]
    result = score_lines(kviscuit_demo_gold, tmp_path, lines, benchmark="kviscuit")
    assert result.overall["correct"] == 1
    assert result.counts["missing"] == 656


# --------------------------------------------------------------------------- tolerated input


def test_bom_is_accepted(scb_square_gold, tmp_path):
    path = tmp_path / "sub.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + OK.encode() + b"\n")
    assert scoring.score_file("scb", scb_square_gold, path).overall["correct"] == 1


def test_bom_on_a_later_line_is_an_error(scb_square_gold, tmp_path):
    lines = [OK, b"\xef\xbb\xbf" + b'{"question_id": "q2", "answer": "B"}']
    assert errors_of(scb_square_gold, tmp_path, lines) == [("json_decode", 2)]


def test_blank_lines_and_crlf_are_skipped(scb_square_gold, tmp_path):
    path = tmp_path / "sub.jsonl"
    path.write_bytes(b'\n{"question_id": "q1", "answer": "A"}\r\n   \n\t\n{"question_id": "q2", "answer": "B"}')
    result = scoring.score_file("scb", scb_square_gold, path)
    assert (result.overall["correct"], result.counts["submitted"], result.counts["missing"]) == (2, 2, 1)


def test_only_the_first_20_issues_are_listed_but_all_are_counted(scb_square_gold, tmp_path):
    lines = [f'{{"question_id": "x{i}", "answer": "A"}}' for i in range(50)]
    with pytest.raises(SubmissionError) as e:
        score_lines(scb_square_gold, tmp_path, lines)
    assert e.value.total == 50
    assert issues(e.value) == [("unknown_question_id", n) for n in range(1, 21)]
    assert "30 more" in e.value.summary()


def test_missing_questions_are_not_an_error(scb_square_gold, tmp_path):
    result = score_lines(scb_square_gold, tmp_path, [OK])
    assert result.counts == {"questions": 3, "submitted": 1, "missing": 2, "unparsed": 0, "grounded": 0}
    assert result.overall["acc"] == pytest.approx(100 / 3)  # missing questions count as wrong


@pytest.mark.parametrize(
    ("answer", "letter"),
    [("(b)", "B"), ("B.", "B"), (" c ", "C"), ("a", "A"), ("[D]", "D"), ("A)", "A"), ("( c )", "C"), ("d.", "D")],
)
def test_answer_normalisation(scb_square_gold, tmp_path, answer, letter):
    """SPEC: any case, surrounding whitespace, one pair of brackets, a trailing '.' or ')'."""
    gold_answer = {"A": "q1", "B": "q2", "C": "q3"}
    lines = [{"question_id": qid, "answer": answer} for qid in ("q1", "q2", "q3")]
    result = score_lines(scb_square_gold, tmp_path, lines)
    assert result.overall["correct"] == (1 if letter in gold_answer else 0)
    if letter in gold_answer:
        t = {"q1": "1", "q2": "2", "q3": "3"}[gold_answer[letter]]
        assert result.groups["type"][t]["correct"] == 1


@pytest.mark.parametrize("answer", ["E", "AB", "answer A", "((a))", "", " ", "B..", "1", "Ａ"])
def test_other_answer_values_are_errors(scb_square_gold, tmp_path, answer):
    assert errors_of(scb_square_gold, tmp_path, [line(answer=answer)]) == [("bad_answer", 1)]
