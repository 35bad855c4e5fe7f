"""Taking in an upload: check the form and size, recognise duplicates, apply quotas, store the
raw file and its record first, then validate and score. One function serves the web form,
the API endpoint and the maintainer CLI alike.
"""

from __future__ import annotations

import hashlib
import os
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from scoring import BENCHMARKS, SCORER_VERSION, Limits, ResultRecord
from scoring.errors import Issue
from store import layout
from store.base import Store
from store.golds import GoldRegistry
from submissions.catalog import Catalog
from submissions.lifecycle import Processed, process
from submissions.quotas import QuotaPolicy, QuotaStatus, quota_status
from submissions.records import Identity, Status, SubmissionForm, SubmissionMeta

Progress = Callable[[float, str], None]


@dataclass
class Outcome:
    """What the submitter is told. Never per-question correctness: aggregates only."""

    status: Status
    message: str
    submission_id: str | None = None
    result: ResultRecord | None = None
    issues: list[Issue] = field(default_factory=list)
    total_issues: int = 0
    duplicate_of: str | None = None
    quota: QuotaStatus | None = None


def new_submission_id(now: datetime) -> str:
    """Sortable by time, unique without coordination."""
    return f"{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:10]}"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Intake:
    """Accepts submissions (see module doc)."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        golds: GoldRegistry,
        policy: QuotaPolicy,
        limits: Limits,
        lock_dir: Path,
        on_scored: Callable[[str], None] | None = None,
    ) -> None:
        self.store, self.catalog, self.golds = store, catalog, golds
        self.policy, self.limits = policy, limits
        self.lock_dir = lock_dir
        self.on_scored = on_scored
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def quota(self, identity: Identity, benchmark: str, now: datetime | None = None) -> QuotaStatus:
        now = now or datetime.now(UTC)
        # An upload rejected once stays an attempt, even after a new gold version.
        uploads = [(s.submitted, bool(s.rejections)) for s in self.catalog.by_submitter(identity.username, benchmark)]
        return quota_status(uploads, now, self.policy, exempt=identity.is_maintainer)

    def _user_lock(self, username: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(username, threading.Lock())

    def submit(
        self,
        benchmark: str,
        path: Path,
        form: SubmissionForm,
        identity: Identity,
        filename: str = "",
        progress: Progress | None = None,
    ) -> Outcome:
        """Store, validate and score one upload; see module doc."""
        step = progress or (lambda _f, _m: None)
        if benchmark not in BENCHMARKS:
            return Outcome(Status.REJECTED, f"Unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}.")
        form, issues = form.cleaned()
        if issues:
            return Outcome(Status.REJECTED, "Please correct the form.", issues=issues, total_issues=len(issues))
        size = os.stat(path).st_size
        if size > self.limits.max_bytes:
            text = f"The file is {size / 2**20:.1f} MB; the limit is {self.limits.max_bytes / 2**20:.0f} MB."
            return Outcome(Status.REJECTED, text, issues=[Issue("file_too_large", 0, "", text)], total_issues=1)
        gold = self.golds.get(benchmark)
        if gold is None:
            return Outcome(Status.FAILED, "This benchmark has no gold yet; a maintainer must add it first.")
        step(0.1, "Checking the file")
        digest = file_sha256(path)
        # One upload at a time per submitter: quota and duplicate checks must see each other.
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        safe_user = hashlib.sha256(identity.username.encode()).hexdigest()[:16]
        with self._user_lock(identity.username), FileLock(str(self.lock_dir / f"{safe_user}.lock")):
            self.catalog.refresh()
            for state in self.catalog.by_submitter(identity.username, benchmark):
                if state.meta.sha256 == digest and state.meta.team == form.team:
                    return self._duplicate(state.meta, gold, identity)
            quota = self.quota(identity, benchmark)
            if not quota.allows_submission:
                return Outcome(Status.REJECTED, "Daily limit reached. " + quota.message(), quota=quota)
            meta = self._store(benchmark, path, form, identity, digest, size, filename)
        step(0.3, "Validating and scoring")
        outcome = process(self.store, self.catalog, meta, gold, self.limits, raw_path=path)
        step(0.9, "Updating the leaderboard")
        if outcome.status is Status.SCORED and self.on_scored:
            self.on_scored(benchmark)
        return self._outcome(meta, outcome, self.quota(identity, benchmark))

    def _store(
        self,
        benchmark: str,
        path: Path,
        form: SubmissionForm,
        identity: Identity,
        digest: str,
        size: int,
        filename: str,
    ) -> SubmissionMeta:
        now = datetime.now(UTC)
        meta = SubmissionMeta(
            id=new_submission_id(now),
            benchmark=benchmark,
            model=form.model,
            team=form.team,
            model_type=form.model_type,
            paper_url=form.paper_url,
            code_url=form.code_url,
            description=form.description,
            submitter=identity.username,
            sha256=digest,
            bbox_format=form.bbox_format,
            submitted_at=now.isoformat(),
            size_bytes=size,
            filename=Path(filename).name[:200] if filename else "",
        )
        files = {layout.raw(benchmark, meta.id): path.read_bytes(), layout.meta(benchmark, meta.id): meta.to_json()}
        self.store.put("submissions", files, f"Receive {meta.id} ({benchmark})")
        self.catalog.note(layout.meta(benchmark, meta.id), files[layout.meta(benchmark, meta.id)])
        return meta

    def _duplicate(self, meta: SubmissionMeta, gold, identity: Identity) -> Outcome:
        state = self.catalog.get(meta.id)
        processed = Processed(state.status(gold.version, SCORER_VERSION))
        processed.result = state.result(gold.version, SCORER_VERSION)
        if (rejection := state.rejection(gold.version)) is not None:
            processed.issues = [Issue(**i) for i in rejection["issues"]]
            processed.total_issues = rejection["total"]
        out = self._outcome(meta, processed, self.quota(identity, meta.benchmark))
        out.duplicate_of = meta.id
        out.message = f"This file was already submitted as {meta.id}; nothing was counted. " + out.message
        return out

    @staticmethod
    def _outcome(meta: SubmissionMeta, processed: Processed, quota: QuotaStatus) -> Outcome:
        messages = {
            Status.SCORED: "Scored.",
            Status.REJECTED: f"Rejected: {processed.total_issues} format error(s); nothing was scored.",
            Status.FAILED: "An internal error stopped scoring; it is retried automatically.",
            Status.RECEIVED: "Received; scoring is pending.",
            Status.VALIDATED: "Validated; scoring is pending.",
        }
        return Outcome(
            processed.status,
            messages[processed.status],
            submission_id=meta.id,
            result=processed.result,
            issues=processed.issues,
            total_issues=processed.total_issues,
            quota=quota,
        )
