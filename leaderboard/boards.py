"""Every benchmark's board, built from the catalog on the current gold and cached until either
changes; and where one submission stands on it (its status, its rank).

The piece every room of the leaderboard reads (leaderboard.service): publishing writes it out,
visibility shows a team its row, corrections compare it before and after a gold, submitting
answers with a rank. It sits below the rooms, so none of them needs the facade to reach it.
"""

from __future__ import annotations

import threading

import pandas as pd

from leaderboard import dates
from leaderboard.config import Settings
from leaderboard.table import Board, BoardRow, baseline_rows, ranks, scored_rows
from scoring import SCORER_VERSION
from store.golds import GoldRegistry
from submissions import lifecycle
from submissions.catalog import Catalog, SubmissionState
from submissions.feedback import Feedback
from submissions.records import Status
from submissions.teams import Teams


class Boards:
    """The boards (see module doc). Thread-safe for the app's concurrent requests."""

    def __init__(self, settings: Settings, golds: GoldRegistry, catalog: Catalog, feedback: Feedback, teams: Teams):
        self.settings, self.golds, self.catalog, self.feedback, self.teams = settings, golds, catalog, feedback, teams
        self._boards: dict[str, tuple[tuple, Board]] = {}
        self._lock = threading.Lock()

    def board(self, benchmark: str) -> Board:
        """Rows of a benchmark (scored + paper), cached until the catalog or gold changes."""
        info = self.golds.info(benchmark)
        today = dates.today()  # an anonymous entry's names show from its reveal date
        key = (self.catalog.generation, info.version if info else "", self.settings.row_rule, today)
        with self._lock:
            cached = self._boards.get(benchmark)
            if cached and cached[0] == key:
                return cached[1]
        board = self.board_on(benchmark, self.catalog.all(benchmark), info.version if info else None, today)
        with self._lock:
            self._boards[benchmark] = (key, board)
        return board

    def board_on(
        self, benchmark: str, states: list[SubmissionState], version: str | None, today: str | None = None
    ) -> Board:
        """The board of ``states`` on gold ``version`` (paper rows included): the live board, or
        the one a gold switch would show (leaderboard.golds.preview)."""
        rows: list[BoardRow] = []
        if version is not None:
            visible, first, owners = (
                self.feedback.visible(states, version),
                self.teams.first_users(),
                self.teams.owners(),
            )
            day = today or dates.today()
            rows = scored_rows(visible, version, SCORER_VERSION, self.settings.row_rule, first, day, owners=owners)
        return Board(benchmark, rows + baseline_rows(benchmark))

    def table(self, benchmark: str, view: str = "overall", keep=None) -> pd.DataFrame:
        """A view of the rows ``keep`` accepts (all by default), ranked among themselves."""
        return self.board(benchmark).view(view, keep)

    def group_sizes(self, benchmark: str) -> dict[str, dict[str, int]]:
        """Questions per group of the current gold (public: the question list carries the groups)."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return {}
        return {
            name: {label: int((codes == i).sum()) for i, label in enumerate(labels)}
            for name, (labels, codes) in gold.groups.items()
        }

    def status(self, state: SubmissionState) -> Status:
        """Where a submission stands on its benchmark's current gold."""
        info = self.golds.info(state.meta.benchmark)
        return state.status(info.version if info else "", SCORER_VERSION, lifecycle.MAX_FAILURES)

    def rank_of(self, benchmark: str, submission_id: str) -> int | None:
        """The submission's rank if it is a row of the public board, else None."""
        return ranks(benchmark, self.board(benchmark).rows).get(submission_id)
