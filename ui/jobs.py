"""Background jobs of the app process (APScheduler): they keep the board current and finish
interrupted work without anyone visiting, and never restart the Space.

- ``refresh``: reread the store (other replicas, the CLI) every ``refresh_seconds`` (at least 5),
  and publish the public tables whose debounce ran out. Its first run is at start: on the Hub
  that is the start-up snapshot, while which reads serve the (possibly empty) working copy and
  submissions are answered "try again shortly";
- ``resume``: rebuild corrupted derived files, then score what a crash or a new gold left
  unscored (only on a complete copy); every ``RESUME_FIRST_AFTER`` from start until it has run on
  a complete copy (a large store's start-up sync can outlast its first run), then every
  ``RESUME_EVERY``;
- ``items``: the item analysis of each benchmark whose gold or scored submissions changed, once
  quiet (leaderboard.items), in the scoring pool's bounded worker; and the errata after a gold change;
- ``push_pending``: push the derived files waiting in the outbox, batched into one commit per
  repo, every ``Settings.push_seconds`` (a no-op on a local store).

A reader (:func:`start_reader_jobs`) has only ``refresh``, of the published boards.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler

from leaderboard.config import REFRESH_AT_LEAST_EVERY
from leaderboard.reader import PublishedLeaderboard
from leaderboard.service import Leaderboard

__all__ = ["REFRESH_AT_LEAST_EVERY", "start_jobs", "start_reader_jobs"]
RESUME_FIRST_AFTER = timedelta(seconds=10)
RESUME_EVERY = timedelta(minutes=5)
ITEMS_EVERY = timedelta(seconds=60)
"""How often the item analysis looks for a stale benchmark (each job is bounded by the pool)."""


def repair_then_resume(leaderboard: Leaderboard) -> None:
    """Rebuild corrupted derived files first, so that resuming scores on sound records."""
    leaderboard.repair()
    leaderboard.corrections.resume()


def resume_job(leaderboard: Leaderboard, scheduler: BackgroundScheduler) -> None:
    """:func:`repair_then_resume`, every ``RESUME_FIRST_AFTER`` until a run starts on a complete
    copy (both do nothing on a partial one), then every ``RESUME_EVERY``: set before that run, so a
    long first run (a crash's backlog) is not looked at every 10 s, and set back if the copy went
    partial meanwhile (the run may have done nothing). The scheduler is called from the job: shut it
    down with ``wait=False`` (``wait=True`` holds the lock this call waits for)."""
    complete = _complete(leaderboard)
    if complete:
        _resume_every(scheduler, RESUME_EVERY)
    try:
        repair_then_resume(leaderboard)
    finally:
        if complete and not _complete(leaderboard):
            _resume_every(scheduler, RESUME_FIRST_AFTER)


def _complete(leaderboard: Leaderboard) -> bool:
    """Whether the store's last sync was complete (what repair and resume require)."""
    return leaderboard.health().store.consistent


def _resume_every(scheduler: BackgroundScheduler, interval: timedelta) -> None:
    job = scheduler.get_job("resume")  # None once the scheduler is shut down
    if job is not None and job.trigger.interval != interval:
        scheduler.reschedule_job("resume", trigger="interval", seconds=interval.total_seconds())


def _scheduler() -> BackgroundScheduler:
    """A daemon scheduler whose late runs still run (``misfire_grace_time=None``): APScheduler
    skips a run more than 1 s late by default, and on a loaded host that skipped the start-up sync,
    which writes wait for, and the early resume, which then came 5 minutes later. Missed runs of
    one job coalesce into one."""
    return BackgroundScheduler(
        daemon=True, job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None}
    )


def start_jobs(leaderboard: Leaderboard, refresh_seconds: int) -> BackgroundScheduler:
    """Start the four jobs on a daemon scheduler (call once per process)."""
    scheduler = _scheduler()
    refresh_every = timedelta(seconds=max(REFRESH_AT_LEAST_EVERY, refresh_seconds))
    scheduler.add_job(
        leaderboard.refresh,
        "interval",
        seconds=refresh_every.total_seconds(),
        id="refresh",
        next_run_time=datetime.now(),  # the start-up sync: writes wait for it
    )
    scheduler.add_job(
        resume_job, "interval", seconds=RESUME_FIRST_AFTER.total_seconds(), id="resume", args=(leaderboard, scheduler)
    )
    scheduler.add_job(
        leaderboard.items.catch_up,
        "interval",
        seconds=ITEMS_EVERY.total_seconds(),
        id="items",
        next_run_time=datetime.now() + RESUME_FIRST_AFTER,  # the errata of a fresh start soon, not a minute later
    )
    push_every = max(1, leaderboard.settings.push_seconds)
    scheduler.add_job(leaderboard.push_pending, "interval", seconds=push_every, id="push_pending")
    scheduler.start()
    return scheduler


def start_reader_jobs(reader: PublishedLeaderboard, refresh_seconds: int) -> BackgroundScheduler:
    """A reader's one job: reread the published boards when they moved (docs/topology.md)."""
    scheduler = _scheduler()
    every = max(REFRESH_AT_LEAST_EVERY, refresh_seconds)
    scheduler.add_job(reader.refresh, "interval", seconds=every, id="refresh")
    scheduler.start()
    return scheduler
