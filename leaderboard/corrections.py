"""Gold corrections and rescoring, for maintainers: stage a new gold, preview what it would do to
the board, rescore every submission on it and switch the board in one step (leaderboard.golds).

Each piece of work is done once, and where it is bounded (issues 40 and 41). The preview compiles
and audits the gold, and staging takes both; the preview's outcomes (same gold, scorer and seeds)
are recorded once the gold is staged, so the rescore that follows scores only what arrived since.
Every evaluation runs where the intake's evaluator runs (the app's or the CLI's bounded scoring
pool: time and memory per file), from the uploads' stored readings (an upload without one is read
there once), ``parallel`` at a time, none started after a deadline; an upload stopped at its bound
is reported and never read again.

A room of the leaderboard (leaderboard.service): what ``python -m leaderboard gold|rescore`` and
the Maintainers tab call."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from datetime import UTC, datetime
from pathlib import Path

from leaderboard.boards import Boards
from leaderboard.golds import GoldPreview, RowsWouldLeave, ShownPreview, rank_changes, row_moves
from leaderboard.golds import preview as preview_switch
from leaderboard.publishing import Publisher
from scoring import BENCHMARKS, SCORER_VERSION, Gold, Limits
from scoring.goldcheck import compare
from store.base import Store
from store.golds import CheckedGold, GoldInfo, GoldRegistry, GoldUpdate, leak_audit, normalised
from store.records import StagedPreview
from submissions import lifecycle
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.intake import Intake
from submissions.records import Status
from submissions.request import Progress
from submissions.seeds import Seeds

log = logging.getLogger(__name__)
DEADLINE_SECONDS = 3600.0
"""No evaluation of a preview or a rescore starts after this long (what it left is said, and
finished by a later rescore or the app's resume)."""


class PreviewJobs:
    """One background thread that computes staged-gold previews, each key once at a time: a page
    render asks for one and returns at once; two maintainers opening the tab start one job."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._running: dict[tuple, Future] = {}
        self._lock = threading.Lock()

    def start(self, key: tuple, job: Callable[[], object]) -> None:
        with self._lock:
            self._running = {k: f for k, f in self._running.items() if not f.done()}
            if key in self._running:
                return
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="gold-preview")
            self._running[key] = self._pool.submit(job)

    def wait(self, timeout: float | None = None) -> None:
        """Until every job started so far has ended (tests, and a CLI that must not exit first)."""
        with self._lock:
            running = list(self._running.values())
        wait_all(running, timeout)


def preview_basis(current: str, staged: str, states: list[SubmissionState]) -> str:
    """What a staged gold's preview depends on besides the golds and the scorer: which submissions
    are stored and whether each is hidden or public (the board before and after). A new upload, a hide or a
    publication changes it, so a kept preview is recomputed rather than shown outdated."""
    parts = sorted(f"{s.meta.id}:{int(s.hidden)}:{int(s.public)}" for s in states)
    return hashlib.sha256("\n".join([SCORER_VERSION, current, staged, *parts]).encode()).hexdigest()


class GoldCorrections:
    """Golds and rescoring (see module doc)."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        golds: GoldRegistry,
        intake: Intake,
        limits: Limits,
        seeds: Seeds,
        boards: Boards,
        publisher: Publisher,
    ) -> None:
        self.store, self.catalog, self.golds, self.limits, self.seeds = store, catalog, golds, limits, seeds
        self.intake = intake  # its evaluator and parallelism, read at each job: the app swaps in its pool
        self.boards, self.publisher = boards, publisher
        self.preview_jobs = PreviewJobs()
        self._unkept: set[str] = set()  # uploads read whose reading could not be kept: not read again here

    def add_gold(
        self, benchmark: str, path: Path, added_by: str, confirm: bool = False, withheld: tuple[str, ...] = ()
    ) -> GoldInfo:
        return self.update_gold(benchmark, path, added_by, confirm, withheld).info

    def update_gold(
        self,
        benchmark: str,
        path: Path,
        added_by: str,
        confirm: bool = False,
        withheld: tuple[str, ...] = (),
        preview: GoldPreview | None = None,
    ) -> GoldUpdate:
        """Validate and stage a new gold (see store/golds.py): the board keeps the current gold
        until :meth:`rescore` (or the background :meth:`resume`) switches it. ``withheld``: question
        fields left out of the public list (the update's leak audit is of the list as published)."""
        shown = preview
        if not confirm and self.golds.info(benchmark) is not None:
            shown = shown or self.preview_gold(benchmark, path, withheld)
            if shown.leaving:  # a row would leave the board: the maintainer confirms that first
                raise RowsWouldLeave(shown)
        checked = shown.checked if shown is not None else None
        update = self.golds.stage(benchmark, Path(path), added_by, confirm, withheld, checked)
        if not update.staged:
            self.publisher.publish(benchmark, now=True)
        elif shown is not None and shown.new == update.info.version:
            self._keep_preview(shown)  # computed once here: the tab and the confirmation read it
            self._record(shown, self.golds.compiled(update.info))
        return update  # staged without a preview (confirmed, none given): the tab's first view starts one

    def _record(self, shown: GoldPreview, gold: Gold) -> None:
        """The preview's outcomes, stored on the gold it previewed (now staged): the rescore and the
        app's resume find them done. A submission that has one by now (another writer) keeps it."""
        for sid, evaluated in shown.outcomes.items():
            state = self.catalog.get(sid)
            if state is not None and lifecycle.unfinished([state], gold):
                lifecycle.record(self.store, self.catalog, state.meta, gold, evaluated.answer)

    def preview_gold(self, benchmark: str, path: Path, withheld: tuple[str, ...] = ()) -> GoldPreview:
        """What switching the board to the gold at ``path`` would do, before anything is stored:
        the gold's changes and every row's place and figures before -> after (maintainers only;
        leaderboard.golds). Raises as ``update_gold`` does for a broken file. Carries the gold
        compiled and audited, and its outcomes, for staging it (:meth:`update_gold`)."""
        self.publisher.refresh()  # from what the store holds now
        current = self.golds.info(benchmark)
        new, suffix = self.golds.read(benchmark, Path(path))
        new.retired = self.golds.retired(new)
        changes = compare(self.golds.compiled(current), new) if current is not None else None
        withheld = normalised(withheld)
        leaks = leak_audit(benchmark, Path(path), new, withheld)
        stored = self.catalog.all(benchmark)
        basis = preview_basis(current.version if current else "", new.version, stored)
        states = [s for s in stored if s.readings or lifecycle.has_raw(self.store, s.meta)]
        evaluated = self.evaluate_all(new, states)

        def evaluate(state: SubmissionState) -> SubmitAnswer:
            found = evaluated.get(state.meta.id)
            if found is None:  # not reached by the deadline, or an internal error (logged)
                raise RuntimeError("not evaluated")
            return found.answer

        def board_on(states: list[SubmissionState], version: str):
            return self.boards.board_on(benchmark, states, version).view()

        args = (benchmark, current.version if current else "", new.version, changes, states, evaluate, board_on)
        shown = preview_switch(*args, self.boards.table(benchmark), leaks)
        stopped = tuple(sorted(sid for sid, e in evaluated.items() if e is not None and e.over_bound))
        found = {sid: e for sid, e in evaluated.items() if e is not None}
        checked = CheckedGold(new, suffix, withheld, leaks, changes, current.version if current else "")
        return dataclasses.replace(shown, basis=basis, checked=checked, outcomes=found, over_bound=stopped)

    def evaluate_all(
        self, gold: Gold, states: list[SubmissionState], on_progress: Progress | None = None
    ) -> dict[str, lifecycle.Evaluated | None]:
        """Each of ``states`` that has no outcome on ``gold`` evaluated (nothing recorded), in the
        intake's bounded pool, ``parallel`` at a time, within :data:`DEADLINE_SECONDS`; by id (None:
        an internal error, logged)."""
        owing = [s for s in states if s.status(gold.version, SCORER_VERSION) not in (Status.SCORED, Status.REJECTED)]
        evaluator, seeds = self.intake.evaluator, self.seeds.resolved()

        def job(state: SubmissionState) -> lifecycle.Evaluated | None:
            try:
                return lifecycle.evaluate_stored(self.store, self.catalog, state, gold, self.limits, evaluator, seeds)
            except Exception:  # the preview says "scoring failed" for it; the rescore records the failure
                log.exception("evaluating %s for a preview failed", state.meta.id)
                return None

        done = None if on_progress is None else (lambda n, total: on_progress(n / total, f"{n} of {total} scored"))
        return lifecycle.for_each(owing, job, self.intake.parallel, DEADLINE_SECONDS, done)

    def preview_staged(self, benchmark: str) -> GoldPreview | None:
        """The preview of switching to the staged gold (None when nothing is staged), computed
        now (every submission scored on it that has no outcome there) and kept for
        :meth:`staged_preview`, which the Maintainers tab and its Rescore all confirmation read."""
        staged = self.golds.staged(benchmark)
        if staged is None:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(staged.file).name
            path.write_bytes(self.store.read("gold", staged.file))
            shown = self.preview_gold(benchmark, path, staged.withheld)
        self._keep_preview(shown)
        self._record(shown, self.golds.compiled(staged))  # the gold is staged: its outcomes are the switch's
        return shown

    def staged_preview(self, benchmark: str) -> ShownPreview | None:
        """The staged gold's preview for a page: the kept one if it is of today's staged gold and
        stored submissions, else a background job computes it and this says so (a render never
        scores a submission). None when nothing is staged."""
        staged = self.golds.staged(benchmark)
        if staged is None:
            return None
        current = self.golds.info(benchmark)
        basis = preview_basis(current.version if current else "", staged.version, self.catalog.all(benchmark))
        kept = self.golds.kept_preview(benchmark)
        if kept is not None and (kept.staged, kept.basis) == (staged.version, basis):
            return ShownPreview(benchmark, staged.version, True, tuple(kept.lines.split("\n")), kept.summary)
        self.preview_jobs.start((benchmark, staged.version, basis), lambda: self._preview_in_background(benchmark))
        return ShownPreview(benchmark, staged.version, False)

    def _preview_in_background(self, benchmark: str) -> None:
        try:
            self.preview_staged(benchmark)
        except Exception:  # a broken store or file: logged; the tab keeps saying it is being computed
            log.exception("%s: the staged gold's preview could not be computed", benchmark)

    def _keep_preview(self, shown: GoldPreview) -> None:
        now = datetime.now(UTC).isoformat()
        record = StagedPreview(shown.benchmark, shown.new, shown.basis, now, "\n".join(shown.lines()), shown.summary())
        self.golds.keep_preview(record)

    def gold_audit(self, benchmark: str) -> tuple:
        """The leak audit of the current gold's public list as published (maintainers only)."""
        info = self.golds.info(benchmark)
        if info is None:
            return ()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(info.file).name
            path.write_bytes(self.store.read("gold", info.file))
            return leak_audit(benchmark, path, self.golds.compiled(info), info.withheld)

    def staged_gold(self, benchmark: str) -> GoldInfo | None:
        return self.golds.staged(benchmark)

    def rejected(self, benchmark: str) -> list[SubmissionState]:
        return [s for s in self.catalog.all(benchmark) if self.boards.status(s) is Status.REJECTED]

    def rescore(
        self,
        benchmark: str | None = None,
        workers: int | None = None,
        on_progress: Progress | None = None,
        deadline: float = DEADLINE_SECONDS,
    ) -> dict[str, object]:
        """Score all submissions on the staged gold (else the current one), on all cores, then
        switch the board to it; report counts and the changes of the public ranking (paper
        rows included): before = the board as the store holds it when the rescore starts (what
        other writers, e.g. a CLI hide, changed since this process's last refresh is no change of
        the rescore), after = the board now."""
        self.publisher.refresh()  # from what the store holds now
        report: dict[str, object] = {}
        for b in [benchmark] if benchmark else list(BENCHMARKS):
            if self.golds.info(b) is not None:
                report[b] = self._rescore_one(b, workers, on_progress, deadline)
        return report

    def _rescore_one(
        self, b: str, workers: int | None, on_progress: Progress | None, deadline: float
    ) -> dict[str, object]:
        """:meth:`rescore` of one benchmark that has a gold: its report (``over_bound``: the uploads
        stopped at a job bound, rejected; ``left``: not reached by the deadline)."""
        current = self.golds.info(b)
        target = self.golds.staged(b) or current
        before = self.boards.table(b)
        run = self._score_all(b, self.golds.compiled(target), workers, on_progress, deadline)
        staged = target.version != current.version
        if staged:
            self._switch(b, target)
        self.publisher.publish(b, now=True)
        after = self.boards.table(b)
        report: dict[str, object] = {
            "counts": run.counts,
            "kept": len(self.catalog.all(b)) - sum(run.counts.values()) - run.left,  # outcomes already stored on it
            "gold": target.version,
            "rank_changes": rank_changes(before, after),
            "rows": row_moves(b, before, after, self._why_not_rows(b, self.golds.info(b).version)),
            "over_bound": list(run.over_bound),
            "left": run.left,
        }
        if staged:  # did the board switch to it (here, or another writer first)?
            switched = self.golds.info(b).version == target.version
            report["switched_to" if switched else "still_staged"] = target.version
        return report

    def _why_not_rows(self, benchmark: str, version: str) -> dict[tuple[str, str], str]:
        """Why each (team, model) whose submissions are all off the board on ``version`` is off it."""
        why: dict[tuple[str, str], str] = {}
        for state in self.catalog.all(benchmark):
            status = state.status(version, SCORER_VERSION, lifecycle.MAX_FAILURES)
            if state.hidden:
                why[(state.meta.team, state.meta.model)] = "hidden by a maintainer" + (" (held)" if state.held else "")
            elif status is Status.REJECTED and (rejection := state.rejection(version)) is not None:
                first = rejection.issues[0].message if rejection.issues else "no issue listed"
                why[(state.meta.team, state.meta.model)] = f"rejected on gold {version[:12]}: {first}"
            elif status is Status.FAILED:
                why[(state.meta.team, state.meta.model)] = "scoring failed on an internal error (retried)"
            elif not state.public:
                why.setdefault((state.meta.team, state.meta.model), "withdrawn by its team (private)")
        return why

    def _score_all(
        self, benchmark: str, gold: Gold, workers: int | None, on_progress: Progress | None, deadline: float
    ) -> lifecycle.Rescored:
        """Every submission to an outcome (or a recorded failure) on ``gold``: one pass in the
        intake's bounded pool within ``deadline``, then the few that arrived meanwhile."""
        done = None if on_progress is None else (lambda n, total: on_progress(n / total, f"{n} of {total} scored"))
        evaluator, parallel = self.intake.evaluator, workers or self.intake.parallel
        run = lifecycle.rescore(
            self.store, self.catalog, gold, self.limits, parallel, done, self.seeds, evaluator, deadline
        )
        counts, stopped = dict(run.counts), list(run.over_bound)
        for _ in range(lifecycle.MAX_FAILURES if not run.left else 0):
            late = lifecycle.unsettled(self.catalog.all(benchmark), gold)
            if not late:
                break
            for state in late:
                answer = lifecycle.process(
                    self.store, self.catalog, state.meta, gold, self.limits, None, evaluator, self.seeds
                )
                counts[answer.status.value] = counts.get(answer.status.value, 0) + 1
        return lifecycle.Rescored(counts, tuple(stopped), run.left)

    def _switch(self, benchmark: str, staged: GoldInfo) -> bool:
        """Make ``staged`` current and republish, under the publish lock, if every submission has
        an outcome or a failure on it; the board's rows change in one step (see Leaderboard.board)."""
        with self.publisher.lock(benchmark):
            self.catalog.refresh()
            if lifecycle.unsettled(self.catalog.all(benchmark), self.golds.compiled(staged)):
                return False
            before = self.boards.table(benchmark)
            if self.golds.promote(benchmark, staged.version) is None:
                return False
            self.publisher.put_public(benchmark)
        changes = rank_changes(before, self.boards.table(benchmark))
        log.info("%s: gold %s is current; rank changes: %s", benchmark, staged.version[:12], changes or "none")
        return True

    def score_late_arrival(self, benchmark: str, submission_id: str, scored_on: GoldInfo | None) -> None:
        """A submission that arrives while a gold is staged is scored on it too, so that it keeps
        its row when the board switches; and on the current gold if the board switched after
        ``scored_on`` was read (the intake then scored on the old one)."""
        state = self.catalog.get(submission_id) if submission_id else None
        if state is None or scored_on is None:
            return
        current = self.golds.info(benchmark)
        owed = [self.golds.staged(benchmark), current if current.version != scored_on.version else None]
        for info in filter(None, owed):  # from its reading, where the intake's evaluator runs
            gold = self.golds.compiled(info)
            lifecycle.process(
                self.store, self.catalog, state.meta, gold, self.limits, None, self.intake.evaluator, self.seeds
            )

    def resume(self) -> int:
        """Finish submissions left unscored (a crash, a restart, a new scorer), then those owing
        a result on a staged gold, and switch the board to it when none is left: the background
        rescore of a gold added from the CLI or another replica; then read, once, the stored uploads
        that have no reading (stored before readings, or a new reader). Each is evaluated where
        uploads are (the scoring pool, within its job bounds, when the app has one)."""
        if not self.store.consistent:  # only on a complete copy: "unscored" must not mean "not arrived yet"
            return 0
        done = 0
        for b in BENCHMARKS:
            gold = self.golds.get(b)
            if gold is None:
                continue
            n = lifecycle.resume(self.store, self.catalog, gold, self.limits, self.seeds, self.intake.evaluator)
            if n:
                self.publisher.publish(b)
            staged = self.golds.staged(b)
            if staged is not None:
                compiled, evaluator = self.golds.compiled(staged), self.intake.evaluator
                n += lifecycle.resume(self.store, self.catalog, compiled, self.limits, self.seeds, evaluator)
                self._switch(b, staged)
            done += n
            lifecycle.read_unread(
                self.store, self.catalog, gold, self.limits, self.intake.evaluator, self.seeds, self._unkept
            )
        return done
