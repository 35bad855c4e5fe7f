"""ui.jobs: the three background jobs, their intervals, and repair before resume."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from types import SimpleNamespace

from apscheduler.executors import base as executors_base

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


def test_start_jobs_schedules_refresh_resume_and_push():
    recorder = Recorder()
    scheduler = start_jobs(recorder, refresh_seconds=2)
    try:
        jobs = {job.id: job for job in scheduler.get_jobs()}
        assert set(jobs) == {"refresh", "resume", "push_pending"}
        assert jobs["refresh"].trigger.interval.total_seconds() == 5  # never more often than every 5 s
        assert jobs["resume"].trigger.interval.total_seconds() == 10  # until a run had a complete copy: then 300 s
        assert jobs["push_pending"].trigger.interval.total_seconds() == 45  # Settings.push_seconds
    finally:
        scheduler.shutdown(wait=False)


def test_the_first_refresh_is_at_once():
    """The first refresh is the start-up sync (writes wait for it): at once, not one interval later.
    The interval here is an hour, so a 30 s hang guard tells the two apart on a loaded host."""
    recorder = Recorder()
    scheduler = start_jobs(recorder, refresh_seconds=3600)
    try:
        assert _calls_within(recorder, "refresh", 30)
    finally:
        scheduler.shutdown(wait=False)


class _LateClock(datetime):
    """The executors' clock, as if every run started LATE_BY after its due time (a loaded host)."""

    @classmethod
    def now(cls, tz=None):
        return datetime.now(tz) + LATE_BY


LATE_BY = timedelta(seconds=5)


def _calls_within(recorder: Recorder, name: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while name not in recorder.calls and time.monotonic() < deadline:
        time.sleep(0.05)
    return name in recorder.calls


def test_a_job_that_starts_late_still_runs(monkeypatch):
    """APScheduler skips a run more than its misfire grace (1 s by default) late. The start-up
    sync (writes wait for it) and the early resume were skipped so on a loaded host, and came back
    an interval later (resume: 5 minutes); a late run must run."""
    monkeypatch.setattr(executors_base, "datetime", _LateClock)
    recorder = Recorder()
    scheduler = start_jobs(recorder, refresh_seconds=2)
    try:
        assert _calls_within(recorder, "refresh", 30)
    finally:
        scheduler.shutdown(wait=False)


def test_a_reader_refresh_that_starts_late_still_runs(monkeypatch):
    monkeypatch.setattr(executors_base, "datetime", _LateClock)
    recorder = Recorder()
    scheduler = start_reader_jobs(recorder, refresh_seconds=2)
    try:
        assert _calls_within(recorder, "refresh", 30)
    finally:
        scheduler.shutdown(wait=False)


class Syncing(Recorder):
    """A board on the Hub whose start-up sync completes only when the test says so: until then
    repair and resume do nothing (they need a complete copy)."""

    def __init__(self) -> None:
        super().__init__()
        self.complete = False

    def health(self) -> SimpleNamespace:
        return SimpleNamespace(store=SimpleNamespace(consistent=self.complete))

    def resume(self) -> None:
        self.calls.append("resume" if self.complete else "resume on a partial copy")


def test_resume_comes_back_soon_until_the_start_up_sync_is_complete(monkeypatch):
    """A large store's start-up sync can outlast resume's first run (10 s after start), which then
    did nothing, and the next came 5 minutes later: what a crash left unscored waited that long.
    Now resume looks again every RESUME_FIRST_AFTER until it has run on a complete copy."""
    monkeypatch.setattr(ui_jobs, "RESUME_FIRST_AFTER", timedelta(seconds=0.2))
    board = Syncing()
    scheduler = start_jobs(board, refresh_seconds=2)
    try:
        assert _calls_within(board, "resume on a partial copy", 30)
        board.complete = True
        assert _calls_within(board, "resume", 30)  # a hang guard: due 0.2 s later, not 5 minutes
        deadline = time.monotonic() + 30
        while scheduler.get_job("resume").trigger.interval != ui_jobs.RESUME_EVERY and time.monotonic() < deadline:
            time.sleep(0.05)
        assert scheduler.get_job("resume").trigger.interval == ui_jobs.RESUME_EVERY  # then every 5 minutes
    finally:
        scheduler.shutdown(wait=False)


def _resume_interval_becomes(scheduler, interval: timedelta, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while scheduler.get_job("resume").trigger.interval != interval and time.monotonic() < deadline:
        time.sleep(0.05)
    return scheduler.get_job("resume").trigger.interval == interval


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


def test_a_failing_resume_on_a_complete_copy_still_settles_to_every_five_minutes(monkeypatch):
    """Not a traceback every 10 s for ever: the interval is set before the run."""
    monkeypatch.setattr(ui_jobs, "RESUME_FIRST_AFTER", timedelta(seconds=0.2))
    board = Failing()
    board.complete = True
    scheduler = start_jobs(board, refresh_seconds=2)
    try:
        assert _calls_within(board, "resume", 30)
        assert _resume_interval_becomes(scheduler, ui_jobs.RESUME_EVERY, 30)
    finally:
        scheduler.shutdown(wait=False)


def test_a_copy_gone_partial_during_resume_brings_the_quick_looks_back(monkeypatch):
    monkeypatch.setattr(ui_jobs, "RESUME_FIRST_AFTER", timedelta(seconds=0.2))
    board = GoingPartial()
    board.complete = True
    scheduler = start_jobs(board, refresh_seconds=2)
    try:
        assert _calls_within(board, "resume", 30)
        assert _resume_interval_becomes(scheduler, ui_jobs.RESUME_FIRST_AFTER, 30)
    finally:
        scheduler.shutdown(wait=False)
