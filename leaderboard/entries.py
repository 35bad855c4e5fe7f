"""A team's view of one of its submissions: what My submissions shows and ``/my_result`` answers.

Everything the stored records say about it (status, form, file, visibility, every figure of its
result with intervals and groups, the errors of each rejection) and where it stands on the board.
Only the team's members and maintainers are ever given one (``Leaderboard.visibility.entry``). Aggregates
only, as in the ``/submit`` answer: never a per-question outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring import ResultRecord
from scoring.errors import Issue
from submissions.answer import Reason, issue_api, public_result
from submissions.catalog import SubmissionState
from submissions.records import Status


def history(state: SubmissionState) -> list[dict[str, object]]:
    """The row's corrections of its descriptive fields (leaderboard.descriptions), oldest first, as
    its team sees them: who, when, each field's before and after."""
    out = []
    for seq in sorted(state.corrections):
        event = state.corrections[seq]
        changes = [{"field": k, "before": event.before.get(k, ""), "after": v} for k, v in event.values.items()]
        out.append({"at": event.at, "by": event.by, "maintainer": event.maintainer, "changes": changes})
    return out


ENTRY_KEYS = (
    "submission_id",
    "benchmark",
    "model",
    "team",
    "model_type",
    "submitter",
    "submitted_at",
    "filename",
    "bbox_format",
    "status",
    "visibility",
    "anonymous",
    "reveal_date",
    "hidden",
    "on_board",
    "rank",
    "board_row",
    "gold_version",
    "result",
    "errors",
    "past_errors",
    "reason",
    "notes",
    "corrections",
)
"""The keys of an entry's API form, in order (docs/teams.md); ``reason`` and ``notes`` are
``{"code", "message"}`` (submissions.answer.REASON_CODES)."""
_FIXED_RESULT_KEYS = ("benchmark", "gold_version", "scorer_version", "counts", "overall")


@dataclass(frozen=True)
class Entry:
    """One submission as its team sees it. ``board_row`` is the id of the submission that is the
    public row of this (team, model) now (this one, another, or None); ``rank`` is this one's
    rank if it is that row."""

    state: SubmissionState
    status: Status
    result: ResultRecord | None
    rank: int | None
    board_row: str | None
    gold_version: str
    reason: Reason | None = None  # why it stands where it does (submissions.feedback.Feedback.reason)
    notes: tuple[Reason, ...] = ()  # how its file was read: unparsed lines, lenient reads

    @property
    def visibility(self) -> str:
        return "public" if self.state.public else "private"

    @property
    def on_board(self) -> bool:
        return self.rank is not None

    @property
    def where(self) -> str:
        """One phrase: where this entry stands (My submissions' "board" column)."""
        if self.state.held:
            return "held for review (automatic)" if _automatic(self.state) else "held for review"
        if self.state.hidden:
            return "hidden by a maintainer"
        if self.reason is not None and self.reason.code == "ladder_withheld":
            return "private, withheld by the Ladder"
        if self.on_board:
            return f"public row, rank {self.rank}"
        if not self.state.public:
            return "private"
        if self.board_row:
            return f"public, not the row (the row is {self.board_row})"
        return "public, not scored on the current gold" if self.result is None else "public"

    def issues(self) -> tuple[Issue, ...]:
        rejection = self.state.rejection(self.gold_version) if self.gold_version else None
        return rejection.issues if rejection else ()

    def to_api(self) -> dict[str, object]:
        """The ``/my_result`` answer and each item of ``/my_submissions`` (:data:`ENTRY_KEYS`)."""
        meta = self.state.meta
        return {
            "submission_id": meta.id,
            "benchmark": meta.benchmark,
            "model": meta.model,
            "team": meta.team,
            "model_type": meta.model_type,
            "submitter": meta.submitter,
            "submitted_at": meta.submitted_at,
            "filename": meta.filename,
            "bbox_format": meta.bbox_format,
            "status": self.status.value,
            "visibility": self.visibility,
            "anonymous": self.state.anonymous,
            "reveal_date": self.state.reveal_date,
            "hidden": self.state.hidden,
            "on_board": self.on_board,
            "rank": self.rank,
            "board_row": self.board_row,
            "gold_version": self.gold_version,
            "result": result_dict(self.result),
            "errors": [issue_api(i) for i in self.issues()],
            "past_errors": _past_errors(self.state),
            "reason": self.reason.to_api() if self.reason else None,
            "notes": [n.to_api() for n in self.notes],
            "corrections": history(self.state),  # its descriptive fields corrected (leaderboard.descriptions)
        }


def result_dict(result: ResultRecord | None) -> dict | None:
    """The result as its team may see it: the same whitelist and rounding as the ``/submit``
    answer (submissions.answer.public_result), never finer than the page shows."""
    return public_result(result)


def _automatic(state: SubmissionState) -> bool:
    return state.moderation is not None and state.moderation.by == "automatic"


def _past_errors(state: SubmissionState) -> list[dict]:
    """Every stored rejection of the upload (one per gold it was checked on), oldest first."""
    rejections = sorted(state.rejections.items(), key=lambda kv: kv[1].at)
    return [
        {"gold": gold, "at": r.at, "total": r.total, "errors": [issue_api(i) for i in r.issues]}
        for gold, r in rejections
    ]
