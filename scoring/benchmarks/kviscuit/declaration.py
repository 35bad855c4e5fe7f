"""K-Viscuit: multiple choice (4 textual options) on Korean culture, 10 categories.

Gold: the official ``annotations.jsonl`` (or the same columns in Parquet). ``id_`` is not
unique, so a question's key is its 0-based row index in the official file.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from scoring.benchmarks import protocol
from scoring.benchmarks.base import (
    ACCURACY,
    Benchmark,
    Grouping,
    Heatmap,
    HubInspect,
    HubRegistration,
    HubTask,
    InspectStep,
    Metric,
    Panel,
    Stat,
)
from scoring.benchmarks.families import MultipleChoice
from scoring.benchmarks.folder import folder_files
from scoring.benchmarks.kviscuit import demo, site_export
from scoring.errors import GoldError, LineError
from scoring.gold import Gold, content_version, group_codes, read_records

CATEGORIES = (
    "Food",
    "Beverage",
    "GamePlayPerformance",
    "Celebrations",
    "Religion",
    "Tool",
    "Clothes",
    "Heritage",
    "ArchitecturePlaces",
    "Agriculture",
)
CHOICES = "ABCD"  # four textual options
PAPER_NAMES = {"GamePlayPerformance": "Game", "ArchitecturePlaces": "Architecture"}
"""The paper prints two category labels shorter than the data has them."""
CATEGORY = Grouping("category", "Category", CATEGORIES, PAPER_NAMES)


STRICT_ACCURACY = Metric(
    "acc_strict",
    "Accuracy, official protocol",
    "share of questions answered right when a response counts only if it is exactly one capital letter "
    "(the official run_vqa.py rule; answer fields count as given)",
    Stat.CORRECT_STRICT,
    Stat.QUESTIONS,
    short="Acc strict",
)
"""The paper's protocol: its rows were scored this way, so a row read leniently is marked beside them."""


def _record(rec: dict, where: str) -> dict:
    try:
        out = {
            "question": str(rec["question"]),
            "options": [str(o) for o in rec["options"]],
            "answer": int(rec["answer"]),
            "category": str(rec["category"]),
            "id_": str(rec["id_"]),
            "question_type": int(rec["question_type"]),
        }
    except (KeyError, TypeError, ValueError) as e:
        raise GoldError(f"{where}: missing or bad field {e}") from e
    n = len(CHOICES)
    if len(out["options"]) != n or out["answer"] not in range(n) or out["question_type"] not in (1, 2):
        raise GoldError(f"{where}: needs {n} options, answer 0-{n - 1} and question_type 1 or 2")
    return out


def load_gold(path: Path) -> Gold:
    """Load K-Viscuit gold in the official row order (the key is the row index)."""
    records = [_record(r, f"{path}: row {i}") for i, r in enumerate(read_records(path))]
    return Gold(
        benchmark="kviscuit",
        version=content_version(records),
        keys=list(range(len(records))),
        answers=np.array([r["answer"] for r in records], dtype=np.int8),
        groups={
            "type": group_codes([str(r["question_type"]) for r in records], ["1", "2"]),
            "category": group_codes([r["category"] for r in records], list(CATEGORIES)),
        },
        extra={"id_": [r["id_"] for r in records]},
        option_texts=[tuple(r["options"]) for r in records],
    )


IMAGE_FIELDS = ("image_url", "image_path")
"""Where a question's image is (kept from the official file; not part of the gold version)."""


def public_questions(path: Path) -> list[dict]:
    """Everything but the answer, with the image's address (the data set is public; the
    leaderboard still hides the answer)."""
    out = []
    for i, raw in enumerate(read_records(path)):
        rec = _record(raw, f"{path}: row {i}")
        images = {k: str(raw[k]) for k in IMAGE_FIELDS if raw.get(k) is not None}
        out.append({"question_id": i, **{k: v for k, v in rec.items() if k != "answer"}, **images})
    return out


