"""Jobs for the bounded worker tests (tests/submissions/test_job_bounds.py): module-level, so a
spawned worker finds them by name. This module imports only ``time`` at the top: a fresh worker
imports it within the job's bound (the intake and the worker module took 0.17 s of CPU)."""

from __future__ import annotations

import time

STALL_SECONDS = 60
"""How long a stalled scoring sleeps: far past the tests' 0.5 s bound, and short of pytest's 600 s
timeout, so a pool that stops nothing fails the test with its own assertion."""
STALLED_MODEL = "Stalled"
"""A check of a form with this model name sleeps past any bound the tests set (then checks as usual)."""


def sleep_then(seconds: float, value: object) -> object:
    time.sleep(seconds)
    return value


def hold_memory(megabytes: int, seconds: float) -> int:
    """Fill ``megabytes`` (written, so resident) and keep them ``seconds``."""
    block = b"x" * (megabytes * 1024 * 1024)
    time.sleep(seconds)
    return len(block)


def allocate_at_once(megabytes: int) -> int:
    """One allocation faster than any watch can see (the address-space cap refuses it)."""
    return len(b"x" * (megabytes * 1024 * 1024))


def stalling_check(gold, data, form, *rest):
    """The intake's validate-only check, stalled for the form of :data:`STALLED_MODEL`."""
    from submissions.intake import validate_only_answer

    if form.model == STALLED_MODEL:
        time.sleep(600)
    return validate_only_answer(gold, data, form, *rest)


def stalled_evaluation(*job):
    """Scoring in a worker that sleeps past any bound the tests set (then scores as usual): a
    job over its bound whatever the host's load. A real file scored in ~2 ms here, so a bound of
    1 ms was passed or not depending on when the parent next ran (CI, stop 40: scored, not stopped)."""
    from submissions import worker

    time.sleep(STALL_SECONDS)
    return worker._evaluate_in_worker(*job)


def stalled_read(gold, data, form, *rest):
    """The intake's reading of a new upload (submissions.reading.read_upload), stalled past any
    bound the tests set: an upload whose reading runs over its bound, whatever the host's load."""
    from submissions.reading import read_upload

    time.sleep(STALL_SECONDS)
    return read_upload(gold, data, form, *rest)
