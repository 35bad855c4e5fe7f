"""The bodies of stored files: one frozen dataclass and one codec each.

Every record turns into bytes with ``to_bytes`` and back with ``from_bytes(data, where)``. A body
that is not valid JSON *or* is valid JSON of the wrong shape raises the one :class:`CorruptRecord`
(``where`` is the path, for the log): readers quarantine it and ``Leaderboard.repair`` rebuilds
what is derived. No reader ever sees a half-checked ``dict``.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from functools import cache
from typing import Self, TypeVar

from scoring.engine import ResultRecord, UnparsedLine
from scoring.errors import Issue

_T = TypeVar("_T")


class CorruptRecord(ValueError):
    """A stored body that cannot be read back: bad JSON, or JSON of the wrong shape."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where, self.why = where, why


def _object(data: bytes, where: str) -> dict:
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
        raise CorruptRecord(where, f"not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise CorruptRecord(where, f"expected a JSON object, got {type(raw).__name__}")
    return raw


def _dumps(body: dict, indent: int | None = None) -> bytes:
    return json.dumps(body, ensure_ascii=False, indent=indent).encode()


@cache
def _field_types(cls: type) -> dict[str, type]:
    return typing.get_type_hints(cls)


def _is(value: object, kind: type) -> bool:
    """``isinstance`` that does not take a bool for an int (JSON ``true`` is not a count)."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _flat(cls: type[_T], raw: dict, where: str) -> _T:
    """A record whose fields are all str, int or bool: each present (or defaulted) and typed."""
    types, values = _field_types(cls), {}
    for f in fields(cls):
        if f.name not in raw:
            if f.default is MISSING and f.default_factory is MISSING:
                raise CorruptRecord(where, f"{f.name} is missing")
            continue
        if not _is(raw[f.name], types[f.name]):
            raise CorruptRecord(where, f"{f.name} should be {types[f.name].__name__}, got {type(raw[f.name]).__name__}")
        values[f.name] = raw[f.name]
    return cls(**values)


class _FlatRecord:
    """Stored bodies whose fields are all str, int or bool: one reader for them all."""

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Self:
        """The record in ``data``; CorruptRecord(where, why) for bad JSON or a wrong shape."""
        return _flat(cls, _object(data, where), where)


@dataclass(frozen=True)
class SubmissionMeta(_FlatRecord):
    """What is stored beside the raw upload (``meta.json``, immutable)."""

    id: str
    benchmark: str
    model: str
    team: str
    model_type: str
    paper_url: str
    code_url: str
    description: str
    submitter: str
    sha256: str
    bbox_format: str
    submitted_at: str  # ISO 8601, UTC
    size_bytes: int
    filename: str = ""
    owner: str = ""  # the team's owner when it was submitted ("" in records older than ownership)
    visibility: str = "public"  # chosen at submission; records older than visibility were public
    anonymous: bool = False
    reveal_date: str = ""  # YYYY-MM-DD (UTC) from which an anonymous entry shows its names
    maintainer: bool = False  # sent by a maintainer (no quota, no Ladder rule: submissions.feedback)
    grounding_format: str = ""  # the family grounding_response lines are read in ("" in older records: none)
    info: Mapping[str, str] = field(default_factory=dict)
    """Descriptive fields declared after the ones above (submissions.fields), stored flat after
    them: a record without any is byte for byte what it was before ``info`` existed."""

    def to_bytes(self) -> bytes:
        body = {k: v for k, v in asdict(self).items() if k != "info"}
        if not body["grounding_format"]:  # none declared: the record is byte for byte what it was before the field
            del body["grounding_format"]
        return _dumps(body | {k: v for k, v in self.info.items() if k not in body}, indent=1)

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> SubmissionMeta:
        """The record; every other text key is a later declared field (``info``), kept as written."""
        raw = _object(data, where)
        own = {f.name for f in fields(cls)}
        meta = _flat(cls, {k: v for k, v in raw.items() if k != "info"}, where)
        return replace(meta, info={k: v for k, v in raw.items() if k not in own and isinstance(v, str)})


@dataclass(frozen=True)
class StoredResult:
    """``result-{gold}-{scorer}.json``: a result record and when it was scored. The record's
    unparsed lines (line number and the start of the submitter's text, shown only to the
    submitter) are kept beside it under ``unparsed_lines``, absent in older files."""

    submission_id: str
    scored_at: str  # ISO 8601, UTC
    result: ResultRecord

    def to_bytes(self) -> bytes:
        body = {"submission_id": self.submission_id, "scored_at": self.scored_at, "result": self.result.to_dict()}
        if self.result.unparsed_lines:
            body["unparsed_lines"] = [u.to_api() for u in self.result.unparsed_lines]  # "kind" only for groundings
        return _dumps(body)

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> StoredResult:
        raw = _object(data, where)
        head = _flat(_ResultHead, raw, where)
        listed = raw.get("unparsed_lines", [])
        if not isinstance(listed, list) or not all(isinstance(u, dict) for u in listed):
            raise CorruptRecord(where, "unparsed_lines should be a list of objects")
        unparsed = tuple(_flat(UnparsedLine, u, where) for u in listed)
        return cls(
            head.submission_id, head.scored_at, replace(_result(raw.get("result"), where), unparsed_lines=unparsed)
        )


@dataclass(frozen=True)
class _ResultHead:
    submission_id: str
    scored_at: str


_RESULT_TEXT = ("benchmark", "gold_version", "scorer_version")


def _result(raw: object, where: str) -> ResultRecord:
    """A result record whose every part has the shape the table and the API read."""
    if not isinstance(raw, dict):
        raise CorruptRecord(where, "result should be an object")
    if not all(isinstance(raw.get(k), str) for k in _RESULT_TEXT):
        raise CorruptRecord(where, f"result needs text fields {', '.join(_RESULT_TEXT)}")
    counts = raw.get("counts")
    if not isinstance(counts, dict) or not all(_is(v, int) for v in counts.values()):
        raise CorruptRecord(where, "result counts should map names to integers")
    if not isinstance(raw.get("overall"), dict):
        raise CorruptRecord(where, "result overall should be an object")
    groups = {k: v for k, v in raw.items() if k not in (*_RESULT_TEXT, "counts", "overall")}
    for name, labels in groups.items():
        if not isinstance(labels, dict) or not all(isinstance(v, dict) for v in labels.values()):
            raise CorruptRecord(where, f"result grouping {name!r} should map labels to objects")
    return ResultRecord.from_dict(raw)


@dataclass(frozen=True)
class StoredRejection:
    """``rejected-{gold}.json``: the listed format errors (at most 20) and how many there were."""

    issues: tuple[Issue, ...]
    total: int
    at: str  # ISO 8601, UTC

    def to_bytes(self) -> bytes:
        return _dumps({"issues": [i.to_dict() for i in self.issues], "total": self.total, "at": self.at})

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> StoredRejection:
        raw = _object(data, where)
        head = _flat(_RejectionHead, raw, where)
        listed = raw.get("issues")
        if not isinstance(listed, list) or not all(isinstance(i, dict) for i in listed):
            raise CorruptRecord(where, "issues should be a list of objects")
        return cls(tuple(_flat(Issue, i, where) for i in listed), head.total, head.at)


@dataclass(frozen=True)
class _RejectionHead:
    total: int
    at: str = ""


@dataclass(frozen=True)
class Validated:
    """``validated-{gold}.json``: a marker that the file passed validation on that gold."""

    def to_bytes(self) -> bytes:
        return b"{}"

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Validated:
        _object(data, where)
        return cls()


@dataclass(frozen=True)
class StoredFailure(_FlatRecord):
    """``failure-{gold}-{n}.json``: one internal error while scoring (the end of a traceback)."""

    error: str
    at: str = ""  # ISO 8601, UTC; absent in records repaired before it was written

    def to_bytes(self) -> bytes:
        return _dumps({"at": self.at, "error": self.error})


@dataclass(frozen=True)
class Moderation(_FlatRecord):
    """``moderation/{id}.json``: whether a maintainer hid the submission from the public table.

    ``reason`` says why, for maintainers; a hold on suspected probing (submissions.probes) is a
    hiding whose reason starts with :data:`HOLD_REASON`: held results reach neither the board nor
    the team's feedback."""

    hidden: bool
    by: str = ""
    at: str = ""
    reason: str = ""

    @property
    def held(self) -> bool:
        return self.hidden and self.reason.startswith(HOLD_REASON)

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self))


