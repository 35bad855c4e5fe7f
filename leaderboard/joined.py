"""Several files given as one upload (SCB's two lmms-eval samples files): the form, ``/submit``
and ``python -m leaderboard submit`` hand the intake one file, as they always have.

One file goes in as it is (a .zip of lmms-eval's output folder too: the scoring worker opens it,
bounded, scoring/bundle.py). Several are joined here into one body of samples in a temporary
file, each refused by its size before it is read, the whole bounded by the upload limit, so the
intake stores and scores it like any single file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from scoring.readers.bundle import BundleError, gather_files

__all__ = ["BundleError", "one_upload"]


@contextmanager
def one_upload(paths: Sequence[str | Path], max_bytes: int) -> Iterator[tuple[Path, str]]:
    """``(path, name)`` of the upload the files make; raises BundleError when they cannot be one."""
    paths = [Path(p) for p in paths]
    if len(paths) == 1:
        yield paths[0], paths[0].name
        return
    data = gather_files(paths, max_bytes)
    handle, name = tempfile.mkstemp(prefix="joined-", suffix=".jsonl")
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(data)
        yield Path(name), " + ".join(p.name for p in paths)
    finally:
        Path(name).unlink(missing_ok=True)
