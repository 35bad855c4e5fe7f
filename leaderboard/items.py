"""Item analysis, for maintainers: which questions are hard, which gold looks wrong (docs/items.md),
reports from signed-in users on questions, and the public errata of every gold correction made.

A room of the leaderboard (leaderboard.service) that takes only what it uses: the store, the golds,
the catalog, where jobs run (the scoring pool's runner, read when a job starts: the app sets its
pool after the room is made) and the correction path (``stage``: GoldCorrections.update_gold).

The analysis is computed in the background, never in a request: :meth:`ItemAnalyses.catch_up`
(the app's scheduler, ui.jobs) recomputes a benchmark's once its current gold or the submissions
it counts changed and no submission arrived for :data:`QUIET_SECONDS` (a burst is one job), in the
scoring pool's bounded worker; the result is stored privately per gold version and read by the
views. The errata are rebuilt there too, once per gold change.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from leaderboard.errata import ErrataPages
from scoring import BENCHMARKS, Gold, get_benchmark
from scoring.gold import read_records
from store import layout
from store.base import AlreadyExists, NotFound, Store
from store.golds import GoldRegistry
from store.records import CorruptRecord, Dismissal, ItemAnalysisRecord, QuestionReport
from submissions import reading
from submissions.catalog import Catalog
from submissions.items.correction import CannotCorrect, corrected
from submissions.items.grounding import mask_extents
from submissions.items.job import ItemInputs, counted, inputs, timed_job

log = logging.getLogger(__name__)

QUIET_SECONDS = 30.0
"""A benchmark's analysis waits until no submission was scored on it for this long (debounce)."""
REPORTS_PER_DAY = 5
"""Question reports one account may send in 24 hours."""
REPORT_CHARS = 500
"""The longest report text kept."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ItemAnalyses:
    """The item analysis of each benchmark, its dismissals and the question reports (module doc)."""

    def __init__(
        self,
        store: Store,
        golds: GoldRegistry,
        catalog: Catalog,
        runner: Callable[[], Callable[..., Any]],
        stage: Callable[..., Any],
    ) -> None:
        self.store, self.golds, self.catalog = store, golds, catalog
        self.runner, self.stage = runner, stage
        self._noted: dict[str, float] = {}  # benchmark -> when a submission was last scored on it
        self._lock = threading.Lock()  # one job at a time per process
        self.errata = ErrataPages(store, golds)

    # ---- the analysis ----
    def changed(self, benchmark: str) -> None:
        """A submission was scored on ``benchmark``: its analysis is recomputed once it is quiet."""
        self._noted[benchmark] = time.monotonic()

    def analysis(self, benchmark: str) -> ItemAnalysisRecord | None:
        """The stored analysis of the current gold (None before the first job ran on it)."""
        info = self.golds.info(benchmark)
        if info is None:
            return None
        path = layout.items_analysis(benchmark, info.version)
        try:
            return ItemAnalysisRecord.from_bytes(self.store.read("gold", path), path)
        except NotFound:
            return None
        except CorruptRecord as e:  # derived: the next job writes it again
            log.error("unreadable item analysis: %s", e)
            return None

    def stale(self, benchmark: str) -> bool:
        """Whether the stored analysis is not of today's gold and counted submissions."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return False
        kept = self.analysis(benchmark)
        ids = tuple(s.meta.id for s in counted(self.catalog.all(benchmark), gold.version))
        return kept is None or kept.basis != ItemInputs(ids, None, None).basis

    def compute(self, benchmark: str) -> ItemAnalysisRecord | None:
        """The analysis computed now where jobs run (the bounded pool, else this process) and stored."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return None
        with self._lock:
            states = counted(self.catalog.all(benchmark), gold.version)
            found = inputs(states, gold, lambda s: reading.read_answers(self.store, s))
            payload = self.runner()(timed_job, gold, found.choices, found.boxes)
            basis = ItemInputs(tuple(s.meta.id for s in states), None, None).basis
            record = ItemAnalysisRecord(
                benchmark,
                gold.version,
                basis,
                _now(),
                int(payload["submissions"]),
                tuple(payload["questions"]),
                tuple(payload["suspects"]),
                float(payload["cpu_seconds"]),
            )
            self.store.put(
                "gold",
                {layout.items_analysis(benchmark, gold.version): record.to_bytes()},
                f"Item analysis of {benchmark}",
                overwrite=True,
            )
        return record

    def catch_up(self) -> list[str]:
        """The background job: recompute each stale analysis whose benchmark is quiet, and rebuild
        errata after a gold change. Returns the benchmarks analysed. Never raises (logged)."""
        done = []
        for benchmark in BENCHMARKS:
            try:
                self.errata.update(benchmark)
                quiet = time.monotonic() - self._noted.get(benchmark, float("-inf")) >= QUIET_SECONDS
                if quiet and self.stale(benchmark):
                    self.compute(benchmark)
                    done.append(benchmark)
            except Exception:  # a job over its bounds, a broken store: logged, tried at the next run
                log.exception("%s: the item analysis could not be computed", benchmark)
        return done

    # ---- review: suspects, dismissals, accepting ----
    def dismissals(self, benchmark: str) -> dict[tuple[str, str], Dismissal]:
        """The current gold's dismissed suspects by (kind, question id as text)."""
        info = self.golds.info(benchmark)
        if info is None:
            return {}
        out = {}
        for path in self.store.list("gold", layout.items_dismissals(benchmark, info.version)):
            try:
                d = Dismissal.from_bytes(self.store.read("gold", path), path)
            except (NotFound, CorruptRecord):
                continue
            out[(d.kind, d.question_id)] = d
        return out

    def suspects(self, benchmark: str) -> list[dict]:
        """The stored analysis's suspects not dismissed on the current gold, most suspect first."""
        kept = self.analysis(benchmark)
        if kept is None:
            return []
        gone = self.dismissals(benchmark)
        return [s for s in kept.suspects if (s["kind"], str(s["question_id"])) not in gone]

    def dismiss(self, benchmark: str, question_id: object, kind: str, by: str, why: str) -> Dismissal:
        """Record that a maintainer judged the suspect no error (who, why, when); it stays dismissed
        for the current gold. ``why`` is required."""
        info = self.golds.info(benchmark)
        if info is None:
            raise ValueError(f"{benchmark} has no gold")
        if not why.strip():
            raise ValueError("say why the suspect is dismissed")
        if kind not in ("answer", "mask"):
            raise ValueError(f"a suspect is of kind answer or mask, not {kind!r}")
        record = Dismissal(benchmark, info.version, str(question_id), kind, by, why.strip()[:REPORT_CHARS], _now())
        path = layout.items_dismissal(benchmark, info.version, kind, str(question_id))
        self.store.put("gold", {path: record.to_bytes()}, f"Dismiss a {kind} suspect of {benchmark}", overwrite=True)
        return record

    def accept(self, benchmark: str, question_id: object, kind: str, by: str, confirm: bool = False):
        """Stage the gold with the suspect's suggestion applied, through the usual correction path
        (previewed; a row that would leave the board needs ``confirm``). Returns its GoldUpdate;
        CannotCorrect when it cannot be applied here (the message says why)."""
        info = self.golds.info(benchmark)
        suspect = next(
            (s for s in self.suspects(benchmark) if s["kind"] == kind and str(s["question_id"]) == str(question_id)),
            None,
        )
        if info is None or suspect is None:
            raise CannotCorrect(f"no {kind} suspect {question_id!r} on {benchmark}'s current gold")
        if Path(info.file).suffix != ".jsonl":
            raise CannotCorrect("the current gold is not JSON Lines: correct it by hand and `gold add` it")
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "current.jsonl"
            source.write_bytes(self.store.read("gold", info.file))
            records = corrected(
                read_records(source),
                suspect["question_id"],
                kind,
                suspect["suggestion"],
                "".join(get_benchmark(benchmark).choices),
            )
            path = Path(tmp) / f"{benchmark}-corrected.jsonl"
            path.write_text("".join(_jsonl(r) for r in records), encoding="utf-8")
            return self.stage(benchmark, path, by, confirm)

    # ---- reports from signed-in users ----
    def report(self, benchmark: str, question_id: str, text: str, account: str) -> str:
        """Keep a signed-in user's report on a question; returns "" or why it was not kept."""
        gold = self.golds.get(benchmark)
        text = " ".join(text.split())
        if not account:
            return "Sign in to report a question."
        if gold is None or _key_of(gold, question_id) is None:
            return f"There is no question {question_id!r} in {benchmark}."
        if not text:
            return "Say in a few words what looks wrong."
        mine = sorted(self.store.list("gold", layout.item_reports_of(account)))
        since = (datetime.now(UTC) - timedelta(days=1)).isoformat()
        recent = [r for r in map(self._report_at, mine) if r is not None and r.at >= since]
        if len(recent) >= REPORTS_PER_DAY:
            return f"You have sent {REPORTS_PER_DAY} reports in the last 24 hours: thank you; try again tomorrow."
        record = QuestionReport(benchmark, str(question_id), text[:REPORT_CHARS], account, _now())
        for seq in range(len(mine) + 1, len(mine) + 1 + REPORTS_PER_DAY):  # another report of the account may
            try:  # have taken a number since the listing: the next one (reports are create-only)
                self.store.put("gold", {layout.item_report(account, seq): record.to_bytes()}, "A question report")
                return ""
            except AlreadyExists:
                continue
        return "Your report could not be kept just now: try again."

    def _report_at(self, path: str) -> QuestionReport | None:
        try:
            return QuestionReport.from_bytes(self.store.read("gold", path), path)
        except (NotFound, CorruptRecord):
            return None

    def reports(self, benchmark: str) -> list[QuestionReport]:
        """Every report on ``benchmark``'s questions, newest first (maintainers only)."""
        found = [r for r in map(self._report_at, self.store.list("gold", layout.ITEM_REPORTS)) if r is not None]
        return sorted((r for r in found if r.benchmark == benchmark), key=lambda r: r.at, reverse=True)


