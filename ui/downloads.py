"""Files the visitors download from the Gradio app (About's example submission and question list
of each benchmark; the board page serves its own downloads).

Gradio serves a download from a path, so each is written once under one temp folder, in a
sub-folder named by its content: sessions never overwrite each other's file, and the same
bytes asked for again are not written again.

The folder keeps only the ``MAX_FILES`` most recently written files (and at most ``MAX_BYTES``);
older ones are deleted (when every board search wrote its own CSV, 469 searches left 675 files:
attacks.md #13). A caller holding an old path calls :meth:`Downloads.write` again, which rewrites
a deleted file. Gradio's copies of what it served are swept by its ``delete_cache`` (:mod:`ui.uploads`).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

MAX_FILES = 512  # About's two files per benchmark, many times over
MAX_BYTES = 256 * 2**20


class Downloads:
    """Content-addressed files under one temp folder, bounded (see module doc)."""

    def __init__(self, root: Path | None = None, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> None:
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="leaderboard-files-"))
        self.max_files, self.max_bytes = max_files, max_bytes
        self._written: OrderedDict[Path, int] = OrderedDict()  # path -> size, oldest write first
        self._lock = threading.Lock()

    def write(self, name: str, data: bytes) -> str:
        """The path of a file called ``name`` holding ``data``."""
        folder = self.root / hashlib.sha256(data).hexdigest()[:16]
        path = folder / name
        with self._lock:
            if not path.exists():
                folder.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            self._written[path] = len(data)
            self._written.move_to_end(path)
            self._evict(keep=path)
        return str(path)

    def files(self) -> list[Path]:
        with self._lock:
            return list(self._written)

    def _evict(self, keep: Path) -> None:
        total = sum(self._written.values())
        while len(self._written) > 1 and (len(self._written) > self.max_files or total > self.max_bytes):
            oldest, size = next(iter(self._written.items()))
            if oldest == keep:
                break
            del self._written[oldest]
            total -= size
            oldest.unlink(missing_ok=True)
            if not any(oldest.parent.iterdir()):
                shutil.rmtree(oldest.parent, ignore_errors=True)
