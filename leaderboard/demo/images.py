"""The embedded default's SCB images: small PNGs made on request from an image's public id and
size, so ``make run``, the runner and a local endpoint work end to end with no image files.

An image is a tenth of its declared size (at least 16 px a side) in a colour and a stripe
pattern drawn from its id alone: nothing of a question, an answer or a mask goes into it, so the
images say no more than the public list does.
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache

SCALE = 10
MIN_SIDE = 16


@lru_cache(maxsize=4096)
def demo_image(image_id: str, width: int, height: int) -> bytes:
    """The PNG of one demo image (deterministic: the same id and size give the same bytes)."""
    from PIL import Image, ImageDraw

    digest = hashlib.sha256(image_id.encode("utf-8")).digest()
    w, h = max(MIN_SIDE, width // SCALE), max(MIN_SIDE, height // SCALE)
    image = Image.new("RGB", (w, h), tuple(digest[:3]))
    draw = ImageDraw.Draw(image)
    stripe = max(2, digest[3] % 12 + 2)
    for x in range(0, w + h, stripe * 2):
        draw.line([(x, 0), (x - h, h)], fill=tuple(digest[4:7]), width=stripe // 2 + 1)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()
