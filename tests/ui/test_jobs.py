"""ui.jobs: the three background jobs, their intervals, and repair before resume."""

from __future__ import annotations

import time

from leaderboard.config import Settings
from ui.jobs import repair_then_resume, start_jobs


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
        deadline = time.monotonic() + 3
        while "refresh" not in recorder.calls and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "refresh" in recorder.calls
    finally:
        scheduler.shutdown(wait=False)
