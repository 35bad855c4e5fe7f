"""The embedded default's SCB and K-Viscuit images: PNGs made on request from an image's public
id and size, so ``make run``, the runner and a local endpoint work end to end with no image files.

An image has exactly its declared size, so a model that answers in pixels of its input (Qwen2.5-VL)
boxes in the frame the site scores in. It is two colours and a stripe pattern drawn from its id
alone, at a tenth of the size and scaled up without smoothing: a few kilobytes and a few
milliseconds each. Nothing of a question, an answer or a mask goes into it, so the images say no
more than the public list does.
"""

from __future__ import annotations

import hashlib
import io
from functools import lru_cache

SCALE = 10
"""The pattern is drawn at 1/SCALE of the size, then enlarged (the drawing is the cost)."""


@lru_cache(maxsize=4096)
def demo_image(image_id: str, width: int, height: int) -> bytes:
    """The PNG of one demo image (deterministic: the same id and size give the same bytes)."""
    from PIL import Image, ImageDraw

    digest = hashlib.sha256(image_id.encode("utf-8")).digest()
    w, h = max(1, width // SCALE), max(1, height // SCALE)
    pattern = Image.new("P", (w, h), 0)
    pattern.putpalette([*digest[:3], *digest[4:7]])
    draw = ImageDraw.Draw(pattern)
    stripe = max(2, digest[3] % 12 + 2)
    for x in range(0, w + h, stripe * 2):
        draw.line([(x, 0), (x - h, h)], fill=1, width=stripe // 2 + 1)
    out = io.BytesIO()
    pattern.resize((width, height), Image.NEAREST).save(out, format="PNG")
    return out.getvalue()
