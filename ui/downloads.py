"""Files the visitors download (board tables, example submissions, question lists).

Gradio serves a download from a path, so each is written once under one temp folder, in a
sub-folder named by its content: sessions never overwrite each other's file, and the same
bytes asked for again are not written again.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path


class Downloads:
    """Content-addressed files under one temp folder (see module doc)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="leaderboard-files-"))

    def write(self, name: str, data: bytes) -> str:
        """The path of a file called ``name`` holding ``data``."""
        folder = self.root / hashlib.sha256(data).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists():
            path.write_bytes(data)
        return str(path)
