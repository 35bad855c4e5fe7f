"""The fast path of validation (scoring/batch.py) against the per-line reader.

Whatever the file, validating it with the fast path allowed must give what the per-line reader
alone gives: the same Predictions (arrays, groundings, box samples, counters) or the same
SubmissionError (every issue, its line and its order). Plain files take the fast path; each
kind of unusual line sends the file to the per-line reader.
"""

from __future__ import annotations

import json
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from scoring import SubmissionError, batch
from scoring.benchmarks import get_benchmark
from scoring.engine import score_predictions, validate_file
from scoring.geometry import BOX_FORMATS, Polygons, Runs
from scoring.jsonl import Limits
from tests.support.scoring import with_options

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def framed_gold(scb_small_records, tmp_path_factory):
    """The 15-question demo gold with public option sizes (box samples are taken in them)."""
    path = tmp_path_factory.mktemp("framed") / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in with_options(scb_small_records, seed=3)))
    return scoring.load_gold("scb", path)


@pytest.fixture(scope="module", params=["plain", "framed"])
def gold(request, scb_small_gold, framed_gold):
    return scb_small_gold if request.param == "plain" else framed_gold


def plain_lines(gold, fmt: str = "xyxy") -> list[dict]:
    """A valid file: every question, answers cycling A-D, a valid box in ``fmt`` on most lines."""
    lines = []
    for k, key in enumerate(gold.keys):
        line = {"question_id": key, "answer": "ABCD"[k % 4]}
        if k % 5:
            line["bbox"] = {"xywh": [10, 20.5, 30, 40]}.get(fmt, [0.01 * k, 0.2, 0.5 + 0.01 * k, 0.75])
            if fmt in ("xyxy", "xyxy_1000", "yxyx_1000"):
                line["bbox"] = [v * (1000 if fmt != "xyxy" else 600) for v in line["bbox"]]
        lines.append(line)
    return lines


def encode(lines: list) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def comparable(grounding: object) -> object:
    """A grounding as a value that compares by content (Polygons compare by identity, Runs hold arrays)."""
    if isinstance(grounding, Polygons):
        return "polygons", [part.tolist() for part in grounding.parts], grounding.ref
    if isinstance(grounding, Runs):
        return "runs", grounding.height, grounding.width, grounding.starts.tolist(), grounding.lengths.tolist()
    return grounding


def outcome(gold, content: bytes, fast: bool, **kwargs):
    """What validate_file gives (Predictions as plain values, and their scores) or the issues it raises."""
    with mock.patch.object(batch, "read_plain", wraps=batch.read_plain if fast else lambda *a: None):
        try:
            p = validate_file("scb", gold, content, **kwargs)
        except SubmissionError as e:
            return "error", [(i.code, i.line, i.field, i.message) for i in e.issues], e.total
    return (
        "predictions",
        p.benchmark,
        p.gold_version,
        p.letters.dtype,
        p.letters.tolist(),
        p.submitted.dtype,
        p.submitted.tolist(),
        [(row, comparable(g)) for row, g in p.groundings.items()],
        [type(g) for g in p.groundings.values()],
        (p.unparsed, p.lenient, p.responses, p.unparsed_lines),
        p.box_samples,
        score_predictions("scb", gold, p).to_dict(),  # the fast path's boxes meet the gold in one pass
    )


def assert_same(gold, content: bytes, **kwargs) -> tuple:
    fast = outcome(gold, content, True, **kwargs)
    assert fast == outcome(gold, content, False, **kwargs)
    return fast


def takes_fast_path(gold, content: bytes, fmt: str = "xyxy") -> bool:
    return batch.read_plain(get_benchmark("scb"), gold, content, fmt, Limits()) is not None


@pytest.mark.parametrize("fmt", list(BOX_FORMATS))
def test_a_plain_file_takes_the_fast_path_with_the_same_result(gold, fmt):
    content = encode(plain_lines(gold, fmt))
    assert takes_fast_path(gold, content, fmt)
    result = assert_same(gold, content, bbox_format=fmt)
    assert result[0] == "predictions" and len(result[7]) == 12
    assert len(result[10]) == (12 if gold.extra["option_sizes"].any() else 0)


def test_plain_variants_stay_on_the_fast_path(gold):
    lines = plain_lines(gold)
    lines[0]["bbox"] = None  # a null box: no grounding, as per line
    lines[1]["note"] = "fields the benchmark does not read are ignored"
    lines[2]["answer"] = " (b) "
    lines[3]["response"] = "ignored when an answer is given"
    del lines[4:6]  # missing questions are allowed
    content = encode(lines).replace(b"\n", b"\r\n")
    assert takes_fast_path(gold, content)
    assert_same(gold, content)
    assert_same(gold, content, min_coverage=1.0)  # too few answers: the same whole-file error


