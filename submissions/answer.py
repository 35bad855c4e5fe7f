"""What a submitter is told: one answer type for the web form, the ``/submit`` API and the CLI.

The lifecycle produces it, intake adds the quota (and marks duplicates), the facade adds the
rank, and :meth:`SubmitAnswer.to_api` gives the documented ``/submit`` dictionary (README
"Submitting through the API") with every key present in every answer, early refusals included,
so a ``gradio_client`` user sees one shape. Aggregates only: never per-question correctness.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scoring import ResultRecord, get_benchmark
from scoring.benchmarks import Benchmark, Stat
from scoring.engine import UnparsedLine
from scoring.errors import Issue
from scoring.validation import ValidationReport
from submissions.quotas import QuotaStatus
from submissions.records import Status

API_KEYS = (
    "status",
    "message",
    "submission_id",
    "result",
    "rank",
    "errors",
    "total_errors",
    "quota",
    "duplicate_of",
    "warnings",
    "unparsed_lines",
    "reason",
    "notes",
)
"""The documented keys of a ``/submit`` answer, in order (extended at the end, never renamed):
``warnings`` (issues that did not stop the file, e.g. too few answers in validate-only),
``unparsed_lines`` (``line`` and ``text`` of responses that state no letter), ``reason`` (why a
scored submission's figures are shown or not: :class:`Reason`) and ``notes`` (reasons about how
the file was read: unparsed lines, lenient reads)."""

NO_GOLD = "This benchmark has no gold yet; a maintainer must add it first."
RETRY = "The leaderboard could not store your file just now; nothing was kept or counted. Please send it again."
SYNCING = "The leaderboard is still loading its data; nothing was kept or counted. Please try again in a minute."
_FIXED_RESULT_KEYS = ("benchmark", "gold_version", "scorer_version", "counts", "overall")
PUBLIC_COUNTS = ("questions", "submitted", "missing", "unparsed", "lenient", "grounding_unparsed", "set_aside")
"""Counts that are facts about the file and the public question list; a count of right answers
(``grounded``, a group's ``correct``) would name exact per-group scores (docs/integrity.md)."""


def _message(status: Status, total_issues: int) -> str:
    return {
        Status.SCORED: "Scored.",
        Status.REJECTED: f"Rejected: {total_issues} format error(s); nothing was scored.",
        Status.FAILED: "An internal error stopped scoring; it is retried automatically.",
        Status.RECEIVED: "Received; scoring is pending.",
        Status.VALIDATED: "Validated; scoring is pending.",
        Status.UNAVAILABLE: NO_GOLD,
        Status.VALID: "Valid; nothing was scored or stored (validate only).",
        Status.RETRY: RETRY,
    }[status]


@dataclass(frozen=True)
class Reason:
    """Why a submission stands where it does, for its team: a stable ``code`` scripts can test
    (:data:`REASON_CODES`) and a ``message`` a person can read (what happened, what would change it)."""

    code: str
    message: str

    def to_api(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def issue_api(issue: Issue) -> dict[str, object]:
    """An issue as the answer lists it: line, field, code, message; ``file`` (the file inside the
    upload the line is of) when several files or a zip were given; and ``suggested`` (the settings
    that would read the file: ``"grounding_format=plain bbox_format=xyxy_norm"``) when it has one."""
    shown: dict[str, object] = {"line": issue.line, "field": issue.field, "code": issue.code, "message": issue.message}
    shown |= {"file": issue.file} if issue.file else {}
    return shown | ({"suggested": issue.suggested} if issue.suggested else {})


REASON_CODES = {
    "shown": "scored; its figures are shown to the team",
    "ladder_withheld": "scored and kept; its figures are withheld by the Ladder rule",
    "held_for_review": "scored; held automatically by the probe detector until a maintainer reviews it",
    "hidden_by_maintainer": "hidden by a maintainer, for the reason given",
    "rejected": "not scored: the file has format errors",
    "pending": "not scored yet",
    "failed": "scoring failed on an internal error; it is retried",
    "unparsed_lines": "lines whose response states no letter; each counts as a wrong answer",
    "lenient_reads": "lines read by a rule looser than the benchmark's official protocol",
    "set_aside_lines": "lines answering questions the current gold no longer has; not scored",
    "added_questions": "questions a later gold added; the file has no line for them, each counts as wrong",
    "rescored": "rescored on a corrected gold; its figures before -> after",
}
"""Every reason code, with what it means (docs/integrity.md); codes are only ever added."""


@dataclass(frozen=True)
class SubmitAnswer:
    """See module doc. ``issues`` lists at most 20 problems; ``total_issues`` counts them all."""

    status: Status
    message: str
    submission_id: str | None = None
    result: ResultRecord | None = None
    rank: int | None = None
    issues: tuple[Issue, ...] = ()
    total_issues: int = 0
    quota: QuotaStatus | None = None
    duplicate_of: str | None = None
    warnings: tuple[Issue, ...] = ()
    unparsed_lines: tuple[UnparsedLine, ...] = ()
    reason: Reason | None = None
    notes: tuple[Reason, ...] = ()

    @classmethod
    def of(
        cls,
        status: Status,
        submission_id: str,
        *,
        result: ResultRecord | None = None,
        issues: tuple[Issue, ...] | list[Issue] = (),
        total_issues: int = 0,
    ) -> SubmitAnswer:
        """The answer for a stored submission in ``status``, with that status's message."""
        issues = tuple(issues)
        total = total_issues or len(issues)
        return cls(status, _message(status, total), submission_id, result, issues=issues, total_issues=total)

    @classmethod
    def refused(cls, message: str, *issues: Issue, quota: QuotaStatus | None = None) -> SubmitAnswer:
        """Turned away before anything was stored (form, size, sign-in, quota...)."""
        return cls(Status.REJECTED, message, issues=issues, total_issues=len(issues), quota=quota)

    @classmethod
    def valid(cls, report: ValidationReport, quota: QuotaStatus | None = None) -> SubmitAnswer:
        """Validate only: the file passed every check; what was read, and the warnings."""
        message = (
            f"Valid: the file answers {report.answered:,} of {report.questions:,} questions "
            f"({report.unparsed:,} unparsed"
            + (f"; {report.grounding_unparsed:,} unparsed groundings" if report.grounding_unparsed else "")
            + "); nothing was scored or stored (validate only)."
        )
        return cls(Status.VALID, message, quota=quota, warnings=report.warnings, unparsed_lines=report.unparsed_lines)

    @classmethod
    def not_valid(cls, issues: tuple[Issue, ...], total: int, quota: QuotaStatus | None = None) -> SubmitAnswer:
        """Validate only, or a check before a scored slot is spent: the file's issues, nothing stored."""
        message = f"Not valid: {total} issue(s); nothing was scored or stored."
        return cls(Status.REJECTED, message, issues=tuple(issues), total_issues=total, quota=quota)

    @classmethod
    def unavailable(cls, quota: QuotaStatus | None = None) -> SubmitAnswer:
        """The benchmark has no gold: nothing stored, nothing counted, nothing to retry."""
        return cls(Status.UNAVAILABLE, NO_GOLD, quota=quota)

    @classmethod
    def retry(cls, message: str = RETRY) -> SubmitAnswer:
        """Not stored, not counted: the storage could not take it durably in time (or is still
        loading), so the submitter must send it again; no quota slot was used."""
        return cls(Status.RETRY, message)

    def with_quota(self, quota: QuotaStatus) -> SubmitAnswer:
        return replace(self, quota=quota)

    def with_rank(self, rank: int | None) -> SubmitAnswer:
        return replace(self, rank=rank)

    def withheld(self, why: str, reason: Reason | None = None) -> SubmitAnswer:
        """Scored and stored, but its figures are not shown to the submitter (the feedback policy,
        submissions.feedback): no result, no rank, and ``why`` as the message."""
        return replace(self, message=why, result=None, rank=None, reason=reason or self.reason)

    def with_reason(self, reason: Reason | None, notes: tuple[Reason, ...] = ()) -> SubmitAnswer:
        return replace(self, reason=reason, notes=notes)

    def as_duplicate(self) -> SubmitAnswer:
        """The answer of the earlier upload of the same file, said to be a repeat."""
        note = f"This file was already submitted as {self.submission_id}; nothing was counted. "
        return replace(self, message=note + self.message, duplicate_of=self.submission_id)

    def to_api(self) -> dict[str, object]:
        """The documented ``/submit`` answer (:data:`API_KEYS`, every key always present)."""
        return {
            "status": self.status.value,
            "message": self.message,
            "submission_id": self.submission_id,
            "result": public_result(self.result),
            "rank": self.rank,
            "errors": [issue_api(i) for i in self.issues],
            "total_errors": self.total_issues or len(self.issues),
            "quota": self.quota.message() if self.quota else "",
            "duplicate_of": self.duplicate_of,
            "warnings": [issue_api(i) for i in self.warnings],
            "unparsed_lines": [u.to_api() for u in self.unparsed],
            "reason": self.reason.to_api() if self.reason else None,
            "notes": [n.to_api() for n in self.notes],
        }

    @property
    def unparsed(self) -> tuple[UnparsedLine, ...]:
        """The unparsed lines: of the validation, or of the scored result."""
        return self.unparsed_lines or (self.result.unparsed_lines if self.result is not None else ())


def public_result(result: ResultRecord | None) -> dict | None:
    """The record's fixed aggregates and its declared groupings: a whitelist, so a field added
    to the record later is not published by accident. Figures are rounded to their declared
    decimals (no finer than a page shows them) and counts of right answers are left out; the
    stored record keeps full precision for maintainers and ranking."""
    if result is None:
        return None
    bench = get_benchmark(result.benchmark)
    groupings = {g.name for g in bench.groupings}
    out: dict = {k: getattr(result, k) for k in ("benchmark", "gold_version", "scorer_version")}
    out["counts"] = {k: v for k, v in result.counts.items() if k in PUBLIC_COUNTS}
    out["overall"] = public_figures(bench, result.overall)
    for name, labels in result.groups.items():
        if name in groupings:
            out[name] = {label: public_figures(bench, stats) for label, stats in labels.items()}
    return out


def public_figures(bench: Benchmark, stats: dict) -> dict:
    """One group's figures as a submitter may see them: its size, and every declared metric (and
    interval) rounded to the metric's decimals; never its count of right answers."""
    out: dict = {Stat.QUESTIONS.value: stats[Stat.QUESTIONS.value]} if Stat.QUESTIONS.value in stats else {}
    for m in bench.metrics:
        if m.name in stats:
            out[m.name] = _rounded(stats[m.name], m.decimals)
        if m.ci and m.ci in stats:
            out[m.ci] = _rounded(stats[m.ci], m.decimals)
    return out


def _rounded(value: object, decimals: int) -> object:
    """A figure or an interval rounded for a submitter; None stays None."""
    if isinstance(value, list):
        return [_rounded(v, decimals) for v in value]
    return round(float(value), decimals) if isinstance(value, int | float) and not isinstance(value, bool) else value
