"""ui.jobs: the four background jobs, their intervals, and repair before resume."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from apscheduler.executors import base as executors_base
from apscheduler.schedulers.background import BackgroundScheduler

from leaderboard.config import Settings
from ui import jobs as ui_jobs
from ui.jobs import repair_then_resume, start_jobs, start_reader_jobs


class Recorder:
    settings = Settings(push_seconds=45)

    def __init__(self) -> None:
        self.calls: list[str] = []

    @property
    def corrections(self) -> Recorder:  # the room resume lives in (leaderboard.corrections)
        return self

    @property
    def items(self) -> Recorder:  # the room catch_up lives in (leaderboard.items)
        return self

    def catch_up(self) -> None:
        self.calls.append("items")

    def repair(self) -> None:
        self.calls.append("repair")

    def resume(self) -> None:
        self.calls.append("resume")

    def refresh(self) -> None:
        self.calls.append("refresh")

    def push_pending(self) -> None:
        self.calls.append("push_pending")

    def health(self) -> SimpleNamespace:
        return SimpleNamespace(store=SimpleNamespace(consistent=True))  # a local store: always complete


def test_repair_runs_before_resume():
    recorder = Recorder()
    repair_then_resume(recorder)
    assert recorder.calls == ["repair", "resume"]


@contextmanager
def _running(board: Recorder, refresh_seconds: int = 2, start=start_jobs) -> Iterator[BackgroundScheduler]:
    """``start``'s scheduler for the test's length (shut down without waiting: resume_job's docstring)."""
    scheduler = start(board, refresh_seconds=refresh_seconds)
    try:
        yield scheduler
    finally:
        scheduler.shutdown(wait=False)


def _until(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Whether ``condition()`` holds within ``seconds``: a hang guard, not a time asserted."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def _called(board: Recorder, name: str) -> bool:
    return _until(lambda: name in board.calls)


def _resume_every(scheduler: BackgroundScheduler, interval: timedelta) -> bool:
    return _until(lambda: scheduler.get_job("resume").trigger.interval == interval)


def test_start_jobs_schedules_refresh_resume_and_push():
    with _running(Recorder()) as scheduler:
        jobs = {job.id: job for job in scheduler.get_jobs()}
        assert set(jobs) == {"refresh", "resume", "push_pending", "items"}
        assert jobs["items"].trigger.interval.total_seconds() == 60  # each run bounded by the scoring pool
        assert jobs["refresh"].trigger.interval.total_seconds() == 5  # never more often than every 5 s
        assert jobs["resume"].trigger.interval.total_seconds() == 10  # until a run had a complete copy: then 300 s
        assert jobs["push_pending"].trigger.interval.total_seconds() == 45  # Settings.push_seconds


def test_the_first_refresh_is_at_once():
    """The first refresh is the start-up sync (writes wait for it): at once, not one interval later.
    The interval here is an hour, so a 30 s hang guard tells the two apart on a loaded host."""
    recorder = Recorder()
    with _running(recorder, refresh_seconds=3600):
        assert _called(recorder, "refresh")


class _LateClock(datetime):
    """The executors' clock, as if every run started LATE_BY after its due time (a loaded host)."""

    @classmethod
    def now(cls, tz=None):
        return datetime.now(tz) + LATE_BY


LATE_BY = timedelta(seconds=5)


@pytest.mark.parametrize("start", [start_jobs, start_reader_jobs], ids=["app", "reader"])
def test_a_job_that_starts_late_still_runs(monkeypatch, start):
    """APScheduler skips a run more than its misfire grace (1 s by default) late. The start-up
    sync (writes wait for it) and the early resume were skipped so on a loaded host, and came back
    an interval later (resume: 5 minutes); a late run must run (the app's refresh and a reader's)."""
    monkeypatch.setattr(executors_base, "datetime", _LateClock)
    recorder = Recorder()
    with _running(recorder, start=start):
        assert _called(recorder, "refresh")


class Syncing(Recorder):
    """A board on the Hub whose start-up sync completes only when the test says so: until then
    repair and resume do nothing (they need a complete copy)."""

    def __init__(self, complete: bool = False) -> None:
        super().__init__()
        self.complete = complete

    def health(self) -> SimpleNamespace:
        return SimpleNamespace(store=SimpleNamespace(consistent=self.complete))

    def resume(self) -> None:
        self.calls.append("resume" if self.complete else "resume on a partial copy")


class Failing(Syncing):
    """A complete copy on which resume raises (a bug, a bad record)."""

    def resume(self) -> None:
        self.calls.append("resume")
        raise RuntimeError("resume failed")


class GoingPartial(Syncing):
    """A complete copy that goes partial while resume runs (a later sync's pull failed)."""

    def resume(self) -> None:
        self.calls.append("resume")
        self.complete = False


@pytest.fixture
def quick_looks(monkeypatch):
    """Resume's early looks every 0.2 s instead of 10 s."""
    monkeypatch.setattr(ui_jobs, "RESUME_FIRST_AFTER", timedelta(seconds=0.2))


def test_resume_comes_back_soon_until_the_start_up_sync_is_complete(quick_looks):
    """A large store's start-up sync can outlast resume's first run (10 s after start), which then
    did nothing, and the next came 5 minutes later: what a crash left unscored waited that long.
    Now resume looks again every RESUME_FIRST_AFTER until it has run on a complete copy."""
    board = Syncing()
    with _running(board) as scheduler:
        assert _called(board, "resume on a partial copy")
        board.complete = True
        assert _called(board, "resume")  # due 0.2 s later, not 5 minutes
        assert _resume_every(scheduler, ui_jobs.RESUME_EVERY)  # then every 5 minutes


def test_a_failing_resume_on_a_complete_copy_still_settles_to_every_five_minutes(quick_looks):
    """Not a traceback every 10 s for ever: the interval is set before the run."""
    board = Failing(complete=True)
    with _running(board) as scheduler:
        assert _called(board, "resume")
        assert _resume_every(scheduler, ui_jobs.RESUME_EVERY)


def test_a_copy_gone_partial_during_resume_brings_the_quick_looks_back(quick_looks):
    board = GoingPartial(complete=True)
    with _running(board) as scheduler:
        assert _called(board, "resume")
        assert _resume_every(scheduler, ui_jobs.RESUME_FIRST_AFTER)
