"""Every job in a worker is bounded by the pool, not by the code it runs (issue 30 item 2).

At ebb85c5 one validate-only line of ``\\boxed{`` and 1,000 spaces held the only scoring worker 114 s,
and another account's ordinary check waited 106 s behind it: worker jobs had no time limit
(attacks.md #1). Here a job past its deadline or its memory cap is stopped by killing its worker,
which is replaced; the team is told so; the next job, another account's, runs in the new worker.
The bounds are set small so that the tests are quick; no test asserts how long anything took.
"""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from submissions import reading as reading_jobs
from submissions import worker
from submissions.job_bounds import JobBounds, JobOverBound
from submissions.reading import read_upload
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from submissions.worker import ScoringPool, WorkerPool
from tests.support import jobs
from tests.support.submissions import ALICE, form, small_gold, submission_ids, write_gold, write_submission

BOB = Identity("bob")


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.fixture
def quick_pool():
    pool = WorkerPool(1, nice=0, bounds=JobBounds(seconds=2, memory_mb=100))
    yield pool
    pool.close()


@pytest.fixture
def memory_pool():
    """A memory cap only: the time bound is far past the memory jobs' fill (each then sleeps 600 s),
    so a loaded host cannot make the clock stop a job before the cap does."""
    pool = WorkerPool(1, nice=0, bounds=JobBounds(seconds=60, memory_mb=100))
    yield pool
    pool.close()


def test_a_job_past_its_deadline_is_stopped_and_its_worker_replaced(quick_pool):
    (before,) = quick_pool.pids()
    with pytest.raises(JobOverBound, match=r"reading this file took longer than 2 s; nothing was scored"):
        quick_pool.run("sleeping", jobs.sleep_then, 600, "late")
    (after,) = quick_pool.pids()
    assert after != before
    assert not _running(before)
    assert quick_pool.run("the next job", jobs.sleep_then, 0, "done") == "done"


def test_a_job_past_its_memory_cap_is_stopped(memory_pool):
    (before,) = memory_pool.pids()
    with pytest.raises(JobOverBound, match=r"more than 100 MB of memory; nothing was scored"):
        memory_pool.run("filling memory", jobs.hold_memory, 300, 600)
    assert memory_pool.pids() != [before]
    assert memory_pool.run("the next job", jobs.sleep_then, 0, "done") == "done"


def test_an_allocation_faster_than_the_watch_is_refused_by_the_worker(memory_pool):
    """The address-space cap, four job caps above the worker's own: one 2 GB allocation fails inside."""
    with pytest.raises(JobOverBound, match=r"more than 100 MB of memory"):
        memory_pool.run("allocating", jobs.allocate_at_once, 2048)
    assert memory_pool.run("the next job", jobs.sleep_then, 0, "done") == "done"


def test_a_stalled_check_is_stopped_and_another_accounts_check_then_runs(lb: Leaderboard, tmp_path: Path):
    """The red team's hog (t_worker_hog.py) in miniature: one worker, one account's check stalls,
    another account's check waits behind it only until its bound."""
    pool = lb.use_scoring_pool(1, JobBounds(seconds=10, memory_mb=1024))  # room for bob's check on a loaded host
    lb.intake.run_check = lambda check, gold, *args: pool.run_check(jobs.stalling_check, gold, *args)
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.6, grounding="bbox_good")
    answers = {}

    def send(who: Identity, model: str) -> None:
        answers[who.username] = lb.submissions.submit(
            SubmitRequest("scb", path, form(model, "Team"), who, "s.jsonl", validate_only=True)
        )

    try:
        (first_worker,) = pool.pids()
        stalled = threading.Thread(target=send, args=(ALICE, jobs.STALLED_MODEL))
        stalled.start()
        while lb.intake.checks.held("alice") == 0 and stalled.is_alive():
            threading.Event().wait(0.01)
        send(BOB, "Honest")  # waits for alice's turn to end: the bound ends it
        stalled.join(60)
        (second_worker,) = pool.pids()
    finally:
        pool.close()
    assert answers["alice"].status is Status.REJECTED
    told = [i.message for i in answers["alice"].issues]
    assert told == ["reading this file took longer than 10 s; nothing was scored"]
    assert answers["bob"].status.value == "valid", answers["bob"].message
    assert second_worker != first_worker
    assert lb.catalog.all() == []  # validate-only: nothing stored


