"""Where every record lives in the three repos: the one module that writes *and* reads paths.

gold (private)
    {benchmark}/{version}.{ext}              a gold file as the maintainer gave it      GoldFile
    {benchmark}/current.json                 the gold pointer (store.records.GoldInfo)  gold_current
    {benchmark}/staged.json                  a gold being rescored before it is current gold_staged
    {benchmark}/staged-preview.json          what switching to it would do (kept once)  gold_staged_preview
    secrets/bootstrap.json                   the bootstrap seed key (BootstrapSecret)  bootstrap_secret
    items/{benchmark}/analysis-{gold}.json   the item analysis of a gold (ItemAnalysisRecord) items_analysis
    items/{benchmark}/dismissed-{gold}/{q}.json  a suspect dismissed on that gold (Dismissal) items_dismissal
    items/reports/{account}/{seq}.json       a signed-in user's report on a question (QuestionReport)
submissions (private)
    {benchmark}/{shard}/{id}/submission.jsonl        the raw upload (immutable)         SubmissionFile
    {benchmark}/{shard}/{id}/meta.json               SubmissionMeta (immutable)
    {benchmark}/{shard}/{id}/validated-{gold}.json   passed validation against that gold
    {benchmark}/{shard}/{id}/rejected-{gold}.json    format errors against that gold (immutable)
    {benchmark}/{shard}/{id}/result-{gold}-{scorer}.json  a stored result (immutable; rescoring adds)
    {benchmark}/{shard}/{id}/failure-{gold}-{n}.json an internal error on that gold (retried)
    {benchmark}/{shard}/{id}/reading-{basis}-{reader}.npz  the upload as the worker read it (immutable;
                                                     store.records.StoredReading, scoring.reading)
    {benchmark}/{shard}/{id}/unreadable.json         stopped at a job bound while read: never read again
    moderation/{id}.json                             Moderation (overwritten)           ModerationFile
    teams/{team}-{seq}.json                          TeamEvent: claim, transfers (immutable) TeamFile
    publication/{id}-{seq}.json                      Publication: publish/unpublish (immutable) PublicationFile
    correction/{id}-{seq}.json                       Correction: descriptive fields (immutable) CorrectionFile

    ``{shard}`` (:func:`shard_of`) is the id's day, so no folder nears the Hub's 10k entries per
    folder. Files of the first layout, ``{benchmark}/{id}/...``, are still read (``parse``), and
    ``legacy_path`` names a file there.
results (public)
    README.md, data/{benchmark}.parquet, data/{benchmark}.csv                          public_table
    data/{benchmark}.board.json              the board's rows with exact figures (readers) public_board
    questions/{benchmark}.jsonl              the public side of the questions (no answers)
    errata/{benchmark}.json, .html           every gold correction made (Errata), built once per gold change

``{gold}`` is the gold's sha256 cut to :data:`GOLD_KEY` characters by :func:`gold_key`, the one
place that shortens it; every other module passes whole versions or keys read from here.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath

GOLD_KEY = 16
"""Characters of the gold sha256 used in file names (64 bits: collisions are not a concern)."""

_HEX = re.compile(r"[0-9a-f]+")
_VERSION = re.compile(r"[0-9]+(\.[0-9]+)*")


def gold_key(version: str) -> str:
    """The short form of a gold version used in file names (idempotent on a key)."""
    return version[:GOLD_KEY]


@dataclass(frozen=True, order=True)
class Version:
    """A dotted scorer version that orders by its numbers: ``1.10.0`` is newer than ``1.9.0``."""

    numbers: tuple[int, ...]

    def __str__(self) -> str:
        return ".".join(map(str, self.numbers))

    @classmethod
    def parse(cls, text: str) -> Version | None:
        """The version ``text`` spells, or None if it is not dotted numbers."""
        return cls(tuple(int(n) for n in text.split("."))) if _VERSION.fullmatch(text) else None

    @classmethod
    def of(cls, text: str) -> Version:
        """The version ``text`` spells; a ValueError (a programmer's mistake) if it is malformed."""
        version = cls.parse(text)
        if version is None:
            raise ValueError(f"a version is dotted numbers like 1.2.0, not {text!r}")
        return version


@dataclass(frozen=True, order=True)
class ResultKey:
    """Which result of a submission: the gold it was scored on and the scorer that scored it."""

    gold: str
    scorer: Version

    @classmethod
    def of(cls, gold_version: str, scorer_version: str) -> ResultKey:
        return cls(gold_key(gold_version), Version.of(scorer_version))


class Kind(StrEnum):
    """A submission's files, by the first word of their names."""

    RAW = "submission"
    META = "meta"
    VALIDATED = "validated"
    REJECTED = "rejected"
    RESULT = "result"
    FAILURE = "failure"
    READING = "reading"
    UNREADABLE = "unreadable"


_KINDS = {kind.value: kind for kind in Kind}
_GOLD_ONLY = {Kind.VALIDATED, Kind.REJECTED}
_GOLD_AND_TAIL = {Kind.RESULT, Kind.FAILURE, Kind.READING}
_EXTENSIONS = {Kind.RAW: "jsonl", Kind.READING: "npz"}
"""Every other kind is a ``.json`` record."""


_DAY = re.compile(r"[0-9]{8}")


def shard_of(sid: str) -> str:
    """The folder between benchmark and id: the id's day (ids start ``YYYYMMDD-``); ids of another
    shape go to a folder named by the first two hex digits of their sha256 (256 folders)."""
    if _DAY.fullmatch(sid[:8]) and sid[8:9] == "-":
        return sid[:8]
    return "x" + hashlib.sha256(sid.encode()).hexdigest()[:2]


@dataclass(frozen=True)
class SubmissionFile:
    """``{benchmark}/{shard}/{sid}/{kind}[-{gold}[-{tail}]].{ext}``: formatted and parsed here only.

    ``gold`` is kept as its key (a whole version passed in is shortened; a reading's is its basis,
    scoring.reading.reading_basis); ``tail`` is the scorer version of a result, the number of a
    failure or the reader version of a reading.
    """

    benchmark: str
    sid: str
    kind: Kind
    gold: str = ""
    tail: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "gold", gold_key(self.gold))

    @classmethod
    def raw(cls, benchmark: str, sid: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.RAW)

    @classmethod
    def meta(cls, benchmark: str, sid: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.META)

    @classmethod
    def validated(cls, benchmark: str, sid: str, gold_version: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.VALIDATED, gold_version)

    @classmethod
    def rejected(cls, benchmark: str, sid: str, gold_version: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.REJECTED, gold_version)

    @classmethod
    def result(cls, benchmark: str, sid: str, gold_version: str, scorer_version: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.RESULT, gold_version, scorer_version)

    @classmethod
    def failure(cls, benchmark: str, sid: str, gold_version: str, n: int) -> SubmissionFile:
        return cls(benchmark, sid, Kind.FAILURE, gold_version, str(n))

    @classmethod
    def reading(cls, benchmark: str, sid: str, basis: str, reader: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.READING, basis, reader)

    @classmethod
    def unreadable(cls, benchmark: str, sid: str) -> SubmissionFile:
        return cls(benchmark, sid, Kind.UNREADABLE)

    @property
    def name(self) -> str:
        words = [self.kind.value, self.gold, self.tail] if self.gold else [self.kind.value]
        return f"{'-'.join(w for w in words if w)}.{_EXTENSIONS.get(self.kind, 'json')}"

    @property
    def path(self) -> str:
        return f"{self.benchmark}/{shard_of(self.sid)}/{self.sid}/{self.name}"

    @property
    def legacy_path(self) -> str:
        """Where the first, unsharded layout kept this file (still read)."""
        return f"{self.benchmark}/{self.sid}/{self.name}"

    @property
    def result_key(self) -> ResultKey:
        """The key of a result file (its gold and scorer)."""
        return ResultKey(self.gold, Version.of(self.tail))

    @classmethod
    def parse(cls, path: str) -> SubmissionFile | None:
        """The file ``path`` names, or None for paths that are not a submission's file
        (moderation flags, temporary files, names of unknown shape)."""
        parts = path.split("/")
        if len(parts) == 4 and parts[1] == shard_of(parts[2]):
            del parts[1]
        if len(parts) != 3 or not all(parts):
            return None
        benchmark, sid, name = parts
        stem, dot, ext = name.rpartition(".")
        kind_word, *rest = stem.split("-", 2)
        kind = _KINDS.get(kind_word)
        if kind is None or not dot or ext != _EXTENSIONS.get(kind, "json"):
            return None
        file = cls(benchmark, sid, kind, *rest)
        return file if file._well_formed(len(rest)) else None

    def _well_formed(self, words: int) -> bool:
        if self.kind in _GOLD_ONLY:
            return words == 1 and _is_key(self.gold)
        if self.kind is Kind.RESULT:
            return words == 2 and _is_key(self.gold) and Version.parse(self.tail) is not None
        if self.kind in (Kind.FAILURE, Kind.READING):
            return words == 2 and _is_key(self.gold) and self.tail.isdigit()
        return words == 0


