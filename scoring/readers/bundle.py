"""Several files as one submission: SCB's two lmms-eval samples files, or a .zip of lmms-eval's
output folder.

A harness writes one file per task, and SCB's two stages are two tasks (``scb_stage1``,
``scb_stage2``). Teams send them together, as written: :func:`gather` joins the samples files
given (each a file or a zip archive of a folder) into one body of samples, which the harness reader
(scoring/harness.py) then tells apart by content, whatever their order. Only lmms-eval samples
are joined; anything else among several files is one message. A zip is bounded before anything
is unpacked: at most :data:`MAX_MEMBERS` members, and the samples it holds may unpack to no more
than the upload limit a single file has (``max_bytes``), so a zip never makes more work than an
unzipped upload; the message says which limit applied. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_FILES = 16
"""Files one submission may give (SCB's two stages, a few re-runs)."""
MAX_MEMBERS = 256
"""Members a zip may list (an output folder holds a results file and a samples file per task)."""
SAMPLES_NAME = re.compile(r"(^|/)([^/]*_)?samples_[^/]*\.jsonl$")
"""lmms-eval's ``<date>_samples_<task>.jsonl`` (older versions: ``samples_<task>.jsonl``)."""
WORKBOOK_MEMBER = "[Content_Types].xml"
"""Every Office Open XML file (a VLMEvalKit .xlsx) has it; an output folder's zip does not."""


class BundleError(ValueError):
    """The files cannot be one submission: one message, what and which limit or file."""

    code = "file_shape"


@dataclass(frozen=True)
class Part:
    """One file given: its name (for messages and to spot a zip) and its bytes."""

    name: str
    data: bytes


def is_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def is_workbook(data: bytes) -> bool:
    """A zip that is an Office workbook (VLMEvalKit's .xlsx), not a zip of a folder."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return any(name == WORKBOOK_MEMBER for name in z.namelist()[:MAX_MEMBERS])
    except zipfile.BadZipFile:
        return False


def samples_of_zip(data: bytes, max_bytes: int, name: str = "the zip") -> list[Part]:
    """The lmms-eval samples files a zip of an output folder holds (results files and others left)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            members = z.infolist()
            if len(members) > MAX_MEMBERS:
                raise BundleError(f"{name} lists {len(members):,} members; the limit is {MAX_MEMBERS:,}")
            wanted = [m for m in members if not m.is_dir() and SAMPLES_NAME.search(m.filename)]
            unpacked = sum(m.file_size for m in wanted)
            if unpacked > max_bytes:
                raise BundleError(
                    f"the samples files in {name} unpack to {unpacked:,} bytes; the limit is {max_bytes:,} "
                    "(the upload limit of one file)"
                )
            parts = [Part(m.filename, z.read(m)) for m in sorted(wanted, key=lambda m: m.filename)]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError) as e:
        raise BundleError(f"{name} is a zip that cannot be read: {str(e)[:120]}") from None
    if not parts:
        shown = ", ".join(m.filename for m in members[:6]) or "nothing"
        raise BundleError(
            f"{name} holds no lmms-eval samples file (<date>_samples_<task>.jsonl; it holds {shown}): zip the "
            "folder lmms-eval wrote with --log_samples"
        )
    return parts


def _is_samples(data: bytes) -> bool:
    first = data.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        value = json.loads(first)
    except ValueError:
        return False
    return isinstance(value, dict) and "doc_id" in value and ("filtered_resps" in value or "resps" in value)


def gather(parts: Sequence[Part], max_bytes: int) -> bytes:
    """The samples of every file given (a zip: its samples files), as one body of samples lines.

    Raises BundleError when a file is not lmms-eval samples, or the whole passes ``max_bytes``."""
    if len(parts) > MAX_FILES:
        raise BundleError(f"{len(parts):,} files were given; the limit is {MAX_FILES:,}")
    files: list[Part] = []
    for part in parts:
        files += samples_of_zip(part.data, max_bytes, part.name) if is_zip(part.data) else [part]
    total = sum(len(f.data) for f in files)
    if total > max_bytes:
        raise BundleError(f"the files given hold {total:,} bytes together; the limit is {max_bytes:,}")
    for f in files:
        if not _is_samples(f.data):
            raise BundleError(
                f"{f.name} is not an lmms-eval samples file (a JSON line with doc_id and filtered_resps): "
                "several files are read together only as lmms-eval samples (SCB: scb_stage1 and scb_stage2); "
                "send any other file alone"
            )
    return b"".join(f.data if f.data.endswith(b"\n") else f.data + b"\n" for f in files)


def gather_files(paths: Sequence[str | Path], max_bytes: int) -> bytes:
    """:func:`gather` of files on disk, each refused by its size before it is read."""
    if len(paths) > MAX_FILES:
        raise BundleError(f"{len(paths):,} files were given; the limit is {MAX_FILES:,}")
    parts = []
    for path in map(Path, paths):
        size = path.stat().st_size
        if size > max_bytes:
            raise BundleError(f"{path.name} is {size:,} bytes; the limit is {max_bytes:,}")
        parts.append(Part(path.name, path.read_bytes()))
    return gather(parts, max_bytes)
