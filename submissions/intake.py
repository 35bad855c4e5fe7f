"""Taking in an upload: check the form and size, recognise duplicates, apply quotas, store the
raw file and its record first, then validate and score. One function serves the web form,
the API endpoint and the maintainer CLI alike.

The raw file and its record are one durable write (on the Hub: one commit, shared with
concurrent uploads): a submission exists, and counts against a quota, only once it survives a
restart. If storage cannot take it in time, or has not yet loaded a complete copy to decide
quotas and duplicates on, the answer is ``retry`` and nothing is kept.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from scoring import BENCHMARKS, Gold, Limits, SubmissionError
from scoring.engine import validate_file
from scoring.errors import Issue
from scoring.validation import check_file
from store.base import AlreadyExists, Store, StoreError
from store.golds import GoldRegistry
from store.layout import SubmissionFile
from submissions import fields
from submissions.answer import SYNCING, SubmitAnswer
from submissions.catalog import Catalog
from submissions.fair_queue import FairQueue
from submissions.job_bounds import JobOverBound
from submissions.lifecycle import Evaluator, known_answer, process
from submissions.model_hub import LookUp, Lookup
from submissions.quotas import QuotaPolicy, QuotaStatus, quota_status, tighter
from submissions.records import Identity, SubmissionForm, SubmissionMeta
from submissions.request import SubmitRequest
from submissions.seeds import FIXED_SEEDS, Seeds
from submissions.teams import Teams, TeamTaken, name_key, state_key

DUPLICATE_OPTIONS = ("bbox_format", "grounding_format")
"""With the file's sha256 and the declared repeat key (submissions.fields.repeat_key), what
makes an upload a repeat of an earlier one."""
PRE_CHECKS = frozenset({"too_few_answers", "suspect_bbox_format", "suspect_grounding_format"})
"""Whole-file issues found before a scored slot is spent: such a file is turned away, not stored."""
log = logging.getLogger(__name__)
BUSY = (
    "The leaderboard is still checking your other files; nothing was kept or counted. "
    "Please send this one again in a moment."
)
"""The ``retry`` answer of a check over the account's bound (submissions.fair_queue)."""
CHECK_CRASHED = "The worker checking your file stopped; nothing was kept or counted. Please send it again."
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