HOLD_REASON = "held:"
"""The prefix of a moderation reason that makes a hiding a probe hold."""


@dataclass(frozen=True)
class BootstrapSecret:
    """``secrets/bootstrap.json`` in the private gold repo: the key that seeds the leaderboard's
    bootstrap intervals per submission. Stored once (create-only) so that every replica and every
    restart seed alike; it never leaves the gold repo."""

    secret: str  # hex
    created_at: str = ""

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self))

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> BootstrapSecret:
        record = _flat(cls, _object(data, where), where)
        if len(record.secret) < 32 or not all(c in "0123456789abcdef" for c in record.secret):
            raise CorruptRecord(where, "secret should be at least 32 lowercase hex digits")
        return record


@dataclass(frozen=True)
class GoldInfo(_FlatRecord):
    """The gold pointer ``{benchmark}/current.json``: which version is current, and since when."""

    benchmark: str
    version: str
    file: str
    added_at: str
    added_by: str
    questions: int
    previous_version: str = ""
    withheld_fields: str = ""  # comma-separated question fields left out of the public list

    @property
    def withheld(self) -> tuple[str, ...]:
        return tuple(f for f in self.withheld_fields.split(",") if f)

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self), indent=1).encode()


@dataclass(frozen=True)
class StagedPreview(_FlatRecord):
    """``{benchmark}/staged-preview.json`` (private gold area): the preview of switching the board
    to staged gold ``staged``, computed once and kept, so that no page render scores every
    submission again. ``basis`` names what it was computed from (the current and staged versions
    and the stored submissions, leaderboard.corrections): a record whose basis is not today's is
    outdated and is never shown as if it were current."""

    benchmark: str
    staged: str  # the staged gold's version
    basis: str
    computed_at: str  # ISO 8601, UTC
    lines: str  # GoldPreview.lines(), one per line, as `gold add` prints them
    summary: str  # GoldPreview.summary(), what the Rescore all confirmation quotes

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class TeamEvent(_FlatRecord):
    """``teams/{team}-{seq}.json`` (immutable): who owns a team name from this event on.

    ``seq`` 0 is the claim by the first account that used the name; later ones are maintainers'
    transfers. ``owner`` is a user name or ``org:NAME`` (every member of that organisation).
    """

    name: str  # the name as first written (what the board shows)
    key: str  # the compared form (submissions.teams.name_key)
    owner: str
    by: str
    at: str  # ISO 8601, UTC
    action: str = "claim"  # "claim" or "transfer"

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class Publication(_FlatRecord):
    """``publication/{id}-{seq}.json`` (immutable): a team made a submission public or private.

    The newest event of a submission decides its visibility (its meta holds the first choice);
    ``row`` says the team chose it as its model's board row.
    """

    public: bool
    by: str
    at: str  # ISO 8601, UTC
    row: bool = False
    anonymous: bool = False
    reveal_date: str = ""
    maintainer: bool = False  # made by a maintainer: outside the team's publication ration

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class Correction:
    """``correction/{id}-{seq}.json`` (immutable): a submission's descriptive fields corrected by its
    team (or a maintainer) without a new scored file (issue 44). ``values`` holds each changed field's
    new value, ``before`` its value until then: the row's history says who changed what, and when."""

    by: str
    at: str  # ISO 8601, UTC
    values: Mapping[str, str]
    before: Mapping[str, str]
    maintainer: bool = False

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self) | {"values": dict(self.values), "before": dict(self.before)}, indent=1)

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Correction:
        raw = _object(data, where)
        maps = {}
        for key in ("values", "before"):
            found = raw.get(key)
            if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
                raise CorruptRecord(where, f"{key} should be an object of texts")
            maps[key] = dict(found)
        flat = _flat(_CorrectionHead, {k: v for k, v in raw.items() if k not in maps}, where)
        return cls(flat.by, flat.at, maps["values"], maps["before"], flat.maintainer)


@dataclass(frozen=True)
class _CorrectionHead:
    by: str
    at: str
    maintainer: bool = False
