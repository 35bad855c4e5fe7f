"""An in-memory index of every submission and what became of it, rebuilt from the store.

The store is the truth (immutable files, see leaderboard/layout.py); the catalog only reads it,
incrementally: ``refresh`` lists the submissions repo and parses files it has not seen, and
writers ``note`` their own files at once. Any replica, the CLI and the app thus agree.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime

from scoring.engine import ResultRecord
from store import layout
from store.base import NotFound, Store
from submissions.records import Status, SubmissionMeta

log = logging.getLogger(__name__)


@dataclass
class SubmissionState:
    """One submission: its record and the files derived from it, keyed by gold version."""

    meta: SubmissionMeta
    results: dict[str, dict] = field(default_factory=dict)  # "{gold16}-{scorer}" -> stored result file
    rejections: dict[str, dict] = field(default_factory=dict)  # gold16 -> {"issues", "total"}
    validated: set[str] = field(default_factory=set)
    failures: dict[str, int] = field(default_factory=dict)  # gold16 -> internal errors on it
    hidden: bool = False
    derived: dict = field(default_factory=dict, repr=False, compare=False)
    """Caches of views of immutable results (e.g. the table's row), keyed by their maker."""

    def result(self, gold_version: str, scorer_version: str) -> ResultRecord | None:
        stored = self.results.get(f"{gold_version[: layout.GOLD_KEY]}-{scorer_version}")
        return ResultRecord.from_dict(stored["result"]) if stored else None

    def latest_result(self, gold_version: str) -> ResultRecord | None:
        """The result on ``gold_version`` from the newest scorer that scored it."""
        prefix = gold_version[: layout.GOLD_KEY] + "-"
        keys = sorted(k for k in self.results if k.startswith(prefix))
        return ResultRecord.from_dict(self.results[keys[-1]]["result"]) if keys else None

    def newest_result(self) -> ResultRecord | None:
        """The result scored last, whatever its gold: what the public saw before a rescore."""
        if not self.results:
            return None
        newest = max(self.results.values(), key=lambda stored: stored.get("scored_at", ""))
        return ResultRecord.from_dict(newest["result"])

    def scored_at(self, gold_version: str, scorer_version: str) -> str | None:
        stored = self.results.get(f"{gold_version[: layout.GOLD_KEY]}-{scorer_version}")
        return stored.get("scored_at") if stored else None

    def rejection(self, gold_version: str) -> dict | None:
        return self.rejections.get(gold_version[: layout.GOLD_KEY])

    def status(self, gold_version: str, scorer_version: str, max_failures: int = 3) -> Status:
        if self.result(gold_version, scorer_version) is not None:
            return Status.SCORED
        if self.rejection(gold_version) is not None:
            return Status.REJECTED
        if self.failures.get(gold_version[: layout.GOLD_KEY], 0) >= max_failures:
            return Status.FAILED
        if gold_version[: layout.GOLD_KEY] in self.validated:
            return Status.VALIDATED
        return Status.RECEIVED

    @property
    def submitted(self) -> datetime:
        return datetime.fromisoformat(self.meta.submitted_at)


class Catalog:
    """Thread-safe index of ``SubmissionState`` by id; see module doc."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._states: dict[str, SubmissionState] = {}
        self._pending: dict[str, list[tuple[str, bytes]]] = {}  # files seen before their meta
        self._seen: set[str] = set()
        self.corrupt: dict[str, str] = {}  # path -> why it could not be read (see Leaderboard.repair)
        self._lock = threading.RLock()
        self.generation = 0  # bumps on every change: caches key on it

    def refresh(self) -> bool:
        """Parse files added to the store since the last call; re-read moderation flags."""
        paths = self.store.list("submissions")
        changed = False
        for path in paths:
            if path in self._seen or path.endswith("submission.jsonl") or path.startswith("moderation/"):
                continue
            try:
                data = self.store.read("submissions", path)
            except NotFound:
                continue
            changed |= self.note(path, data)
        changed |= self._refresh_moderation([p for p in paths if p.startswith("moderation/")])
        return changed

    def _refresh_moderation(self, paths: list[str]) -> bool:
        changed = False
        for path in paths:
            sid = path.removeprefix("moderation/").removesuffix(".json")
            try:
                hidden = bool(json.loads(self.store.read("submissions", path)).get("hidden"))
            except (NotFound, ValueError, AttributeError):
                continue
            with self._lock:
                state = self._states.get(sid)
                if state is not None and state.hidden != hidden:
                    state.hidden = hidden
                    self.generation += 1
                    changed = True
        return changed

    def note(self, path: str, data: bytes) -> bool:
        """Take in one stored file (a writer calls this right after its put)."""
        parts = path.split("/")
        with self._lock:
            if parts[0] == "moderation":
                sid = parts[1].removesuffix(".json")
                try:
                    hidden = bool(json.loads(data).get("hidden"))
                except (ValueError, AttributeError):
                    return False
                if sid in self._states:
                    self._states[sid].hidden = hidden
                    self.generation += 1
                return True
            if len(parts) != 3 or path in self._seen:
                return False
            sid, name = parts[1], parts[2]
            try:
                if name.endswith(".json"):
                    json.loads(data)
            except ValueError as e:
                self.corrupt[path] = f"not valid JSON: {e}"
                self._seen.add(path)
                log.error("corrupted file in the submissions repo: %s (%s)", path, e)
                return False
            self.corrupt.pop(path, None)
            if name == "meta.json":
                meta = SubmissionMeta.from_json(data)
                self._states[sid] = SubmissionState(meta)
                for early_path, early in self._pending.pop(sid, []):
                    self._apply(self._states[sid], early_path.split("/")[2], early)
            elif sid in self._states:
                self._apply(self._states[sid], name, data)
            else:
                self._pending.setdefault(sid, []).append((path, data))
            self._seen.add(path)
            self.generation += 1
            return True

    @staticmethod
    def _apply(state: SubmissionState, name: str, data: bytes) -> None:
        stem = name.removesuffix(".json")
        if name.startswith("result-"):
            state.results[stem.removeprefix("result-")] = json.loads(data)
        elif name.startswith("rejected-"):
            state.rejections[stem.removeprefix("rejected-")] = json.loads(data)
        elif name.startswith("validated-"):
            state.validated.add(stem.removeprefix("validated-"))
        elif name.startswith("failure-"):
            gold = stem.removeprefix("failure-").split("-")[0]
            state.failures[gold] = state.failures.get(gold, 0) + 1

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
