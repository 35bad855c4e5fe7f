"""The leaderboard as one object: storage, gold, catalog and intake wired together, and the
board everyone reads. ``app.py``, ``ui/`` and the maintainer CLI are thin shells over it.

Its use cases are rooms, each about ten methods a newcomer can name:

- :attr:`Leaderboard.submissions` (leaderboard.submitting): an upload in, its answer out, and
  the after-scoring pipeline declared there;
- :attr:`Leaderboard.visibility` (leaderboard.visibility): a team's view of its submissions,
  publishing them, and their model pages;
- :attr:`Leaderboard.corrections` (leaderboard.corrections): golds and rescoring;
- :attr:`Leaderboard.moderation` (leaderboard.moderation): holds, hides, probes, team names;
- :attr:`Leaderboard.descriptions` (leaderboard.descriptions): a row's descriptive fields corrected.

Each room takes the collaborators it uses (the store, the catalog, the golds, the boards, the
publisher...), built here; none holds the facade. The object itself is the board (what
:class:`leaderboard.reader.Reader` serves too; leaderboard.boards builds it) and the process's
upkeep: sync, publish, repair, worker pools, first start.

With no Hub configured it runs on a local folder, seeded on first start with demo gold and
submissions so that a new user sees a real board at once. On the Hub, nothing is decided from a
partial working copy: until the store's first complete sync, submissions are answered "try
again"; public tables are published and unfinished submissions resumed only after a complete
sync. Publishing is debounced (leaderboard.publishing), since every publish is a commit.
"""

from __future__ import annotations

import io
import logging
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard import dates
from leaderboard.boards import Boards
from leaderboard.config import Settings
from leaderboard.corrections import GoldCorrections
from leaderboard.descriptions import Descriptions
from leaderboard.golds import RankChange as RankChange  # re-exported: scripts and tests import it here
from leaderboard.items import ItemAnalyses
from leaderboard.moderation import Moderating
from leaderboard.publishing import Publisher
from leaderboard.submitting import Submissions
from leaderboard.table import Board
from leaderboard.visibility import EvalResults as EvalResults  # re-exported: ui and tests import it here
from leaderboard.visibility import Visibility
from scoring import BENCHMARKS, Limits
from scoring.benchmarks import load_plugins
from store import layout
from store.base import NotFound, Store, StoreHealth
from store.golds import GoldInfo, GoldRegistry
from store.layout import Kind, SubmissionFile
from store.local import LocalStore
from store.records import StoredFailure, Validated
from submissions import lifecycle, reading
from submissions.catalog import Catalog, SubmissionState
from submissions.fair_queue import FairQueue
from submissions.feedback import Feedback
from submissions.intake import Intake
from submissions.job_bounds import JobBounds
from submissions.model_hub import HubModels, PooledModels
from submissions.probes import ProbeDetector
from submissions.quotas import QuotaPolicy
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from submissions.seeds import StoredSeeds

if TYPE_CHECKING:
    from submissions.worker import ScoringPool, WorkerPool

log = logging.getLogger(__name__)
DEMO_USER = Identity("demo", is_maintainer=True, source="local")


def make_store(settings: Settings) -> Store:
    if settings.uses_hub:
        from store.hub import HubStore  # only a Hub deployment needs the client

        return HubStore(settings.data_dir / "hub-cache", settings.hub_repos, settings.hub_token, settings.hub_endpoint)
    return LocalStore(settings.data_dir)


@dataclass(frozen=True)
class Health:
    """The state maintainers watch: the store's sync and writes, and tables awaiting publication."""

    store: StoreHealth
    unpublished: tuple[str, ...]  # benchmarks whose public table waits for the debounce or a sync

    def lines(self) -> list[str]:
        """Plain lines for ``python -m leaderboard status`` and the Maintainers tab."""
        s = self.store
        sync = "complete" if s.ready and s.consistent else ("incomplete (last try)" if s.ready else "not yet done")
        lines = [
            f"storage: {s.where}",
            f"sync: {sync}; last complete sync: {s.last_sync or 'never'}",
            f"writes waiting to be pushed: {s.pending}",
            f"public tables waiting: {', '.join(self.unpublished) or 'none'}",
            f"last error: {s.last_error or 'none'}",
        ]
        lines += [f"PROBLEM: {p}" for p in s.problems]
        lines += [f"PARKED (refused by the Hub, not retried): {p}" for p in s.parked]
        return lines


