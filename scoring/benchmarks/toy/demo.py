"""Toy's demo: the 12-question gold (hand-countable), its public list, and two teams whose files
answer the first questions right and the rest wrong.

Question ``q{i}``: country Spain for even i, Peru for odd; language Spanish for i < 6, Quechua after;
answer a fixed function of i and the seed. A file answering the first 9 right has 5 of 6 right in
Spain and 4 of 6 in Peru, 6 of 6 in Spanish and 3 of 6 in Quechua.
"""

from __future__ import annotations

from collections.abc import Sequence

from scoring.benchmarks.base import DemoData, DemoTeam, Record

QUESTIONS = 12
LETTERS = "ABCD"


def toy_gold(seed: int = 0) -> list[Record]:
    """The gold: one row per question, with its answer letter."""
    return [
        {
            "qid": f"q{i:02d}",
            "prompt": f"What does picture q{i:02d} show?",
            "choices": [f"thing {letter} of q{i:02d}" for letter in LETTERS],
            "img": f"q{i:02d}.png",
            "country": ("Spain", "Peru")[i % 2],
            "language": ("Spanish", "Quechua")[i // 6],
            "answer": LETTERS[(5 * i + seed) % len(LETTERS)],
        }
        for i in range(QUESTIONS)
    ]


def toy_questions(gold: Sequence[Record]) -> list[Record]:
    """The public side: every field but the answer."""
    return [{k: v for k, v in row.items() if k != "answer"} for row in gold]


def right_first(gold: Sequence[Record], n_right: int) -> list[Record]:
    """Lines answering the first ``n_right`` questions right and the rest wrong (the next letter)."""
    wrong = {c: LETTERS[(LETTERS.index(c) + 1) % len(LETTERS)] for c in LETTERS}
    return [{"qid": q["qid"], "answer": q["answer"] if i < n_right else wrong[q["answer"]]} for i, q in enumerate(gold)]


def _team_submission(team: DemoTeam, gold: Sequence[Record]) -> list[Record]:
    return right_first(gold, round(team.accuracy * len(gold)))


TEAMS = (
    DemoTeam("toy", "Toy-Alpha (synthetic)", "alpha", 0.75, 1, "open"),
    DemoTeam("toy", "Toy-Beta (synthetic)", "beta", 0.5, 2, "closed"),
)
DEMO = DemoData(gold=toy_gold, submission=_team_submission, teams=TEAMS, questions=toy_questions)
