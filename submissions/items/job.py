"""The item analysis of a benchmark's current gold from the stored readings: which submissions
count, their answers as the analysis takes them, and the job the bounded worker runs.

Which submissions count (docs/items.md): every one scored on the gold (private, hidden and held
ones included: the analysis is for maintainers only), none rejected or unreadable; and of each
team's model only its latest, so that a team sending one model ten times gives one vote, not ten.

The parent decodes only each reading's answers (store.records.StoredReading.answers: keys,
letters, extents and their units), as the probe detector does; :func:`analysis_job` (a
module-level function: the scoring pool sends it to a worker by name) fits and ranks within the
pool's time and memory bounds and returns the JSON object that is stored and shown.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from scoring import SCORER_VERSION, Gold, get_benchmark
from scoring.reading import ReadAnswers
from submissions.catalog import SubmissionState
from submissions.items.analysis import analyse
from submissions.items.records import MISSING, ItemGold, Responses
from submissions.items.report import items_json
from submissions.lifecycle import MAX_FAILURES
from submissions.records import Status


@dataclass(frozen=True, eq=False)
class ItemInputs:
    """What the job takes: the submissions counted (ids, in row order), their letters (S x Q int8,
    :data:`MISSING` where none was read) and boxes (S x Q x 4 float32, gold-image pixels, NaN: none;
    None for a benchmark without grounding)."""

    submission_ids: tuple[str, ...]
    choices: np.ndarray
    boxes: np.ndarray | None

    @property
    def basis(self) -> str:
        """Names what the analysis was computed from (with the gold version): the same submissions
        give the same analysis, so a stored one with this basis is current."""
        return hashlib.sha256("\n".join(sorted(self.submission_ids)).encode()).hexdigest()[:16]


def counted(states: Iterable[SubmissionState], version: str) -> list[SubmissionState]:
    """The submissions the analysis counts on gold ``version`` (module doc), oldest first: of each
    (team, model) the latest one scored on it."""
    scored = [
        s for s in states if s.unreadable is None and s.status(version, SCORER_VERSION, MAX_FAILURES) is Status.SCORED
    ]
    latest: dict[tuple[str, str], SubmissionState] = {}
    for state in sorted(scored, key=lambda s: (s.meta.submitted_at, s.meta.id)):
        latest[(state.meta.team, state.meta.model)] = state
    return sorted(latest.values(), key=lambda s: (s.meta.submitted_at, s.meta.id))


def row_of(reading: ReadAnswers, gold: Gold) -> tuple[np.ndarray, np.ndarray | None]:
    """One reading as the gold's rows: letters (:data:`MISSING` for a key not answered or a line
    read as no letter) and, for a grounding benchmark, boxes in pixels of each question's gold
    image (as the scorer converts them; a polygon or mask by its extent)."""
    letters = np.full(gold.size, MISSING, dtype=np.int8)
    rows = np.fromiter((gold.index.get(k, -1) for k in reading.keys), dtype=np.int64, count=len(reading.keys))
    asked = rows >= 0
    letters[rows[asked]] = np.where(reading.letters[asked] >= 0, reading.letters[asked], MISSING)
    masks = gold.extra.get("masks")
    if not get_benchmark(gold.benchmark).grounding or masks is None:
        return letters, None
    boxes = np.full((gold.size, 4), np.nan, dtype=np.float32)
    at = rows[asked]
    pixels = ReadAnswers(reading.benchmark, (), reading.letters[asked], reading.extents[asked], reading.units[asked])
    boxes[at] = pixels.pixel_extents(masks.widths[at], masks.heights[at])
    return letters, boxes


def inputs(
    states: Iterable[SubmissionState], gold: Gold, reading_of: Callable[[SubmissionState], ReadAnswers | None]
) -> ItemInputs:
    """The counted submissions' rows (those with a reading that answers something; module doc)."""
    ids, letters, boxes = [], [], []
    for state in counted(states, gold.version):
        reading = reading_of(state)
        if reading is None or not reading.answered or reading.units is None:
            continue
        row, box = row_of(reading, gold)
        ids.append(state.meta.id)
        letters.append(row)
        boxes.append(box)
    q = gold.size
    choices = np.stack(letters) if letters else np.zeros((0, q), dtype=np.int8)
    grounded = bool(boxes) and all(b is not None for b in boxes)
    stacked = np.stack(boxes) if grounded else None
    return ItemInputs(tuple(ids), choices, stacked)


def analysis_job(gold: Gold, choices: np.ndarray, boxes: np.ndarray | None) -> dict:
    """The analysis as its JSON object (submissions.items.report), computed where it runs: in a
    scoring worker within the pool's bounds, or in the calling process without a pool."""
    bench = get_benchmark(gold.benchmark)
    item_gold = ItemGold(gold.keys, bench.choices, gold.answers, gold.extra.get("masks") if boxes is not None else None)
    analysis = analyse(item_gold, Responses(choices, boxes))
    return items_json(analysis, gold.benchmark, gold.version, bench.choices)


def timed_job(gold: Gold, choices: np.ndarray, boxes: np.ndarray | None) -> dict:
    """:func:`analysis_job` with the CPU seconds it took where it ran (what docs/benchmarks.md quotes)."""
    start = time.process_time()
    payload = analysis_job(gold, choices, boxes)
    return payload | {"cpu_seconds": round(time.process_time() - start, 3)}
