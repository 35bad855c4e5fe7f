"""The embedded default's SCB and K-Viscuit images: PNGs made on request from an image's public
id and size, so ``make run``, the runner and a local endpoint work end to end with no image files.

An image has exactly its declared size, so a model that answers in pixels of its input (Qwen2.5-VL)
boxes in the frame the site scores in. It is two colours in a stripe pattern drawn from its id
alone, at a tenth of the size, enlarged without smoothing and written as a 1-bit palette PNG (rows
packed with numpy, then zlib): a few kilobytes and a few milliseconds each, whatever the size.
Nothing of a question, an answer or a mask goes into it, so the images say no more than the public
list does.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from functools import lru_cache

import numpy as np

SCALE = 10
"""The pattern is drawn at 1/SCALE of the size, then enlarged."""
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _rows(digest: bytes, width: int, height: int) -> bytes:
    """The PNG scanlines: stripes drawn at a tenth of the size (PIL), enlarged to width x height
    (nearest), 1 bit a pixel, each row led by filter byte 0. Only the tenth's distinct rows are
    packed; the enlarged image repeats them."""
    from PIL import Image, ImageDraw

    w, h = max(1, width // SCALE), max(1, height // SCALE)
    small = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(small)
    stripe = max(2, digest[3] % 12 + 2)
    for x in range(0, w + h, stripe * 2):
        draw.line([(x, 0), (x - h, h)], fill=1, width=stripe // 2 + 1)
    pattern = np.asarray(small, dtype=np.uint8)[:, np.arange(width) * w // width]
    distinct = np.hstack([np.zeros((h, 1), dtype=np.uint8), np.packbits(pattern, axis=1)])
    return distinct[np.arange(height) * h // height].tobytes()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@lru_cache(maxsize=4096)
def demo_image(image_id: str, width: int, height: int) -> bytes:
    """The PNG of one demo image (deterministic: the same id and size give the same bytes)."""
    digest = hashlib.sha256(image_id.encode("utf-8")).digest()
    header = struct.pack(">IIBBBBB", width, height, 1, 3, 0, 0, 0)  # 1-bit, palette, no interlace
    return b"".join(
        (
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", digest[:3] + digest[4:7]),
            _chunk(b"IDAT", zlib.compress(_rows(digest, width, height), 1)),
            _chunk(b"IEND", b""),
        )
    )
