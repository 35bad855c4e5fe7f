"""Submission records: what a team fills in, who submits, and the states a submission goes through.

The stored record beside the upload, :class:`SubmissionMeta`, is a stored body and lives with the
others in store/records.py (re-exported here for the write side).

Free text from the form is cleaned here once (control characters dropped, lengths bounded,
URLs limited to http/https) so that every later use (page, CSV, Hub) starts from safe values;
HTML escaping and CSV-injection guards still happen where text is rendered or exported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclasses_fields
from datetime import UTC, date, datetime
from enum import StrEnum

from scoring.errors import Issue
from scoring.geometry import BOX_FORMATS
from scoring.grounding_formats import describe_formats, known_format
from store.records import SubmissionMeta
from submissions import fields
from submissions.fields import clean_text

__all__ = ["MODEL_TYPES", "VISIBILITIES", "Identity", "Status", "SubmissionForm", "SubmissionMeta", "clean_text"]

MODEL_TYPES: dict[str, str] = {c.key: c.label for c in fields.MODEL_TYPE.choices}
"""Stored model type -> its one label (form, board filter and cell, model page: submissions.fields)."""
VISIBILITIES: dict[str, str] = {
    "private": "private: scored, seen by your team only (publish it later from My submissions)",
    "public": "public: a row on the leaderboard at once",
}
"""What a submission's visibility may be; SubmissionForm's default is the library's (public, as
before teams existed), the web form and ``/submit`` default to private (docs/teams.md)."""


class Status(StrEnum):
    """received -> validated -> scored; or rejected (format errors) or failed (internal, retried).

    ``unavailable`` is only ever an answer, never a stored state: the benchmark has no gold yet,
    so nothing was stored, counted or scored. So is ``valid``: a validate-only check passed.
    """

    RECEIVED = "received"
    VALIDATED = "validated"
    SCORED = "scored"
    REJECTED = "rejected"
    FAILED = "failed"
    UNAVAILABLE = "unavailable"
    VALID = "valid"
    RETRY = "retry"  # an answer only: nothing was stored or counted (storage busy or loading); send it again


@dataclass(frozen=True)
class SubmissionForm:
    """What a team says about its upload (web form, API, CLI alike): the classic fields as
    attributes, later declared ones in ``info`` (:mod:`submissions.fields`), and the options."""

    model: str
    team: str
    model_type: str = "open"
    paper_url: str = ""
    code_url: str = ""
    description: str = ""
    bbox_format: str = "xyxy"
    visibility: str = "public"
    anonymous: bool = False
    reveal_date: str = ""  # YYYY-MM-DD: an anonymous entry shows its names from that day (UTC)
    grounding_format: str = ""  # the family of grounding_response lines (scoring/grounding_formats.py); "" none

    info: Mapping[str, str] = field(default_factory=dict)  # the later declared fields (submissions.fields)

    @classmethod
    def of(cls, **values: object) -> SubmissionForm:
        """A form from field values by name, classic or later (``model_repo=...``), and options."""
        own = {f.name for f in dataclasses_fields(cls)}
        info = {k: "" if v is None else str(v) for k, v in values.items() if k not in own}
        return cls(**{k: v for k, v in values.items() if k in own}, info=info)  # type: ignore[arg-type]

    def value(self, name: str) -> str:
        return fields.value_of(self, name)

    def cleaned(self) -> tuple[SubmissionForm, list[Issue]]:
        """The form with cleaned values of every submitted field and the list of their issues (line 0)."""
        issues: list[Issue] = []
        values = {}
        for f in fields.submitted_fields():
            values[f.name], problems = f.clean(self.value(f.name))
            issues += problems
        if self.bbox_format not in BOX_FORMATS:
            issues.append(
                Issue("unknown_bbox_format", 0, "bbox_format", f"bbox_format must be one of {', '.join(BOX_FORMATS)}")
            )
        grounding_format = str(self.grounding_format or "").strip()
        if grounding_format and not known_format(grounding_format):
            why = f"grounding_format must be one of {describe_formats()}"
            issues.append(Issue("unknown_grounding_format", 0, "grounding_format", why))
        visibility = str(self.visibility or "").strip().lower()
        if visibility not in VISIBILITIES:
            issues.append(
                Issue("bad_visibility", 0, "visibility", f"visibility must be one of {', '.join(VISIBILITIES)}")
            )
        reveal, issue = check_reveal_date(self.reveal_date, bool(self.anonymous))
        issues += [issue] if issue else []
        classic, info = fields.split(values)
        form = SubmissionForm(
            **classic,
            bbox_format=str(self.bbox_format),
            visibility=visibility,
            anonymous=bool(self.anonymous),
            reveal_date=reveal,
            grounding_format=grounding_format,
            info=info,
        )
        return form, issues


def check_reveal_date(value: object, anonymous: bool) -> tuple[str, Issue | None]:
    """The reveal date as ``YYYY-MM-DD`` ("" for none), or an issue: it must be a real date and
    only an anonymous entry has one."""
    text = str(value or "").strip()[:40]
    if not text:
        return "", None
    if not anonymous:
        return "", Issue("reveal_without_anonymous", 0, "reveal_date", "a reveal date needs an anonymous entry")
    try:
        reveal = date.fromisoformat(text)
    except ValueError:
        why = f"reveal_date must be a date like 2027-01-31, got {text!r}"
        return "", Issue("bad_reveal_date", 0, "reveal_date", why)
    if reveal < datetime.now(UTC).date():
        why = (
            f"reveal_date {reveal.isoformat()} is in the past: give a later date, or none to stay "
            "anonymous until you publish under your name"
        )
        return "", Issue("past_reveal_date", 0, "reveal_date", why)
    return reveal.isoformat(), None


@dataclass(frozen=True)
class Identity:
    """Who is submitting: a Hugging Face user on a Space, or the configured local identity."""

    username: str
    is_maintainer: bool = False
    source: str = "local"  # "huggingface" or "local"
    orgs: tuple[str, ...] = ()  # the user's Hugging Face organisations (whoami / OAuth), for team ownership
