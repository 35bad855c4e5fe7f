"""Several files given as one upload (SCB's two lmms-eval samples files): the form, ``/submit``
and ``python -m leaderboard submit`` hand the intake one file, as they always have.

One file goes in as it is. Several are packed here, unread, into one *parts* zip (each file stored
as given, uncompressed, and a manifest naming them in order: scoring/readers/bundle.py), refused by their
count and sizes (``stat``) before a byte is copied: together they may hold no more than the upload
limit of one file. The web process never opens them: the scoring worker does, within its job bounds,
and sums what every zip among them declares before it unpacks anything (issue 41: sixteen small zips
of 50 MB samples each took the web process from 414 MB to 1.2 GB when they were unpacked here).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from scoring.readers.bundle import FIXED_TIME, MAX_FILES, PARTS_MANIFEST, BundleError

__all__ = ["BundleError", "one_upload", "pack"]


@contextmanager
def one_upload(paths: Sequence[str | Path], max_bytes: int) -> Iterator[tuple[Path, str]]:
    """``(path, name)`` of the upload the files make; raises BundleError when they cannot be one."""
    paths = [Path(p) for p in paths]
    if len(paths) == 1:
        yield paths[0], paths[0].name
        return
    handle, name = tempfile.mkstemp(prefix="joined-", suffix=".zip")
    os.close(handle)
    try:
        pack(paths, Path(name), max_bytes)
        yield Path(name), " + ".join(p.name for p in paths)
    finally:
        Path(name).unlink(missing_ok=True)


def pack(paths: Sequence[Path], out: Path, max_bytes: int) -> None:
    """The files at ``paths``, copied unread into the parts zip ``out`` (module doc)."""
    if len(paths) > MAX_FILES:
        raise BundleError(f"{len(paths):,} files were given; the limit is {MAX_FILES:,}")
    sizes = [p.stat().st_size for p in paths]
    if sum(sizes) > max_bytes:
        raise BundleError(f"the files given hold {sum(sizes):,} bytes together; the limit is {max_bytes:,}")
    names = [f"parts/{k:02d}-{p.name[:200]}" for k, p in enumerate(paths)]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for path, name in zip(paths, names, strict=True):
            with open(path, "rb") as source, z.open(zipfile.ZipInfo(name, FIXED_TIME), "w") as member:
                shutil.copyfileobj(source, member, 1 << 20)
        z.writestr(zipfile.ZipInfo(PARTS_MANIFEST, FIXED_TIME), json.dumps(names))
    if out.stat().st_size > max_bytes:  # the zip's own headers on files at the limit
        raise BundleError(f"the files given hold {out.stat().st_size:,} bytes together; the limit is {max_bytes:,}")
