"""Gold: reading maintainer files into records, versioning them, and the compiled form.

A gold *version* is the sha256 of its canonical content (records normalised, sorted keys,
one JSON line each in key order), so the same gold in JSONL or Parquet has one version and
a re-saved file with other whitespace does not look like a correction.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from scoring.errors import GoldError

T = TypeVar("T")


@dataclass
class Gold:
    """A benchmark's gold, compiled once for fast scoring (picklable, cached by version).

    ``groups`` maps a grouping name (``type``, ``country``...) to its label list and the label
    index of every row; ``masks`` (grounding benchmarks) holds one Runs per row. A *public* gold
    (``public``) has answers of -1 and no masks: the offline validator's stand-in.
    """

    benchmark: str
    version: str
    keys: list
    answers: np.ndarray  # int8 index into the benchmark's choices per row
    groups: dict[str, tuple[list[str], np.ndarray]]
    index: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    option_texts: list[tuple[str, ...]] | None = None
    """Each row's option texts in letter order, for benchmarks whose options are text (read by
    the response extractor); None when options are images."""
    public: bool = False
    """Built from a public question list: keys and public facts only, no answers (it can
    validate a file, never score one)."""
    retired: frozenset = frozenset()
    """Keys earlier golds of the benchmark had and this one does not (set by the leaderboard's
    gold registry): a line answering one is set aside, not an error (scoring.engine)."""

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {k: i for i, k in enumerate(self.keys)}

    def derived(self, name: str, build: Callable[[Gold], T]) -> T:
        """``build(self)``, computed on first use and kept beside this gold, never pickled: what
        scoring reads per line in a faster shape (Python lists instead of numpy scalars) costs
        nothing in the compiled form, whose size is bounded."""
        memo = self.__dict__.setdefault("_derived", {})
        if name not in memo:
            memo[name] = build(self)
        return memo[name]

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_derived"}

    @property
    def size(self) -> int:
        return len(self.keys)


def read_records(path: str | Path) -> list[dict]:
    """Rows of a gold file: JSON Lines (``.jsonl``), Parquet (``.parquet``) or one JSON document
    (``.json``, returned as ``[document]`` for loaders that understand it, e.g. COCO)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pandas as pd  # only maintainers' Parquet gold needs it

        frame = pd.read_parquet(path)
        return [_plain(r) for r in frame.to_dict(orient="records")]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise GoldError(f"{path}: cannot read: {e}") from e
    if suffix == ".json":
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as e:
            raise GoldError(f"{path}: not valid JSON: {e}") from e
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise GoldError(f"{path}: line {n}: not valid JSON: {e.msg}") from e
    if not rows:
        raise GoldError(f"{path}: no records")
    return rows


def _plain(value: object) -> object:
    """Parquet gives numpy scalars and arrays; turn them back into JSON values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, str) and value[:1] in "[{":
        try:  # nested fields stored as JSON text
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def content_version(records: list[dict]) -> str:
    """sha256 of the canonical content of normalised gold records (in key order)."""
    h = hashlib.sha256()
    for r in records:
        h.update(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def group_codes(values: list[str], order: list[str]) -> tuple[list[str], np.ndarray]:
    """Label list (declared order first, then any others sorted) and each row's label index."""
    labels = [v for v in order if v in set(values)] + sorted(set(values) - set(order))
    pos = {v: i for i, v in enumerate(labels)}
    return labels, np.fromiter((pos[v] for v in values), dtype=np.int32, count=len(values))