def _is_key(text: str) -> bool:
    return len(text) == GOLD_KEY and bool(_HEX.fullmatch(text))


@dataclass(frozen=True)
class ModerationFile:
    """``moderation/{sid}.json``: a maintainer's hide/unhide flag for one submission."""

    sid: str

    @property
    def path(self) -> str:
        return f"moderation/{self.sid}.json"

    @classmethod
    def parse(cls, path: str) -> ModerationFile | None:
        folder, _, name = path.partition("/")
        sid = name.removesuffix(".json")
        return cls(sid) if folder == "moderation" and name.endswith(".json") and sid and "/" not in sid else None


_SEQ = 6  # digits of an event number: names sort in event order


def _event_parse(folder: str, path: str) -> tuple[str, int] | None:
    """(subject, seq) of ``{folder}/{subject}-{seq}.json``; None for any other path."""
    top, _, name = path.partition("/")
    subject, _, seq = name.removesuffix(".json").rpartition("-")
    if top != folder or not name.endswith(".json") or "/" in name or not subject:
        return None
    return (subject, int(seq)) if len(seq) == _SEQ and seq.isdigit() else None


@dataclass(frozen=True)
class TeamFile:
    """``teams/{team}-{seq}.json``: one ownership event of a team name; ``team`` is the hex
    digest of the name's compared form (names may hold any script, paths may not)."""

    team: str
    seq: int

    @property
    def path(self) -> str:
        return f"teams/{self.team}-{self.seq:0{_SEQ}d}.json"

    @classmethod
    def parse(cls, path: str) -> TeamFile | None:
        found = _event_parse("teams", path)
        return cls(*found) if found and _HEX.fullmatch(found[0]) else None


