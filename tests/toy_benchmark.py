"""A third benchmark declared outside the package, as its author would write it: a plugin module.

Three answer choices (A-C), one grouping (``level``), no grounding, its own key field (``id``)
and its own tiny gold. Importing the module registers the declaration and its demo data; the
app and the maintainer CLI import it when started with ``LEADERBOARD_PLUGINS=tests.toy_benchmark``.
Nothing in the packages names it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from leaderboard import demo
from scoring.benchmarks import Benchmark, Grouping, Heatmap, Panel, register
from scoring.benchmarks.base import ACCURACY
from scoring.errors import GoldError
from scoring.gold import Gold, content_version, group_codes, read_records

CHOICES = "ABC"
LEVELS = ("easy", "hard")
QUESTIONS = 12


def _records(path: Path) -> list[dict]:
    rows = read_records(path)
    for i, r in enumerate(rows):
        if not isinstance(r.get("id"), str) or r.get("answer") not in CHOICES or r.get("level") not in LEVELS:
            raise GoldError(f"{path}: row {i + 1} needs an id, an answer A-C and a level easy or hard")
    return rows


def load_gold(path: Path) -> Gold:
    rows = _records(path)
    return Gold(
        benchmark="toy",
        version=content_version(rows),
        keys=[r["id"] for r in rows],
        answers=np.array([CHOICES.index(r["answer"]) for r in rows], dtype=np.int8),
        groups={"level": group_codes([r["level"] for r in rows], list(LEVELS))},
    )


def public_questions(path: Path) -> list[dict]:
    return [{"id": r["id"], "level": r["level"]} for r in _records(path)]


def parse_key(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 50 else None


def read_line(line: dict, gold: Gold, row: int, box_format: str, letter: str | None) -> None:
    return None  # nothing beyond the answer


TOY = Benchmark(
    id="toy",
    name="Toy benchmark",
    description="12 three-way questions, easy and hard.",
    paper="A toy for tests",
    key_field="id",
    prediction_fields={"id": "the question's id", "answer": "A-C"},
    choices=CHOICES,
    groupings=(Grouping("level", "Level", LEVELS, {"easy": "Easy", "hard": "Hard"}),),
    metrics=(ACCURACY,),
    primary_metric="acc",
    load_gold=load_gold,
    parse_key=parse_key,
    read_line=read_line,
    public_questions=public_questions,
    example_lines=('{"id": "t00", "answer": "A"}', '{"id": "t01", "answer": "(c)"}'),
    overview=(Panel("acc", by="level"),),
    plots=(Heatmap("level"),),
)


def toy_gold(seed: int = 0) -> list[dict]:
    """Question ``t{i}``: level easy for even i, answer a fixed function of i and the seed."""
    return [
        {"id": f"t{i:02d}", "level": LEVELS[i % 2], "answer": CHOICES[(5 * i + seed) % len(CHOICES)]}
        for i in range(QUESTIONS)
    ]


def right_first(gold: Sequence[dict], n_right: int) -> list[dict]:
    """Lines answering the first ``n_right`` questions right and the rest wrong (the next letter)."""
    wrong = {c: CHOICES[(CHOICES.index(c) + 1) % len(CHOICES)] for c in CHOICES}
    return [{"id": q["id"], "answer": q["answer"] if i < n_right else wrong[q["answer"]]} for i, q in enumerate(gold)]


def _team_submission(team: demo.DemoTeam, gold: Sequence[dict]) -> list[dict]:
    return right_first(gold, round(team.accuracy * len(gold)))


DEMO = demo.DemoData(
    "toy",
    gold=toy_gold,
    submission=_team_submission,
    teams=(
        demo.DemoTeam("toy", "Toy-Alpha (synthetic)", "alpha", 0.75, 1, "open"),
        demo.DemoTeam("toy", "Toy-Beta (synthetic)", "beta", 0.5, 2, "closed"),
    ),
)

register(TOY)
demo.register(DEMO)
