"""An in-memory index of every submission and what became of it, rebuilt from the store.

The store is the truth (immutable files named by store/layout.py, bodies decoded by
store/records.py); the catalog only reads it, incrementally: ``refresh`` lists the submissions
repo and parses files it has not seen, and writers ``note`` their own files at once. Any replica,
the CLI and the app thus agree.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from datetime import datetime

from scoring.engine import ResultRecord
from store.base import NotFound, Store
from store.layout import (
    CorrectionFile,
    Kind,
    ModerationFile,
    PublicationFile,
    ResultKey,
    SubmissionFile,
    TeamFile,
    gold_key,
)
from store.records import (
    Correction,
    CorruptRecord,
    Moderation,
    Publication,
    StoredFailure,
    StoredRejection,
    StoredResult,
    TeamEvent,
    Unreadable,
    Validated,
)
from submissions.fields import CLASSIC
from submissions.records import Status, SubmissionMeta

log = logging.getLogger(__name__)

_CODECS = {
    Kind.META: SubmissionMeta,
    Kind.VALIDATED: Validated,
    Kind.REJECTED: StoredRejection,
    Kind.RESULT: StoredResult,
    Kind.FAILURE: StoredFailure,
    Kind.UNREADABLE: Unreadable,
}
"""The record each kind of file holds (the raw upload is never read into the catalog, nor is a
reading: only its name, which says its basis and reader, is noted)."""
_NAMED_ONLY = frozenset({Kind.RAW, Kind.READING})
"""Kinds whose bodies the catalog does not read."""


@dataclass
class SubmissionState:
    """One submission: its record and the records derived from it, keyed by gold (key) version."""

    meta: SubmissionMeta
    results: dict[ResultKey, StoredResult] = field(default_factory=dict)
    rejections: dict[str, StoredRejection] = field(default_factory=dict)  # gold key -> rejection
    validated: set[str] = field(default_factory=set)  # gold keys
    failures: dict[str, int] = field(default_factory=dict)  # gold key -> internal errors on it
    readings: set[tuple[str, str]] = field(default_factory=set)  # (basis key, reader) of its stored readings
    unreadable: Unreadable | None = None  # stopped at a job bound while read: read by nothing again
    hidden: bool = False
    moderation: Moderation | None = None  # the newest moderation flag (who hid it, why), if any
    publications: dict[int, Publication] = field(default_factory=dict)  # event number -> event
    corrections: dict[int, Correction] = field(default_factory=dict)  # event number -> descriptive fields corrected
    as_submitted: SubmissionMeta | None = None
    """The record as submitted, once a correction changed ``meta`` (None: never corrected)."""
    derived: dict = field(default_factory=dict, repr=False, compare=False)
    """Caches of views of immutable results (e.g. the table's row), keyed by their maker."""

    @property
    def held(self) -> bool:
        """Held for review by the probe detector's automatic hold (or a maintainer's hold)."""
        return self.hidden and self.moderation is not None and self.moderation.held

    @property
    def last_publication(self) -> Publication | None:
        return self.publications[max(self.publications)] if self.publications else None

    @property
    def public(self) -> bool:
        """Public on the board (if scored and not hidden): the team's newest choice, else the
        visibility chosen when it was submitted."""
        last = self.last_publication
        return last.public if last else self.meta.visibility == "public"

    @property
    def anonymous(self) -> bool:
        last = self.last_publication
        return last.anonymous if last else self.meta.anonymous

    @property
    def reveal_date(self) -> str:
        last = self.last_publication
        return last.reveal_date if last else self.meta.reveal_date

    @property
    def chosen_at(self) -> str:
        """When the team chose this submission as its model's row ("" if it did not, or took it back)."""
        last = self.last_publication
        return last.at if last and last.public and last.row else ""

    def stored_result(self, gold_version: str, scorer_version: str) -> StoredResult | None:
        return self.results.get(ResultKey.of(gold_version, scorer_version))

    def result(self, gold_version: str, scorer_version: str) -> ResultRecord | None:
        stored = self.stored_result(gold_version, scorer_version)
        return stored.result if stored else None

    def latest_result(self, gold_version: str) -> ResultRecord | None:
        """The result on ``gold_version`` from the newest scorer (by version order) that scored it."""
        keys = [k for k in self.results if k.gold == gold_key(gold_version)]
        return self.results[max(keys)].result if keys else None

    def newest_result(self) -> ResultRecord | None:
        """The result scored last, whatever its gold: what the public saw before a rescore."""
        if not self.results:
            return None
        return max(self.results.values(), key=lambda stored: stored.scored_at).result

    def scored_at(self, gold_version: str, scorer_version: str) -> str | None:
        stored = self.stored_result(gold_version, scorer_version)
        return stored.scored_at if stored else None

    def rejection(self, gold_version: str) -> StoredRejection | None:
        return self.rejections.get(gold_key(gold_version))

    def status(self, gold_version: str, scorer_version: str, max_failures: int = 3) -> Status:
        if self.result(gold_version, scorer_version) is not None:
            return Status.SCORED
        if self.rejection(gold_version) is not None:
            return Status.REJECTED
        if self.failures_on(gold_version) >= max_failures:
            return Status.FAILED
        if gold_key(gold_version) in self.validated:
            return Status.VALIDATED
        return Status.RECEIVED

    @property
    def refused(self) -> bool:
        """Rejected on every gold it was tried on and scored on none: an upload that never had
        figures. A file scored on one gold and rejected on another (an older store's record of a
        correction) was accepted: its publication and quota slot stand whatever the gold."""
        return bool(self.rejections) and not self.results

    def failures_on(self, gold_version: str) -> int:
        """Internal errors recorded while scoring on that gold."""
        return self.failures.get(gold_key(gold_version), 0)

    @property
    def submitted(self) -> datetime:
        return datetime.fromisoformat(self.meta.submitted_at)

    def correct(self, seq: int, record: Correction) -> None:
        """Take a correction of the descriptive fields: ``meta`` is the record as submitted with every
        correction applied in event order (the board, the results and the model page read it)."""
        self.corrections[seq] = record
        self.as_submitted = self.as_submitted or self.meta
        self.meta = corrected(self.as_submitted, [self.corrections[n] for n in sorted(self.corrections)])
        self.derived.clear()

    def take(self, file: SubmissionFile, record: object) -> None:
        """Add one decoded derived record (not the meta) to the state."""
        if file.kind is Kind.RESULT:
            self.results[file.result_key] = record
        elif file.kind is Kind.REJECTED:
            self.rejections[file.gold] = record
        elif file.kind is Kind.VALIDATED:
            self.validated.add(file.gold)
        elif file.kind is Kind.FAILURE:
            self.failures[file.gold] = self.failures.get(file.gold, 0) + 1
        elif file.kind is Kind.READING:
            self.readings.add((file.gold, file.tail))
        elif file.kind is Kind.UNREADABLE:
            self.unreadable = record


class Catalog:
    """Thread-safe index of ``SubmissionState`` by id; see module doc."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._states: dict[str, SubmissionState] = {}
        self._pending: dict[str, list[tuple[SubmissionFile, object]]] = {}  # records seen before their meta
        self._seen: set[str] = set()
        self.corrupt: dict[str, str] = {}  # path -> why it could not be read (see Leaderboard.repair)
        self._teams: dict[str, dict[int, TeamEvent]] = {}  # team id -> event number -> event
        self._publications_early: dict[str, dict[int, Publication]] = {}  # seen before their meta
        self._corrections_early: dict[str, dict[int, Correction]] = {}
        self._lock = threading.RLock()
        self.generation = 0  # bumps on every change: caches key on it

    def refresh(self) -> bool:
        """Parse files added to the store since the last call; re-read moderation flags."""
        paths = self.store.list("submissions")
        changed = False
        for path in paths:
            if path in self._seen:
                continue
            file = SubmissionFile.parse(path)
            if (file is None or file.kind is Kind.RAW) and not _is_event(path):
                continue
            if file is not None and file.kind in _NAMED_ONLY:
                changed |= self._note_file(file, path, b"")
                continue
            try:
                data = self.store.read("submissions", path)
            except NotFound:
                continue
            changed |= self._note_file(file, path, data) if file is not None else self._note_event(path, data)
        for path in paths:
            if ModerationFile.parse(path) is not None:
                try:
                    changed |= self.note(path, self.store.read("submissions", path))
                except NotFound:
                    continue
        return changed

    def note(self, path: str, data: bytes) -> bool:
        """Take in one stored file (a writer calls this right after its put). A body that cannot
        be read (bad JSON or the wrong shape) is quarantined in ``corrupt`` for ``repair``."""
        if (flag := ModerationFile.parse(path)) is not None:
            return self._note_moderation(flag, path, data)
        if _is_event(path):
            return self._note_event(path, data)
        file = SubmissionFile.parse(path)
        return file is not None and file.kind is not Kind.RAW and self._note_file(file, path, data)

    def _note_file(self, file: SubmissionFile, path: str, data: bytes) -> bool:
        with self._lock:
            if path in self._seen:
                return False
            self._seen.add(path)
            try:
                record = None if file.kind in _NAMED_ONLY else _CODECS[file.kind].from_bytes(data, path)
            except CorruptRecord as e:
                self.corrupt[path] = e.why
                log.error("corrupted file in the submissions repo: %s", e)
                return False
            self.corrupt.pop(path, None)
            if file.kind is Kind.META:
                state = self._states[file.sid] = SubmissionState(record)
                for early, early_record in self._pending.pop(file.sid, []):
                    state.take(early, early_record)
                state.publications.update(self._publications_early.pop(file.sid, {}))
                for seq, correction in self._corrections_early.pop(file.sid, {}).items():
                    state.correct(seq, correction)
            elif file.sid in self._states:
                self._states[file.sid].take(file, record)
            else:
                self._pending.setdefault(file.sid, []).append((file, record))
            self.generation += 1
            return True

    def _note_event(self, path: str, data: bytes) -> bool:
        """Take in a team ownership, publication or correction event (immutable, read once)."""
        team, publication = TeamFile.parse(path), PublicationFile.parse(path)
        if (correction := CorrectionFile.parse(path)) is not None:
            return self._note_correction(correction, path, data)
        with self._lock:
            if path in self._seen:
                return False
            self._seen.add(path)
            try:
                record = (TeamEvent if team else Publication).from_bytes(data, path)
            except CorruptRecord as e:
                self.corrupt[path] = e.why
                log.error("corrupted event in the submissions repo: %s", e)
                return False
            if team is not None:
                self._teams.setdefault(team.team, {})[team.seq] = record
            elif (state := self._states.get(publication.sid)) is not None:
                state.publications[publication.seq] = record
                state.derived.clear()
            else:
                self._publications_early.setdefault(publication.sid, {})[publication.seq] = record
            self.generation += 1
            return True

    def _note_correction(self, file: CorrectionFile, path: str, data: bytes) -> bool:
        with self._lock:
            if path in self._seen:
                return False
            self._seen.add(path)
            try:
                record = Correction.from_bytes(data, path)
            except CorruptRecord as e:
                self.corrupt[path] = e.why
                log.error("corrupted correction in the submissions repo: %s", e)
                return False
            if (state := self._states.get(file.sid)) is not None:
                state.correct(file.seq, record)
            else:
                self._corrections_early.setdefault(file.sid, {})[file.seq] = record
            self.generation += 1
            return True

    def team_events(self, team: str) -> list[TeamEvent]:
        """A team's ownership events in order (``team`` is its id, store.layout.TeamFile)."""
        with self._lock:
            events = self._teams.get(team, {})
            return [events[n] for n in sorted(events)]

    def all_team_events(self) -> list[list[TeamEvent]]:
        with self._lock:
            return [[events[n] for n in sorted(events)] for events in self._teams.values()]

    def _note_moderation(self, flag: ModerationFile, path: str, data: bytes) -> bool:
        """Moderation flags are overwritten, so they are read every time (an unreadable one is
        skipped: the submission keeps its flag until a maintainer sets it again)."""
        try:
            record = Moderation.from_bytes(data, path)
        except CorruptRecord as e:
            log.warning("unreadable moderation flag: %s", e)
            return False
        with self._lock:
            state = self._states.get(flag.sid)
            if state is None:
                return False
            changed = (state.hidden, state.held) != (record.hidden, record.hidden and record.held)
            state.hidden, state.moderation = record.hidden, record
            self.generation += changed
            return changed

    def forget(self, path: str) -> None:
        """Let ``refresh`` read ``path`` again (after a repair rewrote it)."""
        with self._lock:
            self._seen.discard(path)
            self.corrupt.pop(path, None)

    def get(self, sid: str) -> SubmissionState | None:
        with self._lock:
            return self._states.get(sid)

    def all(self, benchmark: str | None = None) -> list[SubmissionState]:
        """States in submission order (oldest first)."""
        with self._lock:
            states = [s for s in self._states.values() if benchmark is None or s.meta.benchmark == benchmark]
        return sorted(states, key=lambda s: (s.meta.submitted_at, s.meta.id))

    def by_submitter(self, submitter: str, benchmark: str | None = None) -> list[SubmissionState]:
        return [s for s in self.all(benchmark) if s.meta.submitter == submitter]


def _is_event(path: str) -> bool:
    return any(kind.parse(path) is not None for kind in (TeamFile, PublicationFile, CorrectionFile))


def corrected(meta: SubmissionMeta, corrections: list[Correction]) -> SubmissionMeta:
    """``meta`` with the corrections' new values, in order (a later field is in ``info``; "" empties it)."""
    classic, info = {}, dict(meta.info)
    for event in corrections:
        for name, value in event.values.items():
            if name in CLASSIC:
                classic[name] = value
            elif value:
                info[name] = value
            else:
                info.pop(name, None)
    return replace(meta, **classic, info=info)
