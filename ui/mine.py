"""The "My submissions" tab: the signed-in submitter's own submissions, newest first."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr
import pandas as pd
from gradio.events import Dependency

from leaderboard.service import Leaderboard
from submissions.catalog import SubmissionState
from ui import display
from ui.auth import Auth


@dataclass(frozen=True, eq=False)
class MySubmissions:
    """The tab's callback."""

    leaderboard: Leaderboard
    auth: Auth

    def show(self, request: gr.Request, profile: gr.OAuthProfile | None) -> tuple[str, pd.DataFrame]:
        identity = self.auth.identity(profile, request)
        if identity is None:
            return "Sign in to see your submissions.", pd.DataFrame()
        states = sorted(self.leaderboard.submissions_of(identity), key=lambda s: s.meta.submitted_at, reverse=True)
        text = f"{len(states)} submission(s) by **{display.escape_markdown(identity.username)}**."
        return text, pd.DataFrame([self.row(state) for state in states])

    def row(self, state: SubmissionState) -> dict:
        result = self.leaderboard.result_for_submitter(state)  # None when withheld (the Ladder rule) or held
        return {
            "submitted": state.meta.submitted_at[:16].replace("T", " "),
            "benchmark": state.meta.benchmark,
            "model": state.meta.model,
            "team": state.meta.team,
            "status": self.leaderboard.status(state).value + (" (hidden)" if state.hidden else ""),
            "accuracy": display.fmt_number(result.overall.get("acc") if result else None),
            "rank": self.leaderboard.rank_of(state.meta.benchmark, state.meta.id) or "-",
            "id": state.meta.id,
        }


@dataclass(frozen=True, eq=False)
class MineTab:
    """The tab's components."""

    tab: gr.Tab
    summary: gr.Markdown
    table: gr.Dataframe
    refresh: gr.Button

    @classmethod
    def mount(cls, mine: MySubmissions, after: Dependency) -> MineTab:
        """Listed when the tab opens, on Refresh, and after each submission (``after``)."""
        with gr.Tab("My submissions", id="tab-mine", elem_id="tab-mine") as tab:
            summary = gr.Markdown()
            table = gr.Dataframe(interactive=False, wrap=True, elem_id="mine-table")
            refresh = gr.Button("Refresh", size="sm")
        for trigger in (tab.select, refresh.click, after.then):
            trigger(mine.show, None, [summary, table], api_visibility="private")
        return cls(tab, summary, table, refresh)
