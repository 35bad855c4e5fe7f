"""What a team sees of its submissions and what it publishes: My submissions, ``/my_result``,
``/publish``, and a row's figures for its model page on the Hub (leaderboard.hub_results).

A room of the leaderboard (leaderboard.service). Every answer about who sees what goes through
the one disclosure rule (submissions.disclosure)."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from leaderboard import dates
from leaderboard.boards import Boards
from leaderboard.config import Settings
from leaderboard.entries import Entry
from leaderboard.golds import entry_notes
from leaderboard.hub_results import dataset_of, entries, results_path, row_permalink, to_yaml
from leaderboard.publishing import Publisher
from leaderboard.results_pr import PullRequest, ResultsFile, may_write, open_pull_request, pull_request_words
from scoring.benchmarks import get_benchmark
from store.base import AlreadyExists, Store
from store.golds import GoldRegistry
from store.layout import PublicationFile
from store.records import Publication
from submissions import lifecycle
from submissions.catalog import Catalog, SubmissionState
from submissions.disclosure import NOTHING, Disclosure, EntryState, Viewer, classify, disclose, viewer_of
from submissions.feedback import Feedback
from submissions.fields import HUB_FIELD
from submissions.records import Identity, Status, check_reveal_date
from submissions.teams import Teams, is_member, name_key, state_key


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


class Visibility:
    """A team's view of its submissions, publishing them, and their model pages (see module doc)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        catalog: Catalog,
        golds: GoldRegistry,
        teams: Teams,
        feedback: Feedback,
        boards: Boards,
        publisher: Publisher,
    ) -> None:
        self.settings, self.store, self.catalog, self.golds = settings, store, catalog, golds
        self.teams, self.feedback, self.boards, self.publisher = teams, feedback, boards, publisher
        self._publishing = threading.Lock()  # one publication check-and-write at a time (the ration)

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

    def disclosure(self, identity: Identity | None, state: SubmissionState) -> Disclosure:
        """What ``identity`` (None: a visitor) may see of ``state``: the one rule of
        submissions.disclosure, on the entry's state today under the feedback policy."""
        info = self.golds.info(state.meta.benchmark)
        entry = classify(state, self.feedback, info.version if info else None, dates.today())
        of_team = identity is not None and (
            state.meta.submitter == identity.username or self.is_member(identity, state)
        )
        return disclose(viewer_of(identity, of_team), entry)

    def submissions_of(self, identity: Identity) -> list[SubmissionState]:
        """My submissions: ``identity``'s own uploads and its teams' (oldest first; a maintainer
        too sees only these here, and any other by its id)."""
        return [s for s in self.catalog.all() if s.meta.submitter == identity.username or self.is_member(identity, s)]

    def entry(self, identity: Identity, submission_id: str) -> Entry | None:
        """The team's view of one submission; None if it does not exist or ``identity`` may not see it."""
        state = self.catalog.get(submission_id)
        shown = self.disclosure(identity, state) if state is not None else NOTHING
        if not shown.shows("visibility"):  # only its team and maintainers have the team's view of it
            return None
        info = self.golds.info(state.meta.benchmark)
        gold = info.version if info else ""
        rows = self.boards.board(state.meta.benchmark).rows
        row = next((r.submission_id for r in rows if r.submission_id and self._same_row(r.submission_id, state)), None)
        result = state.latest_result(gold) if info and shown.shows("figures") else None  # not when withheld or held
        status = self.boards.status(state)
        reason, notes = self.feedback.reason(state, gold, status), self.feedback.notes(state, gold)
        if info is not None:  # what gold changes did to it (leaderboard.golds)
            keys_of = functools.partial(self.golds.keys_of, state.meta.benchmark)
            notes += entry_notes(state, info, result is not None, keys_of)
        rank = self.boards.rank_of(state.meta.benchmark, submission_id)
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
        self._check_may_publish(identity, state, submission_id, public)
        reveal, issue = check_reveal_date(reveal_date, anonymous and public)
        if issue is not None:
            raise ValueError(issue.message)
        with self._publishing:
            feedback = self.feedback
            if public and not (ration := feedback.may_publish(state, datetime.now(UTC), identity.is_maintainer)).allows:
                raise ValueError(ration.message())
            event = Publication(
                public,
                identity.username,
                lifecycle.now_iso(),
                public,
                anonymous and public,
                reveal,
                maintainer=identity.is_maintainer,
            )
            self._write_publication(state, event)
        self.publisher.publish(state.meta.benchmark, now=True)
        if not public:
            return _visibility_message(state, event)
        left = self.feedback.ration(state.meta.benchmark, state.meta.team, datetime.now(UTC), identity.is_maintainer)
        return f"{_visibility_message(state, event)} {left.message()}"

    def _check_may_publish(
        self, identity: Identity, state: SubmissionState | None, submission_id: str, public: bool
    ) -> None:
        """PermissionError or ValueError when ``identity`` may not make ``state`` public (or withdraw it)."""
        if state is None or not self.may_see(identity, state):
            raise PermissionError(f"No submission {submission_id!r} of yours.")
        if not self.may_manage(identity, state):
            raise PermissionError(f"Submission {submission_id!r} belongs to a team you are not a member of now.")
        if public and self.boards.status(state) is Status.REJECTED:
            raise ValueError(f"Submission {submission_id!r} was rejected; only a scored one can be public.")
        if public and state.hidden:  # it would stay off the board, and spend a publication for nothing
            why = self.feedback.reason(state, "", Status.SCORED).message
            raise ValueError(
                f"Submission {submission_id!r} cannot be published while it is held or hidden; "
                f"nothing was published or counted. {why}"
            )

    def _write_publication(self, state: SubmissionState, event: Publication) -> None:
        store, catalog = self.store, self.catalog
        for _ in range(3):  # another writer may take the same event number: take the next
            seq = max(state.publications, default=-1) + 1
            path, body = PublicationFile(state.meta.id, seq).path, event.to_bytes()
            try:
                store.put("submissions", {path: body}, f"Visibility of {state.meta.id}", durable=True)
            except AlreadyExists:
                catalog.refresh()
                continue
            catalog.note(path, body)
            return
        raise RuntimeError(f"could not record the visibility of {state.meta.id}: busy, try again")

    # ---- a row's figures for its model page on the Hub (leaderboard.hub_results) ----
    def eval_results(
        self, benchmark: str, ref: str, identity: Identity | None = None, root: str | None = None
    ) -> EvalResults:
        """A public scored row's entries for the Hub's ``.eval_results`` (``ref``: its row id or a
        submission id). Only a row whose figures and names the disclosure rule shows a visitor
        gives any; whoever may see the entry is told why not, anyone else only that there is no row.
        ``root``: the address ``source.url`` starts with (default: the one configured, ``served_root``)."""
        bench = get_benchmark(benchmark)
        row = next((r for r in self.boards.board(benchmark).rows if ref in (r.row_id, r.submission_id)), None)
        state = self.catalog.get(row.submission_id if row and row.submission_id else ref)
        nothing = EvalResults(benchmark, refusal=f"no public scored {benchmark} row {ref!r}")
        if bench.hub is None or state is None or state.meta.benchmark != benchmark:
            return nothing
        told = identity is not None and self.may_see(identity, state)
        why = self._not_out(state, row)
        if why:
            return replace(nothing, refusal=f"{nothing.refusal}: {why}") if told else nothing
        settings = self.settings
        source = row_permalink(root or settings.ui.served_root(), benchmark, row.row_id)
        found = entries(
            bench,
            row.figures,
            dataset=dataset_of(bench, settings.hub_datasets),
            date=row.submitted_at,
            source_url=source,
        )
        if not found:
            return replace(nothing, refusal=f"{nothing.refusal}: it has no figure to report")
        return EvalResults(benchmark, tuple(found), row.row_id, row.info.get(HUB_FIELD, ""), state.meta.id)

    def _not_out(self, state: SubmissionState, row) -> str:
        """Why a visitor may not have ``state``'s figures on its model page ("" when it may)."""
        info = self.golds.info(state.meta.benchmark)
        entry = classify(state, self.feedback, info.version if info else None, dates.today())
        shown = disclose(Viewer.VISITOR, entry)
        if entry is EntryState.ANONYMOUS:
            until = state.reveal_date or "its team names it"
            return f"it is anonymous until {until}: its figures cannot name the model"
        if not (shown.shows("figures") and shown.shows("model")):
            return NOT_OUT.get(entry, "its figures are not public")
        if row is None or row.submission_id != state.meta.id:
            return "it is not its model's row on the board (another submission of the model is)"
        return ""

    def open_eval_results_pr(self, identity: Identity, token: str, benchmark: str, ref: str) -> PullRequest:
        """Open, as the row's signed-in owner with their own token, the pull request adding the row's
        ``.eval_results`` file to its model repo (leaderboard.results_pr); refused, with the
        reason, for anyone else and for a row whose figures are not out."""
        row = self.boards.board(benchmark).row(ref)
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
        bench, endpoint = get_benchmark(benchmark), self.settings.hub_endpoint
        writer = may_write(results.model_repo, token, endpoint)  # "verified" only from who may write the repo
        link = row_permalink(self.settings.ui.served_root(), benchmark, results.row_id)
        file = ResultsFile(
            results.model_repo, results_path(bench), results.text, *pull_request_words(bench.name, link, writer)
        )
        opened = open_pull_request(file, token, endpoint)
        return replace(opened, community=opened.opened and not writer)


def _visibility_message(state: SubmissionState, event: Publication) -> str:
    sid = state.meta.id
    if not event.public:
        return f"Withdrawn: {sid} is private now (your team still sees it in My submissions)."
    shown = "anonymous" + (f" until {event.reveal_date}" if event.reveal_date else "") if event.anonymous else ""
    hidden = " It stays off the board while maintainers hide it." if state.hidden else ""
    return f"Published: {sid} is now the public row of {state.meta.model}{' (' + shown + ')' if shown else ''}.{hidden}"
