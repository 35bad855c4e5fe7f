"""Toy's declaration: 12 four-way questions, each about one image, answered by a letter A-D.

Gold: JSON Lines (or Parquet) rows of ``qid``, ``prompt``, ``choices`` (four texts), ``img``, ``country``,
``language`` and the ``answer`` letter. The public list is the same rows without ``answer``: what a
team's harness asks (the multiple-choice family reads the fields this declaration names).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scoring.benchmarks.base import ACCURACY, Benchmark, Grouping, Heatmap, Panel
from scoring.benchmarks.families import MultipleChoice
from scoring.benchmarks.folder import folder_files
from scoring.benchmarks.toy import demo
from scoring.errors import GoldError, LineError
from scoring.gold import Gold, content_version, group_codes, read_records

CHOICES = "ABCD"
COUNTRIES = ("Spain", "Peru")
LANGUAGES = ("Spanish", "Quechua")
PUBLIC = ("qid", "prompt", "choices", "img", "country", "language")
"""A question's public fields, in the list's order (everything but the answer)."""
INSTRUCTION = "Reply with the letter (A, B, C or D) of the right option."


def _row(raw: object, where: str, public: bool = False) -> dict:
    """One row of a gold (or, ``public``, of a question list), checked; GoldError says where."""
    try:
        row = {k: raw[k] for k in PUBLIC}
        row["choices"] = [str(c) for c in row["choices"]]
        if not public:
            row["answer"] = str(raw["answer"])
    except (KeyError, TypeError) as e:
        raise GoldError(f"{where}: missing or bad field {e}") from e
    if not isinstance(row["qid"], str) or len(row["choices"]) != len(CHOICES):
        raise GoldError(f"{where}: needs a qid and {len(CHOICES)} choices")
    if row["country"] not in COUNTRIES or row["language"] not in LANGUAGES:
        raise GoldError(f"{where}: country must be one of {COUNTRIES}, language one of {LANGUAGES}")
    if not public and row["answer"] not in CHOICES:
        raise GoldError(f"{where}: answer must be a letter {CHOICES[0]}-{CHOICES[-1]}")
    return row


def _rows(path: Path, public: bool = False) -> list[dict]:
    rows = [_row(r, f"{path}: row {i + 1}", public) for i, r in enumerate(read_records(path))]
    if len({r["qid"] for r in rows}) != len(rows):
        raise GoldError(f"{path}: a qid is listed twice")
    return rows


def load_gold(path: Path) -> Gold:
    rows = _rows(path)
    return Gold(
        benchmark=TOY_ID,
        version=content_version(rows),
        keys=[r["qid"] for r in rows],
        answers=np.array([CHOICES.index(r["answer"]) for r in rows], dtype=np.int8),
        groups={
            "country": group_codes([r["country"] for r in rows], list(COUNTRIES)),
            "language": group_codes([r["language"] for r in rows], list(LANGUAGES)),
        },
        option_texts=[tuple(r["choices"]) for r in rows],
    )


def public_questions(path: Path) -> list[dict]:
    """Every question without its answer, in the gold's order."""
    return [{k: r[k] for k in PUBLIC} for r in _rows(path)]


def load_public_gold(path: Path) -> Gold:
    """A public question list as a public gold (keys and option texts, no answers): what
    ``python -m scoring validate`` checks a file against."""
    rows = _rows(path, public=True)
    return Gold(
        benchmark=TOY_ID,
        version="public-" + content_version(rows),
        keys=[r["qid"] for r in rows],
        answers=np.full(len(rows), -1, dtype=np.int8),
        groups={},
        option_texts=[tuple(r["choices"]) for r in rows],
        public=True,
    )


def parse_key(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 50 else None


def read_line(line: dict, gold: Gold, row: int, box_format: str, letter: str | None = None) -> None:
    """No grounding: a line is its key and its answer."""
    for field in ("bbox", "polygon", "mask", "grounding_response"):
        if line.get(field) is not None:
            raise LineError("grounding_not_supported", f"this benchmark has no grounding; remove {field}", field)


TOY_ID = "toy"
TOY = Benchmark(
    id=TOY_ID,
    name="Toy (example benchmark)",
    description="12 four-way questions, each about one image, from two countries in two languages.",
    paper="Toy: an example benchmark folder",
    key_field="qid",
    prediction_fields={
        "qid": 'the question\'s id, e.g. "q00"',
        "answer": 'A-D (any case; "(b)", "B." are read as B)',
        "response": "optional raw model text, read only where answer is absent",
    },
    choices=CHOICES,
    groupings=(Grouping("country", "Country", COUNTRIES), Grouping("language", "Language", LANGUAGES)),
    metrics=(ACCURACY,),
    primary_metric="acc",
    load_gold=load_gold,
    parse_key=parse_key,
    read_line=read_line,
    public_questions=public_questions,
    load_public_gold=load_public_gold,
    questions_note=(
        "One line per question: qid (the key submissions use), prompt, choices (four texts: A is "
        "choices[0], D is choices[3]), img (the image's file name), country and language. No answers."
    ),
    example_lines=('{"qid": "q00", "answer": "A"}', '{"qid": "q01", "answer": "(c)"}'),
    overview=(Panel("acc", by="country"), Panel("acc", by="language", overall=False)),
    plots=(Heatmap("country"), Heatmap("language")),
    family=MultipleChoice(
        question="prompt",
        options="choices",
        image=("img",),
        category="country",
        subcategory="language",
        instruction=INSTRUCTION,
        demo_image_size=(320, 240),
    ),
    demo=demo.DEMO,
    **folder_files(__package__),
)