@pytest.fixture
def stalled_scoring(monkeypatch):
    """Every scoring job in a worker sleeps past its bound (the pool sends the job by this name)."""
    monkeypatch.setattr(worker, "_evaluate_in_worker", jobs.stalled_evaluation)


def test_a_reading_past_its_bound_keeps_the_upload_marks_it_unreadable_and_strikes_the_account(
    lb: Leaderboard, tmp_path: Path
):
    """The upload is stored (it cost its attempt) with an unreadable mark, rejected with the bound's
    message; no later gold reads it again (it is rejected from the mark); the account's next check
    waits (red.md N4: each over-bound check held the only worker its whole bound)."""
    pool = ScoringPool(1, nice=0, bounds=JobBounds(seconds=0.5, memory_mb=1024))
    lb.intake.evaluator = pool.evaluate
    lb.intake.run_check = lambda check, gold, *args: pool.run_check(
        jobs.stalled_read if check is read_upload else check, gold, *args
    )
    try:
        path = write_submission(tmp_path / "s.jsonl", accuracy=0.6)
        answer = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl"))
        again = lb.submissions.submit(SubmitRequest("scb", path, form("Other"), ALICE, "s.jsonl", validate_only=True))
    finally:
        pool.close()
    assert answer.status is Status.REJECTED
    assert [(i.code, i.message) for i in answer.issues] == [
        ("job_over_bound", "reading this file took longer than 0.5 s; nothing was scored")
    ]
    assert submission_ids(lb.store) == [answer.submission_id]  # the upload is kept
    state = lb.catalog.get(answer.submission_id)
    assert state.rejection(lb.golds.get("scb").version) is not None and state.unreadable is not None
    assert state.readings == set()
    assert again.status.value == "retry" and "ran past the time or memory bound" in again.message
    changed = small_gold()
    changed[0]["answer"] = "ABCD"[("ABCD".index(changed[0]["answer"]) + 1) % 4]
    lb.intake.evaluator = _crash  # nothing may evaluate it again: its mark answers every gold
    lb.corrections.add_gold("scb", write_gold(tmp_path / "v2.jsonl", changed), "maintainer")
    lb.corrections.rescore("scb")
    rejection = lb.catalog.get(answer.submission_id).rejection(lb.golds.get("scb").version)
    assert [i.code for i in rejection.issues] == ["job_over_bound"]


def _crash(*args):
    raise RuntimeError("the worker went away")


def test_a_resumed_submission_is_evaluated_within_the_bounds(
    lb: Leaderboard, tmp_path: Path, stalled_scoring, monkeypatch
):
    """An upload left unscored (here: a failed first try) is finished by resume in the bounded
    pool, not in the web process: at ebb85c5 resume evaluated it in process, with no bound. Stopped
    there, it is marked unreadable and rejected."""
    with monkeypatch.context() as failing:
        failing.setattr(reading_jobs, "score_predictions", _crash)
        path = write_submission(tmp_path / "s.jsonl", accuracy=0.6)
        first = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl"))
    assert first.status is Status.FAILED
    pool = lb.use_scoring_pool(1, JobBounds(seconds=0.5, memory_mb=1024))
    try:
        assert lb.corrections.resume() == 1
    finally:
        pool.close()
    state = lb.catalog.get(first.submission_id)
    rejection = state.rejection(lb.golds.get("scb").version)
    assert [i.code for i in rejection.issues] == ["job_over_bound"] and state.unreadable is not None


def test_a_spare_worker_is_ready_when_a_long_job_is_stopped():
    """A job past half its bound starts a spare, which takes the stopped worker's place: the next
    job waits for no spawn (perf/bench_worker_hog.py at 3860df9 measured the wait)."""
    pool = WorkerPool(1, nice=0, bounds=JobBounds(seconds=6, memory_mb=100))
    try:
        assert pool.run("warming up", jobs.sleep_then, 0, "ready") == "ready"  # spawned, the job module imported
        (first,) = pool.pids()
        assert pool.run("a long job", jobs.sleep_then, 3.5, "done") == "done"  # past half of 6 s
        spares = {p.pid for p in multiprocessing.active_children()} - {first}
        assert len(spares) == 1
        with pytest.raises(JobOverBound):
            pool.run("sleeping", jobs.sleep_then, 600, "late")
        assert pool.pids() == list(spares)
    finally:
        pool.close()
