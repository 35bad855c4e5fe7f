"""Fuzzing: whatever bytes a submitter uploads, ``score_file`` returns a ResultRecord or raises
SubmissionError, never anything else. Golds: the 15-question demo SCB gold and the demo
K-Viscuit gold.

Structured fuzzing draws JSON objects whose fields take random values (known and unknown ids,
odd answers, boxes with huge or non-finite numbers, polygons, masks, formats);
``test_structured_lines_with_huge_numbers`` adds numbers too large for a float or an int64
(regressions of fixed crashes, see test_errors.py).
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scoring
from scoring import SubmissionError

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


class Quiet:
    """Holds a fixture value under a short repr: Hypothesis prints test arguments on failure."""

    def __init__(self, name: str, value) -> None:
        self.name, self.value = name, value

    def __repr__(self) -> str:
        return self.name


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz") / "submission.jsonl"


@pytest.fixture(scope="module")
def scb_gold(scb_small_gold):
    return Quiet("<15-question demo SCB gold>", scb_small_gold)


@pytest.fixture(scope="module")
def kv_gold(kviscuit_demo_gold):
    return Quiet("<demo K-Viscuit gold>", kviscuit_demo_gold)


@pytest.fixture(scope="module")
def scb_records(scb_small_records):
    return Quiet("<15 demo SCB gold records>", scb_small_records)


def outcome(benchmark: str, gold, path, content: bytes, **kwargs):
    path.write_bytes(content)
    try:
        result = scoring.score_file(benchmark, gold, path, **kwargs)
    except SubmissionError as e:
        assert e.issues and e.total >= len(e.issues)
        assert all(isinstance(i.code, str) and i.line >= 0 for i in e.issues)
        return e
    assert isinstance(result, scoring.ResultRecord)
    json.dumps(result.to_dict(), allow_nan=False)  # a record is always valid JSON
    return result


@FUZZ
@given(content=st.binary(max_size=400))
def test_any_bytes_scb(scb_gold, fuzz_file, content):
    outcome("scb", scb_gold.value, fuzz_file, content)


@FUZZ
@given(content=st.binary(max_size=400))
def test_any_bytes_kviscuit(kv_gold, fuzz_file, content):
    outcome("kviscuit", kv_gold.value, fuzz_file, content)


@FUZZ
@given(text=st.text(alphabet=st.sampled_from('{}[]",:0123456789.eE-+ \nABCDabtrunlfsNIa"qid_'), max_size=300))
def test_json_like_text_scb(scb_gold, fuzz_file, text):
    outcome("scb", scb_gold.value, fuzz_file, text.encode("utf-8"))


SAFE_INT = 2**53
SAFE_FLOAT = 1e15


def numbers():
    """Numbers for geometry fields (the huge ones have their own test below)."""
    return st.one_of(
        st.integers(-SAFE_INT, SAFE_INT),
        st.floats(-SAFE_FLOAT, SAFE_FLOAT),
        st.sampled_from([0, 1, 1000, 0.5, -0.0, 1e-300, float("nan"), float("inf"), float("-inf")]),
    )


def values():
    scalars = st.one_of(st.none(), st.booleans(), st.text(max_size=8), numbers())
    containers = lambda inner: st.one_of(  # noqa: E731
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    )
    return st.recursive(scalars, containers, max_leaves=12)


@st.composite
def lines(draw, question_ids: list, size: tuple[int, int] | None):
    """A near-valid line: mostly a known id and a valid answer, at most one grounding usually,
    each field's value drawn from well-formed, borderline and nonsense shapes."""
    nums = numbers()
    often = st.sampled_from([True, True, True, True, False])
    line: dict = {}
    if draw(often):
        line["question_id"] = draw(st.sampled_from(question_ids)) if draw(often) else draw(values())
    if draw(often):
        line["answer"] = draw(st.sampled_from(["A", "b", "(c)", "D.", " a ", "E", ""]))
    elif draw(st.booleans()):
        line["response"] = draw(st.one_of(st.text(max_size=30), values()))
    names = ["bbox", "polygon", "mask", "bbox_format", "bbox_ref_size", "id_"]
    fields = draw(st.lists(st.sampled_from(names), max_size=2))
    for field in fields:
        if field == "bbox":
            line["bbox"] = draw(st.one_of(st.lists(nums, min_size=4, max_size=4), values()))
        elif field == "polygon":
            flat = st.lists(nums, max_size=10)
            pairs = st.lists(st.lists(nums, min_size=1, max_size=3), max_size=6)
            line["polygon"] = draw(st.one_of(st.lists(flat, max_size=3), st.lists(pairs, max_size=2), values()))
        elif field == "mask":
            mask_size = list(size) if size and draw(often) else draw(st.lists(nums, max_size=3))
            counts = draw(st.one_of(st.text(max_size=12), st.lists(nums, max_size=8)))
            line["mask"] = {"size": mask_size, "counts": counts}
        elif field == "bbox_format":
            known = ["xyxy", "xywh", "xyxy_norm", "xyxy_1000", "yxyx_1000", "cxcy"]
            line["bbox_format"] = draw(st.one_of(st.sampled_from(known), values()))
        elif field == "bbox_ref_size":
            # tiny positive sizes once scaled coordinates to infinity and crashed pycocotools
            ref = st.one_of(
                st.floats(1e-3, 1e6), st.integers(-5, 10**6), st.sampled_from([0, -1.5, float("nan"), 1e-300])
            )
            line["bbox_ref_size"] = draw(st.one_of(st.lists(ref, min_size=2, max_size=2), st.text(max_size=5)))
        else:
            line["id_"] = draw(values())
    return line


