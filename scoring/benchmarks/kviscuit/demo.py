"""K-Viscuit demo: 657 rows in the official ``annotations.jsonl`` schema (neutral invented text,
the real type and category counts, ``id_`` not unique) and submissions keyed by row index.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scoring.benchmarks.base import DemoData, DemoTeam, Record
from scoring.benchmarks.demo import answer_letters, choice_submission, finish_lines

LETTERS: str = "ABCD"
# K-Viscuit: (category, type-1 rows, type-2 rows), in the order of the official file.
KVISCUIT_LAYOUT: tuple[tuple[str, int, int], ...] = (
    ("Food", 61, 81),
    ("Beverage", 14, 38),
    ("GamePlayPerformance", 15, 37),
    ("Celebrations", 23, 24),
    ("Religion", 10, 17),
    ("Tool", 30, 45),
    ("Clothes", 15, 22),
    ("Heritage", 26, 36),
    ("ArchitecturePlaces", 29, 80),
    ("Agriculture", 14, 40),
)
KVISCUIT_CATEGORIES: tuple[str, ...] = tuple(c for c, _, _ in KVISCUIT_LAYOUT)
KVISCUIT_DISTINCT_IDS: int = 593  # distinct id_ values of the official file (657 rows)


def _kviscuit_skeleton() -> list[tuple[str, int, int, int]]:
    """(category, question_type, image number within category, suffix) per row, in file order.

    Each image has a type-1 question (suffix 0); type-2 questions go round the images
    (suffix 1, then 2, 3, ...), as in the official ``Category.image.k`` ids.
    """
    rows = []
    for category, n1, n2 in KVISCUIT_LAYOUT:
        per_image: dict[int, list[tuple[int, int]]] = {k: [(1, 0)] for k in range(1, n1 + 1)}
        for m in range(n2):
            per_image[m % n1 + 1].append((2, m // n1 + 1))
        for k, questions in per_image.items():
            rows.extend((category, qtype, k, suffix) for qtype, suffix in questions)
    return rows


def kviscuit_gold(seed: int = 0) -> list[Record]:
    """657 rows in the official K-Viscuit schema with invented neutral text.

    Type and category counts are the real ones; ``id_`` has 593 distinct values (some extra
    type-2 questions repeat the id of their image's first type-2 question), so the key of a
    row is its index, as for the real file.
    """
    rng = np.random.default_rng(seed)
    skeleton = _kviscuit_skeleton()
    answers = rng.integers(0, 4, len(skeleton))
    extras = [i for i, row in enumerate(skeleton) if row[3] >= 2]
    n_dup = len(skeleton) - KVISCUIT_DISTINCT_IDS
    repeated = set(rng.choice(extras, n_dup, replace=False).tolist())
    images: dict[tuple[str, int], int] = {}
    rows = []
    for i, (category, qtype, k, suffix) in enumerate(skeleton):
        image_no = images.setdefault((category, k), len(images))
        rows.append(
            {
                "question": f"Demo question {i} about {category}",
                "options": [f"Demo option {letter} of question {i}" for letter in LETTERS],
                "answer": int(answers[i]),
                "category": category,
                "id_": f"{category}.{k}.{1 if i in repeated else suffix}",
                "question_type": qtype,
                "image_url": f"https://example.org/k-viscuit-demo/{image_no}.jpg",
                "image_path": f"{image_no}.jpg",
            }
        )
    return rows


def kviscuit_submission(
    gold: Sequence[Record],
    accuracy: float,
    seed: int,
    *,
    missing: int = 0,
    as_response: float = 0.0,
) -> list[Record]:
    """A K-Viscuit submission keyed by row index, ``round(accuracy * N)`` answers correct."""
    rng = np.random.default_rng(seed)
    letters = answer_letters(rng, [LETTERS[r["answer"]] for r in gold], accuracy, LETTERS)
    lines = [{"question_id": i, "answer": letter} for i, letter in enumerate(letters)]
    return finish_lines(rng, lines, missing, as_response)


def _team_submission(team: DemoTeam, gold: Sequence[Record]) -> list[Record]:
    """The multiple-choice family's recipe (the same lines as :func:`kviscuit_submission`)."""
    return choice_submission(team, gold)


TEAMS: tuple[DemoTeam, ...] = (
    DemoTeam("kviscuit", "Demo-GPT-4o (synthetic)", "gpt-4o", 0.83, 201, "API"),
    DemoTeam(
        "kviscuit",
        "Demo-Gemini-1.5-Pro (synthetic)",
        "gemini-1.5-pro",
        0.79,
        202,
        "API",
    ),
    DemoTeam("kviscuit", "Demo-InHouse-VLM (synthetic)", "inhouse-vlm", 0.70, 203, "closed"),
    DemoTeam(
        "kviscuit",
        "Demo-Qwen2-VL-7B (synthetic)",
        "qwen2-vl-7b",
        0.66,
        204,
        "open",
        as_response=0.15,
    ),
    DemoTeam("kviscuit", "Demo-InternVL2-8B (synthetic)", "internvl2-8b", 0.61, 205, "open"),
    DemoTeam(
        "kviscuit",
        "Demo-LLaVA-1.6-13B (synthetic)",
        "llava-1.6-13b",
        0.5708,
        206,
        "open",
        missing=12,
    ),
)

DEMO = DemoData(gold=kviscuit_gold, submission=_team_submission, teams=TEAMS)
