"""The one compiled-gold cache, shared by ``python -m scoring`` and the app's gold registry.

Compiling gold (rasterising 3,178 SCB masks into runs) takes seconds; the compiled form is
pickled in a folder the caller chooses. An entry is named by what determines it and nothing
else: the benchmark, the gold file's suffix (it picks the reader), the sha256 of the file's
bytes and the scorer version, so the CLI and the app find each other's entries and a new
scorer never reads an old one. Every failure to read or write the cache only costs time.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scoring.benchmarks import get_benchmark
from scoring.engine import SCORER_VERSION
from scoring.gold import Gold

COMPILED_FORMAT = 2
"""Bump when the compiled form changes shape (2: masks in one compact MaskTable), so that an
entry written by an older build is compiled again rather than read."""

_UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, TypeError)
"""What a truncated, foreign or stale pickle raises; such an entry is compiled again."""


@dataclass(frozen=True)
class GoldCache:
    """Compiled gold by file content; ``folder`` None compiles every time (``--no-cache``)."""

    folder: Path | None

    def load(self, benchmark: str, source: Path | bytes, suffix: str = "") -> Gold:
        """The compiled gold of a gold file, given by path or by its bytes and ``suffix``
        (".jsonl", ".parquet", ".json"). Raises GoldError for a broken gold."""
        suffix = (source.suffix if isinstance(source, Path) else suffix).lower()
        if self.folder is None:
            return _compile(benchmark, source, suffix)
        data = source.read_bytes() if isinstance(source, Path) else source
        entry = self.entry(benchmark, data, suffix)
        try:
            with open(entry, "rb") as f:
                return pickle.load(f)
        except _UNREADABLE:
            pass
        gold = _compile(benchmark, source, suffix)
        self._write(entry, gold)
        return gold

    def keep(self, benchmark: str, data: bytes, suffix: str, gold: Gold) -> None:
        """Store gold the caller has just compiled from ``data`` (adding a gold compiles it once)."""
        if self.folder is not None:
            self._write(self.entry(benchmark, data, suffix.lower()), gold)

    def entry(self, benchmark: str, data: bytes, suffix: str) -> Path:
        digest = hashlib.sha256(data).hexdigest()
        return self.folder / f"{benchmark}-{suffix.lstrip('.')}-{digest}-{SCORER_VERSION}-c{COMPILED_FORMAT}.pickle"

    def _write(self, entry: Path, gold: Gold) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, delete=False, suffix=".tmp") as f:
                pickle.dump(gold, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(f.name, entry)
        except OSError:
            pass  # a read-only cache only costs time


def _compile(benchmark: str, source: Path | bytes, suffix: str) -> Gold:
    """Benchmark loaders read a path (Parquet and COCO JSON need one): bytes are written to a
    temporary file here, the one place that does so."""
    if isinstance(source, Path):
        return get_benchmark(benchmark).load_gold(source)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"gold{suffix}"
        path.write_bytes(source)
        return get_benchmark(benchmark).load_gold(path)
