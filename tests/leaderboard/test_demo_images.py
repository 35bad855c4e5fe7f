"""Demo images are deterministic PNGs at a tenth of the declared size, made from the id alone."""

from __future__ import annotations

import io

from PIL import Image

from leaderboard.demo.images import demo_image


def test_a_demo_image_is_a_small_png_of_the_declared_shape():
    data = demo_image("img-00042", 2355, 1794)
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "PNG" and im.size == (235, 179)
    assert demo_image("img-00042", 2355, 1794) == data
    assert demo_image("img-00043", 2355, 1794) != data


def test_tiny_declared_sizes_still_give_a_usable_image():
    with Image.open(io.BytesIO(demo_image("x", 40, 30))) as im:
        assert im.size == (16, 16)
