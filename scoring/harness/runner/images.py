"""Option and question images as chat content parts, found where ``--images`` says
(:func:`scoring.harness.inputs.locate`: a folder, or an address an image's file name is appended to).

A folder's images are sent inline (a base64 data URL), so a local endpoint needs no file server;
an address's are sent as URLs for the endpoint to fetch, unless ``inline`` asks the runner to
fetch them itself (endpoints that cannot reach the images' host). An image so fetched is kept for
the next question that shows it (:class:`FetchedImages`): a two-stage benchmark's decoy options are
other questions' answer images, so each image is shown about four times.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from scoring.harness.inputs import ImageError, data_url, image_bytes, is_url, locate

KEPT_BYTES = 256 * 1024 * 1024
"""How much of the fetched images (as data URLs) the runner keeps for reuse."""

__all__ = ["FetchedImages", "ImageError", "Images", "KEPT_BYTES"]


class FetchedImages:
    """Data URLs of fetched images by URL, the least recently used dropped past ``max_bytes``
    (the demo's 3,178 two-stage images are 26 MB so; shown 12,712 times). Shared by the runner's
    threads: two asking for one image at once may both fetch it."""

    def __init__(self, max_bytes: int = KEPT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._kept: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str, fetch: Callable[[str], str]) -> str:
        with self._lock:
            if url in self._kept:
                self._kept.move_to_end(url)
                return self._kept[url]
        value = fetch(url)
        with self._lock:
            if url not in self._kept and len(value) <= self.max_bytes:
                self._kept[url] = value
                self.size += len(value)
                while self.size > self.max_bytes:
                    self.size -= len(self._kept.popitem(last=False)[1])
        return value


@dataclass(frozen=True)
class Images:
    root: str  # ``--images``: a folder, or an http(s) address
    inline: bool = False
    fetched: FetchedImages = field(default_factory=FetchedImages, compare=False, repr=False)

    def part(self, ref: str) -> dict:
        """The content part of one image reference of the list."""
        where = locate(self.root, ref)
        if not is_url(where):
            return _image_part(data_url(*image_bytes(self.root, ref)))
        return _image_part(self.fetched.get(where, _fetch_data_url) if self.inline else where)


def _image_part(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


def _fetch_data_url(url: str) -> str:
    return data_url(*image_bytes("", url))
