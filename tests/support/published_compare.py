"""Compare on a board's published rows, in Python: what ``Leaderboard.compare`` did before Compare
moved into the board page's script (``ui/static/compare.js``, held equal to
:func:`leaderboard.compare.compare` by tests/ui/test_browser_compare.py). The figures here are the
rows' full published figures, so the statistics of :mod:`leaderboard.compare` are tested exactly."""

from __future__ import annotations

from leaderboard.compare import Pairing, compare
from scoring.benchmarks import get_benchmark


def published_compare(lb, benchmark: str, row_ids: list[str]) -> tuple[Pairing, ...]:
    """The first row against each other one, from ``lb``'s board rows ``row_ids``."""
    board = lb.board(benchmark)
    rows = [board.row(row_id) for row_id in row_ids]
    return compare(get_benchmark(benchmark), [(f"{row.model} ({row.team})", row.figures) for row in rows])