def _key_of(gold: Gold, question_id: str) -> object | None:
    """The gold's key written as ``question_id`` (keys may be numbers), or None."""
    for key in (question_id, *([int(question_id)] if question_id.strip().lstrip("-").isdigit() else [])):
        if key in gold.index:
            return key
    return None


def _jsonl(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Review:
    """One suspect as the Maintainers tab shows it: the suspect, its public question (text, option
    images), the gold letter, and the gold image's size and region (polygon parts in its pixels;
    a region stored as a mask is drawn as its extent)."""

    suspect: dict
    question: dict
    gold_letter: str
    size: tuple[int, int] | None = None
    region: tuple[tuple[float, ...], ...] = ()


class Reviews:
    """What the review needs besides the analysis, read once per gold version (the public list and
    the gold file's regions), for the tab's few suspects at a time."""

    def __init__(self, items: ItemAnalyses, public_list: Callable[[str], bytes]) -> None:
        self.items, self.public_list = items, public_list
        self._cache: dict[tuple[str, str], tuple[dict, dict]] = {}

    def _read(self, benchmark: str, version: str, file: str) -> tuple[dict, dict]:
        """The public questions and the gold file's regions by question id (one gold version kept)."""
        key = (benchmark, version)
        if key not in self._cache:
            self._cache = {key: (_rows_by_id(self.public_list(benchmark)), self._regions(file))}
        return self._cache[key]

    def _regions(self, file: str) -> dict[str, tuple[tuple[float, ...], ...]]:
        """Each record's polygon parts (a JSON Lines gold; a region given as RLE is left out: its extent is drawn)."""
        if Path(file).suffix != ".jsonl":
            return {}
        out = {}
        for key, rec in _rows_by_id(self.items.store.read("gold", file)).items():
            seg = rec.get("segmentation")
            if isinstance(seg, list):
                out[key] = tuple(tuple(map(float, _flat_part(p))) for p in seg)
        return out

    def of(self, benchmark: str) -> list[Review]:
        """The current suspects (not dismissed), most suspect first, each with what the tab draws."""
        info, gold = self.items.golds.info(benchmark), self.items.golds.get(benchmark)
        if info is None or gold is None:
            return []
        questions, regions = self._read(benchmark, info.version, info.file)
        choices = "".join(get_benchmark(benchmark).choices)
        masks = gold.extra.get("masks")
        extents = None
        out = []
        for s in self.items.suspects(benchmark):
            row = _key_of(gold, str(s["question_id"]))
            if row is None:
                continue
            i = gold.index[row]
            size = (int(masks.widths[i]), int(masks.heights[i])) if masks is not None else None
            region = regions.get(str(row), ())
            if not region and masks is not None:
                extents = mask_extents(masks)[0] if extents is None else extents
                x0, y0, x1, y1 = extents[i].tolist()
                region = ((x0, y0, x1, y0, x1, y1, x0, y1),)
            out.append(Review(s, questions.get(str(row), {}), choices[gold.answers[i]], size, region))
        return out


def _rows_by_id(data: bytes) -> dict[str, dict]:
    """JSON Lines records by their ``question_id`` as text (their position where they carry none)."""
    rows = [json.loads(line) for line in data.splitlines() if line.strip()]
    return {str(r.get("question_id", i)): r for i, r in enumerate(rows)}


def _flat_part(part: list) -> list[float]:
    """A polygon part, flat (``[x, y, ...]`` or ``[[x, y], ...]``)."""
    return [c for p in part for c in p] if part and isinstance(part[0], list) else list(part)
