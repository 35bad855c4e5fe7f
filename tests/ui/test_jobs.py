"""ui.jobs: the three background jobs, their intervals, and repair before resume."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from apscheduler.executors import base as executors_base

from leaderboard.config import Settings
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
        assert jobs["resume"].trigger.interval.total_seconds() == 300
        assert jobs["push_pending"].trigger.interval.total_seconds() == 45  # Settings.push_seconds
        # the first refresh is the start-up sync: at once, not one interval (5 s) later
        assert _calls_within(recorder, "refresh", 30)  # a hang guard, not a time asserted
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
