"""Submitting, for teams: one upload in (a :class:`SubmitRequest`), its answer out, and the
quota, checks and status the Submit tab and ``/submit`` show.

A room of the leaderboard (leaderboard.service). The intake (submissions.intake) checks, stores
and scores; what follows a scored upload is declared here, once, as :data:`AFTER_SCORING`: a
list of named steps, each taking the room (its collaborators) and the answer so far and giving
the next."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from leaderboard.boards import Boards
from leaderboard.corrections import GoldCorrections
from leaderboard.items import ItemAnalyses
from leaderboard.moderation import Moderating
from leaderboard.publishing import Publisher
from leaderboard.visibility import Visibility
from scoring import BENCHMARKS
from scoring.engine import ResultRecord, UnparsedLine
from scoring.errors import Issue
from store.golds import GoldInfo, GoldRegistry
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.fair_queue import Checks
from submissions.feedback import Feedback
from submissions.intake import Intake
from submissions.quotas import QuotaStatus
from submissions.records import Identity, Status
from submissions.request import SubmitRequest


@dataclass(frozen=True)
class Scored:
    """An upload the intake has answered, on its way through :data:`AFTER_SCORING`."""

    request: SubmitRequest
    scored_on: GoldInfo | None  # the gold the intake scored on, read before it started
    answer: SubmitAnswer

    @property
    def stored(self) -> bool:
        """The intake stored and scored this upload now (not a check, a repeat or a refusal)."""
        return not self.request.validate_only and self.answer.status is Status.SCORED and not self.answer.duplicate_of


@dataclass(frozen=True)
class Step:
    """One named step after scoring: ``run(room, scored)`` gives the answer from here on (``room``:
    the :class:`Submissions` room, whose collaborators the step asks)."""

    name: str
    run: Callable[[Submissions, Scored], SubmitAnswer]


def publish_board(room: Submissions, scored: Scored) -> SubmitAnswer:
    """A newly scored upload goes on the public table (debounced: leaderboard.publishing)."""
    if scored.stored:
        room.publisher.publish(scored.request.benchmark)
    return scored.answer


def score_on_staged_gold(room: Submissions, scored: Scored) -> SubmitAnswer:
    """Scored on a staged gold too, and on the current one if the board switched meanwhile."""
    if not scored.request.validate_only:
        room.corrections.score_late_arrival(scored.request.benchmark, scored.answer.submission_id, scored.scored_on)
    return scored.answer


def hold_if_probing(room: Submissions, scored: Scored) -> SubmitAnswer:
    """Held for review when its probe series is flagged (``LEADERBOARD_AUTO_HOLD``)."""
    if not scored.request.validate_only:
        room.moderation.hold_if_flagged(scored.request.benchmark, scored.answer)
    return scored.answer


def note_for_item_analysis(room: Submissions, scored: Scored) -> SubmitAnswer:
    """A newly scored upload makes its benchmark's item analysis stale: recomputed in the background
    once submissions stop arriving (leaderboard.items; never in this request)."""
    if scored.stored:
        room.items.changed(scored.request.benchmark)
    return scored.answer


def ladder_feedback(room: Submissions, scored: Scored) -> SubmitAnswer:
    """The feedback policy's answer (the Ladder rule: submissions.feedback)."""
    answer = scored.answer
    if answer.result is not None and (info := room.golds.info(scored.request.benchmark)) is not None:
        return room.feedback.answer(answer, info.version)
    return answer


def where_to_write(room: Submissions, scored: Scored) -> SubmitAnswer:
    """An unscored answer that sends the team to a maintainer says where to write."""
    answer, contact = scored.answer, room.feedback.contact
    asks = answer.status is Status.UNAVAILABLE or any(i.code == "team_taken" for i in answer.issues)
    if answer.result is not None or not asks or contact in answer.message:
        return answer
    where = f" Write to {contact}."
    issues = tuple(replace(i, message=i.message + where) if i.code == "team_taken" else i for i in answer.issues)
    return replace(answer, message=answer.message + where, issues=issues)


def disclosed_figures(room: Submissions, scored: Scored) -> SubmitAnswer:
    """The one disclosure rule decides whether the submitter sees its figures; a private one says
    how to publish it (docs/teams.md)."""
    answer = scored.answer
    state = room.catalog.get(answer.submission_id) if answer.result is not None else None
    if state is None:
        return answer
    if not room.visibility.disclosure(scored.request.identity, state).shows("figures"):
        return answer.withheld("Scored and kept; its figures are not shown to you (About, Integrity).")
    if not state.public:  # the team publishes it when it chooses
        note = " Private: only your team sees it; publish it from My submissions (or /publish) to show it."
        return replace(answer, message=answer.message + note)
    return answer


