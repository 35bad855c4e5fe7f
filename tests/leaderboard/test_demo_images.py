"""Demo images are deterministic PNGs of exactly the declared size, made from the id alone: a
model that answers in pixels of its input (Qwen2.5-VL) gets the frame the site scores in (they
were a tenth of it, 170x170 listed as 1700x1700, issue 28)."""

from __future__ import annotations

import io

from PIL import Image

from scoring.benchmarks.demo_images import demo_image


def test_a_demo_image_is_a_png_of_the_declared_size():
    data = demo_image("img-00042", 2355, 1794)
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "PNG" and im.size == (2355, 1794)
    assert demo_image("img-00042", 2355, 1794) == data
    assert demo_image("img-00043", 2355, 1794) != data


def test_a_large_demo_image_stays_small_on_the_wire():
    """Two colours in stripes: the full-size PNG is a few kilobytes, so serving 3,178 stays cheap."""
    assert len(demo_image("img-00042", 2400, 2400)) < 64 * 1024


def test_tiny_declared_sizes_keep_their_size():
    with Image.open(io.BytesIO(demo_image("x", 40, 30))) as im:
        assert im.size == (40, 30)
