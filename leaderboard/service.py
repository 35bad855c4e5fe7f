"""The leaderboard as one object: storage, gold, catalog, intake and table wired together.

``app.py`` and the maintainer CLI are thin shells over :class:`Leaderboard`. With no Hub
configured it runs on a local folder, seeded on first start with demo gold and submissions so
that a new user sees a real board at once.

On the Hub, nothing is decided from a partial working copy: until the store's first complete
sync, submissions are answered "try again"; public tables are published and unfinished
submissions resumed only after a complete sync. Publishing is debounced (at most once per
``publish_seconds`` per benchmark; maintainers' actions publish at once), since every publish
is a commit.
"""

from __future__ import annotations

import functools
import io
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from leaderboard.compare import BUSY, CRASHED, MAX_MODELS, MIN_MODELS, Pairing, TryAgain, compare_rows
from leaderboard.config import Settings
from leaderboard.entries import Entry
from leaderboard.golds import GoldPreview, RowsWouldLeave, entry_notes, rank_changes, row_moves
from leaderboard.golds import RankChange as RankChange  # re-exported: scripts and tests import it here
from leaderboard.golds import preview as preview_switch
from leaderboard.hub_results import dataset_of, entries, results_path, row_permalink, to_yaml
from leaderboard.publish import publish
from leaderboard.results_pr import PullRequest, ResultsFile, open_pull_request
from leaderboard.table import SCORED_SOURCE, Board, BoardRow, baseline_rows, ranks, scored_rows
from scoring import BENCHMARKS, SCORER_VERSION, Gold, Limits
from scoring.benchmarks import get_benchmark, load_plugins
from scoring.engine import ResultRecord, UnparsedLine
from scoring.errors import Issue
from scoring.goldcheck import compare
from store import layout
from store.base import AlreadyExists, NotFound, Store, StoreHealth
from store.golds import GoldInfo, GoldRegistry, GoldUpdate, leak_audit
from store.layout import Kind, ModerationFile, PublicationFile, SubmissionFile
from store.local import LocalStore
from store.records import HOLD_REASON, CorruptRecord, Moderation, Publication, StoredFailure, Validated
from submissions import lifecycle
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.disclosure import NOTHING, Disclosure, EntryState, Viewer, classify, disclose, viewer_of
from submissions.fair_queue import Checks, FairQueue
from submissions.feedback import Feedback
from submissions.fields import HUB_FIELD
from submissions.intake import Intake, Progress
from submissions.job_bounds import JobBounds
from submissions.model_hub import HubModels, PooledModels
from submissions.probes import ProbeDetector, ProbeFlag
from submissions.quotas import QuotaPolicy, QuotaStatus
from submissions.records import Identity, Status, SubmissionForm, check_reveal_date
from submissions.seeds import StoredSeeds
from submissions.teams import Team, Teams, is_member, name_key, state_key

if TYPE_CHECKING:
    from submissions.worker import ScoringPool, WorkerPool

log = logging.getLogger(__name__)
CompareRunner = Callable[..., tuple[Pairing, ...]]
"""Runs ``compare_rows(benchmark, rows)``: in this process, or in the compare pool's worker."""
DEMO_USER = Identity("demo", is_maintainer=True, source="local")


def compare_here(fn: Callable[..., tuple[Pairing, ...]], *args: object) -> tuple[Pairing, ...]:
    return fn(*args)


def make_store(settings: Settings) -> Store:
    if settings.uses_hub:
        from store.hub import HubStore  # only a Hub deployment needs the client

        return HubStore(settings.data_dir / "hub-cache", settings.hub_repos, settings.hub_token, settings.hub_endpoint)
    return LocalStore(settings.data_dir)


@dataclass(frozen=True)
class EvalResults:
    """A row's ``.eval_results`` entries for the Hub (leaderboard.hub_results), or why there are none."""

    benchmark: str
    entries: tuple[dict, ...] = ()
    row_id: str = ""
    model_repo: str = ""  # the row's Hub model id, where a pull request would add the file
    submission_id: str = ""
    refusal: str = ""

    @property
    def text(self) -> str:
        return to_yaml(list(self.entries))

    @property
    def file_name(self) -> str:
        return results_path(get_benchmark(self.benchmark)).rsplit("/", 1)[-1]