class Leaderboard:
    """See module doc. Thread-safe for the app's concurrent requests."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        load_plugins(settings.plugins)  # before anything reads the benchmark registry
        self.store = store = store or make_store(settings)
        self.golds = golds = GoldRegistry(store, settings.data_dir / "cache")
        self.catalog = catalog = Catalog(store)
        self.limits = limits = Limits(max_bytes=settings.max_upload_bytes)
        self.seeds = seeds = StoredSeeds(store, settings.bootstrap_secret, lifecycle.now_iso)
        self.intake = intake = Intake(
            store,
            catalog,
            golds,
            QuotaPolicy(settings.max_scored_per_day, settings.max_attempts_per_day),
            limits,
            settings.data_dir / "locks",
            min_coverage=settings.min_coverage or None,
            seeds=seeds,
            model_facts=HubModels(settings.hub_endpoint),
        )
        self.teams = teams = intake.teams
        self.feedback = feedback = Feedback(
            catalog,
            exempt=(*settings.ui.maintainers, DEMO_USER.username),
            ladder=settings.feedback == "ladder",
            publications=settings.publications_per_week,
            contact=settings.contact_line,
        )
        self.probes = ProbeDetector(lambda s: reading.read_answers(store, s))  # readings, never uploads
        # The board and the rooms, one line each: every room is given what it uses, never the facade.
        self.boards = boards = Boards(settings, golds, catalog, feedback, teams)
        self.publisher = publisher = Publisher(settings, store, catalog, golds, boards)
        self.visibility = Visibility(settings, store, catalog, golds, teams, feedback, boards, publisher)
        self.descriptions = Descriptions(store, catalog, intake, self.visibility, publisher)
        self.corrections = GoldCorrections(store, catalog, golds, intake, limits, seeds, boards, publisher)
        self.moderation = Moderating(settings, store, catalog, golds, teams, feedback, self.probes, publisher)
        self.items = ItemAnalyses(store, golds, catalog, lambda: intake.run_check, self.corrections.update_gold)
        rooms = self.corrections, self.moderation, self.visibility, self.items  # what the steps after scoring ask
        self.submissions = Submissions(catalog, golds, intake, feedback, boards, publisher, *rooms)
        catalog.refresh()

    # ---- the board (what leaderboard.reader.Reader serves too; leaderboard.boards) ----
    def board(self, benchmark: str) -> Board:
        """Rows of a benchmark (scored + paper), cached until the catalog or gold changes."""
        return self.boards.board(benchmark)

    def board_on(
        self, benchmark: str, states: list[SubmissionState], version: str | None, today: str | None = None
    ) -> Board:
        """The board of ``states`` on gold ``version`` (leaderboard.boards)."""
        return self.boards.board_on(benchmark, states, version, today)

    def table(self, benchmark: str, view: str = "overall", keep=None):
        """A view of the rows ``keep`` accepts (all by default), ranked among themselves."""
        return self.boards.table(benchmark, view, keep)

    def gold_info(self, benchmark: str) -> GoldInfo | None:
        return self.golds.info(benchmark)

    def fingerprint(self, benchmark: str) -> str:
        """Changes whenever a board's rows could: a new record in the store, a new gold or a new
        day (a reveal date)."""
        info = self.golds.info(benchmark)
        return f"{self.catalog.generation}:{info.version if info else ''}:{dates.today()}"

    def public_questions(self, benchmark: str) -> bytes:
        try:
            return self.store.read("results", layout.public_questions(benchmark))
        except NotFound:
            return b""

    def group_sizes(self, benchmark: str) -> dict[str, dict[str, int]]:
        """Questions per group of the current gold (public: the question list carries the groups)."""
        return self.boards.group_sizes(benchmark)

    def last_updated(self, benchmark: str) -> str:
        """When the board last changed: its newest row or its gold, ISO 8601 ("" for neither)."""
        info = self.golds.info(benchmark)
        times = [r.submitted_at for r in self.board(benchmark).rows if r.submitted_at]
        times += [info.added_at] if info else []
        return max(times, default="")

    # ---- upkeep: sync, publish, repair, worker pools, first start ----
    def refresh(self) -> bool:
        """Pull what other writers stored (Hub replicas, the CLI) into the catalog, and publish
        the tables whose debounce has run out (leaderboard.publishing)."""
        return self.publisher.refresh()

    def push_pending(self) -> int:
        return self.store.push_pending()

    def flush(self) -> int:
        """Publish every waiting table now and push every waiting write (a maintainer's command
        ends with this); returns the writes still waiting."""
        for benchmark in self.publisher.waiting():
            self.publisher.publish(benchmark, now=True)
        return self.store.push_pending()

    def health(self) -> Health:
        return Health(self.store.health(), tuple(self.publisher.waiting()))

    def repair(self) -> list[str]:
        """Detect and rebuild what is derived from immutable inputs: unreadable result,
        rejection or validation files (recomputed from the raw upload and that gold version)
        and unreadable public tables (republished). Returns the paths rebuilt."""
        rebuilt = []
        if not self.store.consistent:
            return []
        for path in list(self.catalog.corrupt):
            file = SubmissionFile.parse(path)
            data = self._rederive(file) if file is not None else None  # events are inputs
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
                self.store.read("results", layout.public_board(benchmark))  # published before readers existed?
            except NotFound:
                if self.store.exists("results", path):  # the table without its snapshot: readers need it
                    self.publisher.publish(benchmark, now=True)
                    rebuilt.append(layout.public_board(benchmark))
                continue
            except Exception:
                log.error("public table %s unreadable: republishing", path)
                self.publisher.publish(benchmark, now=True)
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
        args = (self.store, self.catalog, state, gold, self.limits, self.intake.evaluator, self.seeds)
        evaluated = lifecycle.evaluate_stored(*args)  # from its reading, where uploads are evaluated
        if evaluated is None:
            return None
        return lifecycle.outcome_files(state.meta, gold.version, evaluated.answer, lifecycle.now_iso()).get(file)

    def use_scoring_pool(self, workers: int, bounds: JobBounds = JobBounds()) -> ScoringPool:
        """Score and check uploads (validate-only, pre-checks) in ``workers`` lower-priority
        processes, so browsing keeps the CPU; checks take fair turns, one per worker at once, each
        job within ``bounds`` (stopped past them: no account waits longer behind another's job)."""
        from submissions.worker import ScoringPool

        pool = ScoringPool(workers, bounds=bounds)
        self.intake.evaluator, self.intake.run_check = pool.evaluate, pool.run_check
        self.intake.checks = FairQueue(slots=workers)
        self.intake.parallel = workers  # rescores and previews: one job per worker at a time
        return pool

    def use_facts_pool(self, workers: int) -> WorkerPool:
        """Read submitted model repos' facts (submissions.model_hub) in ``workers`` processes of their
        own: bounded requests off the web process, never behind a scoring job."""
        from submissions.worker import WorkerPool

        pool = WorkerPool(workers)
        self.intake.model_facts = PooledModels(pool.run, self.settings.hub_endpoint)
        return pool

    # ---- first start ----
    def seed_demo(self) -> bool:
        """Give an empty store every registered demo (gold, then its teams' submissions; the paper
        rows come with the board); False if the store is not empty."""
        if any(self.golds.info(b) for b in BENCHMARKS):
            return False
        from scoring.benchmarks import demo

        with tempfile.TemporaryDirectory() as tmp:
            for bench in demo.registered():
                files = demo.write_files(bench.id, Path(tmp))
                self.corrections.add_gold(bench.id, files.gold, DEMO_USER.username)
                for team, path in files.submissions.items():
                    form = SubmissionForm(
                        model=team.name, team=team.team, model_type=team.model_type, bbox_format=team.box_format
                    )
                    self.submissions.submit(SubmitRequest(team.benchmark, path, form, DEMO_USER, team.filename))
        return True
