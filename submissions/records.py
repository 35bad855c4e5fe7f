"""Submission records: what a team fills in, who submits, and the states a submission goes through.

The stored record beside the upload, :class:`SubmissionMeta`, is a stored body and lives with the
others in store/records.py (re-exported here for the write side).

Free text from the form is cleaned here once (control characters dropped, lengths bounded,
URLs limited to http/https) so that every later use (page, CSV, Hub) starts from safe values;
HTML escaping and CSV-injection guards still happen where text is rendered or exported.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum

from scoring.errors import Issue
from scoring.geometry import BOX_FORMATS
from scoring.grounding_formats import describe_formats, known_format
from store.records import SubmissionMeta

__all__ = ["MODEL_TYPES", "VISIBILITIES", "Identity", "Status", "SubmissionForm", "SubmissionMeta", "clean_text"]

MODEL_TYPES: dict[str, str] = {"open": "open weights", "closed": "closed weights", "api": "API only"}
LIMITS = {"model": 100, "team": 100, "description": 1000, "paper_url": 300, "code_url": 300}
VISIBILITIES: dict[str, str] = {
    "private": "private: scored, seen by your team only (publish it later from My submissions)",
    "public": "public: a row on the leaderboard at once",
}
"""What a submission's visibility may be; SubmissionForm's default is the library's (public, as
before teams existed), the web form and ``/submit`` default to private (docs/teams.md)."""
_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)


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


def clean_text(value: object, limit: int, keep_invisible: bool = False) -> str:
    """Printable single-spaced text: control and format characters dropped (kept with
    ``keep_invisible``, for a check that refuses them), then cut to ``limit`` characters (the
    caller reports an over-long value before cutting)."""
    text = "" if value is None else str(value)
    kept = (ch for ch in text if keep_invisible or unicodedata.category(ch)[0] != "C" or ch in "\t\r\n")
    text = "".join(" " if ch in "\t\r\n" else ch for ch in kept)
    return re.sub(r" {2,}", " ", text).strip()[:limit]


@dataclass(frozen=True)
class SubmissionForm:
    """What a team says about its upload (web form, API, CLI alike)."""

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

    def cleaned(self) -> tuple[SubmissionForm, list[Issue]]:
        """The form with cleaned text and the list of field issues (line 0)."""
        issues: list[Issue] = []
        values = {}
        for f in ("model", "team", "description", "paper_url", "code_url"):
            raw = "" if getattr(self, f) is None else str(getattr(self, f))
            if len(raw) > LIMITS[f]:
                issues.append(Issue("field_too_long", 0, f, f"{f} is {len(raw)} characters; at most {LIMITS[f]}"))
            # a team name with invisible characters is refused (submissions.teams), not stripped
            values[f] = clean_text(raw, LIMITS[f], keep_invisible=f == "team")
        for f in ("model", "team"):
            if not values[f]:
                issues.append(Issue("field_required", 0, f, f"{f} is required"))
        for f in ("paper_url", "code_url"):
            if values[f] and not _URL.match(values[f]):
                issues.append(Issue("bad_url", 0, f, f"{f} must be an http:// or https:// address"))
        model_type = str(self.model_type or "").strip().lower()
        if model_type not in MODEL_TYPES:
            issues.append(
                Issue("bad_model_type", 0, "model_type", f"model_type must be one of {', '.join(MODEL_TYPES)}")
            )
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
        form = SubmissionForm(
            **values,
            model_type=model_type,
            bbox_format=str(self.bbox_format),
            visibility=visibility,
            anonymous=bool(self.anonymous),
            reveal_date=reveal,
            grounding_format=grounding_format,
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
        why = (f"reveal_date {reveal.isoformat()} is in the past: give a later date, or none to stay "
               "anonymous until you publish under your name")  # fmt: skip
        return "", Issue("past_reveal_date", 0, "reveal_date", why)
    return reveal.isoformat(), None


@dataclass(frozen=True)
class Identity:
    """Who is submitting: a Hugging Face user on a Space, or the configured local identity."""

    username: str
    is_maintainer: bool = False
    source: str = "local"  # "huggingface" or "local"
    orgs: tuple[str, ...] = ()  # the user's Hugging Face organisations (whoami / OAuth), for team ownership