def board_rank(room: Submissions, scored: Scored) -> SubmitAnswer:
    """A shown result comes with its rank on the public board (None when it is not a row)."""
    answer = scored.answer
    if answer.result is None:
        return answer
    return answer.with_rank(room.rank_of(scored.request.benchmark, answer.submission_id))


AFTER_SCORING: tuple[Step, ...] = (
    Step("publish the board", publish_board),
    Step("score on a staged gold", score_on_staged_gold),
    Step("hold if probing", hold_if_probing),
    Step("the item analysis waits", note_for_item_analysis),
    Step("the Ladder's feedback", ladder_feedback),
    Step("where to write", where_to_write),
    Step("what the submitter sees", disclosed_figures),
    Step("rank on the board", board_rank),
)
"""What follows the intake's answer, in order, for every upload (checks and refusals too: each
step says what it applies to)."""


class Submissions:
    """Uploads in, answers out (see module doc)."""

    def __init__(
        self,
        catalog: Catalog,
        golds: GoldRegistry,
        intake: Intake,
        feedback: Feedback,
        boards: Boards,
        publisher: Publisher,
        corrections: GoldCorrections,
        moderation: Moderating,
        visibility: Visibility,
        items: ItemAnalyses,
        after_scoring: tuple[Step, ...] = AFTER_SCORING,
    ) -> None:
        self.catalog, self.golds, self.intake, self.feedback = catalog, golds, intake, feedback
        self.boards, self.publisher = boards, publisher
        self.corrections, self.moderation, self.visibility = corrections, moderation, visibility  # steps ask them
        self.items = items
        self.after_scoring = after_scoring

    def submit(self, request: SubmitRequest) -> SubmitAnswer:
        """Store, validate and score one upload: the answer the form, the API and the CLI give,
        with the new rank when it was scored. ``validate_only``: check it, store nothing."""
        benchmark = request.benchmark
        scored_on = self.golds.info(benchmark)  # the gold the intake scores on, unless the board switches meanwhile
        repeat = not request.validate_only and self.intake.is_repeat(
            benchmark, request.path, request.form, request.identity
        )
        if not request.validate_only and not repeat and (refused := self._over_ration(request)) is not None:
            return refused  # a repeat gets its stored answer back, ration used up or not
        scored = Scored(request, scored_on, self.intake.submit(request))
        for step in self.after_scoring:
            scored = replace(scored, answer=step.run(self, scored))
        return scored.answer

    def _over_ration(self, request: SubmitRequest) -> SubmitAnswer | None:
        """The refusal of a submission asked to be public when its team's publications are used up."""
        form, identity, benchmark = request.form, request.identity, request.benchmark
        if str(form.visibility or "").strip().lower() != "public" or benchmark not in BENCHMARKS:
            return None
        feedback = self.feedback
        free = identity.is_maintainer or identity.username in feedback.exempt
        ration = feedback.ration(benchmark, form.team, datetime.now(UTC), free)
        if ration.allows:
            return None
        message = ration.message() + " Submit it as private (it is scored as usual) and publish it later."
        quota = self.quota(identity, benchmark, team=form.team)
        return SubmitAnswer.refused(message, Issue("publication_limit", 0, "visibility", message), quota=quota)

    def quota(self, identity: Identity, benchmark: str, team: str = "") -> QuotaStatus:
        """The account's daily quota, or the team's (``team``) when that binds first."""
        return self.intake.quota(identity, benchmark, team=team)

    def checks_of(self, username: str) -> Checks:
        """The account's checks (validate-only, pre-checks): running or waiting for their turn, and
        entered so far. The upload door holds its next file while these fill its bound (ui.uploads)."""
        return self.intake.checks.checks(username)

    def rank_of(self, benchmark: str, submission_id: str) -> int | None:
        """The submission's rank if it is a row of the public board, else None."""
        return self.boards.rank_of(benchmark, submission_id)

    def status(self, state: SubmissionState) -> Status:
        """Where a submission stands on its benchmark's current gold."""
        return self.boards.status(state)

    def unparsed_lines(self, state: SubmissionState) -> tuple[UnparsedLine, ...]:
        """The lines of a scored submission whose response stated no letter (line and text: the
        submitter's own words), on the current gold; empty when not scored."""
        info = self.golds.info(state.meta.benchmark)
        result = state.latest_result(info.version) if info else None
        return result.unparsed_lines if result is not None else ()

    def result_for_submitter(self, state: SubmissionState) -> ResultRecord | None:
        """What My submissions may show of a submission: None when withheld, hidden or held."""
        info = self.golds.info(state.meta.benchmark)
        return self.feedback.result_for_submitter(state, info.version) if info else None