@dataclass(frozen=True)
class PublicationFile:
    """``publication/{sid}-{seq}.json``: one publish or unpublish of a submission."""

    sid: str
    seq: int

    @property
    def path(self) -> str:
        return f"publication/{self.sid}-{self.seq:0{_SEQ}d}.json"

    @classmethod
    def parse(cls, path: str) -> PublicationFile | None:
        found = _event_parse("publication", path)
        return cls(*found) if found else None


@dataclass(frozen=True)
class CorrectionFile:
    """``correction/{sid}-{seq}.json``: one correction of a submission's descriptive fields."""

    sid: str
    seq: int

    @property
    def path(self) -> str:
        return f"correction/{self.sid}-{self.seq:0{_SEQ}d}.json"

    @classmethod
    def parse(cls, path: str) -> CorrectionFile | None:
        found = _event_parse("correction", path)
        return cls(*found) if found else None


@dataclass(frozen=True)
class GoldFile:
    """``{benchmark}/{version}{suffix}``: one gold version as the maintainer gave it."""

    benchmark: str
    version: str
    suffix: str  # ".jsonl", ".parquet" or ".json"

    @property
    def path(self) -> str:
        return f"{self.benchmark}/{self.version}{self.suffix}"

    @classmethod
    def parse(cls, path: str) -> GoldFile | None:
        """None for the pointer (``current.json``) and anything not named by a sha256."""
        pure = PurePosixPath(path)
        if len(pure.parts) != 2 or not _HEX.fullmatch(pure.stem) or len(pure.stem) != 64:
            return None
        return cls(pure.parts[0], pure.stem, pure.suffix)


