"""The compact compiled masks (MaskTable): the same pixels and the same integers as Runs."""

from __future__ import annotations

import pickle

import numpy as np
from pycocotools import mask as coco_mask

from scoring.geometry import MaskTable, Runs, box_cells, box_cells_many


def random_masks(rng: np.random.Generator, n: int) -> list[Runs]:
    masks = []
    for _ in range(n):
        h, w = int(rng.integers(5, 90)), int(rng.integers(5, 90))
        dense = np.asfortranarray(rng.random((h, w)) < rng.uniform(0.05, 0.9), dtype=np.uint8)
        dense[int(rng.integers(h)), int(rng.integers(w))] = 1  # never empty
        masks.append(Runs.from_rle(coco_mask.encode(dense)))
    return masks


def random_boxes(rng: np.random.Generator, masks: list[Runs]) -> np.ndarray:
    boxes = []
    for m in masks:
        x0, y0 = rng.uniform(-10, m.width + 5), rng.uniform(-10, m.height + 5)
        boxes.append((x0, y0, x0 + rng.uniform(0.01, m.width), y0 + rng.uniform(0.01, m.height)))
    return np.array(boxes)


def test_rows_give_back_the_same_masks():
    masks = random_masks(np.random.default_rng(1), 40)
    table = MaskTable.of(masks)
    assert len(table) == len(masks)
    for i, (mask, again) in enumerate(zip(masks, table, strict=True)):
        assert (again.height, again.width, again.area) == (mask.height, mask.width, mask.area)
        assert again.intersect(mask) == mask.area
        cols, ref = table.columns(i), mask.columns()
        assert np.array_equal(cols.colptr, ref.colptr) and np.array_equal(cols.top, ref.top)


def test_box_overlaps_match_one_box_at_a_time():
    rng = np.random.default_rng(2)
    masks = random_masks(rng, 60)
    table = MaskTable.of(masks)
    boxes = random_boxes(rng, masks)
    rows = np.arange(len(masks))
    inter, union = table.box_overlaps(rows, boxes)
    for i, m in enumerate(masks):
        c0, c1, r0, r1 = box_cells(*boxes[i], m.height, m.width)
        expected = m.columns().intersect_box(c0, c1, r0, r1)
        assert inter[i] == expected
        assert union[i] == max(0, c1 - c0 + 1) * max(0, r1 - r0) + m.area - expected
    heights = np.array([m.height for m in masks])
    widths = np.array([m.width for m in masks])
    many = box_cells_many(boxes, heights, widths)
    assert [tuple(int(v[i]) for v in many) for i in rows] == [
        box_cells(*boxes[i], m.height, m.width) for i, m in enumerate(masks)
    ]


def test_pickled_table_is_compact_and_leaves_out_derived_offsets():
    masks = random_masks(np.random.default_rng(3), 30)
    table = MaskTable.of(masks)
    table.box_overlaps(np.arange(3), random_boxes(np.random.default_rng(4), masks[:3]))  # fills the offsets
    data = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    runs = sum(m.columns().top.size for m in masks)
    columns = sum(m.width for m in masks)
    assert len(data) < 4 * runs + 2 * columns + 4096  # 2 bytes per row bound, 2 per column count
    again = pickle.loads(data)
    assert "_offsets" not in again.__dict__
    assert [m.area for m in again] == [m.area for m in masks]


def test_row_keys_are_equal_exactly_when_the_regions_are():
    """goldcheck compares masks by these keys (no Runs built per question): equal keys, equal pixels."""
    rng = np.random.default_rng(3)
    masks = random_masks(rng, 30)
    first, again = MaskTable.of(masks), MaskTable.of(list(reversed(masks)))
    for i in range(len(masks)):
        assert first.row_key(i) == again.row_key(len(masks) - 1 - i)
        for j in range(len(masks)):
            dense_i = coco_mask.decode(first.rle(i))
            dense_j = coco_mask.decode(first.rle(j))
            same = dense_i.shape == dense_j.shape and np.array_equal(dense_i, dense_j)
            assert (first.row_key(i) == first.row_key(j)) == same
