"""The leaderboard as one object: storage, gold, catalog, intake and table wired together.

``app.py`` and the maintainer CLI are thin shells over :class:`Leaderboard`. With no Hub
configured it runs on a local folder, seeded on first start with demo gold and submissions so
that a new user sees a real board at once.
"""

from __future__ import annotations

import io
import logging
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from leaderboard.config import Settings
from leaderboard.publish import publish
from leaderboard.table import Board, BoardRow, baseline_rows, frame, scored_rows
from scoring import BENCHMARKS, SCORER_VERSION, Limits
from scoring.benchmarks import load_plugins
from scoring.engine import ResultRecord
from store import layout
from store.base import NotFound, Store
from store.golds import GoldInfo, GoldRegistry
from store.layout import Kind, ModerationFile, SubmissionFile
from store.local import LocalStore
from store.records import HOLD_REASON, CorruptRecord, Moderation, StoredFailure, Validated
from submissions import lifecycle
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.feedback import Feedback
from submissions.intake import Intake, Progress
from submissions.probes import ProbeDetector, ProbeFlag
from submissions.quotas import QuotaPolicy, QuotaStatus
from submissions.records import Identity, Status, SubmissionForm
from submissions.seeds import StoredSeeds

log = logging.getLogger(__name__)
DEMO_USER = Identity("demo", is_maintainer=True, source="local")


def make_store(settings: Settings) -> Store:
    if settings.uses_hub:
        from store.hub import HubStore  # only a Hub deployment needs the client

        return HubStore(settings.data_dir / "hub-cache", settings.hub_repos, settings.hub_token, settings.hub_endpoint)
    return LocalStore(settings.data_dir)


@dataclass(frozen=True)
class RankChange:
    team: str
    model: str
    before: int | None
    after: int | None