def load_public_gold(path: Path) -> Gold:
    """A public question list as a public gold: row keys, ``id_`` and option texts, no answers."""
    rows = read_records(path)
    try:
        keys = [int(r["question_id"]) for r in rows]
        ids = [str(r["id_"]) for r in rows]
        options = [tuple(str(o) for o in r["options"]) for r in rows]
    except (KeyError, TypeError, ValueError) as e:
        raise GoldError(f"{path}: every question needs question_id, id_ and options: {e}") from e
    if len(set(keys)) != len(keys):
        raise GoldError(f"{path}: a question_id is listed twice")
    return Gold(
        benchmark="kviscuit",
        version="public-" + content_version([{"question_id": k, "id_": i} for k, i in zip(keys, ids, strict=True)]),
        keys=keys,
        answers=np.full(len(keys), -1, dtype=np.int8),
        groups={},
        extra={"id_": ids},
        option_texts=options,
        public=True,
    )


def parse_key(value: object) -> int | None:
    """Row index: an integer, or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 10:
        return int(value)
    return None


def read_line(line: dict, gold: Gold, row: int, box_format: str, letter: str | None = None) -> None:
    """K-Viscuit has no grounding; an echoed ``id_`` must match the gold row's."""
    if "id_" in line and line["id_"] != gold.extra["id_"][row]:
        raise LineError("id_mismatch", f"id_ {str(line['id_'])[:40]!r} is not the id_ of row {row}", "id_")
    for f in ("bbox", "polygon", "mask", "grounding_response"):
        if line.get(f) is not None:
            raise LineError("grounding_not_supported", f"K-Viscuit has no grounding stage; remove {f}", f)
    return None


MIN_SHIFT_EVIDENCE = 20
"""Lines a shift must be seen on before the file is called shifted (a few stray ids are line errors)."""


def shifted_ids(given: list[tuple[int, object, object]], gold: Gold) -> str | None:
    """A message when the file's ids are wholly one off the 0-based row index, from public facts
    only: the ids run 1..n (or -1..n-2) instead of 0..n-1, or the echoed ``id_`` values are those of
    the row one before (or after) nearly everywhere."""
    n, ids = gold.size, gold.extra["id_"]
    keys = [k for _, k, _ in given if type(k) is int]
    if len(keys) < min(MIN_SHIFT_EVIDENCE, n):
        return None
    lo, hi = min(keys), max(keys)
    echoed = [(line, k, e) for line, k, e in given if type(k) is int and e is not None]
    for shift in (1, -1):
        fix = "subtract 1 from" if shift == 1 else "add 1 to"
        head = (
            f"every question_id is one {'too high' if shift == 1 else 'too low'}: K-Viscuit's ids are the 0-based "
            f"row indices 0-{n - 1} of the official file (the order of the dataset's test split)"
        )
        if (lo, hi) == (shift, n - 1 + shift) and len(set(keys)) >= n // 2:
            return f"{head}, and this file's run {lo}-{hi}; {fix} every question_id."
        if len(echoed) >= min(MIN_SHIFT_EVIDENCE, n):
            here = sum(1 for _, k, e in echoed if 0 <= k < n and ids[k] == e)
            there = [(line, k, e) for line, k, e in echoed if 0 <= k - shift < n and ids[k - shift] == e]
            if len(there) >= 0.9 * len(echoed) and here < 0.5 * len(echoed):
                line, k, e = next((t for t in there if ids[t[1]] != t[2]), there[0])
                side = "before" if shift == 1 else "after"
                example = f"line {line}: question_id {k} with id_ {str(e)[:40]!r}, the id_ of row {k - shift}"
                return (
                    f"{head}, and this file's echoed id_ values are those of the row one {side} on "
                    f"{len(there):,} of {len(echoed):,} lines ({example}); {fix} every question_id."
                )
    return None