def test_a_file_without_boxes_stays_on_the_fast_path(gold):
    content = encode([{"question_id": key, "answer": "ABCD"[k % 4]} for k, key in enumerate(gold.keys)])
    assert takes_fast_path(gold, content)
    result = assert_same(gold, content, check_box_format=True)
    assert result[0] == "predictions" and result[7] == [] and result[10] == ()


def test_box_lookups_give_the_per_line_readers_boxes(gold):
    content = encode(plain_lines(gold, "xyxy_1000"))
    fast = outcome(gold, content, True, bbox_format="xyxy_1000")[7]
    slow = dict(outcome(gold, content, False, bbox_format="xyxy_1000")[7])
    assert fast == list(slow.items())
    plain = batch.read_plain(get_benchmark("scb"), gold, content, "xyxy_1000", Limits())
    groundings = plain.groundings
    assert groundings == slow and slow == groundings and len(groundings) == len(slow)
    assert all(groundings[row] == box and groundings.get(row) == box for row, box in slow.items())
    assert groundings.get(-1) is None and -1 not in groundings


def _set(k: int, field: str, value):
    def change(lines: list) -> list:
        lines[k][field] = value
        return lines

    return change


def _drop(k: int, field: str):
    def change(lines: list) -> list:
        del lines[k][field]
        return lines

    return change


FALLBACKS = {
    "unknown id": _set(3, "question_id", "scb-99999"),
    "id not a string": _set(3, "question_id", 385),
    "missing id": _drop(3, "question_id"),
    "duplicate id": lambda lines: [*lines, dict(lines[2])],
    "missing answer": _drop(3, "answer"),
    "a response instead of an answer": lambda lines: _drop(3, "answer")(_set(3, "response", "The answer is C")(lines)),
    "answer not a string": _set(3, "answer", 2),
    "answer not a letter": _set(3, "answer", "E"),
    "long answer": _set(3, "answer", "A" + " " * 20),
    "polygon": _set(3, "polygon", [[1, 1, 50, 1, 50, 50]]),
    "null polygon": _set(3, "polygon", None),
    "mask": _set(3, "mask", {"size": [10, 10], "counts": [0, 100]}),
    "per-line format": _set(3, "bbox_format", "xyxy"),
    "reference size": _set(3, "bbox_ref_size", [100, 100]),
    "box of 3 numbers": _set(3, "bbox", [1, 2, 3]),
    "box with a bool": _set(3, "bbox", [True, 2, 30, 40]),
    "box with a string": _set(3, "bbox", ["1", 2, 30, 40]),
    "box not a list": _set(3, "bbox", {"x": 1}),
    "inverted box": _set(3, "bbox", [30, 40, 10, 20]),
    "degenerate box": _set(3, "bbox", [10, 40, 10, 50]),
    "huge coordinate": _set(3, "bbox", [10, 20, 3e7, 50]),
    "integer beyond a float": _set(3, "bbox", [10, 20, 10**400, 50]),
    "line not an object": lambda lines: [*lines[:3], [1, 2], *lines[3:]],
}


@pytest.mark.parametrize("name", list(FALLBACKS))
def test_each_unusual_line_sends_the_file_to_the_per_line_reader(gold, name):
    content = encode(FALLBACKS[name](plain_lines(gold)))
    assert not takes_fast_path(gold, content)
    assert_same(gold, content)


def test_a_file_of_polygons_is_turned_away_after_its_first_lines(gold):
    content = encode(FALLBACKS["polygon"](plain_lines(gold)))
    with mock.patch.object(batch, "PROBE_LINES", 4), mock.patch.object(batch, "_read", wraps=batch._read) as read:
        assert not takes_fast_path(gold, content)
    assert [len(call.args[2]) for call in read.call_args_list] == [4]  # never parsed whole


