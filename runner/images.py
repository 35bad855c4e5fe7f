"""Option and question images as chat content parts, from a folder or a base URL.

A folder's images are sent inline (a base64 data URL), so a local endpoint needs no file server;
a base URL's are sent as URLs for the endpoint to fetch, unless ``inline`` asks the runner to
fetch them itself (endpoints that cannot reach the images' host).
"""

from __future__ import annotations

import base64
import mimetypes
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path


class ImageError(FileNotFoundError):
    """An image the question list names is not where the team said."""


@dataclass(frozen=True)
class Images:
    root: str  # a folder, or an http(s) base URL
    inline: bool = False

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
            return _image_part(_fetch_data_url(url) if self.inline else url)
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
