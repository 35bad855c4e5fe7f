"""ui.jobs: the three background jobs, their intervals, and repair before resume."""

from __future__ import annotations

from ui.jobs import repair_then_resume, start_jobs


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []

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
    scheduler = start_jobs(Recorder(), refresh_seconds=2)
    try:
        jobs = {job.id: job for job in scheduler.get_jobs()}
        assert set(jobs) == {"refresh", "resume", "push_pending"}
        assert jobs["refresh"].trigger.interval.total_seconds() == 5  # never more often than every 5 s
        assert jobs["resume"].trigger.interval.total_seconds() == 300
        assert jobs["push_pending"].trigger.interval.total_seconds() == 120
    finally:
        scheduler.shutdown(wait=False)