@pytest.mark.parametrize("name", ["unknown id", "duplicate id", "polygon", "inverted box", "answer not a letter"])
def test_an_unusual_line_past_the_first_lines_is_caught_too(gold, name):
    lines = plain_lines(gold)
    changed = FALLBACKS[name]([dict(line) for line in lines[:3]] + [lines[10]])
    content = encode(lines[:10] + changed[3:] + lines[11:])  # line 11 changed (or a copy of line 3 added)
    with mock.patch.object(batch, "PROBE_LINES", 4):
        assert not takes_fast_path(gold, content)
        assert_same(gold, content)


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("blank line", lambda c: c.replace(b"\n", b"\n\n", 1)),
        ("byte order mark", lambda c: b"\xef\xbb\xbf" + c),
        ("invalid JSON", lambda c: c.replace(b"}", b"", 1)),
        ("two objects on a line", lambda c: c.replace(b"}\n", b"}, ", 1)),
        ("not UTF-8", lambda c: c.replace(b"scb-", b"scb\xff", 1)),
        ("19 digits", lambda c: c.replace(b'"answer"', b'"n": 1234567890123456789, "answer"', 1)),
        ("many brackets", lambda c: c.replace(b'"answer"', b'"n": "' + b"[" * 300 + b'", "answer"', 1)),
        ("NaN", lambda c: c.replace(b'"answer"', b'"n": NaN, "answer"', 1)),
        ("empty file", lambda c: b""),
        ("whitespace only", lambda c: b" \n"),
    ],
)
def test_each_unusual_byte_sends_the_file_to_the_per_line_reader(gold, name, change):
    content = change(encode(plain_lines(gold)))
    assert not takes_fast_path(gold, content)
    assert_same(gold, content)


def test_limits_send_the_file_to_the_per_line_reader(gold):
    content = encode(plain_lines(gold))
    bench = get_benchmark("scb")
    assert batch.read_plain(bench, gold, content, "xyxy", Limits(max_lines=14)) is None
    assert batch.read_plain(bench, gold, content, "xyxy", Limits(max_bytes=len(content) - 1)) is None
    assert batch.read_plain(bench, gold, content, "xyxy", Limits(max_line_bytes=40)) is None
    assert_same(gold, content, limits=Limits(max_lines=14))
    assert_same(gold, content, limits=Limits(max_line_bytes=40))


def test_a_file_path_reads_as_its_bytes(gold, tmp_path):
    content = encode(plain_lines(gold))
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    assert outcome(gold, path, True) == outcome(gold, content, False)


ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["A", "b", "(C)", "E", "", "scb-00001", "xyxy", "xyxy_norm", "0"]),
    st.lists(st.one_of(st.integers(-2000, 2000), st.floats(-2000, 2000), st.booleans()), max_size=5),
    st.just({"size": [10, 10], "counts": [0, 100]}),
)
FIELDS = st.sampled_from(["question_id", "answer", "bbox", "response", "polygon", "bbox_format", "bbox_ref_size", "x"])
MUTATION = st.tuples(st.integers(0, 14), FIELDS, st.one_of(ODD_VALUES, st.just("<drop>")))


@FUZZ
@given(
    fmt=st.sampled_from(list(BOX_FORMATS)),
    mutations=st.lists(MUTATION, max_size=3),
    bytes_cut=st.one_of(st.none(), st.integers(0, 2000)),
    probe=st.sampled_from([batch.PROBE_LINES, 4]),
)
def test_fast_and_per_line_agree_on_mutated_files(gold, fmt, mutations, bytes_cut, probe):
    lines = plain_lines(gold, fmt)
    for k, field, value in mutations:
        if value == "<drop>":
            lines[k].pop(field, None)
        else:
            lines[k][field] = value
    content = encode(lines)
    if bytes_cut is not None:
        content = content[:bytes_cut]
    with mock.patch.object(batch, "PROBE_LINES", probe):  # 4: the 15-line files are read past the probe
        assert_same(gold, content, bbox_format=fmt)
        assert_same(gold, content, bbox_format=fmt, check_box_format=True)


@pytest.mark.parametrize("where", ["first", "last"])
@pytest.mark.parametrize("odd", [b"null", b" null\t", b"[]", b'"scb-00000"', b"1", b"\r", b" \t"])
def test_a_line_that_is_not_an_object_at_either_end(gold, where, odd):
    """``null`` is not a blank line: both paths call it not an object (the per-line reader used to
    skip it, as orjson's None looked like 'nothing decoded')."""
    lines = [json.dumps(line).encode() for line in plain_lines(gold)]
    lines = [odd, *lines] if where == "first" else [*lines, odd]
    for ending in (b"", b"\n"):
        content = b"\n".join(lines) + ending
        result = assert_same(gold, content)
        if odd.strip() not in (b"", b"\r"):
            assert result[0] == "error" and ("not_object", len(lines) if where == "last" else 1) in [
                issue[:2] for issue in result[1]
            ]


