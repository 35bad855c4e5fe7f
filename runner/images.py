"""Option and question images as chat content parts, from a folder or a base URL.

A folder's images are sent inline (a base64 data URL), so a local endpoint needs no file server;
a base URL's are sent as URLs for the endpoint to fetch, unless ``inline`` asks the runner to
fetch them itself (endpoints that cannot reach the images' host). An image so fetched is kept for
the next question that shows it (:class:`FetchedImages`): SCB's decoy options are other questions'
answer images, so each image is shown about four times.
"""

from __future__ import annotations

import base64
import mimetypes
import threading
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

KEPT_BYTES = 256 * 1024 * 1024
"""How much of the fetched images (as data URLs) the runner keeps for reuse."""


class ImageError(FileNotFoundError):
    """An image the question list names is not where the team said."""


class FetchedImages:
    """Data URLs of fetched images by URL, the least recently used dropped past ``max_bytes``
    (the demo's 3,178 SCB images are 26 MB so; shown 12,712 times). Shared by the runner's threads:
    two asking for one image at once may both fetch it."""

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
    root: str  # a folder, or an http(s) base URL
    inline: bool = False
    fetched: FetchedImages = field(default_factory=FetchedImages, compare=False, repr=False)

    @property
    def remote(self) -> bool:
        return self.root.startswith(("http://", "https://"))

    def part(self, ref: str) -> dict:
        """The content part of one image reference (a path relative to the root, or a URL)."""
        if ref.startswith(("http://", "https://")) or self.remote:
            url = (
                ref
                if ref.startswith(("http://", "https://"))
                else urllib.parse.urljoin(self.root.rstrip("/") + "/", ref)
            )
            return _image_part(self.fetched.get(url, _fetch_data_url) if self.inline else url)
        return _image_part(_data_url(self._local(ref)))

    def _local(self, ref: str) -> Path:
        root = Path(self.root)
        for candidate in (root / ref, root / Path(ref).name):
            if candidate.is_file():
                return candidate
        raise ImageError(f"image {ref!r} is neither {root / ref} nor {root / Path(ref).name}")


def _image_part(url: str) -> dict:
    return {"type": "image_url", "image_url": {"url": url}}


def _data_url(path: Path) -> str:
    kind = mimetypes.guess_type(path.name)[0] or "image/jpeg"
    return f"data:{kind};base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _fetch_data_url(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 (the team's image host)
        kind = response.headers.get_content_type() or "image/jpeg"
        return f"data:{kind};base64," + base64.b64encode(response.read()).decode("ascii")
