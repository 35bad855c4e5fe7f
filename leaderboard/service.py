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
from leaderboard.table import Board, BoardRow, baseline_rows, scored_rows
from scoring import BENCHMARKS, SCORER_VERSION, Gold, Limits
from scoring.benchmarks import load_plugins
from store import layout
from store.base import NotFound, Store
from store.golds import GoldInfo, GoldRegistry, GoldUpdate
from store.layout import Kind, ModerationFile, SubmissionFile
from store.local import LocalStore
from store.records import Moderation, StoredFailure, Validated
from submissions import lifecycle
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.intake import Intake, Progress
from submissions.quotas import QuotaPolicy, QuotaStatus
from submissions.records import Identity, Status, SubmissionForm

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
        self.intake = Intake(
            self.store,
            self.catalog,
            self.golds,
            QuotaPolicy(settings.max_scored_per_day, settings.max_attempts_per_day),
            self.limits,
            settings.data_dir / "locks",
            on_scored=self.publish,
        )
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
            rows = scored_rows(self.catalog.all(benchmark), info.version, SCORER_VERSION, self.settings.row_rule)
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
        scored_on = self.golds.info(benchmark)  # the gold the intake scores on, unless the board switches meanwhile
        answer = self.intake.submit(benchmark, Path(path), form, identity, filename, progress)
        self._score_on_staged(benchmark, answer.submission_id, scored_on)
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

    # ---- maintaining ----
    def add_gold(self, benchmark: str, path: Path, added_by: str, confirm: bool = False) -> GoldInfo:
        return self.update_gold(benchmark, path, added_by, confirm).info

    def update_gold(self, benchmark: str, path: Path, added_by: str, confirm: bool = False) -> GoldUpdate:
        """Validate and stage a new gold (see store/golds.py): the board keeps the current gold
        until :meth:`rescore` (or the background :meth:`resume`) switches it."""
        update = self.golds.stage(benchmark, Path(path), added_by, confirm)
        if not update.staged:
            self.publish(benchmark)
        return update

    def staged_gold(self, benchmark: str) -> GoldInfo | None:
        return self.golds.staged(benchmark)

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

    def rescore(
        self, benchmark: str | None = None, workers: int | None = None, on_progress: Progress | None = None
    ) -> dict[str, object]:
        """Score all submissions on the staged gold (else the current one), on all cores, then
        switch the board to it; report counts and the changes of the public ranking (paper
        rows included): before = the board as the public saw it, after = the board now."""
        report: dict[str, object] = {}
        for b in [benchmark] if benchmark else list(BENCHMARKS):
            current = self.golds.info(b)
            if current is None:
                continue
            target = self.golds.staged(b) or current
            before = self.table(b)
            counts = self._score_all(b, self.golds.compiled(target), workers, on_progress)
            staged = target.version != current.version
            if staged:
                self._switch(b, target)
            self.publish(b)
            report[b] = {"counts": counts, "rank_changes": _rank_changes(before, self.table(b))}
            if staged:  # did the board switch to it (here, or another writer first)?
                switched = self.golds.info(b).version == target.version
                report[b]["switched_to" if switched else "still_staged"] = target.version
        return report

    def _score_all(
        self, benchmark: str, gold: Gold, workers: int | None, on_progress: Progress | None
    ) -> dict[str, int]:
        """Every submission to an outcome (or a recorded failure) on ``gold``: one parallel pass,
        then the few that arrived meanwhile, one by one."""
        done = None if on_progress is None else (lambda n, total: on_progress(n / total, f"{n} of {total} scored"))
        counts = lifecycle.rescore(self.store, self.catalog, gold, self.limits, workers, done)
        for _ in range(lifecycle.MAX_FAILURES):
            late = lifecycle.unsettled(self.catalog.all(benchmark), gold)
            if not late:
                break
            for state in late:
                status = lifecycle.process(self.store, self.catalog, state.meta, gold, self.limits).status
                counts[status.value] = counts.get(status.value, 0) + 1
        return counts

    def _switch(self, benchmark: str, staged: GoldInfo) -> bool:
        """Make ``staged`` current and republish, under the publish lock, if every submission has
        an outcome or a failure on it; the board's rows change in one step (see board())."""
        with self._publish_lock(benchmark):
            self.catalog.refresh()
            if lifecycle.unsettled(self.catalog.all(benchmark), self.golds.compiled(staged)):
                return False
            before = self.table(benchmark)
            if self.golds.promote(benchmark, staged.version) is None:
                return False
            publish(self.store, benchmark, self.board(benchmark).rows)
        changes = _rank_changes(before, self.table(benchmark))
        log.info("%s: gold %s is current; rank changes: %s", benchmark, staged.version[:12], changes or "none")
        return True

    def _score_on_staged(self, benchmark: str, submission_id: str, scored_on: GoldInfo | None) -> None:
        """A submission that arrives while a gold is staged is scored on it too, so that it keeps
        its row when the board switches; and on the current gold if the board switched after
        ``scored_on`` was read (the intake then scored on the old one)."""
        state = self.catalog.get(submission_id) if submission_id else None
        if state is None or scored_on is None:
            return
        current = self.golds.info(benchmark)
        owed = [self.golds.staged(benchmark), current if current.version != scored_on.version else None]
        for info in filter(None, owed):
            lifecycle.process(self.store, self.catalog, state.meta, self.golds.compiled(info), self.limits)

    def resume(self) -> int:
        """Finish submissions left unscored (a crash, a restart, a new scorer), then those owing
        a result on a staged gold, and switch the board to it when none is left: the background
        rescore of a gold added from the CLI or another replica."""
        done = 0
        for b in BENCHMARKS:
            gold = self.golds.get(b)
            if gold is None:
                continue
            n = lifecycle.resume(self.store, self.catalog, gold, self.limits)
            if n:
                self.publish(b)
            staged = self.golds.staged(b)
            if staged is not None:
                n += lifecycle.resume(self.store, self.catalog, self.golds.compiled(staged), self.limits)
                self._switch(b, staged)
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
        answer = lifecycle.evaluate(state.meta, gold, raw, self.limits)
        return lifecycle.outcome_files(state.meta, gold.version, answer, lifecycle.now_iso()).get(file)

    def publish(self, benchmark: str) -> None:
        """Rewrite the public table. Writers on one data folder (app, CLI, processes) take turns
        and each first reads what the others stored, so no publish drops another's row."""
        with self._publish_lock(benchmark):
            self.catalog.refresh()
            publish(self.store, benchmark, self.board(benchmark).rows)

    def _publish_lock(self, benchmark: str) -> FileLock:
        """Writers of a benchmark's public table and gold pointer take turns (threads and processes)."""
        locks = self.settings.data_dir / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        return FileLock(str(locks / f"publish-{benchmark}.lock"))

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