NOT_OUT = {
    EntryState.HELD: "it is held for review: its figures are not out",
    EntryState.HIDDEN: "it is hidden by a maintainer",
    EntryState.WITHHELD: "it is private and the Ladder withholds its figures",
    EntryState.PRIVATE: "it is private: make it public first (My submissions)",
    EntryState.WITHDRAWN: "it is private now: make it public first (My submissions)",
}
"""Why an entry's figures cannot go to a model page, by its state (submissions.disclosure)."""


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
            min_coverage=settings.min_coverage or None,
            seeds=self.seeds,
            model_facts=HubModels(settings.hub_endpoint),
        )
        self.feedback = Feedback(
            self.catalog,
            exempt=(*settings.ui.maintainers, DEMO_USER.username),
            ladder=settings.feedback == "ladder",
            publications=settings.publications_per_week,
            contact=settings.contact_line,
        )
        self.probes = ProbeDetector(lambda s: lifecycle.read_raw(self.store, s.meta.benchmark, s.meta.id))
        self._boards: dict[str, tuple[tuple, Board]] = {}
        self.run_compare: CompareRunner = compare_here  # here, or the compare pool's worker
        self.compare_turns = FairQueue()  # Compare's turns: fair and bounded per visitor (one slot per worker)
        self._lock = threading.Lock()
        self._publishing = threading.Lock()  # one publication check-and-write at a time (the ration)
        self._unpublished: set[str] = set()
        self._published_at: dict[str, float] = {}  # time.monotonic() of each benchmark's last publish
        # A fresh Hub replica's first complete sync loads what is already published: not a change.
        self._loaded = self.store.ready
        self.catalog.refresh()

    # ---- browsing ----
    def board(self, benchmark: str) -> Board:
        """Rows of a benchmark (scored + paper), cached until the catalog or gold changes."""
        info = self.golds.info(benchmark)
        today = _today()  # an anonymous entry's names show from its reveal date
        key = (self.catalog.generation, info.version if info else "", self.settings.row_rule, today)
        with self._lock:
            cached = self._boards.get(benchmark)
            if cached and cached[0] == key:
                return cached[1]
        board = self._board_of(benchmark, self.catalog.all(benchmark), info.version if info else None, today)
        with self._lock:
            self._boards[benchmark] = (key, board)
        return board

    def _board_of(self, benchmark: str, states: list[SubmissionState], version: str | None, today: str) -> Board:
        """The board of ``states`` on gold ``version`` (paper rows included): the live board, or
        the one a gold switch would show (leaderboard.golds.preview)."""
        rows: list[BoardRow] = []
        if version is not None:
            visible, first, owners = (
                self.feedback.visible(states, version),
                self.teams.first_users(),
                self.teams.owners(),
            )
            rows = scored_rows(visible, version, SCORER_VERSION, self.settings.row_rule, first, today, owners=owners)
        return Board(benchmark, rows + baseline_rows(benchmark))

    def table(self, benchmark: str, view: str = "overall", keep=None):
        """A view of the rows ``keep`` accepts (all by default), ranked among themselves."""
        return self.board(benchmark).view(view, keep)

    def gold_info(self, benchmark: str) -> GoldInfo | None:
        return self.golds.info(benchmark)

    def fingerprint(self, benchmark: str) -> str:
        """Changes whenever a board's rows could: a new record in the store, a new gold or a new
        day (a reveal date)."""
        info = self.golds.info(benchmark)
        return f"{self.catalog.generation}:{info.version if info else ''}:{_today()}"

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
        validate_only: bool = False,
        confirm_box_format: bool = False,
    ) -> SubmitAnswer:
        """Store, validate and score one upload: the answer the form, the API and the CLI give,
        with the new rank when it was scored. ``validate_only``: check it, store nothing."""
        scored_on = self.golds.info(benchmark)  # the gold the intake scores on, unless the board switches meanwhile
        repeat = not validate_only and self.intake.is_repeat(benchmark, Path(path), form, identity)
        if not validate_only and not repeat and (refused := self._over_ration(benchmark, form, identity)) is not None:
            return refused  # a repeat gets its stored answer back, ration used up or not
        answer = self.intake.submit(
            benchmark, Path(path), form, identity, filename, progress, validate_only, confirm_box_format
        )
        if not validate_only:
            self._score_on_staged(benchmark, answer.submission_id, scored_on)
            self._auto_hold(benchmark, answer)
        if answer.result is not None and (info := self.golds.info(benchmark)) is not None:
            answer = self.feedback.answer(answer, info.version)  # the Ladder rule: submissions.feedback
        if answer.result is None:
            return self._with_contact(answer)
        state = self.catalog.get(answer.submission_id)
        if state is not None and not self.disclosure(identity, state).shows("figures"):  # the one rule decides
            return answer.withheld("Scored and kept; its figures are not shown to you (About, Integrity).")
        if state is not None and not state.public:  # the team publishes it when it chooses (docs/teams.md)
            note = " Private: only your team sees it; publish it from My submissions (or /publish) to show it."
            answer = replace(answer, message=answer.message + note)
        return answer.with_rank(self.rank_of(benchmark, answer.submission_id))

    def _with_contact(self, answer: SubmitAnswer) -> SubmitAnswer:
        """An answer that sends the team to a maintainer says where to write."""
        asks = answer.status is Status.UNAVAILABLE or any(i.code == "team_taken" for i in answer.issues)
        if not asks or self.feedback.contact in answer.message:
            return answer
        where = f" Write to {self.feedback.contact}."
        issues = tuple(replace(i, message=i.message + where) if i.code == "team_taken" else i for i in answer.issues)
        return replace(answer, message=answer.message + where, issues=issues)

    def _over_ration(self, benchmark: str, form: SubmissionForm, identity: Identity) -> SubmitAnswer | None:
        """The refusal of a submission asked to be public when its team's publications are used up."""
        if str(form.visibility or "").strip().lower() != "public" or benchmark not in BENCHMARKS:
            return None
        free = identity.is_maintainer or identity.username in self.feedback.exempt
        ration = self.feedback.ration(benchmark, form.team, datetime.now(UTC), free)
        if ration.allows:
            return None
        message = ration.message() + " Submit it as private (it is scored as usual) and publish it later."
        quota = self.quota(identity, benchmark, team=form.team)
        return SubmitAnswer.refused(message, Issue("publication_limit", 0, "visibility", message), quota=quota)

    def _auto_hold(self, benchmark: str, answer: SubmitAnswer) -> None:
        """Hold a new scored submission for review when its probe series is flagged
        (``LEADERBOARD_AUTO_HOLD``; submissions.probes.to_hold)."""
        state = self.catalog.get(answer.submission_id) if answer.submission_id else None
        if not self.settings.auto_hold or answer.result is None or answer.duplicate_of or state is None:
            return
        gold = self.golds.get(benchmark)
        if state.hidden or self.feedback.is_exempt(state) or gold is None:
            return
        try:
            flagged = self.probes.should_hold(self.catalog.all(benchmark), gold, state.meta.id)
        except Exception:  # the detector must never cost a scored submission its answer
            log.exception("probe detector failed on %s; not held", state.meta.id)
            return
        if flagged:
            signals = ", ".join(self.probes.signals(self.catalog.all(benchmark), gold, state.meta.id))
            why = "its probe series is flagged" + (f" (signals: {signals})" if signals else "")
            self.hold([state.meta.id], "automatic", why, now=state.public)

    def checks_of(self, username: str) -> Checks:
        """The account's checks (validate-only, pre-checks): running or waiting for their turn, and
        entered so far. The upload door holds its next file while these fill its bound (ui.uploads)."""
        return self.intake.checks.checks(username)

    def quota(self, identity: Identity, benchmark: str, team: str = "") -> QuotaStatus:
        """The account's daily quota, or the team's (``team``) when that binds first."""
        return self.intake.quota(identity, benchmark, team=team)

    def rank_of(self, benchmark: str, submission_id: str) -> int | None:
        """The submission's rank if it is a row of the public board, else None."""
        return ranks(benchmark, self.board(benchmark).rows).get(submission_id)

    def submissions_of(self, identity: Identity) -> list[SubmissionState]:
        """My submissions: ``identity``'s own uploads and its teams' (oldest first; a maintainer
        too sees only these here, and any other by its id)."""
        return [s for s in self.catalog.all() if s.meta.submitter == identity.username or self.is_member(identity, s)]

    def unparsed_lines(self, state: SubmissionState) -> tuple[UnparsedLine, ...]:
        """The lines of a scored submission whose response stated no letter (line and text: the
        submitter's own words), on the current gold; empty when not scored."""
        info = self.golds.info(state.meta.benchmark)
        result = state.latest_result(info.version) if info else None
        return result.unparsed_lines if result is not None else ()

    def status(self, state: SubmissionState) -> Status:
        info = self.golds.info(state.meta.benchmark)
        return state.status(info.version if info else "", SCORER_VERSION, lifecycle.MAX_FAILURES)

    # ---- a row's figures for its model page on the Hub (leaderboard.hub_results) ----
    def eval_results(self, benchmark: str, ref: str, identity: Identity | None = None) -> EvalResults:
        """A public scored row's entries for the Hub's ``.eval_results`` (``ref``: its row id or a
        submission id). Only a row whose figures and names the disclosure rule shows a visitor
        gives any; whoever may see the entry is told why not, anyone else only that there is no row."""
        bench = get_benchmark(benchmark)
        row = next((r for r in self.board(benchmark).rows if ref in (r.row_id, r.submission_id)), None)
        state = self.catalog.get(row.submission_id if row and row.submission_id else ref)
        nothing = EvalResults(benchmark, refusal=f"no public scored {benchmark} row {ref!r}")
        if bench.hub is None or state is None or state.meta.benchmark != benchmark:
            return nothing
        told = identity is not None and self.may_see(identity, state)
        info = self.golds.info(benchmark)
        entry = classify(state, self.feedback, info.version if info else None, _today())
        shown = disclose(Viewer.VISITOR, entry)
        if entry is EntryState.ANONYMOUS:
            why = f"it is anonymous until {state.reveal_date or 'its team names it'}: its figures cannot name the model"
        elif not (shown.shows("figures") and shown.shows("model")):
            why = NOT_OUT.get(entry, "its figures are not public")
        elif row is None or row.submission_id != state.meta.id:
            why = "it is not its model's row on the board (another submission of the model is)"
        else:
            why = ""
        if why:
            return replace(nothing, refusal=f"{nothing.refusal}: {why}") if told else nothing
        source = row_permalink(self.settings.ui.public_url, benchmark, row.row_id)
        found = entries(bench, row.figures, dataset=dataset_of(bench, self.settings.hub_datasets),
                        date=row.submitted_at, source_url=source)  # fmt: skip
        if not found:
            return replace(nothing, refusal=f"{nothing.refusal}: it has no figure to report")
        return EvalResults(benchmark, tuple(found), row.row_id, row.info.get(HUB_FIELD, ""), state.meta.id)

    def open_eval_results_pr(self, identity: Identity, token: str, benchmark: str, ref: str) -> PullRequest:
        """Open, as the row's signed-in owner with their own token, the pull request adding the row's
        ``.eval_results`` file to its model repo (leaderboard.results_pr); refused, with the
        reason, for anyone else and for a row whose figures are not out."""
        row = self.board(benchmark).row(ref)
        state = self.catalog.get(row.submission_id if row and row.submission_id else ref)
        if state is None or not identity.username:
            return PullRequest(refusal=f"no {benchmark} submission {ref!r} of yours")
        if not (state.meta.submitter == identity.username or self.is_member(identity, state)):
            return PullRequest(refusal="only the row's team may add its figures to the model's page")
        results = self.eval_results(benchmark, state.meta.id, identity)
        if results.refusal:
            return PullRequest(refusal=results.refusal)
        if not results.model_repo:
            return PullRequest(refusal="the row names no Hub model repo (model_repo): there is no model page to add to")
        if not token:
            return PullRequest(refusal="sign in with Hugging Face: the pull request is opened with your own account")
        bench = get_benchmark(benchmark)
        file = ResultsFile(
            results.model_repo,
            results_path(bench),
            results.text,
            f"Add {bench.name} results verified by the leaderboard",
            f"Scores of this model on {bench.name}, as its verified row shows them: "
            f"{row_permalink(self.settings.ui.public_url, benchmark, results.row_id)}",
        )
        return open_pull_request(file, token, self.settings.hub_endpoint)

    # ---- what a visitor may see; comparisons (aggregates only) ----
    def disclosure(self, identity: Identity | None, state: SubmissionState) -> Disclosure:
        """What ``identity`` (None: a visitor) may see of ``state``: the one rule of
        submissions.disclosure, on the entry's state today under the feedback policy."""
        info = self.golds.info(state.meta.benchmark)
        entry = classify(state, self.feedback, info.version if info else None, _today())
        of_team = identity is not None and (
            state.meta.submitter == identity.username or self.is_member(identity, state)
        )
        return disclose(viewer_of(identity, of_team), entry)

    def group_sizes(self, benchmark: str) -> dict[str, dict[str, int]]:
        """Questions per group of the current gold (public: the question list carries the groups)."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return {}
        return {
            name: {label: int((codes == i).sum()) for i, label in enumerate(labels)}
            for name, (labels, codes) in gold.groups.items()
        }

    def last_updated(self, benchmark: str) -> str:
        """When the board last changed: its newest row or its gold, ISO 8601 ("" for neither)."""
        info = self.golds.info(benchmark)
        times = [r.submitted_at for r in self.board(benchmark).rows if r.submitted_at]
        times += [info.added_at] if info else []
        return max(times, default="")

    def compare(self, benchmark: str, row_ids: list[str], visitor: str = "") -> tuple[Pairing, ...]:
        """The first row against each other one (2-4 rows scored here), from the rows' published
        figures only (leaderboard.compare: it discloses nothing the rows do not); ValueError
        says what is wrong. The figures are combined by ``run_compare`` in ``visitor``'s fair
        turn (submissions.fair_queue: Compare is free and needs no account); TryAgain when the
        visitor already holds its bound of comparisons or the worker died."""
        rows = self._compared_rows(benchmark, row_ids)
        turn = self.compare_turns.enter(visitor)
        if turn is None:
            log.info(
                "a comparison of %s refused: %d already running or waiting", visitor, self.compare_turns.per_identity
            )
            raise TryAgain(BUSY)
        with turn:
            try:
                return self.run_compare(compare_rows, benchmark, rows)
            except BrokenProcessPool:  # the pool has started anew
                raise TryAgain(CRASHED) from None

    def _compared_rows(self, benchmark: str, row_ids: list[str]) -> list[tuple[str, dict]]:
        """(name, published figures) of each picked row; ValueError says what is wrong."""
        if not MIN_MODELS <= len(row_ids) <= MAX_MODELS:
            raise ValueError(f"pick {MIN_MODELS} to {MAX_MODELS} models to compare, not {len(row_ids)}")
        board = self.board(benchmark)
        if self.golds.info(benchmark) is None:
            raise ValueError(f"{benchmark} has no gold yet: nothing is scored here to compare")
        rows = []
        for row_id in row_ids:
            row = board.row(row_id)
            if row is None:
                raise ValueError(f"no row {row_id!r} on the {benchmark} board")
            if row.source != SCORED_SOURCE:
                raise ValueError(f"{row.model} is a paper's published row: it has no intervals to compare")
            rows.append((f"{row.model} ({row.team})", row.figures))
        return rows

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

    def hold(self, submission_ids: list[str], by: str, why: str = "suspected probing", now: bool = False) -> list[str]:
        """Hold results off the board and out of the feedback (a moderation record each); returns
        the ids held (unknown ids are skipped). ``unhide`` releases a hold. ``now``: republish the
        public table at once (a public submission may just have been published on it)."""
        held = [sid for sid in submission_ids if self.catalog.get(sid) is not None]
        if not held:
            return []
        at = lifecycle.now_iso()
        files = {ModerationFile(sid).path: Moderation(True, by, at, f"{HOLD_REASON} {why}").to_bytes() for sid in held}
        self.store.put("submissions", files, f"Hold {len(held)} submission(s): {why}", overwrite=True)
        for path, body in files.items():
            self.catalog.note(path, body)
        for benchmark in sorted({self.catalog.get(sid).meta.benchmark for sid in held}):
            self.publish(benchmark, now=now)
        return held

    # ---- maintaining ----
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
        if not confirm and self.golds.info(benchmark) is not None:
            shown = preview or self.preview_gold(benchmark, path, withheld)
            if shown.leaving:  # a row would leave the board: the maintainer confirms that first
                raise RowsWouldLeave(shown)
        update = self.golds.stage(benchmark, Path(path), added_by, confirm, withheld)
        if not update.staged:
            self.publish(benchmark, now=True)
        return update

    def preview_gold(self, benchmark: str, path: Path, withheld: tuple[str, ...] = ()) -> GoldPreview:
        """What switching the board to the gold at ``path`` would do, before anything is stored:
        the gold's changes and every row's place and figures before -> after (maintainers only;
        leaderboard.golds). Raises as ``update_gold`` does for a broken file."""
        self.refresh()
        current = self.golds.info(benchmark)
        new, _suffix = self.golds.read(benchmark, Path(path))
        new.retired = self.golds.retired(new)
        changes = compare(self.golds.compiled(current), new) if current is not None else None

        def evaluate(state: SubmissionState) -> SubmitAnswer:
            raw = lifecycle.read_raw(self.store, benchmark, state.meta.id)
            return lifecycle.evaluate(state.meta, new, raw, self.limits, self.seeds)

        def board_on(states: list[SubmissionState], version: str):
            return self._board_of(benchmark, states, version, _today()).view()

        states = [s for s in self.catalog.all(benchmark) if lifecycle.has_raw(self.store, s.meta)]
        leaks = leak_audit(benchmark, Path(path), new, tuple(f.strip() for f in withheld if f.strip()))
        return preview_switch(
            benchmark, current.version if current else "", new.version, changes, states, evaluate, board_on,
            self.table(benchmark), leaks,
        )  # fmt: skip

    def preview_staged(self, benchmark: str) -> GoldPreview | None:
        """The preview of switching to the staged gold (None when nothing is staged): what the
        Maintainers tab shows, and its Rescore all confirmation sums up, before the switch."""
        staged = self.golds.staged(benchmark)
        if staged is None:
            return None
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / Path(staged.file).name
            path.write_bytes(self.store.read("gold", staged.file))
            return self.preview_gold(benchmark, path, staged.withheld)

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

    def set_hidden(self, submission_id: str, hidden: bool, by: str, reason: str = "") -> bool:
        """Hide (with the maintainer's ``reason``, which the team is shown) or release a submission."""
        if self.catalog.get(submission_id) is None:
            return False
        body = Moderation(hidden, by, lifecycle.now_iso(), reason.strip() if hidden else "").to_bytes()
        path = ModerationFile(submission_id).path
        verb = "Hide" if hidden else "Unhide"
        self.store.put("submissions", {path: body}, f"{verb} {submission_id}", overwrite=True, durable=True)
        self.catalog.note(path, body)
        self.publish(self.catalog.get(submission_id).meta.benchmark, now=True)
        return True

    def rejected(self, benchmark: str) -> list[SubmissionState]:
        return [s for s in self.catalog.all(benchmark) if self.status(s) is Status.REJECTED]

    def rescore(
        self, benchmark: str | None = None, workers: int | None = None, on_progress: Progress | None = None
    ) -> dict[str, object]:
        """Score all submissions on the staged gold (else the current one), on all cores, then
        switch the board to it; report counts and the changes of the public ranking (paper
        rows included): before = the board as the store holds it when the rescore starts (what
        other writers, e.g. a CLI hide, changed since this process's last refresh is no change of
        the rescore), after = the board now."""
        self.refresh()
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
            self.publish(b, now=True)
            after = self.table(b)
            report[b] = {
                "counts": counts,
                "kept": len(self.catalog.all(b)) - sum(counts.values()),  # outcomes already stored on it
                "gold": target.version,
                "rank_changes": rank_changes(before, after),
                "rows": row_moves(b, before, after, self._why_not_rows(b, self.golds.info(b).version)),
            }
            if staged:  # did the board switch to it (here, or another writer first)?
                switched = self.golds.info(b).version == target.version
                report[b]["switched_to" if switched else "still_staged"] = target.version
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
        self, benchmark: str, gold: Gold, workers: int | None, on_progress: Progress | None
    ) -> dict[str, int]:
        """Every submission to an outcome (or a recorded failure) on ``gold``: one parallel pass,
        then the few that arrived meanwhile, one by one."""
        done = None if on_progress is None else (lambda n, total: on_progress(n / total, f"{n} of {total} scored"))
        counts = lifecycle.rescore(self.store, self.catalog, gold, self.limits, workers, done, seeds=self.seeds)
        for _ in range(lifecycle.MAX_FAILURES):
            late = lifecycle.unsettled(self.catalog.all(benchmark), gold)
            if not late:
                break
            for state in late:
                status = lifecycle.process(
                    self.store, self.catalog, state.meta, gold, self.limits, seeds=self.seeds
                ).status
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
            self._put_public(benchmark)
        changes = rank_changes(before, self.table(benchmark))
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
            lifecycle.process(
                self.store, self.catalog, state.meta, self.golds.compiled(info), self.limits, seeds=self.seeds
            )

    def resume(self) -> int:
        """Finish submissions left unscored (a crash, a restart, a new scorer), then those owing
        a result on a staged gold, and switch the board to it when none is left: the background
        rescore of a gold added from the CLI or another replica. Each is evaluated where uploads
        are (the scoring pool, within its job bounds, when the app has one)."""
        if not self.store.consistent:  # only on a complete copy: "unscored" must not mean "not arrived yet"
            return 0
        done = 0
        for b in BENCHMARKS:
            gold = self.golds.get(b)
            if gold is None:
                continue
            n = lifecycle.resume(self.store, self.catalog, gold, self.limits, self.seeds, self.intake.evaluator)
            if n:
                self.publish(b)
            staged = self.golds.staged(b)
            if staged is not None:
                compiled, evaluator = self.golds.compiled(staged), self.intake.evaluator
                n += lifecycle.resume(self.store, self.catalog, compiled, self.limits, self.seeds, evaluator)
                self._switch(b, staged)
            done += n
        return done

    def refresh(self) -> bool:
        """Pull what other writers stored (Hub replicas, the CLI) into the catalog, and publish
        the tables whose debounce has run out."""
        try:
            self.store.sync()
        except Exception:  # the Hub being down must not stop the board from serving
            log.warning("store sync failed; serving what is cached", exc_info=True)
        changed = self.catalog.refresh()
        if changed and self._loaded:  # another writer scored or hid something: the public tables follow
            with self._lock:
                self._unpublished.update(BENCHMARKS)
        self._loaded = self._loaded or self.store.consistent
        self.publish_due()
        return changed

    def push_pending(self) -> int:
        return self.store.push_pending()

    def flush(self) -> int:
        """Publish every waiting table now and push every waiting write (a maintainer's command
        ends with this); returns the writes still waiting."""
        for benchmark in self._waiting():
            self.publish(benchmark, now=True)
        return self.store.push_pending()

    def health(self) -> Health:
        return Health(self.store.health(), tuple(self._waiting()))

    def _waiting(self) -> list[str]:
        with self._lock:
            return sorted(self._unpublished)

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
                    self.publish(benchmark, now=True)
                    rebuilt.append(layout.public_board(benchmark))
                continue
            except Exception:
                log.error("public table %s unreadable: republishing", path)
                self.publish(benchmark, now=True)
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
        raw = lifecycle.read_raw(self.store, file.benchmark, file.sid)
        answer = lifecycle.evaluate(state.meta, gold, raw, self.limits, self.seeds)
        return lifecycle.outcome_files(state.meta, gold.version, answer, lifecycle.now_iso()).get(file)

    def publish(self, benchmark: str, *, now: bool = False) -> bool:
        """Rewrite the public table, at most once per ``publish_seconds`` unless ``now``; never
        from a partial copy (it waits for a complete sync). Returns whether it was written.

        Writers on one data folder (app, CLI, processes) take turns and each first reads what
        the others stored, so no publish drops another's row."""
        with self._lock:
            self._unpublished.add(benchmark)
            last = self._published_at.get(benchmark)
            waiting = last is not None and time.monotonic() - last < self.settings.publish_seconds
        if not self.store.consistent or (waiting and not now):
            return False
        with self._publish_lock(benchmark):
            self.catalog.refresh()
            self._put_public(benchmark)
        with self._lock:
            self._unpublished.discard(benchmark)
            self._published_at[benchmark] = time.monotonic()
        return True

    def _put_public(self, benchmark: str) -> None:
        """Write the public table and board snapshot (under the publish lock)."""
        dataset_id = self.settings.hub_repos.get("results") or str(self.settings.data_dir / "results")
        rows, gold, sizes = self.board(benchmark).rows, self.golds.info(benchmark), self.group_sizes(benchmark)
        publish(self.store, benchmark, rows, dataset_id, self.settings.ui.space_id, gold=gold, group_sizes=sizes)

    def publish_due(self) -> list[str]:
        """Publish the waiting tables whose debounce has run out; returns those published."""
        return [b for b in self._waiting() if self.publish(b)]

    def use_scoring_pool(self, workers: int, bounds: JobBounds = JobBounds()) -> ScoringPool:
        """Score and check uploads (validate-only, pre-checks) in ``workers`` lower-priority
        processes, so browsing keeps the CPU; checks take fair turns, one per worker at once, each
        job within ``bounds`` (stopped past them: no account waits longer behind another's job)."""
        from submissions.worker import ScoringPool

        pool = ScoringPool(workers, bounds=bounds)
        self.intake.evaluator, self.intake.run_check = pool.evaluate, pool.run_check
        self.intake.checks = FairQueue(slots=workers)
        return pool

    def use_facts_pool(self, workers: int) -> WorkerPool:
        """Read submitted model repos' facts (submissions.model_hub) in ``workers`` processes of their
        own: bounded requests off the web process, never behind a scoring job."""
        from submissions.worker import WorkerPool

        pool = WorkerPool(workers)
        self.intake.model_facts = PooledModels(pool.run, self.settings.hub_endpoint)
        return pool

    def use_compare_pool(self, workers: int, bounds: JobBounds = JobBounds()) -> WorkerPool:
        """Combine Compare's figures in ``workers`` lower-priority processes of their own (never
        behind a scoring job, never holding a gold); visitors take fair turns, one per worker."""
        from submissions.worker import WorkerPool

        pool = WorkerPool(workers, bounds=bounds)
        pool.start()  # the first visitor to compare does not wait for a spawn
        self.run_compare = functools.partial(pool.run, "comparing")
        self.compare_turns = FairQueue(slots=workers)
        return pool

    # ---- teams and visibility (docs/teams.md) ----
    @property
    def teams(self) -> Teams:
        return self.intake.teams

    def team(self, name: str) -> Team | None:
        """The team ``name`` (or a name that looks like it) and its owner, if anyone used it."""
        return self.teams.get(name)

    def transfer_team(self, name: str, to: str, by: str) -> Team:
        """A maintainer gives a team name to another account (``user`` or ``org:NAME``)."""
        self.catalog.refresh()
        team = self.teams.transfer(name, to, by, lifecycle.now_iso())
        for benchmark in BENCHMARKS:
            self.publish(benchmark, now=True)
        return team

    def is_member(self, identity: Identity, state: SubmissionState) -> bool:
        """Whether ``identity`` belongs to the account that owns the submission's team now."""
        team = self.teams.get_by_key(state_key(state))
        return team is not None and is_member(identity, team.owner)

    def may_manage(self, identity: Identity, state: SubmissionState) -> bool:
        """Publish, withdraw, choose its row: members of the team's owner now, and maintainers."""
        return identity.is_maintainer or self.is_member(identity, state)

    def may_see(self, identity: Identity, state: SubmissionState) -> bool:
        """Its team (and who uploaded it) see a submission, public or private; others see only the board."""
        return state.meta.submitter == identity.username or self.may_manage(identity, state)

    def entry(self, identity: Identity, submission_id: str) -> Entry | None:
        """The team's view of one submission; None if it does not exist or ``identity`` may not see it."""
        state = self.catalog.get(submission_id)
        shown = self.disclosure(identity, state) if state is not None else NOTHING
        if not shown.shows("visibility"):  # only its team and maintainers have the team's view of it
            return None
        info = self.golds.info(state.meta.benchmark)
        gold = info.version if info else ""
        rows = self.board(state.meta.benchmark).rows
        row = next((r.submission_id for r in rows if r.submission_id and self._same_row(r.submission_id, state)), None)
        result = state.latest_result(gold) if info and shown.shows("figures") else None  # not when withheld or held
        status = self.status(state)
        reason, notes = self.feedback.reason(state, gold, status), self.feedback.notes(state, gold)
        if info is not None:  # what gold changes did to it (leaderboard.golds)
            keys_of = functools.partial(self.golds.keys_of, state.meta.benchmark)
            notes += entry_notes(state, info, result is not None, keys_of)
        rank = self.rank_of(state.meta.benchmark, submission_id)
        return Entry(state, status, result, rank, row, gold, reason, notes)

    def _same_row(self, submission_id: str, state: SubmissionState) -> bool:
        other = self.catalog.get(submission_id)
        return other is not None and (state_key(other), name_key(other.meta.model)) == (
            state_key(state),
            name_key(state.meta.model),
        )

    def entries(self, identity: Identity, benchmark: str | None = None) -> list[Entry]:
        """Every submission ``identity`` may see, newest first."""
        states = [s for s in self.submissions_of(identity) if benchmark is None or s.meta.benchmark == benchmark]
        states.sort(key=lambda s: (s.meta.submitted_at, s.meta.id), reverse=True)
        return [e for s in states if (e := self.entry(identity, s.meta.id)) is not None]

    def set_visibility(
        self,
        identity: Identity,
        submission_id: str,
        public: bool,
        anonymous: bool = False,
        reveal_date: str = "",
    ) -> str:
        """Publish (as its model's row) or withdraw a submission for its team; returns what was
        done. Raises PermissionError for anyone but the team's members and maintainers, and
        ValueError for a request that cannot be done (a rejected upload, a bad reveal date)."""
        self.catalog.refresh()
        state = self.catalog.get(submission_id)
        if state is None or not self.may_see(identity, state):
            raise PermissionError(f"No submission {submission_id!r} of yours.")
        if not self.may_manage(identity, state):
            raise PermissionError(f"Submission {submission_id!r} belongs to a team you are not a member of now.")
        if public and self.status(state) is Status.REJECTED:
            raise ValueError(f"Submission {submission_id!r} was rejected; only a scored one can be public.")
        if public and state.hidden:  # it would stay off the board, and spend a publication for nothing
            why = self.feedback.reason(state, "", Status.SCORED).message
            raise ValueError(f"Submission {submission_id!r} cannot be published while it is held or hidden; "
                             f"nothing was published or counted. {why}")  # fmt: skip
        reveal, issue = check_reveal_date(reveal_date, anonymous and public)
        if issue is not None:
            raise ValueError(issue.message)
        with self._publishing:
            if (
                public
                and not (ration := self.feedback.may_publish(state, datetime.now(UTC), identity.is_maintainer)).allows
            ):
                raise ValueError(ration.message())
            event = Publication(
                public, identity.username, lifecycle.now_iso(), public, anonymous and public, reveal,
                maintainer=identity.is_maintainer,
            )  # fmt: skip
            self._write_publication(state, event)
        self.publish(state.meta.benchmark, now=True)
        return _visibility_message(state, event)

    def _write_publication(self, state: SubmissionState, event: Publication) -> None:
        for _ in range(3):  # another writer may take the same event number: take the next
            seq = max(state.publications, default=-1) + 1
            path, body = PublicationFile(state.meta.id, seq).path, event.to_bytes()
            try:
                self.store.put("submissions", {path: body}, f"Visibility of {state.meta.id}", durable=True)
            except AlreadyExists:
                self.catalog.refresh()
                continue
            self.catalog.note(path, body)
            return
        raise RuntimeError(f"could not record the visibility of {state.meta.id}: busy, try again")

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


def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _visibility_message(state: SubmissionState, event: Publication) -> str:
    sid = state.meta.id
    if not event.public:
        return f"Withdrawn: {sid} is private now (your team still sees it in My submissions)."
    shown = "anonymous" + (f" until {event.reveal_date}" if event.reveal_date else "") if event.anonymous else ""
    hidden = " It stays off the board while maintainers hide it." if state.hidden else ""
    return f"Published: {sid} is now the public row of {state.meta.model}{' (' + shown + ')' if shown else ''}.{hidden}"