class Leaderboard:
    """See module doc. Thread-safe for the app's concurrent requests."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        load_plugins(settings.plugins)  # before anything reads the benchmark registry
        self.store = store or make_store(settings)
        self.golds = GoldRegistry(self.store, settings.data_dir / "cache")
        self.catalog = Catalog(self.store)
        self.limits = Limits(max_bytes=settings.max_upload_bytes)
        self.seeds = StoredSeeds(self.store, settings.bootstrap_secret, lifecycle.now_iso)
        self.intake = Intake(
            self.store,
            self.catalog,
            self.golds,
            QuotaPolicy(settings.max_scored_per_day, settings.max_attempts_per_day),
            self.limits,
            settings.data_dir / "locks",
            on_scored=self.publish,
            seeds=self.seeds,
        )
        self.feedback = Feedback(self.catalog, exempt=(*settings.ui.maintainers, DEMO_USER.username))
        self.probes = ProbeDetector(lambda s: self.store.read("submissions", layout.raw(s.meta.benchmark, s.meta.id)))
        self._boards: dict[str, tuple[tuple, Board]] = {}
        self._lock = threading.Lock()
        self.catalog.refresh()

    # ---- browsing ----
    def board(self, benchmark: str) -> Board:
        """Rows of a benchmark (scored + paper), cached until the catalog or gold changes."""
        info = self.golds.info(benchmark)
        key = (self.catalog.generation, info.version if info else "", self.settings.row_rule)
        with self._lock:
            cached = self._boards.get(benchmark)
            if cached and cached[0] == key:
                return cached[1]
        rows: list[BoardRow] = []
        if info is not None:
            states = self.feedback.visible(self.catalog.all(benchmark), info.version)  # the Ladder rule
            rows = scored_rows(states, info.version, SCORER_VERSION, self.settings.row_rule)
        board = Board(benchmark, rows + baseline_rows(benchmark))
        with self._lock:
            self._boards[benchmark] = (key, board)
        return board

    def table(self, benchmark: str, view: str = "overall"):
        return self.board(benchmark).view(view)

    def gold_info(self, benchmark: str) -> GoldInfo | None:
        return self.golds.info(benchmark)

    def fingerprint(self, benchmark: str) -> str:
        """Changes whenever a board's rows could: a new record in the store or a new gold."""
        info = self.golds.info(benchmark)
        return f"{self.catalog.generation}:{info.version if info else ''}"

    def public_questions(self, benchmark: str) -> bytes:
        try:
            return self.store.read("results", layout.public_questions(benchmark))
        except NotFound:
            return b""

    # ---- submitting ----
    def submit(
        self,
        benchmark: str,
        path: Path,
        form: SubmissionForm,
        identity: Identity,
        filename: str = "",
        progress: Progress | None = None,
    ) -> SubmitAnswer:
        """Store, validate and score one upload: the answer the form, the API and the CLI give,
        with the new rank when it was scored."""
        answer = self.intake.submit(benchmark, Path(path), form, identity, filename, progress)
        if answer.result is not None and (info := self.golds.info(benchmark)) is not None:
            answer = self.feedback.answer(answer, info.version)  # the Ladder rule: submissions.feedback
        if answer.result is None:
            return answer
        return answer.with_rank(self.rank_of(benchmark, answer.submission_id))

    def quota(self, identity: Identity, benchmark: str) -> QuotaStatus:
        return self.intake.quota(identity, benchmark)

    def rank_of(self, benchmark: str, submission_id: str) -> int | None:
        df = self.table(benchmark)
        board = self.board(benchmark)
        ids = {(r.team, r.model): r.submission_id for r in board.rows}
        for _, row in df.iterrows():
            if ids.get((row["team"], row["model"])) == submission_id:
                return int(row["rank"])
        return None

    def submissions_of(self, identity: Identity) -> list[SubmissionState]:
        return self.catalog.by_submitter(identity.username)

    def status(self, state: SubmissionState) -> Status:
        info = self.golds.info(state.meta.benchmark)
        return state.status(info.version if info else "", SCORER_VERSION, lifecycle.MAX_FAILURES)

    # ---- integrity: feedback policy and probe detection (docs/integrity.md) ----
    def result_for_submitter(self, state: SubmissionState) -> ResultRecord | None:
        """What My submissions may show of a submission: None when withheld, hidden or held."""
        info = self.golds.info(state.meta.benchmark)
        return self.feedback.result_for_submitter(state, info.version) if info else None

    def probe_report(self, benchmark: str) -> list[ProbeFlag]:
        """Flagged submitters and their evidence (maintainers only: never shown to a team)."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return []
        return self.probes.report(self.catalog.all(benchmark), gold, self.is_held)

    def is_held(self, submission_id: str) -> bool:
        path = ModerationFile(submission_id).path
        try:
            return Moderation.from_bytes(self.store.read("submissions", path), path).held
        except (NotFound, CorruptRecord):
            return False

    def hold(self, submission_ids: list[str], by: str, why: str = "suspected probing") -> list[str]:
        """Hold results off the board and out of the feedback (a moderation record each); returns
        the ids held (unknown ids are skipped). ``unhide`` releases a hold."""
        held = [sid for sid in submission_ids if self.catalog.get(sid) is not None]
        if not held:
            return []
        at = lifecycle.now_iso()
        files = {ModerationFile(sid).path: Moderation(True, by, at, f"{HOLD_REASON} {why}").to_bytes() for sid in held}
        self.store.put("submissions", files, f"Hold {len(held)} submission(s): {why}", overwrite=True)
        for path, body in files.items():
            self.catalog.note(path, body)
        for benchmark in sorted({self.catalog.get(sid).meta.benchmark for sid in held}):
            self.publish(benchmark)
        return held

    # ---- maintaining ----
    def add_gold(self, benchmark: str, path: Path, added_by: str) -> GoldInfo:
        info = self.golds.add(benchmark, Path(path), added_by)
        self.publish(benchmark)
        return info

    def set_hidden(self, submission_id: str, hidden: bool, by: str) -> bool:
        if self.catalog.get(submission_id) is None:
            return False
        body = Moderation(hidden, by, lifecycle.now_iso()).to_bytes()
        path = ModerationFile(submission_id).path
        verb = "Hide" if hidden else "Unhide"
        self.store.put("submissions", {path: body}, f"{verb} {submission_id}", overwrite=True)
        self.catalog.note(path, body)
        self.publish(self.catalog.get(submission_id).meta.benchmark)
        return True

    def rejected(self, benchmark: str) -> list[SubmissionState]:
        return [s for s in self.catalog.all(benchmark) if self.status(s) is Status.REJECTED]

    def rescore(self, benchmark: str | None = None, workers: int | None = None) -> dict[str, object]:
        """Score all submissions on the current gold; report counts and rank changes."""
        report: dict[str, object] = {}
        for b in [benchmark] if benchmark else list(BENCHMARKS):
            info = self.golds.info(b)
            if info is None:
                continue
            gold = self.golds.compiled(info)
            before = frame(b, scored_rows(self.catalog.all(b), None, None, self.settings.row_rule))
            counts = lifecycle.rescore(self.store, self.catalog, gold, self.limits, workers, seeds=self.seeds)
            after = frame(b, scored_rows(self.catalog.all(b), info.version, SCORER_VERSION, self.settings.row_rule))
            report[b] = {"counts": counts, "rank_changes": _rank_changes(before, after)}
            self.publish(b)
        return report

    def resume(self) -> int:
        """Finish submissions left unscored (a crash, a restart, a new gold or scorer)."""
        done = 0
        for b in BENCHMARKS:
            gold = self.golds.get(b)
            if gold is not None:
                n = lifecycle.resume(self.store, self.catalog, gold, self.limits, self.seeds)
                if n:
                    self.publish(b)
                done += n
        return done

    def refresh(self) -> bool:
        """Pull what other writers stored (Hub replicas, the CLI) into the catalog."""
        try:
            self.store.sync()
        except Exception:  # the Hub being down must not stop the board from serving
            log.warning("store sync failed; serving what is cached", exc_info=True)
        changed = self.catalog.refresh()
        if changed:  # another writer scored or hid something: the public tables follow
            for benchmark in BENCHMARKS:
                self.publish(benchmark)
        return changed

    def push_pending(self) -> int:
        return self.store.push_pending()

    def repair(self) -> list[str]:
        """Detect and rebuild what is derived from immutable inputs: unreadable result,
        rejection or validation files (recomputed from the raw upload and that gold version)
        and unreadable public tables (republished). Returns the paths rebuilt."""
        rebuilt = []
        for path in list(self.catalog.corrupt):
            data = self._rederive(SubmissionFile.parse(path))
            if data is None:
                log.error("cannot rebuild %s: it is an input, not derived", path)
                continue
            self.store.put("submissions", {path: data}, f"Repair {path}", overwrite=True)
            self.catalog.forget(path)
            self.catalog.note(path, data)
            rebuilt.append(path)
        for benchmark in BENCHMARKS:
            path = layout.public_table(benchmark, "parquet")
            try:
                import pandas as pd

                pd.read_parquet(io.BytesIO(self.store.read("results", path)))
            except NotFound:
                continue
            except Exception:
                log.error("public table %s unreadable: republishing", path)
                self.publish(benchmark)
                rebuilt.append(path)
        return rebuilt

    def _rederive(self, file: SubmissionFile) -> bytes | None:
        """The body of a derived file, made again the way the lifecycle made it; None for an
        input (meta), or a result the current scorer would not write under that name."""
        if file.kind is Kind.FAILURE:
            return StoredFailure("the original failure record was unreadable", lifecycle.now_iso()).to_bytes()
        if file.kind is Kind.VALIDATED:
            return Validated().to_bytes()
        state = self.catalog.get(file.sid)
        if state is None or file.kind not in (Kind.RESULT, Kind.REJECTED):
            return None
        gold = self.golds.version(file.benchmark, file.gold)
        if gold is None:
            return None
        raw = self.store.read("submissions", layout.raw(file.benchmark, file.sid))
        answer = lifecycle.evaluate(state.meta, gold, raw, self.limits, self.seeds)
        return lifecycle.outcome_files(state.meta, gold.version, answer, lifecycle.now_iso()).get(file)

    def publish(self, benchmark: str) -> None:
        """Rewrite the public table. Writers on one data folder (app, CLI, processes) take turns
        and each first reads what the others stored, so no publish drops another's row."""
        locks = self.settings.data_dir / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        with FileLock(str(locks / f"publish-{benchmark}.lock")):
            self.catalog.refresh()
            publish(self.store, benchmark, self.board(benchmark).rows)

    # ---- first start ----
    def seed_demo(self) -> bool:
        """Give an empty store every registered demo (gold, then its teams' submissions; the paper
        rows come with the board); False if the store is not empty."""
        if any(self.golds.info(b) for b in BENCHMARKS):
            return False
        from leaderboard import demo

        with tempfile.TemporaryDirectory() as tmp:
            for data in demo.registered():
                files = demo.write_files(data, Path(tmp))
                self.add_gold(data.benchmark, files.gold, DEMO_USER.username)
                for team, path in files.submissions.items():
                    form = SubmissionForm(
                        model=team.name, team=team.team, model_type=team.model_type, bbox_format=team.box_format
                    )
                    self.submit(team.benchmark, path, form, DEMO_USER, team.filename)
        return True


def _rank_changes(before, after) -> list[RankChange]:
    old = {(r.team, r.model): int(r.rank) for r in before.itertuples()}
    new = {(r.team, r.model): int(r.rank) for r in after.itertuples()}
    return [
        RankChange(team, model, old.get((team, model)), new.get((team, model)))
        for team, model in sorted(set(old) | set(new))
        if old.get((team, model)) != new.get((team, model))
    ]
