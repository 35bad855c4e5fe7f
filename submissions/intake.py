"""Taking in an upload: check the form and size, recognise duplicates, apply quotas, store the
raw file and its record first, then validate and score. One function serves the web form,
the API endpoint and the maintainer CLI alike.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from scoring import BENCHMARKS, Limits
from scoring.errors import Issue
from store.base import Store
from store.golds import GoldRegistry
from store.layout import SubmissionFile
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog
from submissions.lifecycle import known_answer, process
from submissions.quotas import QuotaPolicy, QuotaStatus, quota_status
from submissions.records import Identity, Status, SubmissionForm, SubmissionMeta
from submissions.seeds import FIXED_SEEDS, Seeds

Progress = Callable[[float, str], None]


def new_submission_id(now: datetime) -> str:
    """Sortable by time, unique without coordination."""
    return f"{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:10]}"


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in chunks (perf scripts hash whole pools of uploads)."""
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
        seeds: Seeds = FIXED_SEEDS,
    ) -> None:
        self.store, self.catalog, self.golds = store, catalog, golds
        self.policy, self.limits = policy, limits
        self.lock_dir = lock_dir
        self.on_scored = on_scored
        self.seeds = seeds  # the bootstrap seed of each submission (submissions.seeds)
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
    ) -> SubmitAnswer:
        """Store, validate and score one upload; see module doc."""
        step = progress or (lambda _f, _m: None)
        if benchmark not in BENCHMARKS:
            return SubmitAnswer.refused(f"Unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}.")
        form, issues = form.cleaned()
        if issues:
            return SubmitAnswer.refused("Please correct the form.", *issues, quota=self.quota(identity, benchmark))
        if (too_large := self._too_large(path)) is not None:
            return SubmitAnswer.refused(too_large.message, too_large, quota=self.quota(identity, benchmark))
        gold = self.golds.get(benchmark)
        if gold is None:
            return SubmitAnswer.unavailable(self.quota(identity, benchmark))
        step(0.1, "Checking the file")
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        # One upload at a time per submitter: quota and duplicate checks must see each other.
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        safe_user = hashlib.sha256(identity.username.encode()).hexdigest()[:16]
        with self._user_lock(identity.username), FileLock(str(self.lock_dir / f"{safe_user}.lock")):
            self.catalog.refresh()
            for state in self.catalog.by_submitter(identity.username, benchmark):
                if state.meta.sha256 == digest and state.meta.team == form.team:
                    answer = known_answer(state, gold.version).as_duplicate()
                    return answer.with_quota(self.quota(identity, benchmark))
            quota = self.quota(identity, benchmark)
            if not quota.allows_submission:
                return SubmitAnswer.refused("Daily limit reached. " + quota.message(), quota=quota)
            meta = self._store(benchmark, data, form, identity, digest, filename)
        step(0.3, "Validating and scoring")
        answer = process(self.store, self.catalog, meta, gold, self.limits, raw=data, seeds=self.seeds)
        step(0.9, "Updating the leaderboard")
        if answer.status is Status.SCORED and self.on_scored:
            self.on_scored(benchmark)
        return answer.with_quota(self.quota(identity, benchmark))

    def _too_large(self, path: Path) -> Issue | None:
        size = path.stat().st_size
        if size <= self.limits.max_bytes:
            return None
        text = f"The file is {size / 2**20:.1f} MB; the limit is {self.limits.max_bytes / 2**20:.0f} MB."
        return Issue("file_too_large", 0, "", text)

    def _store(
        self, benchmark: str, data: bytes, form: SubmissionForm, identity: Identity, digest: str, filename: str
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
            size_bytes=len(data),
            filename=Path(filename).name[:200] if filename else "",
            maintainer=identity.is_maintainer,
        )
        raw, record = SubmissionFile.raw(benchmark, meta.id).path, SubmissionFile.meta(benchmark, meta.id).path
        body = meta.to_bytes()
        self.store.put("submissions", {raw: data, record: body}, f"Receive {meta.id} ({benchmark})")
        self.catalog.note(record, body)
        return meta