def dump(objs) -> bytes:
    return "\n".join(json.dumps(o, allow_nan=True) for o in objs).encode("utf-8")


STRUCTURED = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@STRUCTURED
@given(data=st.data())
def test_structured_lines_scb(scb_gold, fuzz_file, data):
    size = (int(scb_gold.value.extra["height"][0]), int(scb_gold.value.extra["width"][0]))
    objs = data.draw(st.lists(lines(list(scb_gold.value.keys), size), min_size=1, max_size=5))
    fmt = data.draw(st.sampled_from(["xyxy", "xywh", "xyxy_norm", "xyxy_1000", "yxyx_1000"]))
    outcome("scb", scb_gold.value, fuzz_file, dump(objs), bbox_format=fmt)


@STRUCTURED
@given(data=st.data())
def test_structured_lines_kviscuit(kv_gold, fuzz_file, data):
    objs = data.draw(st.lists(lines([0, 1, 2, "3", 656, 657, -1], None), min_size=1, max_size=5))
    outcome("kviscuit", kv_gold.value, fuzz_file, dump(objs))


@st.composite
def huge_number_lines(draw, question_ids: list, size: tuple[int, int]):
    """A valid line except for one geometry field holding a number too large for a float or int64."""
    huge = draw(st.one_of(st.integers(10**309, 10**400), st.integers(-(10**400), -(10**309)), st.just(1e300)))
    small = st.integers(0, 100)
    line = {"question_id": draw(st.sampled_from(question_ids)), "answer": draw(st.sampled_from("ABCD"))}
    field = draw(st.sampled_from(["bbox", "polygon", "bbox_ref_size", "mask"]))
    if field == "mask":
        line["mask"] = {"size": list(size), "counts": [huge, size[0] * size[1]]}
        return line
    values = draw(st.lists(small, min_size={"bbox": 4, "polygon": 6, "bbox_ref_size": 2}[field], max_size=6))
    values = values[: {"bbox": 4, "bbox_ref_size": 2}.get(field, len(values))]
    values[draw(st.integers(0, len(values) - 1))] = huge
    line[field] = [values] if field == "polygon" else values
    return line


# Regression: integers too large for a float (valid JSON) in bbox / polygon / bbox_ref_size, and
# mask counts too large for int64, once raised OverflowError out of score_file.
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_structured_lines_with_huge_numbers(scb_gold, fuzz_file, data):
    size = (int(scb_gold.value.extra["height"][0]), int(scb_gold.value.extra["width"][0]))
    line = data.draw(huge_number_lines(list(scb_gold.value.keys), size))
    outcome("scb", scb_gold.value, fuzz_file, dump([line]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_valid_submissions_always_score(scb_gold, scb_records, fuzz_file, data):
    """Well-formed lines (any subset of questions, any valid grounding) always give a record with
    figures in range."""
    lines = []
    for rec in data.draw(st.lists(st.sampled_from(scb_records.value), unique_by=lambda r: r["question_id"])):
        w, h = rec["width"], rec["height"]
        line = {"question_id": rec["question_id"], "answer": data.draw(st.sampled_from("ABCD"))}
        kind = data.draw(st.sampled_from(["none", "bbox", "polygon"]))
        if kind == "bbox":
            x0 = data.draw(st.floats(-w, 2 * w))
            y0 = data.draw(st.floats(-h, 2 * h))
            line["bbox"] = [x0, y0, x0 + data.draw(st.floats(0.01, 3 * w)), y0 + data.draw(st.floats(0.01, 3 * h))]
        elif kind == "polygon":
            pts = data.draw(st.lists(st.tuples(st.floats(-w, 2 * w), st.floats(-h, 2 * h)), min_size=3, max_size=8))
            line["polygon"] = [[c for p in pts for c in p]]
        lines.append(line)
    result = outcome("scb", scb_gold.value, fuzz_file, dump(lines) if lines else b"")
    if not lines:
        assert isinstance(result, SubmissionError)
        return
    assert isinstance(result, scoring.ResultRecord), result
    for name in ("acc", "miou", "gacc50", "ciou"):
        value = result.overall.get(name)
        assert value is None or (math.isfinite(value) and 0 <= value <= 100)
