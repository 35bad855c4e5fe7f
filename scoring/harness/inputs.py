"""The parameters every harness adapter shares, with one meaning each.

- ``questions``: the benchmark's public question list as JSON Lines, a file or an http(s) address (the
  site's ``/questions/<id>.jsonl``, or a downloaded copy), read whole within :data:`MAX_LIST_BYTES`.
- ``images``: where the list's images are, a folder or an address. An image is found there by its file
  name (the last part of the reference the list gives: an option's ``url``, a question's image field);
  a folder is searched by the reference's own path first, so a copy of a benchmark's release tree
  works as it is. A reference that is itself an http(s) address is used as it is. On the site,
  ``images`` is ``/questions/<id>/images`` for every benchmark and every harness.
- ``grounding_format``: for a two-stage benchmark, the model family whose box convention stage 2 asks
  for (one of the family's grounding presets), written on every line.

Stdlib only: each harness's environment has only ``pip install ./scoring``.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import urllib.request
from pathlib import Path

MAX_LIST_BYTES = 64 * 1024 * 1024
"""A question list larger than this is not one of ours."""
MAX_IMAGE_BYTES = 64 * 1024 * 1024
FETCH_TIMEOUT = 60  # seconds per list or image


class QuestionsError(ValueError):
    """The question list cannot be read: says which file and which line."""


class ImageError(FileNotFoundError):
    """An image the question list names is not where ``images`` says."""


def is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def fetch(url: str, limit: int) -> tuple[bytes, str]:
    """The body of an http(s) address and its content type, refusing more than ``limit`` bytes."""
    with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT) as answer:  # noqa: S310 (an address the team gave)
        body = answer.read(limit + 1)
        kind = answer.headers.get_content_type() or ""
    if len(body) > limit:
        raise ValueError(f"{url}: larger than {limit:,} bytes")
    return body, kind


def read_list(questions: str) -> list[dict]:
    """The list's records in its order; QuestionsError names the file and the line."""
    data = fetch(questions, MAX_LIST_BYTES)[0] if is_url(questions) else Path(questions).read_bytes()
    if len(data) > MAX_LIST_BYTES:
        raise QuestionsError(f"{questions}: more than {MAX_LIST_BYTES:,} bytes; not a question list")
    records = []
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise QuestionsError(f"{questions}: line {n} is not JSON ({e.msg})") from e
        if not isinstance(record, dict):
            raise QuestionsError(f"{questions}: line {n} is not a JSON object")
        records.append(record)
    if not records:
        raise QuestionsError(f"{questions}: no questions")
    return records


def image_name(ref: str) -> str:
    """The file name of an image reference (its last part)."""
    return ref.rstrip("/").rsplit("/", 1)[-1]


def locate(images: str, ref: str) -> str:
    """Where the image ``ref`` is, under ``images`` (see the module doc): an address, or a file path
    (which may not exist: :func:`image_bytes` says so)."""
    if is_url(ref):
        return ref
    if is_url(images):
        return f"{images.rstrip('/')}/{image_name(ref)}"
    root = Path(images)
    return str(root / ref if (root / ref).is_file() else root / image_name(ref))


def image_bytes(images: str, ref: str) -> tuple[bytes, str]:
    """The bytes of the image ``ref`` and its media type; ImageError when it is not there."""
    where = locate(images, ref)
    if is_url(where):
        try:
            body, kind = fetch(where, MAX_IMAGE_BYTES)
        except (OSError, ValueError) as e:
            raise ImageError(f"image {ref!r}: {where}: {e}") from e
        return body, kind or "image/jpeg"
    path = Path(where)
    if not path.is_file():
        raise ImageError(f"image {ref!r} is neither {Path(images) / ref} nor {path}")
    return path.read_bytes(), mimetypes.guess_type(path.name)[0] or "image/jpeg"


def data_url(body: bytes, kind: str) -> str:
    return f"data:{kind};base64," + base64.b64encode(body).decode("ascii")
