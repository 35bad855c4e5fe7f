"""The demo data the tests and perf/ use, under the names they have always used: each shipped
benchmark folder's generator (``scoring/benchmarks/<id>/demo.py``) and the shared helpers
(``scoring/benchmarks/demo.py``). ``DEMO_TEAMS`` is the shipped benchmarks' teams only (a plugin
loaded by a test adds its own to ``scoring.benchmarks.demo.demo_teams()``, not here)."""

from __future__ import annotations

from scoring.benchmarks.base import DemoData, DemoTeam, Record
from scoring.benchmarks.demo import (
    answer_letters,
    choice_submission,
    demo_of,
    demo_teams,
    dumps_jsonl,
    finish_lines,
    main,
    registered,
    team_submission,
    write_demo,
    write_files,
    write_jsonl,
)
from scoring.benchmarks.kviscuit.demo import KVISCUIT_CATEGORIES, KVISCUIT_LAYOUT, kviscuit_gold, kviscuit_submission
from scoring.benchmarks.kviscuit.demo import TEAMS as KVISCUIT_TEAMS
from scoring.benchmarks.scb.demo import (
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
from scoring.benchmarks.scb.demo import TEAMS as SCB_TEAMS

DEMO_TEAMS: tuple[DemoTeam, ...] = SCB_TEAMS + KVISCUIT_TEAMS
"""The two shipped benchmarks' demo teams."""

__all__ = [
    "BOX_FORMATS",
    "COUNTRIES",
    "DEMO_TEAMS",
    "GROUNDINGS",
    "KVISCUIT_CATEGORIES",
    "KVISCUIT_LAYOUT",
    "LETTERS",
    "RLE_SHARE",
    "SCB_CATEGORIES",
    "SCB_TYPE_SIZES",
    "DemoData",
    "DemoTeam",
    "Record",
    "answer_letters",
    "choice_submission",
    "demo_of",
    "demo_teams",
    "dumps_jsonl",
    "finish_lines",
    "format_box",
    "gold_bbox",
    "kviscuit_gold",
    "kviscuit_submission",
    "main",
    "polygons_to_rle",
    "registered",
    "scb_gold",
    "scb_questions",
    "scb_submission",
    "team_submission",
    "write_demo",
    "write_files",
    "write_jsonl",
]
