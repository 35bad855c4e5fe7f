"""Deterministic demo data, one module per benchmark, found through a registry keyed by benchmark id.

:mod:`leaderboard.demo.base` holds the registry (:class:`DemoData`, :func:`register`) and the
helpers generators share; ``scb.py`` and ``kviscuit.py`` register the two benchmarks' demos, and
a plugin registers its own. :func:`write_demo` writes every registered demo's files, and
``Leaderboard.seed_demo`` loads them into an empty store.

Run ``python -m leaderboard.demo OUT_DIR`` to write the files.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from leaderboard.demo import kviscuit, scb
from leaderboard.demo.base import (
    DEMOS,
    DemoData,
    DemoFiles,
    DemoTeam,
    Record,
    choice_submission,
    demo_for,
    dumps_jsonl,
    register,
    registered,
    unregister,
    write_files,
    write_jsonl,
)
from leaderboard.demo.kviscuit import KVISCUIT_CATEGORIES, KVISCUIT_LAYOUT, kviscuit_gold, kviscuit_submission
from leaderboard.demo.scb import (
    BOX_FORMATS,
    COUNTRIES,
    GROUNDINGS,
    LETTERS,
    RLE_SHARE,
    SCB_CATEGORIES,
    SCB_TYPE_SIZES,
    format_box,
    gold_bbox,
    polygons_to_rle,
    scb_gold,
    scb_questions,
    scb_submission,
)

register(scb.DEMO)
register(kviscuit.DEMO)

DEMO_TEAMS: tuple[DemoTeam, ...] = scb.TEAMS + kviscuit.TEAMS
"""The two built-in benchmarks' demo teams (what today's tests import)."""


def write_demo(folder: Path, seed: int = 0) -> dict[str, Path]:
    """Write every registered demo; paths by name: ``{id}_gold``, ``{id}_questions`` (when it has a
    public side) and each team's file stem (``scb_qwen2.5-vl-7b`` for ``examples/scb_qwen2.5-vl-7b.jsonl``)."""
    paths: dict[str, Path] = {}
    for demo in registered():
        files = write_files(demo, Path(folder), seed)
        paths[f"{demo.benchmark}_gold"] = files.gold
        if files.questions is not None:
            paths[f"{demo.benchmark}_questions"] = files.questions
        paths |= {path.stem: path for path in files.submissions.values()}
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m leaderboard.demo OUT_DIR", file=sys.stderr)
        return 2
    for name, path in write_demo(Path(args[0])).items():
        print(f"{name}\t{path}")
    return 0


__all__ = [
    "BOX_FORMATS",
    "COUNTRIES",
    "DEMOS",
    "DEMO_TEAMS",
    "GROUNDINGS",
    "KVISCUIT_CATEGORIES",
    "KVISCUIT_LAYOUT",
    "LETTERS",
    "RLE_SHARE",
    "SCB_CATEGORIES",
    "SCB_TYPE_SIZES",
    "DemoData",
    "DemoFiles",
    "DemoTeam",
    "Record",
    "choice_submission",
    "demo_for",
    "dumps_jsonl",
    "format_box",
    "gold_bbox",
    "kviscuit_gold",
    "kviscuit_submission",
    "main",
    "polygons_to_rle",
    "register",
    "registered",
    "scb_gold",
    "scb_questions",
    "scb_submission",
    "unregister",
    "write_demo",
    "write_files",
    "write_jsonl",
]
