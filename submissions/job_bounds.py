"""What one job may take in a scoring worker, and the error of a job stopped there (issue 30 item 2).

The pool (submissions/worker.py) enforces the bounds from outside the job; the intake only reads
the error's message, so this module stays free of the pool's process machinery.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring import Issue


@dataclass(frozen=True)
class JobBounds:
    """What one job may take in a worker: ``seconds`` of time and ``memory_mb`` of resident memory
    above the worker's own when the job began (a job that loads a gold counts it). Honest files are
    checked in about a second and scored in a few; the defaults leave a loaded machine room."""

    seconds: float = 60.0
    memory_mb: int = 1024

    @property
    def memory_bytes(self) -> int:
        return self.memory_mb * 1024 * 1024


class JobOverBound(Exception):
    """A job was stopped at its bound (its worker killed and replaced); the message says so to the team."""

    code = "job_over_bound"

    @classmethod
    def of_time(cls, bounds: JobBounds) -> JobOverBound:
        return cls(f"reading this file took longer than {bounds.seconds:g} s; nothing was scored")

    @classmethod
    def of_memory(cls, bounds: JobBounds) -> JobOverBound:
        return cls(f"reading this file took more than {bounds.memory_mb:,} MB of memory; nothing was scored")

    @property
    def issue(self) -> Issue:
        return Issue(self.code, 0, "", str(self))
