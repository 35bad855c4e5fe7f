"""Taking in an upload: check the form and size, recognise duplicates, apply quotas, read the
file once in the bounded worker, store the raw file, its record and its reading first, then
record its outcome. One function serves the web form, the API endpoint and the maintainer CLI alike.

The upload is read once, in its account's fair turn of the scoring pool (submissions.reading):
that one job answers the pre-check, reads the file into its reading and scores it. The raw file,
its record and its reading (or, for a file stopped at a job bound, its unreadable mark) are one
durable write (on the Hub: one commit, shared with concurrent uploads): a submission exists, and
counts against a quota, only once it survives a restart. If storage cannot take it in time, or has
not yet loaded a complete copy to decide quotas and duplicates on, the answer is ``retry`` and
nothing is kept. The web process never parses the file.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from scoring import BENCHMARKS, Gold, Limits, SubmissionError
from scoring.errors import Issue
from scoring.validation import check_file
from store.base import AlreadyExists, Store, StoreError
from store.golds import GoldRegistry
from store.layout import SubmissionFile
from store.records import Unreadable
from submissions import fields
from submissions.answer import SYNCING, SubmitAnswer
from submissions.catalog import Catalog
from submissions.fair_queue import FairQueue
from submissions.job_bounds import JobOverBound
from submissions.lifecycle import Evaluator, known_answer, now_iso, process
from submissions.model_hub import LookUp, Lookup
from submissions.quotas import QuotaPolicy, QuotaStatus, quota_status, tighter
from submissions.reading import PRE_CHECKS, Evaluated, UploadRead, read_upload, reading_file
from submissions.records import Identity, SubmissionForm, SubmissionMeta
from submissions.request import SubmitRequest
from submissions.seeds import FIXED_SEEDS, Seeds
from submissions.teams import Teams, TeamTaken, name_key, state_key

DUPLICATE_OPTIONS = ("bbox_format", "grounding_format")
"""With the file's sha256 and the declared repeat key (submissions.fields.repeat_key), what
makes an upload a repeat of an earlier one."""
__all__ = ["PRE_CHECKS", "Intake", "validate_only_answer"]
log = logging.getLogger(__name__)
BUSY = (
    "The leaderboard is still checking your other files; nothing was kept or counted. "
    "Please send this one again in a moment."
)
"""The ``retry`` answer of a check over the account's bound (submissions.fair_queue)."""
CHECK_CRASHED = "The worker checking your file stopped; nothing was kept or counted. Please send it again."
STRUCK = (
    "Your last file ran past the time or memory bound of a check, so this account's checks wait: "
    "nothing was kept or counted. Please send this one again in {wait} s."
)
"""The ``retry`` answer of a check while its account waits after a check over its bound (submissions.fair_queue)."""
CheckRunner = Callable[..., object]
"""Runs ``check(gold, *args)``: in this process, or in the scoring pool (submissions/worker.py)."""


def run_here(check: Callable[..., object], gold: Gold, *args: object) -> object:
    return check(gold, *args)


def validate_only_answer(
    gold: Gold, data: bytes, form: SubmissionForm, limits: Limits, min_coverage: float | None, confirm: bool
) -> SubmitAnswer:
    """Every check of a scored submission, with coverage as a warning; nothing stored or counted."""
    try:
        report = check_file(
            gold.benchmark,
            gold,
            data,
            bbox_format=form.bbox_format,
            limits=limits,
            min_coverage=min_coverage,
            confirm_box_format=confirm,
            grounding_format=form.grounding_format,
        )
    except SubmissionError as e:
        return SubmitAnswer.not_valid(tuple(e.issues), e.total)
    return SubmitAnswer.valid(report)


def new_submission_id(now: datetime) -> str:
    """Sortable by time, unique without coordination."""
    return f"{now:%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:10]}"