HUB_INSPECT = HubInspect(
    field_spec={
        "input": "question",
        "input_image": "image_url",  # a string column: the loader passes it to ContentImage as is
        "target": "answer",  # the 0-based index, which the loader turns into its letter
        "choices": "options",
        "metadata": ["id_", "category", "question_type"],
    },
    solvers=(
        InspectStep("multiple_choice", {"template": f"{{question}}\n{{choices}}\n{protocol.CHOICE_INSTRUCTION}"}),
    ),
    scorers=(InspectStep("match", {"location": "exact"}),),  # run_vqa.py: an answer is exactly one letter
    caveat=(
        "inspect-ai's Hub loader sends the text before the image and lists the options as 'A) ...'; the "
        "official prompt (inspect eval scoring/kviscuit) sends the image first and indents 'A. ...'. The "
        "scorer counts the official rule (exactly one letter); the leaderboard's headline accuracy also "
        "reads '(b)' or 'B.'."
    ),
)
"""``eval.yaml``'s inspect-ai fields: the closest Inspect's Hub loader comes to ``run_vqa.py``."""


KVISCUIT = Benchmark(
    id="kviscuit",
    name="K-Viscuit",
    description="657 multiple-choice questions (4 textual options) on images of Korean culture, 10 categories.",
    paper="Evaluating Visual and Cultural Interpretation: The K-Viscuit Benchmark with Human-VLM Collaboration",
    key_field="question_id",
    prediction_fields={
        "question_id": "0-based row index of the question in the official annotations.jsonl",
        "answer": 'A-D (any case; "(b)", "B." are read as B)',
        "response": "optional raw model text, read only where answer is absent",
        "id_": "optional echo of the row's id_; must match when present",
    },
    groupings=(
        Grouping(
            "type",
            "Type",
            ("1", "2"),
            {"1": "Type 1 visual recognition", "2": "Type 2 visual reasoning"},
            {"1": "T1", "2": "T2"},
            question_field="question_type",
        ),
        CATEGORY,
    ),
    choices=CHOICES,
    metrics=(ACCURACY, STRICT_ACCURACY),
    primary_metric="acc",
    strict_metric="acc_strict",
    shifted_keys=shifted_ids,
    key_echo="id_",
    reading_facts=("id_",),  # an echoed id_ is checked against it; option texts are read anyway
    headline={"acc": 1.0},
    harness_name="KViscuit",
    hub=HubRegistration(
        "ddehun/k-viscuit",  # the authors' dataset: 657 rows, split test, with the images and answers
        (
            HubTask(
                "kviscuit_accuracy",
                "acc",
                "Accuracy on the 657 multiple-choice questions",
                note_metric="acc_strict",
                inspect=HUB_INSPECT,
            ),
        ),
        question_rows=True,
    ),
    overview=(Panel("acc", by="type"), Panel("acc_strict"), Panel("acc", by="category", overall=False)),
    plots=(Heatmap("type"), Heatmap("category")),
    load_gold=load_gold,
    parse_key=parse_key,
    read_line=read_line,
    public_questions=public_questions,
    load_public_gold=load_public_gold,
    questions_note=(
        "One line per question, in the official row order: question_id (the 0-based row index "
        "that submissions use), id_, question, options, category, question_type, and the image's "
        "address (image_url, and image_path in the official release: the Hugging Face dataset "
        "ddehun/k-viscuit, split test, or dataset/images/ in its GitHub repository). Letters A-D "
        "are the options in the listed order: A is options[0], D is options[3]. A response that "
        "is exactly one option's text is read as that option's letter. No answers."
    ),
    example_lines=('{"question_id": 0, "answer": "A"}', '{"question_id": 1, "answer": "(c)", "id_": "Food.1.1"}'),
    family=MultipleChoice(subcategory="question_type"),
    site_export=partial(site_export.site_export, CATEGORY),
    demo=demo.DEMO,
    **folder_files(__package__),
)