def gold_file(benchmark: str, version: str, suffix: str) -> str:
    return GoldFile(benchmark, version, suffix).path


def gold_current(benchmark: str) -> str:
    return f"{benchmark}/current.json"


def gold_staged(benchmark: str) -> str:
    return f"{benchmark}/staged.json"


def gold_staged_preview(benchmark: str) -> str:
    """The kept preview of switching to the staged gold (store.records.StagedPreview)."""
    return f"{benchmark}/staged-preview.json"


def submission_dir(benchmark: str, sid: str) -> str:
    return f"{benchmark}/{shard_of(sid)}/{sid}"


def raw(benchmark: str, sid: str) -> str:
    """Where a new upload is written; read a stored one with ``submissions.lifecycle.read_raw`` (either layout)."""
    return SubmissionFile.raw(benchmark, sid).path


def meta(benchmark: str, sid: str) -> str:
    return SubmissionFile.meta(benchmark, sid).path


def validated(benchmark: str, sid: str, gold_version: str) -> str:
    return SubmissionFile.validated(benchmark, sid, gold_version).path


def rejected(benchmark: str, sid: str, gold_version: str) -> str:
    return SubmissionFile.rejected(benchmark, sid, gold_version).path


def result(benchmark: str, sid: str, gold_version: str, scorer_version: str) -> str:
    return SubmissionFile.result(benchmark, sid, gold_version, scorer_version).path


def failure(benchmark: str, sid: str, gold_version: str, n: int) -> str:
    return SubmissionFile.failure(benchmark, sid, gold_version, n).path


def moderation(sid: str) -> str:
    return ModerationFile(sid).path


def bootstrap_secret() -> str:
    """In the gold repo: private, and never listed as a gold version (:meth:`GoldFile.parse`)."""
    return "secrets/bootstrap.json"


def public_table(benchmark: str, ext: str) -> str:
    return f"data/{benchmark}.{ext}"


def public_board(benchmark: str) -> str:
    """The board as rows with their exact figures: what a reader (docs/topology.md) serves."""
    return f"data/{benchmark}.board.json"


def public_questions(benchmark: str) -> str:
    return f"questions/{benchmark}.jsonl"


def items_analysis(benchmark: str, gold_version: str) -> str:
    """The item analysis of ``gold_version`` (private: maintainers only, docs/items.md)."""
    return f"items/{benchmark}/analysis-{gold_key(gold_version)}.json"


def items_dismissal(benchmark: str, gold_version: str, kind: str, question_id: object) -> str:
    """A suspect dismissed on ``gold_version``: one file per (kind, question), overwritten by a later
    dismissal of the same; the question id as a digest (ids may hold any character)."""
    digest = hashlib.sha256(f"{kind}\x1f{question_id!r}".encode()).hexdigest()[:16]
    return f"{items_dismissals(benchmark, gold_version)}/{digest}.json"


def items_dismissals(benchmark: str, gold_version: str) -> str:
    """The folder of every dismissal on ``gold_version``."""
    return f"items/{benchmark}/dismissed-{gold_key(gold_version)}"


ITEM_REPORTS = "items/reports"
"""The folder of every question report (private: maintainers read them beside the suspects)."""


def item_report(account: str, seq: int) -> str:
    """One report of ``account`` (its name as a digest: names may hold any script), ``seq`` its number."""
    return f"{item_reports_of(account)}/{seq:0{_SEQ}d}.json"


def item_reports_of(account: str) -> str:
    """The folder of one account's reports."""
    return f"{ITEM_REPORTS}/{hashlib.sha256(account.encode()).hexdigest()[:16]}"


def errata(benchmark: str, ext: str) -> str:
    """The public errata of a benchmark: ``json`` (store.records.Errata) and the page built from it (``html``)."""
    return f"errata/{benchmark}.{ext}"
