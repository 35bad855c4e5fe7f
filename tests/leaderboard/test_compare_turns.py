"""Compare runs off the web process, in fair turns per visitor, bounded per visitor (issue 21's
last point): a visitor holding its bound of comparisons gets the next refused at once while
another visitor is still served, and before the flood's waiting ones."""

from __future__ import annotations

import threading
import time

import pytest

import leaderboard.compare
from leaderboard.compare import TryAgain, compare_rows
from leaderboard.service import Leaderboard
from leaderboard.table import SCORED_SOURCE
from submissions.fair_queue import PER_IDENTITY
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, board, form, small_gold, write_gold, write_submission


@pytest.fixture(scope="module")
def lb(tmp_path_factory) -> Leaderboard:
    tmp = tmp_path_factory.mktemp("compare-turns")
    gold = small_gold()
    lb = board(tmp / "data", write_gold(tmp / "gold.jsonl", gold))
    for model, accuracy in (("Strong", 0.8), ("Weak", 0.5), ("Middle", 0.65)):
        path = write_submission(tmp / f"{model}.jsonl", gold, accuracy=accuracy, grounding="bbox_good", seed=3)
        assert lb.submissions.submit(SubmitRequest("scb", path, form(model, "T"), ALICE)).result is not None
    return lb


@pytest.fixture
def rows(lb: Leaderboard) -> list[str]:
    """The row ids of Strong, Weak and Middle."""
    table = lb.table("scb")
    scored = table[table["source"] == SCORED_SOURCE]
    return [scored.loc[scored["model"] == m, "row_id"].iloc[0] for m in ("Strong", "Weak", "Middle")]


class HeldCompares:
    """A ``run_compare`` whose calls block until released one by one; records whose ran, in order
    (the tests tell the visitors apart by the reference row they pick)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.release = threading.Semaphore(0)

    def __call__(self, fn, benchmark, rows):
        self.started.append(rows[0][0])
        assert self.release.acquire(timeout=30)
        return fn(benchmark, rows)


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def compare_in_thread(lb: Leaderboard, picked: list[str], visitor: str, answers: list) -> threading.Thread:
    def run() -> None:
        try:
            answers.append((visitor, lb.compare("scb", picked, visitor=visitor)))
        except TryAgain as refused:
            answers.append((visitor, refused))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_a_visitor_over_its_bound_is_refused_while_another_is_served_first(lb: Leaderboard, rows, monkeypatch):
    held = HeldCompares()
    monkeypatch.setattr(lb, "run_compare", held)
    strong, weak, middle = rows
    answers: list = []
    flood = [compare_in_thread(lb, [strong, weak], "address:10.0.0.1", answers) for _ in range(6)]
    wait_until(lambda: len(answers) == 6 - PER_IDENTITY)  # one running, one waiting: the rest refused at once
    assert all(isinstance(a, TryAgain) and "Busy" in str(a) for _, a in answers)
    assert lb.compare_turns.held("address:10.0.0.1") == PER_IDENTITY
    other = compare_in_thread(lb, [middle, strong], "account:bob", answers)
    wait_until(lambda: lb.compare_turns.held("account:bob") == 1)  # admitted, not refused
    held.release.release()  # the flood's first comparison ends: bob goes before its waiting one
    wait_until(lambda: len(held.started) == 2)
    assert held.started == ["Strong (T)", "Middle (T)"]
    for _ in range(PER_IDENTITY):
        held.release.release()
    for thread in [*flood, other]:
        thread.join(10)
    (bobs,) = [a for who, a in answers if who == "account:bob"]
    assert [p.b for p in bobs] == ["Strong (T)"] and bobs[0].a == "Middle (T)"
    assert len([a for _, a in answers if not isinstance(a, TryAgain)]) == PER_IDENTITY + 1
    assert lb.compare_turns.held("address:10.0.0.1") == 0  # every turn given back


def test_a_comparison_that_raises_gives_its_turn_back(lb: Leaderboard, rows, monkeypatch):
    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(lb, "run_compare", broken)
    for _ in range(PER_IDENTITY + 1):
        with pytest.raises(RuntimeError):
            lb.compare("scb", rows[:2], visitor="address:10.0.0.2")
    assert lb.compare_turns.held("address:10.0.0.2") == 0


def test_a_worker_dying_asks_to_try_again(lb: Leaderboard, rows, monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    def died(*args):
        raise BrokenProcessPool("a worker died")

    monkeypatch.setattr(lb, "run_compare", died)
    with pytest.raises(TryAgain, match="try again"):
        lb.compare("scb", rows[:2], visitor="address:10.0.0.3")
    assert lb.compare_turns.held("address:10.0.0.3") == 0


def test_a_wrong_pick_is_said_before_any_turn_is_taken(lb: Leaderboard, rows, monkeypatch):
    monkeypatch.setattr(lb, "run_compare", HeldCompares())  # would block: a wrong pick never gets there
    with pytest.raises(ValueError, match="no row"):
        lb.compare("scb", [rows[0], "nope"], visitor="address:10.0.0.4")
    assert lb.compare_turns.held("address:10.0.0.4") == 0


def refuse_in_web_process(*args, **kwargs):
    raise AssertionError("a comparison was computed in the web process")


def test_the_comparison_is_computed_in_the_compare_pool(lb: Leaderboard, rows, monkeypatch):
    """As app.py configures it (LEADERBOARD_COMPARE_WORKERS, default 1): the web process only
    looks the rows up and waits; the figures are combined in a worker."""
    expected = lb.compare("scb", rows)  # in this process (no pool yet)
    monkeypatch.setattr(leaderboard.compare, "compare", refuse_in_web_process)  # the worker keeps the real one
    with pytest.raises(AssertionError, match="web process"):
        compare_rows("scb", [("a", {}), ("b", {})])  # the patch bites here
    monkeypatch.setattr(lb, "run_compare", lb.run_compare)  # the module's board goes back to in-process after
    monkeypatch.setattr(lb, "compare_turns", lb.compare_turns)
    pool = lb.use_compare_pool(1)
    try:
        assert lb.compare_turns.slots == 1 and lb.compare_turns.per_identity == PER_IDENTITY
        assert lb.compare("scb", rows, visitor="address:10.0.0.5") == expected
        assert lb.compare_turns.held("address:10.0.0.5") == 0
    finally:
        pool.close()
