"""Validate-only and the pre-check of an upload run off the web process, in fair turns per
account, bounded per account (attacks.md #10, issue 21's last point)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from submissions import intake
from submissions import reading as reading_jobs
from submissions.answer import SubmitAnswer
from submissions.fair_queue import FairQueue
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from submissions.worker import ScoringPool
from tests.support.submissions import ALICE, form, submission_ids, write_submission

BOB = Identity("bob")


@pytest.fixture(scope="module")
def pool():
    scoring_pool = ScoringPool(workers=1, nice=5)
    yield scoring_pool
    scoring_pool.close()


def refuse_in_web_process(*args, **kwargs):
    raise AssertionError("a check ran in the web process")


def test_validate_only_runs_check_file_in_the_pool(lb: Leaderboard, tmp_path: Path, monkeypatch):
    """As app.py configures it (LEADERBOARD_SCORING_WORKERS, default 1)."""
    monkeypatch.setattr(intake, "check_file", refuse_in_web_process)  # the workers keep the real one
    pool = lb.use_scoring_pool(1)
    try:
        path = write_submission(tmp_path / "s.jsonl", accuracy=0.6, grounding="bbox_good")
        answer = lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl", validate_only=True))
    finally:
        if pool is not None:
            pool.close()
    assert answer.status.value == "valid", answer.message
    assert answer.quota is not None and lb.catalog.all() == []  # nothing stored or counted


def test_a_real_upload_is_read_once_in_the_pool(lb: Leaderboard, pool, tmp_path: Path, monkeypatch):
    """Its pre-check, its reading and its scoring: one job in the pool; the web process parses nothing."""
    monkeypatch.setattr(reading_jobs, "read", refuse_in_web_process)  # the workers keep the real one
    lb.intake.run_check, lb.intake.evaluator = pool.run_check, pool.evaluate
    full_path = write_submission(tmp_path / "full.jsonl", accuracy=0.6)
    full = full_path.read_text().splitlines()
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(full[: len(full) // 2]) + "\n")  # half the questions: below the 95% coverage
    answer = lb.submissions.submit(SubmitRequest("scb", few, form(), ALICE, "few.jsonl"))
    assert answer.status.value == "rejected" and {i.code for i in answer.issues} == {"too_few_answers"}
    assert submission_ids(lb.store) == []  # turned away before anything was stored
    scored = lb.submissions.submit(SubmitRequest("scb", full_path, form(), ALICE, "full.jsonl"))
    assert scored.status.value == "scored"
    assert lb.catalog.get(scored.submission_id).readings  # its reading, stored with it


def test_a_configured_pool_checks_and_scores_with_one_turn_per_worker(lb: Leaderboard, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(intake, "check_file", refuse_in_web_process)
    pool = lb.use_scoring_pool(2)
    try:
        assert lb.intake.checks.slots == 2
        path = write_submission(tmp_path / "s.jsonl", accuracy=0.6)
        assert (
            lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl", validate_only=True)).status.value
            == "valid"
        )
        assert lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, "s.jsonl")).status.value == "scored"
    finally:
        pool.close()


class HeldChecks:
    """A ``run_check`` whose calls block until released one by one; records who started when."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.release = threading.Semaphore(0)

    def __call__(self, check, gold, data, form, *rest):
        self.started.append(form.model)  # the tests put the account's name in the model field
        assert self.release.acquire(timeout=30)
        return SubmitAnswer(Status.VALID, "checked")


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def validate_in_thread(lb: Leaderboard, path: Path, who: Identity, answers: list) -> threading.Thread:
    def run() -> None:
        answers.append(
            (
                who.username,
                lb.submissions.submit(SubmitRequest("scb", path, form(who.username), who, validate_only=True)),
            )
        )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_one_account_flooding_cannot_make_another_wait_behind_all_its_checks(lb: Leaderboard, tmp_path: Path):
    held = HeldChecks()
    lb.intake.run_check = held
    path = write_submission(tmp_path / "s.jsonl")
    answers: list = []
    flood = [validate_in_thread(lb, path, ALICE, answers) for _ in range(8)]  # alice's loop, 8 at once
    wait_until(lambda: len(answers) == 6)  # her bound: one running, one waiting; six answered at once
    assert all(who == "alice" and a.status.value == "retry" for who, a in answers)
    assert held.started == ["alice"] and lb.intake.checks.held("alice") == 2
    bob = validate_in_thread(lb, path, BOB, answers)
    wait_until(lambda: lb.intake.checks.held("bob") == 1)
    held.release.release()  # alice's first check ends: bob goes before her waiting one
    wait_until(lambda: len(held.started) == 2)
    assert held.started == ["alice", "bob"]
    for _ in range(2):
        held.release.release()
    for thread in [*flood, bob]:
        thread.join(10)
    assert held.started == ["alice", "bob", "alice"]
    assert [a.status.value for who, a in answers if who == "bob"] == ["valid"]


