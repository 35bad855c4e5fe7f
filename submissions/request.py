"""One upload as the form, the API and the CLIs hand it in: a typed record in place of the
positional flags that used to travel through three layers (ui.submit -> leaderboard -> Intake)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from submissions.records import Identity, SubmissionForm

Progress = Callable[[float, str], None]
"""Told ``(fraction done, what now)`` while an upload is checked and scored (the form's bar)."""


def no_progress(_fraction: float, _message: str) -> None:
    """Progress nobody watches (the API, the CLIs)."""


@dataclass(frozen=True)
class SubmitRequest:
    """One predictions file to check, store and score. ``filename``: the name the submitter's
    file had (``path`` is a server copy); ``validate_only``: run every check, store and count
    nothing; ``confirm_box_format``: the submitter says the box format is right, so a format
    the boxes do not seem to fit does not stop the file."""

    benchmark: str
    path: Path
    form: SubmissionForm
    identity: Identity
    filename: str = ""
    progress: Progress | None = None
    validate_only: bool = False
    confirm_box_format: bool = False

    def step(self, fraction: float, message: str) -> None:
        """Tell the watcher, if any, how far the upload is."""
        (self.progress or no_progress)(fraction, message)