def pre_check_answer(
    gold: Gold, data: bytes, form: SubmissionForm, limits: Limits, min_coverage: float | None, confirm: bool
) -> SubmitAnswer | None:
    """The refusal of a file whose only problems are too few answers or a box format its boxes
    do not fit (:data:`PRE_CHECKS`); None when it goes on to be stored."""
    try:
        validate_file(
            gold.benchmark,
            gold,
            data,
            bbox_format=form.bbox_format,
            limits=limits,
            min_coverage=min_coverage,
            check_box_format=not confirm,
            grounding_format=form.grounding_format,
        )
    except SubmissionError as e:
        if e.total == len(e.issues) and all(i.code in PRE_CHECKS for i in e.issues):
            return SubmitAnswer.not_valid(tuple(e.issues), e.total)
    return None


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
        meta = self._admit(request, gold, data)
        if isinstance(meta, SubmitAnswer):  # a duplicate, a pre-check, the quota or storage turned it away
            return meta
        request.step(0.3, "Validating and scoring")
        answer = process(
            self.store, self.catalog, meta, gold, self.limits, raw=data, evaluator=self.evaluator, seeds=self.seeds
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

    def _admit(self, request: SubmitRequest, gold: Gold, data: bytes) -> SubmissionMeta | SubmitAnswer:
        """Store the upload durably, or the answer that turns it away (a duplicate, a pre-check,
        the quota, a taken team name, storage not taking it in time). One upload at a time per
        submitter and per team: the quota and duplicate checks must see each other."""
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
            refused = self._pre_check(gold, data, form, identity, request.confirm_box_format)
            if refused is not None:
                return refused.with_quota(self.quota(identity, benchmark, team=form.team))
            with FileLock(str(team_lock)):
                self.catalog.refresh()
                quota = self.quota(identity, benchmark, team=form.team)
                if not quota.allows_submission:
                    return SubmitAnswer.refused("Daily limit reached. " + quota.message(), quota=quota)
                try:
                    owner, claim = self.teams.claim_files(form.team, identity, datetime.now(UTC).isoformat())
                    meta = self._store(benchmark, data, form, identity, digest, request.filename, owner, claim)
                    self.teams.confirmed(form.team, identity)
                    return meta
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
        answer = self._in_turn(identity, validate_only_answer, gold, path.read_bytes, form, confirm)
        return answer.with_quota(quota)

    def _pre_check(
        self, gold: Gold, data: bytes, form: SubmissionForm, identity: Identity, confirm: bool
    ) -> SubmitAnswer | None:
        """Turn away, before a slot is spent and without storing, a file whose only problems are
        too few answers or a box format its boxes do not fit; a file with format errors goes on
        to be stored and rejected as before (it costs an attempt). Over the account's bound of
        checks: ``retry``, nothing stored."""
        if self.min_coverage is None and confirm:
            return None
        return self._in_turn(identity, pre_check_answer, gold, lambda: data, form, confirm)

    def _in_turn(
        self,
        identity: Identity,
        check: Callable,
        gold: Gold,
        read: Callable[[], bytes],
        form: SubmissionForm,
        confirm: bool,
    ) -> SubmitAnswer | None:
        """What ``check`` answered, run by ``run_check`` in the account's fair turn
        (submissions.fair_queue); ``retry`` when the account holds too many checks or the worker
        running it died (nothing is kept either way). A check stopped at its bounds
        (submissions.worker.JobBounds) answers a validate-only with that one issue; a pre-check so
        stopped lets the upload be stored, and its scoring, bounded alike, is the rejection that says so."""
        turn = self.checks.enter(identity.username)
        if turn is None:
            log.info(
                "a check of %s refused: %d already running or waiting", identity.username, self.checks.per_identity
            )
            return SubmitAnswer.retry(BUSY)
        with turn:
            try:
                return self.run_check(check, gold, read(), form, self.limits, self.min_coverage, confirm)
            except BrokenProcessPool:  # the pool has started anew
                log.error("a worker died while checking a file of %s", identity.username)
                return SubmitAnswer.retry(CHECK_CRASHED)
            except JobOverBound as e:  # the worker was replaced
                log.warning("a check of %s stopped: %s", identity.username, e)
                return SubmitAnswer.not_valid((e.issue,), 1) if check is validate_only_answer else None

    def _too_large(self, path: Path) -> Issue | None:
        size = path.stat().st_size
        if size <= self.limits.max_bytes:
            return None
        text = f"The file is {size / 2**20:.1f} MB; the limit is {self.limits.max_bytes / 2**20:.0f} MB."
        return Issue("file_too_large", 0, "", text)

    def _store(
        self,
        benchmark: str,
        data: bytes,
        form: SubmissionForm,
        identity: Identity,
        digest: str,
        filename: str,
        owner: str = "",
        claim: Mapping[str, bytes] | None = None,
    ) -> SubmissionMeta:
        now = datetime.now(UTC)
        meta = SubmissionMeta(
            id=new_submission_id(now),
            benchmark=benchmark,
            **{name: form.value(name) for name in fields.CLASSIC},
            info=dict(form.info),
            submitter=identity.username,
            sha256=digest,
            bbox_format=form.bbox_format,
            submitted_at=now.isoformat(),
            size_bytes=len(data),
            filename=Path(filename).name[:200] if filename else "",
            owner=owner,
            visibility=form.visibility,
            anonymous=form.anonymous,
            reveal_date=form.reveal_date,
            maintainer=identity.is_maintainer,
            grounding_format=form.grounding_format,
        )
        raw, record = SubmissionFile.raw(benchmark, meta.id).path, SubmissionFile.meta(benchmark, meta.id).path
        body = meta.to_bytes()
        files = {raw: data, record: body, **(claim or {})}  # one durable commit: upload, record, team claim
        self.store.put("submissions", files, f"Receive {meta.id} ({benchmark})", durable=True)
        self.teams.noted(claim or {})
        self.catalog.note(record, body)
        return meta
