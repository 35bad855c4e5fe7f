"""Geometry on the gold grid, checked against pycocotools, shapely and hand-computed areas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pycocotools import mask as coco_mask
from shapely.geometry import Polygon

import scoring
from scoring import geometry
from scoring.errors import LineError
from scoring.geometry import Runs, box_cells, decode_counts, scale_polygons, to_image_box
from tests.support.scoring import compile_gold, line_iou, rect_polygon, runs_to_dense, scb_record

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def coco_dense_box(x: float, y: float, w: float, h: float, height: int, width: int) -> np.ndarray:
    rles = coco_mask.frPyObjects(np.array([[x, y, w, h]], dtype=float), height, width)
    return coco_mask.decode(rles)[:, :, 0]


def coco_dense_polygons(parts: list[list[float]], height: int, width: int) -> np.ndarray:
    rles = coco_mask.frPyObjects(parts, height, width)
    return coco_mask.decode(coco_mask.merge(rles))


def cells_dense(cells: tuple[int, int, int, int], height: int, width: int) -> np.ndarray:
    c0, c1, r0, r1 = cells
    out = np.zeros((height, width), dtype=np.uint8)
    if c1 >= c0 and r1 > r0:
        out[r0:r1, c0 : c1 + 1] = 1
    return out


def runs_iou(a: Runs, b: Runs) -> float:
    inter = a.intersect(b)
    return inter / (a.area + b.area - inter)


@st.composite
def pixel_boxes(draw, width: int, height: int, outside: float = 0.0):
    """(x0, y0, x1, y1) floats, at least 0.5 px per side, optionally reaching outside."""
    x0 = draw(st.floats(-outside * width, width - 1, allow_nan=False))
    y0 = draw(st.floats(-outside * height, height - 1, allow_nan=False))
    x1 = draw(st.floats(x0 + 0.5, width * (1 + outside) + 1, allow_nan=False))
    y1 = draw(st.floats(y0 + 0.5, height * (1 + outside) + 1, allow_nan=False))
    return x0, y0, x1, y1


# --------------------------------------------------------------------------- a small gold


@pytest.fixture(scope="module")
def shapes_gold(tmp_path_factory):
    """Rows of one module-wide gold, by name:
    square: 1000 x 500 image, gold the integer rectangle [100, 50]-[600, 300];
    blob:   1000 x 500 image, gold an irregular 12-gon;
    two:    400 x 300 image, gold two overlapping rectangles [20, 20]-[120, 120] and [80, 60]-[200, 160]."""
    blob = [
        500,
        40,
        700,
        80,
        820,
        200,
        760,
        330,
        640,
        460,
        480,
        420,
        330,
        470,
        220,
        380,
        190,
        250,
        240,
        120,
        350,
        90,
        420,
        30,
    ]
    records = [
        scb_record("square", "A", 1000, 500, [rect_polygon(100, 50, 600, 300)]),
        scb_record("blob", "A", 1000, 500, [[float(v) for v in blob]]),
        scb_record("two", "A", 400, 300, [rect_polygon(20, 20, 120, 120), rect_polygon(80, 60, 200, 160)]),
    ]
    gold = compile_gold("scb", tmp_path_factory.mktemp("shapes") / "gold.jsonl", records)
    return gold, {r["question_id"]: gold.index[r["question_id"]] for r in records}, records


# --------------------------------------------------------------------------- IoU properties


@SETTINGS
@given(data=st.data())
def test_iou_symmetric_and_in_unit_interval(data):
    width, height = data.draw(st.integers(1, 300)), data.draw(st.integers(1, 300))
    a = Runs.from_box(*data.draw(pixel_boxes(width, height, 0.3)), height, width)
    b = Runs.from_box(*data.draw(pixel_boxes(width, height, 0.3)), height, width)
    assert a.intersect(b) == b.intersect(a)
    if a.area and b.area:
        iou = runs_iou(a, b)
        assert 0.0 <= iou <= 1.0
        assert iou == runs_iou(b, a)
        assert runs_iou(a, a) == 1.0


@SETTINGS
@given(data=st.data())
def test_integer_boxes_give_the_analytic_iou(shapes_gold, data):
    """An integer box [x0, y0, x1, y1] covers exactly pixels x0..x1-1, y0..y1-1: the IoU with the
    integer rectangle gold is overlap area / union area by hand."""
    gold, rows, _ = shapes_gold
    x0 = data.draw(st.integers(0, 999))
    x1 = data.draw(st.integers(x0 + 1, 1000))
    y0 = data.draw(st.integers(0, 499))
    y1 = data.draw(st.integers(y0 + 1, 500))
    gx0, gy0, gx1, gy1 = 100, 50, 600, 300
    inter = max(0, min(x1, gx1) - max(x0, gx0)) * max(0, min(y1, gy1) - max(y0, gy0))
    union = (x1 - x0) * (y1 - y0) + (gx1 - gx0) * (gy1 - gy0) - inter
    line = {"question_id": "square", "answer": "A", "bbox": [x0, y0, x1, y1]}
    assert line_iou(gold, rows["square"], line) == pytest.approx(inter / union, abs=1e-12)
    # the same box as a polygon goes through pycocotools' polygon path: same pixels
    poly = {"question_id": "square", "answer": "A", "polygon": [rect_polygon(x0, y0, x1, y1)]}
    assert line_iou(gold, rows["square"], poly) == pytest.approx(inter / union, abs=1e-12)


def test_hand_computed_iou_cases(shapes_gold):
    gold, rows, _ = shapes_gold
    row = rows["square"]  # gold 500 x 250 = 125,000 px
    cases = [
        ([100, 50, 600, 300], 1.0),  # the gold box itself
        ([100, 50, 350, 300], 0.5),  # its left half
        ([100, 50, 600, 175], 0.5),  # its top half
        ([0, 0, 1000, 500], 125_000 / 500_000),  # the whole image
        ([600, 300, 700, 400], 0.0),  # touching a corner only
        ([350, 175, 850, 425], 31_250 / (250_000 - 31_250)),  # shifted by half a side both ways
    ]
    for box, iou in cases:
        assert line_iou(gold, row, {"bbox": box}) == pytest.approx(iou, abs=1e-12), box


# --------------------------------------------------------------------------- box formats


@st.composite
def eighth_boxes(draw):
    """A box on the eighths of an image whose sides make every format exact in binary:
    x/width and y/height are multiples of 1/8, and width/1000, height/1000 are exact scales."""
    width, height = draw(st.sampled_from([(1000, 500), (2000, 1000), (1000, 1000), (4000, 2000)]))
    i0, i1 = sorted(draw(st.lists(st.integers(0, 8), min_size=2, max_size=2, unique=True)))
    j0, j1 = sorted(draw(st.lists(st.integers(0, 8), min_size=2, max_size=2, unique=True)))
    return width, height, (i0 / 8, j0 / 8, i1 / 8, j1 / 8)


def written_in_every_format(width: int, height: int, fx0: float, fy0: float, fx1: float, fy1: float) -> dict:
    x0, y0, x1, y1 = fx0 * width, fy0 * height, fx1 * width, fy1 * height
    return {
        "xyxy": [x0, y0, x1, y1],
        "xywh": [x0, y0, x1 - x0, y1 - y0],
        "xyxy_norm": [fx0, fy0, fx1, fy1],
        "xyxy_1000": [fx0 * 1000, fy0 * 1000, fx1 * 1000, fy1 * 1000],
        "yxyx_1000": [fy0 * 1000, fx0 * 1000, fy1 * 1000, fx1 * 1000],
    }


@SETTINGS
@given(case=eighth_boxes())
def test_same_box_in_all_five_formats_converts_to_the_same_pixels(case):
    width, height, fractions = case
    expected = (fractions[0] * width, fractions[1] * height, fractions[2] * width, fractions[3] * height)
    for fmt, values in written_in_every_format(width, height, *fractions).items():
        assert to_image_box(values, fmt, width, height) == expected, fmt


@SETTINGS
@given(case=eighth_boxes(), per_line=st.booleans())
def test_same_box_in_all_five_formats_scores_the_same(tmp_path_factory, case, per_line):
    width, height, fractions = case
    gold = _format_gold(tmp_path_factory, width, height)
    ious = set()
    for fmt, values in written_in_every_format(width, height, *fractions).items():
        if per_line:  # the line overrides a different submission-wide format
            ious.add(line_iou(gold, 0, {"bbox": values, "bbox_format": fmt}, "xyxy_norm"))
        else:
            ious.add(line_iou(gold, 0, {"bbox": values}, fmt))
    assert len(ious) == 1


_FORMAT_GOLDS: dict = {}


def _format_gold(tmp_path_factory, width: int, height: int) -> scoring.Gold:
    """One-question gold on a width x height image: a polygon not aligned to the eighths."""
    if (width, height) not in _FORMAT_GOLDS:
        part = [0.13 * width, 0.21 * height, 0.77 * width, 0.09 * height, 0.61 * width, 0.93 * height]
        rec = scb_record("f", "A", width, height, [[round(v, 1) for v in part]])
        path = tmp_path_factory.mktemp("fmt") / "gold.jsonl"
        _FORMAT_GOLDS[width, height] = compile_gold("scb", path, [rec])
    return _FORMAT_GOLDS[width, height]


def test_yxyx_1000_is_gemini_box_2d_order():
    assert to_image_box([100, 200, 300, 400], "yxyx_1000", width=1000, height=500) == (200.0, 50.0, 400.0, 150.0)


# --------------------------------------------------------------------------- box_cells vs pycocotools


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_box_cells_equals_pycocotools(data):
    width, height = data.draw(st.integers(1, 120)), data.draw(st.integers(1, 120))
    x0, y0, x1, y1 = data.draw(pixel_boxes(width, height, outside=0.5))
    expected = coco_dense_box(x0, y0, x1 - x0, y1 - y0, height, width)
    got = cells_dense(box_cells(x0, y0, x1, y1, height, width), height, width)
    assert np.array_equal(got, expected)
    assert Runs.from_box(x0, y0, x1, y1, height, width).area == int(expected.sum())


@pytest.mark.parametrize(
    "box",
    [(0, 0, 10, 10), (0.5, 0.5, 9.5, 9.5), (-3, -3, 4.2, 4.2), (2.3, 7.9, 30.0, 30.0), (9.9, 9.9, 10.1, 10.1)],
)
def test_box_cells_equals_pycocotools_at_edges(box):
    x0, y0, x1, y1 = box
    expected = coco_dense_box(x0, y0, x1 - x0, y1 - y0, 10, 10)
    assert np.array_equal(cells_dense(box_cells(x0, y0, x1, y1, 10, 10), 10, 10), expected)


# --------------------------------------------------------------------------- RLE decoding


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_runs_from_rle_agrees_with_pycocotools_decode(data):
    height, width = data.draw(st.integers(1, 40)), data.draw(st.integers(1, 40))
    seed = data.draw(st.integers(0, 2**32 - 1))
    density = data.draw(st.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]))
    dense = (np.random.default_rng(seed).random((height, width)) < density).astype(np.uint8)
    rle = coco_mask.encode(np.asfortranarray(dense))
    decoded = coco_mask.decode(rle)
    as_str = {"size": rle["size"], "counts": rle["counts"].decode("ascii")}
    for form in (rle, as_str):
        runs = Runs.from_rle(form)
        assert np.array_equal(runs_to_dense(runs), decoded)
        assert runs.area == int(coco_mask.area(rle))
    # uncompressed counts of the same mask: run lengths of the column-major flattening
    flat = decoded.T.reshape(-1).tolist()
    counts = [len(list(run)) for _, run in itertools.groupby(flat)]
    if flat[0] == 1:  # COCO counts start with a (possibly empty) background run
        counts = [0, *counts]
    assert sum(counts) == height * width
    assert np.array_equal(decode_counts(as_str["counts"]), np.asarray(counts))
    assert np.array_equal(runs_to_dense(Runs.from_rle({"size": [height, width], "counts": counts})), decoded)


def test_decode_counts_rejects_bad_strings():
    for bad in ["\x7f", "P", "abc~"]:  # outside the alphabet / truncated (continuation bit set)
        with pytest.raises(LineError) as e:
            decode_counts(bad)
        assert e.value.code == "bad_mask"


# --------------------------------------------------------------------------- polygons


@st.composite
def star_polygons(draw, centre: tuple[float, float], radius: float):
    """A simple star-shaped polygon: increasing angles, positive radii."""
    n = draw(st.integers(5, 30))
    jitter = draw(st.lists(st.floats(-0.3, 0.3), min_size=n, max_size=n))
    radii = draw(st.lists(st.floats(0.4, 1.0), min_size=n, max_size=n))
    pts = []
    for k in range(n):
        angle = 2 * math.pi * (k + jitter[k]) / n
        pts += [centre[0] + radius * radii[k] * math.cos(angle), centre[1] + radius * radii[k] * math.sin(angle)]
    return pts


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_rasterised_iou_of_large_polygons_is_close_to_exact(data):
    a = data.draw(star_polygons((600.0, 600.0), 500.0))
    b = data.draw(star_polygons((data.draw(st.floats(300, 900)), data.draw(st.floats(300, 900))), 450.0))
    image = Polygon(rect_polygon_pairs(0, 0, 1200, 1200))  # SPEC: regions are clipped to the image
    pa, pb = (Polygon(np.reshape(p, (-1, 2))).intersection(image) for p in (a, b))
    exact = pa.intersection(pb).area / pa.union(pb).area
    ra, rb = Runs.from_polygons([a], 1200, 1200), Runs.from_polygons([b], 1200, 1200)
    assert abs(runs_iou(ra, rb) - exact) < 0.01


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_polygon_rasterisation_equals_pycocotools(data):
    parts = [data.draw(star_polygons((data.draw(st.floats(0, 200)), data.draw(st.floats(0, 150))), 60.0))]
    if data.draw(st.booleans()):
        parts.append(data.draw(star_polygons((100.0, 75.0), 40.0)))
    runs = Runs.from_polygons(scale_polygons(parts, 200, 150), 150, 200)
    assert np.array_equal(runs_to_dense(runs), coco_dense_polygons(parts, 150, 200))


def test_polygon_flat_or_pairs_score_the_same(shapes_gold):
    gold, rows, _ = shapes_gold
    flat = [[200.5, 80, 640, 120.25, 500, 400, 260, 330]]
    pairs = [[[200.5, 80], [640, 120.25], [500, 400], [260, 330]]]
    assert scale_polygons(flat, 1000, 500) == scale_polygons(pairs, 1000, 500)
    iou_flat = line_iou(gold, rows["blob"], {"polygon": flat})
    assert iou_flat == line_iou(gold, rows["blob"], {"polygon": pairs})
    assert 0 < iou_flat < 1


def test_multi_part_gold_is_the_union_of_its_parts(shapes_gold):
    """Gold 'two' is two overlapping rectangles: 100*100 + 120*100 - 40*60 = 19,600 pixels.
    Predicting one part exactly gives IoU area(part) / area(union)."""
    gold, rows, _ = shapes_gold
    union = 100 * 100 + 120 * 100 - 40 * 60
    assert gold.extra["masks"][rows["two"]].area == union
    assert line_iou(gold, rows["two"], {"bbox": [20, 20, 120, 120]}) == pytest.approx(10_000 / union)
    assert line_iou(gold, rows["two"], {"bbox": [80, 60, 200, 160]}) == pytest.approx(12_000 / union)
    both = {"polygon": [rect_polygon(20, 20, 120, 120), rect_polygon(80, 60, 200, 160)]}
    assert line_iou(gold, rows["two"], both) == 1.0


def test_multi_part_prediction_is_merged():
    """Two overlapping predicted parts count their overlap once (union, not sum)."""
    parts = [rect_polygon(0, 0, 30, 30), rect_polygon(20, 20, 50, 50)]
    runs = Runs.from_polygons(scale_polygons(parts, 60, 60), 60, 60)
    assert runs.area == 30 * 30 * 2 - 10 * 10
    assert np.array_equal(runs_to_dense(runs), coco_dense_polygons(parts, 60, 60))


# --------------------------------------------------------------------------- clipping, ref size


@SETTINGS
@given(data=st.data())
def test_box_outside_the_image_scores_as_the_clipped_box(shapes_gold, data):
    gold, rows, _ = shapes_gold
    x0, y0, x1, y1 = data.draw(pixel_boxes(1000, 500, outside=0.6))
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, 1000), min(y1, 500)
    if cx1 - cx0 < 0.5 or cy1 - cy0 < 0.5:
        return
    for row in (rows["square"], rows["blob"]):
        outside = line_iou(gold, row, {"bbox": [x0, y0, x1, y1]})
        assert outside == line_iou(gold, row, {"bbox": [cx0, cy0, cx1, cy1]})


def test_polygon_outside_the_image_is_clipped_as_a_region(shapes_gold):
    """A triangle reaching outside keeps its inside part; the vertices are not moved inwards."""
    gold, rows, _ = shapes_gold
    reaching = {"polygon": [[-500, 50, 600, 50, 600, 1300]]}  # leaves the image on the left and bottom
    inside = Polygon([(-500, 50), (600, 50), (600, 1300)]).intersection(Polygon(rect_polygon_pairs(0, 0, 1000, 500)))
    exact = (
        inside.intersection(Polygon(rect_polygon_pairs(100, 50, 600, 300))).area
        / inside.union(Polygon(rect_polygon_pairs(100, 50, 600, 300))).area
    )
    assert line_iou(gold, rows["square"], reaching) == pytest.approx(exact, abs=0.01)


def rect_polygon_pairs(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


@pytest.mark.parametrize(("ref", "factor"), [([500, 250], 2.0), ([250, 125], 4.0), ([2000, 1000], 0.5)])
def test_bbox_ref_size_scales_pixels_to_the_gold_image(shapes_gold, ref, factor):
    gold, rows, _ = shapes_gold
    row = rows["square"]
    box = [150 / factor, 60 / factor, 520 / factor, 280 / factor]
    in_gold_pixels = line_iou(gold, row, {"bbox": [150, 60, 520, 280]})
    assert line_iou(gold, row, {"bbox": box, "bbox_ref_size": ref}) == in_gold_pixels
    xywh = [box[0], box[1], box[2] - box[0], box[3] - box[1]]
    assert line_iou(gold, row, {"bbox": xywh, "bbox_ref_size": ref, "bbox_format": "xywh"}) == in_gold_pixels
    poly = {"polygon": [rect_polygon(*box)], "bbox_ref_size": ref}
    assert line_iou(gold, row, poly) == line_iou(gold, row, {"polygon": [rect_polygon(150, 60, 520, 280)]})


def test_bbox_ref_size_qwen25_style():
    """Qwen2.5-VL answers in pixels of its resized input (multiples of 28): 1000 x 500 seen as 980 x 476."""
    x0, y0, x1, y1 = to_image_box([98, 47.6, 490, 238], "xyxy", 1000, 500, ref_size=[980, 476])
    assert (x0, y0, x1, y1) == pytest.approx((100, 50, 500, 250))


# --------------------------------------------------------------------------- frames


@pytest.mark.parametrize("frame", [(100, 50), (2355, 1794), geometry.UNKNOWN_FRAME])
def test_outline_bound_is_fixed_whatever_the_frame(frame):
    """The limit is one number, not made of an image size (it was 50x the gold perimeter)."""
    side = geometry.MAX_OUTLINE / 4
    assert geometry.read_polygons([rect_polygon(0, 0, side - 1, side - 1)], None, frame).parts
    with pytest.raises(LineError) as e:
        geometry.read_polygons([rect_polygon(0, 0, side + 1, side + 1)], None, frame)
    assert e.value.code == "polygon_too_complex" and str(frame[0]) not in str(e.value)


@SETTINGS
@given(
    values=st.lists(st.floats(0, 1000), min_size=4, max_size=4),
    fmt=st.sampled_from(sorted(geometry.BOX_FORMATS)),
    size=st.tuples(st.integers(1, 5000), st.integers(1, 5000)),
    ref=st.one_of(st.none(), st.tuples(st.integers(1, 5000), st.integers(1, 5000))),
)
def test_a_box_read_in_one_frame_converts_like_to_image_box(values, fmt, size, ref):
    """Checking in a public frame and converting later gives to_image_box's pixels exactly."""
    values = sorted(values[:2]) + sorted(values[2:])
    values = [values[0], values[2], values[1], values[3]]
    ref = ref if fmt in ("xyxy", "xywh") else None
    try:
        expected = to_image_box(values, fmt, *size, ref)
        box = geometry.read_box(values, fmt, ref, geometry.UNKNOWN_FRAME)
    except LineError:
        # Either check may refuse on its own: the public-frame bound is fixed (the worst-case frame
        # here), not the gold image's, so it can refuse a box the gold frame would take.
        return
    assert box.in_image(*size) == expected


def test_polygons_read_in_one_frame_convert_like_scale_polygons():
    parts = [[10.5, 3, 40, 7.25, 22, 30], [[1, 1], [5, 1], [3, 4]]]
    read = geometry.read_polygons(parts, [333, 250], geometry.UNKNOWN_FRAME)
    assert read.in_image(1000, 500) == scale_polygons(parts, 1000, 500, [333, 250])
