"""Fixtures shared by the submissions tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from tests.support.submissions import board, write_gold


@pytest.fixture
def lb(tmp_path: Path) -> Leaderboard:
    """A local board on the small test gold (140 SCB questions)."""
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