def test_limits_at_their_exact_boundaries(gold):
    """A file exactly at each limit is read (by either path), one byte or line less is refused the same way."""
    for ending in (b"\n", b""):
        content = encode(plain_lines(gold)).removesuffix(b"\n") + ending
        lines, longest = content.count(b"\n") + (ending == b""), max(map(len, content.split(b"\n")))
        for delta in (-1, 0, 1):
            assert_same(gold, content, limits=Limits(max_lines=lines + delta))
            assert_same(gold, content, limits=Limits(max_bytes=len(content) + delta))
            assert_same(gold, content, limits=Limits(max_line_bytes=longest + delta))


NUMBER_SPELLINGS = [
    "-0.0", "-0", "0", "5.0", "1e3", "1E2", "2.5e1", "1e-320", "1e308", "1e400", "9999999", "10000000",
    "10000001", "123456789012345678", "1234567890123456789", "0.9999999999999999", "1000.0000000000001",
    "true", "null", '"1"', "[1]", "{}", "NaN", "-Infinity",
]  # fmt: skip
ANSWER_SPELLINGS = [
    '"A"', '"b"', '"(C)"', '" D "', '"B."', '"\\u0041"', '"\\t c\\n"', '"[a]"', '"E"', '""', '"\\uff21"',
    '"\\u00a0B"', '"AB"', '"A                    "', "1", "null", '["A"]',
]  # fmt: skip
SAME_NUMBER_BOXES = ["[0, 1, -0.0, 30]", "[5, 1, 5.0, 30]", "[5, 1, 5e0, 30]", "[0.5, 1, 0.5000000000000001, 3]"]
EXTRA_FIELDS = [
    '"response": "The answer is B"', '"response": 3', '"polygon": null', '"bbox_format": null', '"mask": null',
    '"question_id": "scb-99999"', '"answer": "E"', '"answer": "a"', '"bbox": [1, 2, 30, 40]', '"note": "\\ud800"',
    '"note": {"a": [1, {"b": null}]}', '"n": 12345678901234567890', '"n": 1e999',
]  # fmt: skip


@st.composite
def written_line(draw, key: str) -> bytes:
    """A line for ``key`` as a team might write it, byte for byte: the id plain, escaped or
    unknown, the answer in any spelling, a box in any JSON number spelling, duplicate keys, padding."""
    ids = [json.dumps(key), '"' + "".join(f"\\u{ord(c):04x}" for c in key) + '"', json.dumps(f" {key}"), "385"]
    fields = [f'"question_id": {draw(st.sampled_from(ids))}', f'"answer": {draw(st.sampled_from(ANSWER_SPELLINGS))}']
    if draw(st.booleans()):  # the same number in two spellings: a degenerate box, or a tiny one
        fields.append(f'"bbox": {draw(st.sampled_from(SAME_NUMBER_BOXES))}')
    elif draw(st.booleans()):
        numbers = st.one_of(
            st.sampled_from(NUMBER_SPELLINGS), st.floats(0, 1000).map(repr), st.integers(0, 999).map(str)
        )
        fields.append(f'"bbox": [{", ".join(draw(st.lists(numbers, min_size=3, max_size=5)))}]')
    fields += draw(st.lists(st.sampled_from(EXTRA_FIELDS), max_size=2))
    pad = st.sampled_from(["", " ", "\t"])
    return (draw(pad) + "{" + ", ".join(draw(st.permutations(fields))) + "}" + draw(pad)).encode()


@FUZZ
@given(data=st.data(), fmt=st.sampled_from(list(BOX_FORMATS)), ending=st.sampled_from([b"\n", b"\r\n", b"\r", b""]))
def test_fast_and_per_line_agree_on_written_lines(gold, data, fmt, ending):
    """Plain lines with a few written ones anywhere (the first and last lines included), in a file
    ending with or without a newline, read past the probe."""
    plain = plain_lines(gold, fmt)
    keys, lines = [line["question_id"] for line in plain], [json.dumps(line).encode() for line in plain]
    for _ in range(data.draw(st.integers(0, 3))):
        key = data.draw(st.sampled_from(list(gold.keys)))
        if key in keys and data.draw(st.booleans()):  # in place of that question's line, else a second line
            del lines[keys.index(key)], keys[keys.index(key)]
        k = data.draw(st.sampled_from([0, len(lines), data.draw(st.integers(0, len(lines)))]))
        lines.insert(k, data.draw(written_line(key)))
        keys.insert(k, key)
    content = b"\n".join(line + (ending if ending != b"\n" and data.draw(st.booleans()) else b"") for line in lines)
    content += data.draw(st.sampled_from([b"", b"\n"]))
    with mock.patch.object(batch, "PROBE_LINES", 4):
        assert_same(gold, content, bbox_format=fmt, check_box_format=data.draw(st.booleans()))
