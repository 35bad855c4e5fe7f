"""Gold versions in the private gold repo, compiled once per version and cached.

Adding gold validates it completely first (a broken gold never becomes current). The compiled
form (masks as runs) is kept in memory per benchmark and on disk in the one compiled-gold cache
(scoring/cache.py), so a restart or a second process does not rasterise every mask again.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

from scoring import Gold, get_benchmark, load_gold
from scoring.cache import GoldCache
from store import layout
from store.base import NotFound, Store
from store.layout import GoldFile
from store.records import GoldInfo

__all__ = ["GOLD_SUFFIXES", "GoldInfo", "GoldRegistry"]

GOLD_SUFFIXES = (".jsonl", ".parquet", ".json")


class GoldRegistry:
    """Current gold per benchmark: add a version, read its info, get it compiled."""

    def __init__(self, store: Store, cache_dir: Path) -> None:
        self.store = store
        self.cache = GoldCache(cache_dir)
        self._compiled: dict[tuple[str, str], Gold] = {}
        self._lock = threading.Lock()

    def add(self, benchmark: str, path: Path, added_by: str) -> GoldInfo:
        """Validate ``path`` as ``benchmark`` gold and make it current (GoldError if broken)."""
        suffix = path.suffix.lower()
        if suffix not in GOLD_SUFFIXES:
            raise ValueError(f"gold must be one of {', '.join(GOLD_SUFFIXES)}, got {path.name!r}")
        gold = load_gold(benchmark, path)
        before = self.info(benchmark)
        if before is not None and before.version == gold.version:
            return before  # the same content again: nothing changes
        data = path.read_bytes()
        file = GoldFile(benchmark, gold.version, suffix).path
        previous = before.version if before else ""
        now = datetime.now(UTC).isoformat()
        info = GoldInfo(benchmark, gold.version, file, now, added_by, gold.size, previous)
        # The gold is an input (nothing rebuilds it): on the Hub before anyone is told it is current.
        self.store.put("gold", {file: data}, f"Add {benchmark} gold {gold.version[:12]}", durable=True)
        questions = get_benchmark(benchmark).public_questions(path)
        body = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions).encode()
        self.store.put("results", {layout.public_questions(benchmark): body}, "Public questions", overwrite=True)
        self.store.put(
            "gold",
            {layout.gold_current(benchmark): info.to_bytes()},
            f"Make {benchmark} gold {gold.version[:12]} current",
            overwrite=True,
            durable=True,
        )
        self.cache.keep(benchmark, data, suffix, gold)
        self._remember(gold)
        return info

    def info(self, benchmark: str) -> GoldInfo | None:
        """The current gold's pointer; a CorruptRecord (a maintainer's file) stops the caller."""
        path = layout.gold_current(benchmark)
        try:
            return GoldInfo.from_bytes(self.store.read("gold", path), path)
        except NotFound:
            return None

    def get(self, benchmark: str) -> Gold | None:
        """The current gold, compiled (memory, then disk cache, then the gold file)."""
        info = self.info(benchmark)
        return None if info is None else self.compiled(info)

    def compiled(self, info: GoldInfo) -> Gold:
        """That version compiled, kept in memory as its benchmark's one compiled gold (under the
        lock: concurrent first requests compile once)."""
        key = (info.benchmark, info.version)
        with self._lock:
            if key not in self._compiled:
                self._keep(self._load(GoldFile(info.benchmark, info.version, Path(info.file).suffix)))
            return self._compiled[key]

    def version(self, benchmark: str, version_prefix: str) -> Gold | None:
        """Any stored gold version of ``benchmark`` (by a prefix of its sha256), compiled."""
        current = self.info(benchmark)
        if current is not None and current.version.startswith(version_prefix):
            return self.compiled(current)
        for path in self.store.list("gold", benchmark):
            file = GoldFile.parse(path)
            if file is not None and file.version.startswith(version_prefix) and file.suffix in GOLD_SUFFIXES:
                return self._load(file)
        return None

    def _load(self, file: GoldFile) -> Gold:
        return self.cache.load(file.benchmark, self.store.read("gold", file.path), file.suffix)

    def _remember(self, gold: Gold) -> None:
        """Keep just-added gold in memory if it is (still) the current version."""
        info = self.info(gold.benchmark)
        if info is not None and info.version == gold.version:
            with self._lock:
                self._keep(gold)

    def _keep(self, gold: Gold) -> None:
        """One compiled version per benchmark in memory (caller holds the lock)."""
        self._compiled = {k: v for k, v in self._compiled.items() if k[0] != gold.benchmark}
        self._compiled[(gold.benchmark, gold.version)] = gold
