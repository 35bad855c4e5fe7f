"""Today's date, the one clock the board reads: an anonymous entry's names show from its reveal
date. Read through this module (``dates.today()``) so a test can move the day."""

from __future__ import annotations

from datetime import UTC, datetime


def today() -> str:
    return datetime.now(UTC).date().isoformat()
