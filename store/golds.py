"""Gold versions in the private gold repo, compiled once per version and cached.

Adding gold validates it completely first (a broken gold never becomes current). The compiled
form (masks as runs) is pickled under the cache folder keyed by version and scorer version,
so a restart or a second process does not rasterise every mask again.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from scoring import SCORER_VERSION, Gold, get_benchmark, load_gold
from store import layout
from store.base import NotFound, Store

GOLD_SUFFIXES = (".jsonl", ".parquet", ".json")


@dataclass(frozen=True)
class GoldInfo:
    benchmark: str
    version: str
    file: str
    added_at: str
    added_by: str
    questions: int
    previous_version: str = ""


class GoldRegistry:
    """Current gold per benchmark: add a version, read its info, get it compiled."""

    def __init__(self, store: Store, cache_dir: Path) -> None:
        self.store = store
        self.cache_dir = cache_dir
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
        file = layout.gold_file(benchmark, gold.version, suffix)
        previous = before.version if before else ""
        now = datetime.now(UTC).isoformat()
        info = GoldInfo(benchmark, gold.version, file, now, added_by, gold.size, previous)
        self.store.put("gold", {file: path.read_bytes()}, f"Add {benchmark} gold {gold.version[:12]}")
        questions = get_benchmark(benchmark).public_questions(path)
        body = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions).encode()
        self.store.put("results", {layout.public_questions(benchmark): body}, "Public questions", overwrite=True)
        self.store.put(
            "gold",
            {layout.gold_current(benchmark): json.dumps(asdict(info), indent=1).encode()},
            f"Make {benchmark} gold {gold.version[:12]} current",
            overwrite=True,
        )
        self._remember(gold)
        return info

    def info(self, benchmark: str) -> GoldInfo | None:
        try:
            return GoldInfo(**json.loads(self.store.read("gold", layout.gold_current(benchmark))))
        except NotFound:
            return None

    def get(self, benchmark: str) -> Gold | None:
        """The current gold, compiled (memory, then disk cache, then the gold file)."""
        info = self.info(benchmark)
        return None if info is None else self.compiled(info)

    def compiled(self, info: GoldInfo) -> Gold:
        key = (info.benchmark, info.version)
        with self._lock:
            if key in self._compiled:
                return self._compiled[key]
            gold = self._from_cache(info) or self._compile(info)
            self._compiled = {k: v for k, v in self._compiled.items() if k[0] != info.benchmark}
            self._compiled[key] = gold
            return gold

    def version(self, benchmark: str, version_prefix: str) -> Gold | None:
        """Any stored gold version of ``benchmark`` (by a prefix of its sha256), compiled."""
        current = self.info(benchmark)
        if current is not None and current.version.startswith(version_prefix):
            return self.compiled(current)
        for file in self.store.list("gold", benchmark):
            stem = Path(file).name.split(".")[0]
            if stem.startswith(version_prefix) and Path(file).suffix in GOLD_SUFFIXES:
                info = GoldInfo(benchmark, stem, file, "", "", 0)
                return self._from_cache(info) or self._compile(info)
        return None

    def cache_path(self, info: GoldInfo) -> Path:
        return self.cache_dir / f"{info.benchmark}-{info.version[:32]}-{SCORER_VERSION}.pickle"

    def _from_cache(self, info: GoldInfo) -> Gold | None:
        try:
            with open(self.cache_path(info), "rb") as f:
                gold = pickle.load(f)
            return gold if gold.version == info.version else None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None

    def _compile(self, info: GoldInfo) -> Gold:
        data = self.store.read("gold", info.file)
        suffix = Path(info.file).suffix
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"gold{suffix}"
            path.write_bytes(data)
            gold = load_gold(info.benchmark, path)
        self._write_cache(info, gold)
        return gold

    def _write_cache(self, info: GoldInfo, gold: Gold) -> None:
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.cache_dir, delete=False, suffix=".tmp") as f:
                pickle.dump(gold, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(f.name, self.cache_path(info))
        except OSError:
            pass  # the cache only saves time

    def _remember(self, gold: Gold) -> None:
        info = self.info(gold.benchmark)
        if info is not None and info.version == gold.version:
            self._write_cache(info, gold)
            with self._lock:
                self._compiled = {k: v for k, v in self._compiled.items() if k[0] != gold.benchmark}
                self._compiled[(gold.benchmark, gold.version)] = gold