def test_over_the_bound_the_answer_is_retry_and_says_why(lb: Leaderboard, tmp_path: Path):
    held = HeldChecks()
    lb.intake.run_check = held
    path = write_submission(tmp_path / "s.jsonl")
    answers: list = []
    threads = [validate_in_thread(lb, path, ALICE, answers) for _ in range(2)]
    wait_until(lambda: lb.intake.checks.held("alice") == 2)
    busy = lb.submissions.submit(SubmitRequest("scb", path, form("alice"), ALICE, validate_only=True))
    real = lb.submissions.submit(
        SubmitRequest("scb", path, form("alice"), ALICE)
    )  # a real upload's pre-check: the same bound
    for answer in (busy, real):
        api = answer.to_api()
        assert api["status"] == "retry" and api["message"] == intake.BUSY
        assert "nothing was kept or counted" in api["message"] and api["submission_id"] is None
    assert busy.quota is not None and "attempts left" in busy.quota.message()
    assert submission_ids(lb.store) == [] and lb.catalog.all() == []  # the refused upload was not stored
    for _ in range(2):
        held.release.release()
    for thread in threads:
        thread.join(10)
    assert lb.intake.checks.held("alice") == 0  # every turn given back
    lb.intake.run_check = intake.run_here
    scored = lb.submissions.submit(
        SubmitRequest("scb", path, form("alice"), ALICE)
    )  # and sent again, it is stored and scored once
    assert scored.status.value == "scored" and submission_ids(lb.store) == [scored.submission_id]


def test_a_worker_dying_on_a_check_answers_retry_and_keeps_nothing(lb: Leaderboard, tmp_path: Path):
    from concurrent.futures.process import BrokenProcessPool

    def died(*args):
        raise BrokenProcessPool("a worker died")

    lb.intake.run_check = died
    path = write_submission(tmp_path / "s.jsonl")
    for validate_only in (True, False):
        answer = lb.submissions.submit(
            SubmitRequest("scb", path, form(), ALICE, "s.jsonl", validate_only=validate_only)
        )
        assert (answer.status.value, answer.message) == ("retry", intake.CHECK_CRASHED)
    assert submission_ids(lb.store) == [] and lb.intake.checks.held("alice") == 0


def test_a_check_that_raises_gives_its_turn_back(lb: Leaderboard, tmp_path: Path):
    def broken(*args):
        raise RuntimeError("boom")

    lb.intake.run_check = broken
    path = write_submission(tmp_path / "s.jsonl")
    for _ in range(3):
        with pytest.raises(RuntimeError):
            lb.submissions.submit(SubmitRequest("scb", path, form(), ALICE, validate_only=True))
    assert lb.intake.checks.held("alice") == 0


def test_the_queue_serves_accounts_in_turn_and_refuses_over_the_bound():
    queue = FairQueue(slots=1, per_identity=2)
    order: list[str] = []
    a1 = queue.enter("a")
    a1.__enter__()
    a2, b1, c1 = queue.enter("a"), queue.enter("b"), queue.enter("c")
    assert queue.enter("a") is None  # a holds two
    threads = []
    for name, turn in (("a", a2), ("b", b1), ("c", c1)):

        def run(name=name, turn=turn):
            with turn:
                order.append(name)

        threads.append(threading.Thread(target=run))
        threads[-1].start()
    a1.__exit__(None, None, None)
    for thread in threads:
        thread.join(10)
    assert order == ["b", "c", "a"]  # a, served last, goes after the accounts waiting with it
    assert all(queue.held(w) == 0 for w in "abc")


def test_the_queue_counts_each_accounts_checks_entered_not_the_refused():
    """The upload door matches an account's arrived uploads to the checks entered after them."""
    queue = FairQueue(slots=1, per_identity=2)
    first, second = queue.enter("a"), queue.enter("a")
    assert queue.enter("a") is None  # refused: not entered
    assert queue.checks("a") == (2, 2) and queue.checks("b") == (0, 0)
    for turn in (first, second):
        with turn:
            pass
    assert queue.checks("a") == (0, 2)  # held no more; entered stays
    assert queue.enter("a") is not None and queue.checks("a").entered == 3
