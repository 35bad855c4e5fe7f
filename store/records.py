"""The bodies of stored files: one frozen dataclass and one codec each.

Every record turns into bytes with ``to_bytes`` and back with ``from_bytes(data, where)``. A body
that is not valid JSON *or* is valid JSON of the wrong shape raises the one :class:`CorruptRecord`
(``where`` is the path, for the log): readers quarantine it and ``Leaderboard.repair`` rebuilds
what is derived. No reader ever sees a half-checked ``dict``.
"""

from __future__ import annotations

import io
import json
import typing
import zipfile
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from functools import cache
from typing import Self, TypeVar

import numpy as np

from scoring.boxcheck import BoxSample
from scoring.engine import ResultRecord, UnparsedLine
from scoring.errors import Issue
from scoring.geometry import Box, Polygons, Runs
from scoring.reading import FileReading, ReadAnswers

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
class Unreadable(StoredRejection):
    """``unreadable.json``: the upload was stopped at a job bound while it was read (time or
    memory): it has no reading and is read by nothing again; every gold rejects it with these
    issues (submissions.lifecycle), the probe detector skips it."""


class StoredReading:
    """``reading-{basis}-{reader}.npz``: an upload as the worker read it (scoring.reading), kept
    beside it (create-only) so that nothing reads the upload again. Numpy arrays (no pickles:
    ``allow_pickle=False``) for what is per question, cheap to load for many files at once, and a
    JSON header for the rest."""

    @staticmethod
    def to_bytes(reading: FileReading) -> bytes:
        arrays = {
            "letters": reading.letters.astype(np.int8),
            "flags": reading.flags.astype(np.uint8),
            "lines": reading.lines.astype(np.int64),
            "facts": reading.facts.astype(np.uint64),
            **_grounding_arrays(reading.groundings),
        }
        header = _reading_header(reading)
        arrays["header"] = np.frombuffer(json.dumps(header, ensure_ascii=False).encode(), dtype=np.uint8)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:  # numpy's .npz, with fixed dates: one reading, one byte string
            for name, array in arrays.items():
                info = zipfile.ZipInfo(f"{name}.npy", (1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                with z.open(info, "w") as member:
                    np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
        return out.getvalue()

    @staticmethod
    def from_bytes(data: bytes, where: str) -> FileReading:
        """The reading in ``data``; CorruptRecord(where, why) for anything of another shape."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
            header = json.loads(arrays.pop("header").tobytes())
        except Exception as e:  # a broken zip, a missing member, bad JSON: numpy raises many kinds
            raise CorruptRecord(where, f"not a stored reading: {str(e)[:120]}") from None
        if not isinstance(header, dict):
            raise CorruptRecord(where, "a reading's header should be an object")
        try:
            return _reading_of(header, arrays)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise CorruptRecord(where, f"a reading of the wrong shape: {str(e)[:120]}") from None

    @staticmethod
    def answers(data: bytes, where: str) -> ReadAnswers:
        """Only what the reading answered (keys, letters, groundings' extents), from the arrays as
        stored, without building a grounding: cheap for many readings at once."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                a = {name: npz[name] for name in npz.files if name not in _SCORING_ONLY}
            header = json.loads(a.pop("header").tobytes())
            keys = tuple(header["keys"])
            if len(a["letters"]) != len(keys) or len(a["gkind"]) != len(keys):
                raise ValueError("the per-question arrays differ in length from the keys")
            letters = a["letters"].astype(np.int8)
            return ReadAnswers(str(header["benchmark"]), keys, letters, _extents(a), _units(a))
        except Exception as e:  # a broken zip, a missing member, bad JSON, arrays of the wrong shape
            raise CorruptRecord(where, f"not a stored reading: {str(e)[:120]}") from None


_SCORING_ONLY = frozenset({"flags", "lines", "facts"})
"""Arrays :meth:`StoredReading.answers` leaves unread."""


def _extents(a: dict[str, np.ndarray]) -> np.ndarray:
    """Per key, its grounding's extent (x0, y0, x1, y1) from the stored arrays (NaN: none), as
    scoring.reading.FileReading.box_extents gives it."""
    kinds = a["gkind"]
    out = np.full((kinds.size, 4), np.nan, dtype=np.float64)
    out[kinds == 1] = a["box"]
    polygons = np.flatnonzero(kinds == 2)
    if polygons.size and not (a["poly_parts"] > 0).all():  # no reader makes one; read the slow way
        out[polygons] = [_polygon_extent(g) for g in _groundings_of(a) if isinstance(g, Polygons)]
    elif polygons.size:
        coords = np.add.reduceat(a["poly_part_sizes"], np.r_[0, np.cumsum(a["poly_parts"])[:-1]]) // 2
        starts = np.r_[0, np.cumsum(coords)[:-1]]
        xs, ys = a["poly_coords"][0::2], a["poly_coords"][1::2]
        out[polygons] = np.stack(
            [np.minimum.reduceat(xs, starts), np.minimum.reduceat(ys, starts)]
            + [np.maximum.reduceat(xs, starts), np.maximum.reduceat(ys, starts)],
            axis=1,
        )
    masks = np.flatnonzero(kinds == 3)
    if masks.size:
        out[masks] = _runs_extents(a)
    return out


def _units(a: dict[str, np.ndarray]) -> np.ndarray:
    """Per key, its extent's (scale, reference width, reference height) (NaN: none), as
    scoring.reading.FileReading.extent_units gives it."""
    kinds = a["gkind"]
    out = np.full((kinds.size, 3), np.nan, dtype=np.float64)
    out[kinds == 1, 0] = a["box_scale"]
    out[kinds == 1, 1:] = a["box_ref"]
    out[kinds == 2, 1:] = a["poly_ref"]
    return out


def _polygon_extent(polygon: Polygons) -> tuple[float, ...]:
    if not polygon.parts:
        return (np.nan,) * 4
    flat = np.concatenate(polygon.parts)
    return flat[0::2].min(), flat[1::2].min(), flat[0::2].max(), flat[1::2].max()


def _runs_extents(a: dict[str, np.ndarray]) -> np.ndarray:
    """The pixel extent of each stored mask (a run that crosses a column spans every row; NaN: empty)."""
    sizes = a["runs_sizes"]
    out = np.full((sizes.size, 4), np.nan, dtype=np.float64)
    full = sizes > 0
    if not full.any():
        return out
    h = np.repeat(a["runs_hw"][:, 0], sizes)
    first, last = a["runs_starts"], a["runs_starts"] + a["runs_lengths"] - 1
    cols0, cols1 = first // h, last // h
    same = cols0 == cols1
    top, bottom = np.where(same, first % h, 0), np.where(same, last % h, h - 1)
    at = np.r_[0, np.cumsum(sizes)[:-1]][full]
    out[full] = np.stack(
        [
            np.minimum.reduceat(cols0, at),
            np.minimum.reduceat(top, at),
            np.maximum.reduceat(cols1, at) + 1,
            np.maximum.reduceat(bottom, at) + 1,
        ],
        axis=1,
    )
    return out


_GROUNDING_KINDS = {type(None): 0, Box: 1, Polygons: 2, Runs: 3}


def _reading_header(r: FileReading) -> dict:
    if not all(isinstance(k, str) or _is(k, int) for k in r.keys):
        raise ValueError("a reading keeps text or integer keys only")
    return {
        "benchmark": r.benchmark,
        "basis": r.basis,
        "reader": r.reader,
        "bbox_format": r.bbox_format,
        "grounding_format": r.grounding_format,
        "keys": list(r.keys),
        "plain_boxes": r.plain_boxes,
        "box_scale": r.box_scale,
        "counts": dict(r.counts),
        "unparsed_lines": [[u.line, u.text, u.kind, *([u.file] if u.file else [])] for u in r.unparsed_lines],
        "box_samples": [[list(s.values), list(s.frame), s.grounding_format] for s in r.box_samples],
        "grounding_hint": r.grounding_hint.to_dict() if r.grounding_hint else None,
        "set_aside": [[line, key] for line, key in r.set_aside],
        "last_line": r.last_line,
        "converted": r.converted,
        "issues": [i.to_dict() for i in r.issues],
        "total": r.total,
        "notes": [i.to_dict() for i in r.notes],
    }


def _grounding_arrays(groundings: tuple) -> dict[str, np.ndarray]:
    """Every grounding of a reading in a few flat arrays (kinds, boxes, polygon parts, mask runs)."""
    kinds = np.array([_GROUNDING_KINDS[type(g)] for g in groundings], dtype=np.uint8)
    boxes = [g for g in groundings if isinstance(g, Box)]
    polygons = [g for g in groundings if isinstance(g, Polygons)]
    runs = [g for g in groundings if isinstance(g, Runs)]
    nan2 = (np.nan, np.nan)
    return {
        "gkind": kinds,
        "box": np.array([(b.x0, b.y0, b.x1, b.y1) for b in boxes], dtype=np.float64).reshape(-1, 4),
        "box_scale": np.array([np.nan if b.scale is None else b.scale for b in boxes], dtype=np.float64),
        "box_ref": np.array([b.ref or nan2 for b in boxes], dtype=np.float64).reshape(-1, 2),
        "poly_coords": _concat([part for p in polygons for part in p.parts], np.float64),
        "poly_part_sizes": np.array([part.size for p in polygons for part in p.parts], dtype=np.int64),
        "poly_parts": np.array([len(p.parts) for p in polygons], dtype=np.int64),
        "poly_ref": np.array([p.ref or nan2 for p in polygons], dtype=np.float64).reshape(-1, 2),
        "runs_hw": np.array([(m.height, m.width) for m in runs], dtype=np.int64).reshape(-1, 2),
        "runs_starts": _concat([m.starts for m in runs], np.int64),
        "runs_lengths": _concat([m.lengths for m in runs], np.int64),
        "runs_sizes": np.array([m.starts.size for m in runs], dtype=np.int64),
    }


def _concat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate([np.asarray(p, dtype=dtype) for p in parts]) if parts else np.zeros(0, dtype=dtype)


def _pairs(values: np.ndarray) -> list[tuple[float, float] | None]:
    return [None if a != a else (a, b) for a, b in values.tolist()]  # NaN: none


def _split(values: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """``values`` cut into consecutive pieces of ``sizes`` (which must add up to all of it)."""
    sizes = sizes.tolist()
    if sum(sizes) != len(values) or min(sizes, default=0) < 0:
        raise ValueError("stored pieces do not add up to their values")
    ends = np.cumsum([0, *sizes]).tolist()
    return [values[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]


def _groundings_of(a: dict[str, np.ndarray]) -> tuple:
    """The groundings :func:`_grounding_arrays` stored, rebuilt in key order."""
    box_refs, poly_refs = _pairs(a["box_ref"]), _pairs(a["poly_ref"])
    corners = a["box"].tolist()
    scales = [None if v != v else v for v in a["box_scale"].tolist()]  # NaN: no scale
    polygons = [tuple(p) for p in _pieces(_split(a["poly_coords"], a["poly_part_sizes"]), a["poly_parts"])]
    starts, lengths = _split(a["runs_starts"], a["runs_sizes"]), _split(a["runs_lengths"], a["runs_sizes"])
    taken, out = {1: 0, 2: 0, 3: 0}, []
    for kind in a["gkind"].tolist():
        if kind not in (0, 1, 2, 3):
            raise ValueError(f"unknown grounding kind {kind}")
        i = taken.get(kind, 0)
        taken[kind] = i + 1
        if kind == 0:
            out.append(None)
        elif kind == 1:
            out.append(Box(*corners[i], scale=scales[i], ref=box_refs[i]))
        elif kind == 2:
            out.append(Polygons(polygons[i], poly_refs[i]))
        else:
            (h, w), length = a["runs_hw"][i].tolist(), lengths[i]
            before = np.concatenate(([0], np.cumsum(length)[:-1])).astype(np.int64) if length.size else length
            out.append(Runs(h, w, starts[i], length, before))
    return tuple(out)


def _pieces(items: list, counts: np.ndarray) -> list[list]:
    """``items`` grouped in consecutive runs of ``counts``."""
    counts = counts.tolist()
    if sum(counts) != len(items) or min(counts, default=0) < 0:
        raise ValueError("stored groups do not add up to their items")
    ends = np.cumsum([0, *counts]).tolist()
    return [items[a:b] for a, b in zip(ends[:-1], ends[1:], strict=True)]


def _reading_of(h: dict, a: dict[str, np.ndarray]) -> FileReading:
    keys = tuple(h["keys"])
    n = len(keys)
    if not all(isinstance(k, str) or _is(k, int) for k in keys):
        raise ValueError("keys should be text or integers")
    if any(len(a[name]) != n for name in ("letters", "flags", "lines", "facts", "gkind")):
        raise ValueError("the per-question arrays differ in length from the keys")
    hint = h["grounding_hint"]
    return FileReading(
        str(h["benchmark"]),
        str(h["basis"]),
        str(h["bbox_format"]),
        str(h["grounding_format"]),
        keys,
        a["letters"].astype(np.int8),
        a["flags"].astype(np.uint8),
        a["lines"].astype(np.int64),
        a["facts"].astype(np.uint64),
        _groundings_of(a),
        bool(h["plain_boxes"]),
        None if h["box_scale"] is None else float(h["box_scale"]),
        {str(k): int(v) for k, v in h["counts"].items()},
        tuple(_unparsed_line(*u) for u in h["unparsed_lines"]),
        tuple(BoxSample(tuple(v), tuple(f), str(g)) for v, f, g in h["box_samples"]),
        None if hint is None else _flat(Issue, hint, "grounding_hint"),
        tuple((int(line), key) for line, key in h["set_aside"]),
        int(h["last_line"]),
        bool(h["converted"]),
        tuple(_flat(Issue, i, "issues") for i in h["issues"]),
        int(h["total"]),
        str(h["reader"]),
        tuple(_flat(Issue, i, "notes") for i in h.get("notes", ())),  # absent in readings kept before it
    )


def _unparsed_line(line: object, text: object, kind: object, file: object = "") -> UnparsedLine:
    """A kept unparsed line: ``[line, text, kind]``, and its file when it is one of several given."""
    return UnparsedLine(int(line), str(text), str(kind), str(file))


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


@dataclass(frozen=True)
class ItemAnalysisRecord:
    """``items/{benchmark}/analysis-{gold}.json`` (private gold area, overwritten): the item analysis
    of one gold version (submissions.items.report's object: questions, suspects), computed in the
    background from the submissions ``basis`` names (submissions.items.job). Maintainers only."""

    benchmark: str
    gold_version: str
    basis: str
    computed_at: str  # ISO 8601, UTC
    submissions: int
    questions: tuple[dict, ...]
    suspects: tuple[dict, ...]
    cpu_seconds: float = 0.0  # the job's CPU time where it ran

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self) | {"questions": list(self.questions), "suspects": list(self.suspects)})

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> ItemAnalysisRecord:
        raw = _object(data, where)
        lists = {}
        for key, needs in (("questions", ("question_id", "n", "difficulty")), ("suspects", _SUSPECT_FIELDS)):
            found = raw.get(key)
            if not isinstance(found, list) or not all(isinstance(r, dict) and set(needs) <= set(r) for r in found):
                raise CorruptRecord(where, f"{key} should be a list of objects with {', '.join(needs)}")
            lists[key] = tuple(found)
        if any(s["kind"] not in ("answer", "mask") for s in lists["suspects"]):
            raise CorruptRecord(where, "a suspect's kind should be answer or mask")
        cpu = raw.get("cpu_seconds", 0.0)
        if not _is(cpu, float) and not _is(cpu, int):
            raise CorruptRecord(where, "cpu_seconds should be a number")
        head = _flat(_AnalysisHead, {k: v for k, v in raw.items() if k not in (*lists, "cpu_seconds")}, where)
        return cls(*_values_of(head), lists["questions"], lists["suspects"], float(cpu))


_SUSPECT_FIELDS = ("question_id", "kind", "score", "suggestion", "evidence")


@dataclass(frozen=True)
class _AnalysisHead:
    benchmark: str
    gold_version: str
    basis: str
    computed_at: str
    submissions: int


def _values_of(record: object) -> tuple:
    """A flat record's values in field order (dataclasses.astuple copies deeply; these are flat)."""
    return tuple(getattr(record, f.name) for f in fields(record))


@dataclass(frozen=True)
class Dismissal(_FlatRecord):
    """``items/{benchmark}/dismissed-{gold}-{q}.json`` (private): a maintainer judged a suspect of the
    item analysis not an error of that gold; it stays dismissed for that gold version."""

    benchmark: str
    gold_version: str
    question_id: str  # the question's key as text (K-Viscuit's are numbers)
    kind: str  # "answer" or "mask"
    by: str
    why: str
    at: str  # ISO 8601, UTC

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class QuestionReport(_FlatRecord):
    """``items/reports/{account}-{seq}.json`` (private, immutable): a signed-in user's short report
    that a question looks wrong; maintainers see it beside the item analysis's suspects."""

    benchmark: str
    question_id: str
    text: str
    by: str
    at: str  # ISO 8601, UTC

    def to_bytes(self) -> bytes:
        return _dumps(asdict(self), indent=1)


@dataclass(frozen=True)
class Erratum:
    """One gold correction made: when the board switched to ``version``, and what changed (question
    keys as text, never the values: the gold stays private)."""

    version: str  # the gold's version, cut to a short key
    at: str  # ISO 8601, UTC: when that gold was loaded
    questions: int  # questions of that gold
    answers_changed: tuple[str, ...]
    masks_changed: tuple[str, ...]
    added: int
    removed: int


@dataclass(frozen=True)
class Errata:
    """``errata/{benchmark}.json`` (public results): every gold correction made, oldest first, built
    once per gold change (leaderboard.items); no pending suspicion is ever in it."""

    benchmark: str
    current: str  # the gold version it is up to date with (a short key)
    entries: tuple[Erratum, ...]

    def to_bytes(self) -> bytes:
        entries = [
            asdict(e) | {"answers_changed": list(e.answers_changed), "masks_changed": list(e.masks_changed)}
            for e in self.entries
        ]
        return _dumps({"benchmark": self.benchmark, "current": self.current, "entries": entries}, indent=1)

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> Errata:
        raw = _object(data, where)
        if not isinstance(raw.get("entries"), list) or not all(isinstance(e, dict) for e in raw["entries"]):
            raise CorruptRecord(where, "entries should be a list of objects")
        entries = []
        for e in raw["entries"]:
            keys = {}
            for name in ("answers_changed", "masks_changed"):
                found = e.get(name)
                if not isinstance(found, list) or not all(isinstance(k, str) for k in found):
                    raise CorruptRecord(where, f"{name} should be a list of texts")
                keys[name] = tuple(found)
            head = _flat(_ErratumHead, {k: v for k, v in e.items() if k not in keys}, where)
            entries.append(
                Erratum(
                    head.version,
                    head.at,
                    head.questions,
                    keys["answers_changed"],
                    keys["masks_changed"],
                    head.added,
                    head.removed,
                )
            )
        head = _flat(_ErrataHead, {k: v for k, v in raw.items() if k != "entries"}, where)
        return cls(head.benchmark, head.current, tuple(entries))


@dataclass(frozen=True)
class _ErratumHead:
    version: str
    at: str
    questions: int
    added: int
    removed: int


@dataclass(frozen=True)
class _ErrataHead:
    benchmark: str
    current: str