def same_form(meta: SubmissionMeta, form: SubmissionForm) -> bool:
    """Whether a stored upload was sent with the same form: the same file with another box format,
    model name or description is a new submission, not a repeat."""
    same_options = all(getattr(meta, f) == getattr(form, f) for f in DUPLICATE_OPTIONS)
    return same_options and all(fields.value_of(meta, f) == form.value(f) for f in fields.repeat_key())


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
        min_coverage: float | None = None,
        seeds: Seeds = FIXED_SEEDS,
        model_facts: LookUp | None = None,
    ) -> None:
        self.store, self.catalog, self.golds = store, catalog, golds
        self.policy, self.limits = policy, limits
        self.lock_dir = lock_dir
        self.evaluator: Evaluator | None = None  # None: score in this process (see submissions/worker.py)
        self.parallel = 1  # evaluations a rescore or preview may run at once (the pool's workers)
        self.run_check: CheckRunner = run_here  # validate-only and pre-checks: here, or the scoring pool's
        self.checks = FairQueue()  # their turns: fair and bounded per account (one slot per pool worker)
        self.min_coverage = min_coverage
        self.seeds = seeds  # the bootstrap seed of each submission (submissions.seeds)
        self.model_facts = model_facts  # reads a model repo's facts from the Hub (submissions.model_hub)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self.teams = Teams(store, catalog)

    def quota(self, identity: Identity, benchmark: str, now: datetime | None = None, team: str = "") -> QuotaStatus:
        """The account's quota, or the team's when ``team`` is given and it binds first."""
        now = now or datetime.now(UTC)
        # An upload counts as scored once it was scored on any gold: a gold change refunds nothing.
        uploads = [(s.submitted, s.refused) for s in self.catalog.by_submitter(identity.username, benchmark)]
        account = quota_status(uploads, now, self.policy, exempt=identity.is_maintainer)
        key = name_key(team) if team else ""
        if not key:
            return account
        together = [(s.submitted, s.refused) for s in self.catalog.all(benchmark) if state_key(s) == key]
        return tighter(account, quota_status(together, now, self.policy, scope=team.strip()))

    def _user_lock(self, username: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(username, threading.Lock())

    def submit(self, request: SubmitRequest) -> SubmitAnswer:
        """Store, validate and score one upload (see module doc and :class:`SubmitRequest`). What
        follows a scored upload (publishing, a staged gold, holds) is the caller's after-scoring
        pipeline (leaderboard.submitting): the intake calls nothing back."""
        benchmark, identity = request.benchmark, request.identity
        if benchmark not in BENCHMARKS:
            return SubmitAnswer.refused(f"Unknown benchmark {benchmark!r}; known: {', '.join(BENCHMARKS)}.")
        if not self.store.ready:  # quotas and duplicates cannot be judged on a partial copy
            return SubmitAnswer.retry(SYNCING)
        form, issues = self._cleaned(request.form, identity)
        lookup = self._look_up(form) if not issues else Lookup()
        if issues or lookup.refusal:
            issues += [lookup.refusal] if lookup.refusal else []
            return SubmitAnswer.refused("Please correct the form.", *issues, quota=self.quota(identity, benchmark))
        if lookup.facts is not None:  # the site's fields, pinned now (submissions.model_hub)
            form = replace(form, info={**form.info, **lookup.facts.info()})
        answer = self._take(replace(request, form=form))
        return answer if lookup.warning is None else replace(answer, warnings=(*answer.warnings, lookup.warning))

    def _look_up(self, form: SubmissionForm) -> Lookup:
        """What the Hub says about the form's model repo (nothing when it names none)."""
        repo = form.value(fields.HUB_FIELD)
        return self.model_facts(repo) if repo and self.model_facts is not None else Lookup()

    def _take(self, request: SubmitRequest) -> SubmitAnswer:
        """Check, store and score a cleaned form's upload (:meth:`submit`)."""
        benchmark, path, form, identity = request.benchmark, Path(request.path), request.form, request.identity
        if (too_large := self._too_large(path)) is not None:
            return SubmitAnswer.refused(too_large.message, too_large, quota=self.quota(identity, benchmark))
        gold = self.golds.get(benchmark)
        if gold is None:
            return SubmitAnswer.unavailable(self.quota(identity, benchmark))
        request.step(0.1, "Checking the file")
        if request.validate_only:
            return self._validate_only(gold, path, form, identity, request.confirm_box_format)
        data = path.read_bytes()
        taken = self._admit(request, gold, data)
        if isinstance(taken, SubmitAnswer):  # a duplicate, a pre-check, the quota or storage turned it away
            return taken
        meta, read = taken
        request.step(0.8, "Recording the outcome")
        answer = read.answer if isinstance(read, UploadRead) else None
        evaluator = self.evaluator if answer is None else (lambda *job: Evaluated(answer))  # scored while read
        answer = process(
            self.store, self.catalog, meta, gold, self.limits, raw=data, evaluator=evaluator, seeds=self.seeds
        )
        request.step(0.9, "Updating the leaderboard")
        return answer.with_quota(self.quota(identity, benchmark, team=form.team))

    def is_repeat(self, benchmark: str, path: Path, form: SubmissionForm, identity: Identity) -> bool:
        """Whether ``identity`` already stored this very file with this form: its answer is the
        stored one's (a resend after a lost answer), so no ration or quota applies to it. A file over
        the size limit is no stored upload: it is not read (hashing a 3 GB file took 15 s of CPU)."""
        cleaned, _ = form.cleaned()
        try:
            if self._too_large(Path(path)) is not None:
                return False
            digest = file_sha256(Path(path))
        except OSError:
            return False
        return any(
            state.meta.sha256 == digest and same_form(state.meta, cleaned)
            for state in self.catalog.by_submitter(identity.username, benchmark)
        )

    def _cleaned(self, form: SubmissionForm, identity: Identity) -> tuple[SubmissionForm, list[Issue]]:
        """The form as stored, and what is wrong with it (the team name included)."""
        form, issues = form.cleaned()
        if form.team and (team_issue := self.teams.check(form.team, identity)) is not None:
            issues.append(team_issue)  # a name owned by another account, reserved, or mixed-script
        return form, issues

    def _admit(
        self, request: SubmitRequest, gold: Gold, data: bytes
    ) -> tuple[SubmissionMeta, UploadRead | Unreadable] | SubmitAnswer:
        """Read and store the upload durably (its record, its reading or unreadable mark), or the
        answer that turns it away (a duplicate, the quota, a pre-check, a taken team name, storage
        not taking it in time). One upload at a time per submitter and per team: the quota and
        duplicate checks must see each other."""
        benchmark, form, identity = request.benchmark, request.form, request.identity
        digest = hashlib.sha256(data).hexdigest()
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        safe_user = hashlib.sha256(identity.username.encode()).hexdigest()[:16]
        team_lock = self.lock_dir / f"team-{hashlib.sha256(name_key(form.team).encode()).hexdigest()[:16]}.lock"
        with self._user_lock(identity.username), FileLock(str(self.lock_dir / f"{safe_user}.lock")):
            self.catalog.refresh()
            for state in self.catalog.by_submitter(identity.username, benchmark):
                if state.meta.sha256 == digest and same_form(state.meta, form):
                    answer = known_answer(state, gold.version).as_duplicate()
                    return answer.with_quota(self.quota(identity, benchmark, team=form.team))
            quota = self.quota(identity, benchmark, team=form.team)
            if not quota.allows_submission:  # before the worker's job: an account past its quota costs none
                return SubmitAnswer.refused("Daily limit reached. " + quota.message(), quota=quota)
            now = datetime.now(UTC)
            sid = new_submission_id(now)
            request.step(0.3, "Reading and scoring")
            read = self._read(gold, data, form, identity, request.confirm_box_format, sid)
            if isinstance(read, SubmitAnswer):  # busy, the worker died
                return read.with_quota(quota)
            if isinstance(read, UploadRead) and read.refusal is not None:
                return read.refusal.with_quota(quota)
            with FileLock(str(team_lock)):
                self.catalog.refresh()
                quota = self.quota(identity, benchmark, team=form.team)
                if not quota.allows_submission:
                    return SubmitAnswer.refused("Daily limit reached. " + quota.message(), quota=quota)
                try:
                    owner, claim = self.teams.claim_files(form.team, identity, datetime.now(UTC).isoformat())
                    upload = _Upload(sid, now, data, digest, request.filename, read)
                    meta = self._store(benchmark, upload, form, identity, gold, owner, claim)
                    self.teams.confirmed(form.team, identity)
                    return meta, read
                except (TeamTaken, AlreadyExists) as e:  # AlreadyExists: another replica claimed it first
                    message = str(e) if isinstance(e, TeamTaken) else "This team name was just taken; try again."
                    return SubmitAnswer.refused(message, Issue("team_taken", 0, "team", message), quota=quota)
                except StoreError as err:  # not durable in time (or a misconfigured repo): not kept
                    log.warning("submission not stored, asked to retry: %s", err)
                    return SubmitAnswer.retry().with_quota(quota)

    def _validate_only(
        self, gold: Gold, path: Path, form: SubmissionForm, identity: Identity, confirm: bool
    ) -> SubmitAnswer:
        """Every check of a scored submission, with coverage as a warning; nothing stored or counted."""
        quota = self.quota(identity, gold.benchmark)
        answer = self._in_turn(identity, validate_only_answer, gold, path.read_bytes, form, *self._limits(), confirm)
        if isinstance(answer, JobOverBound):
            answer = SubmitAnswer.not_valid((answer.issue,), 1)
        return answer.with_quota(quota)

    def _read(
        self, gold: Gold, data: bytes, form: SubmissionForm, identity: Identity, confirm: bool, sid: str
    ) -> UploadRead | Unreadable | SubmitAnswer:
        """The upload read once in its account's turn (submissions.reading.read_upload): refused by
        its pre-check, or its reading and answer; an :class:`Unreadable` mark when the read ran past
        its bounds (the upload is still stored: it cost the attempt); ``retry`` when the account
        holds too many checks or the worker died (nothing is kept)."""
        try:
            seed = self.seeds.for_submission(sid)  # the first one stores the board's secret
        except StoreError as err:
            log.warning("the bootstrap secret could not be stored, asked to retry: %s", err)
            return SubmitAnswer.retry()
        read = self._in_turn(identity, read_upload, gold, lambda: data, form, *self._limits(), confirm, sid, seed)
        if isinstance(read, JobOverBound):
            return Unreadable((read.issue,), 1, now_iso())
        return read

    def _limits(self) -> tuple[Limits, float | None]:
        return self.limits, self.min_coverage

    def _in_turn(
        self, identity: Identity, check: Callable, gold: Gold, read: Callable[[], bytes], *args: object
    ) -> object:
        """What ``check(gold, read(), *args)`` answered (the file is read once its turn comes), run
        by ``run_check`` in the account's fair turn
        (submissions.fair_queue); ``retry`` when the account holds too many checks, waits after a
        check over its bound, or the worker running it died (nothing is kept either way). A check
        stopped at its bounds (submissions.worker.JobBounds) gives the JobOverBound, and the account
        waits before its next check (its cost: FairQueue.strike)."""
        wait = self.checks.struck_for(identity.username)
        if wait > 0:
            log.info("a check of %s refused: it waits %.0f s after a check over its bound", identity.username, wait)
            return SubmitAnswer.retry(STRUCK.format(wait=math.ceil(wait)))
        turn = self.checks.enter(identity.username)
        if turn is None:
            log.info(
                "a check of %s refused: %d already running or waiting", identity.username, self.checks.per_identity
            )
            return SubmitAnswer.retry(BUSY)
        with turn:
            try:
                return self.run_check(check, gold, read(), *args)
            except BrokenProcessPool:  # the pool has started anew
                log.error("a worker died while checking a file of %s", identity.username)
                return SubmitAnswer.retry(CHECK_CRASHED)
            except JobOverBound as e:  # the worker was replaced
                log.warning("a check of %s stopped: %s", identity.username, e)
                self.checks.strike(identity.username)
                return e

    def _too_large(self, path: Path) -> Issue | None:
        size = path.stat().st_size
        if size <= self.limits.max_bytes:
            return None
        text = f"The file is {size / 2**20:.1f} MB; the limit is {self.limits.max_bytes / 2**20:.0f} MB."
        return Issue("file_too_large", 0, "", text)

    def _store(
        self,
        benchmark: str,
        upload: _Upload,
        form: SubmissionForm,
        identity: Identity,
        gold: Gold,
        owner: str = "",
        claim: Mapping[str, bytes] | None = None,
    ) -> SubmissionMeta:
        meta = SubmissionMeta(
            id=upload.sid,
            benchmark=benchmark,
            **{name: form.value(name) for name in fields.CLASSIC},
            info=dict(form.info),
            submitter=identity.username,
            sha256=upload.digest,
            bbox_format=form.bbox_format,
            submitted_at=upload.at.isoformat(),
            size_bytes=len(upload.data),
            filename=Path(upload.filename).name[:200] if upload.filename else "",
            owner=owner,
            visibility=form.visibility,
            anonymous=form.anonymous,
            reveal_date=form.reveal_date,
            maintainer=identity.is_maintainer,
            grounding_format=form.grounding_format,
        )
        raw, record = SubmissionFile.raw(benchmark, meta.id).path, SubmissionFile.meta(benchmark, meta.id).path
        derived = self._reading_files(meta, gold, upload.read)
        body = meta.to_bytes()
        files = {raw: upload.data, record: body, **derived, **(claim or {})}  # one durable commit
        self.store.put("submissions", files, f"Receive {meta.id} ({benchmark})", durable=True)
        self.teams.noted(claim or {})
        self.catalog.note(record, body)
        for path, data in derived.items():
            self.catalog.note(path, data)
        return meta

    def _reading_files(self, meta: SubmissionMeta, gold: Gold, read: UploadRead | Unreadable) -> dict[str, bytes]:
        """The upload's reading, or its unreadable mark, as stored beside it."""
        if isinstance(read, Unreadable):
            return {SubmissionFile.unreadable(meta.benchmark, meta.id).path: read.to_bytes()}
        if read.reading is None:  # a reading the codec cannot keep: read again when scored
            return {}
        return {reading_file(meta, gold, self.limits).path: read.reading}


@dataclass(frozen=True)
class _Upload:
    """An upload on its way into the store: its id and time, bytes, digest, name and reading."""

    sid: str
    at: datetime
    data: bytes
    digest: str
    filename: str
    read: UploadRead | Unreadable
