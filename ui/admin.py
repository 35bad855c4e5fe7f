"""The Maintainers tab: current gold, rescoring, hiding submissions, rejected uploads.

It opens for a session with the admin token, or for a signed-in maintainer account. Every
callback checks again: a hidden panel is not a permission.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import gradio as gr
import pandas as pd

from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.errors import Issue
from ui.auth import Auth
from ui.board import Redraw
from ui.display import escape_markdown
from ui.probes import ProbeFlags

REJECTED_COLUMNS = ["id", "benchmark", "model", "team", "submitter", "errors", "first errors"]


def gold_markdown(leaderboard: Leaderboard) -> str:
    rows = ["| benchmark | gold version | questions | loaded | by | previous |", "|---|---|---|---|---|---|"]
    for bench in BENCHMARKS.values():
        info = leaderboard.gold_info(bench.id)
        if info is None:
            rows.append(f"| {bench.id} | none | - | - | - | - |")
            continue
        prev = f"`{info.previous_version[:12]}`" if info.previous_version else "-"
        rows.append(
            f"| {bench.id} | `{info.version[:12]}` | {info.questions:,} | {info.added_at[:19].replace('T', ' ')} UTC | "
            f"{escape_markdown(info.added_by)} | {prev} |"
        )
    return "### Current gold\n" + "\n".join(rows)


def submission_choices(leaderboard: Leaderboard) -> list[tuple[str, str]]:
    """(label, id) of every submission, newest first, for the hide/unhide picker."""
    states = sorted(leaderboard.catalog.all(), key=lambda s: s.meta.submitted_at, reverse=True)
    return [
        (
            f"{s.meta.id} · {s.meta.benchmark} · {s.meta.model} · {s.meta.team}" + (" · HIDDEN" if s.hidden else ""),
            s.meta.id,
        )
        for s in states
    ]


def first_errors(issues: Sequence[Issue]) -> str:
    return "; ".join(f"line {i.line}: {i.message}" if i.line else i.message for i in issues[:5])


def rejected_frame(leaderboard: Leaderboard) -> pd.DataFrame:
    rows = []
    for bench in BENCHMARKS.values():
        info = leaderboard.gold_info(bench.id)
        for state in leaderboard.rejected(bench.id):
            rejection = state.rejection(info.version) if info else None
            issues = rejection.issues if rejection else ()
            meta = state.meta
            rows.append(
                [
                    meta.id,
                    bench.id,
                    meta.model,
                    meta.team,
                    meta.submitter,
                    rejection.total if rejection else 0,
                    first_errors(issues),
                ]
            )
    return pd.DataFrame(rows, columns=REJECTED_COLUMNS)


def rescore_markdown(report: dict) -> str:
    lines = ["### Rescore report"]
    for bench_id, part in report.items():
        counts = ", ".join(f"{k}: {v}" for k, v in (part.get("counts") or {}).items())
        lines.append(f"**{bench_id}**: {counts or 'nothing to do'}")
        for change in part.get("rank_changes", []):
            lines.append(
                f"- {escape_markdown(change.model)} ({escape_markdown(change.team)}): "
                f"{change.before or 'new'} → {change.after or 'gone'}"
            )
    return "\n\n".join(lines) if len(lines) > 1 else "Nothing to rescore (no gold loaded)."


@dataclass(frozen=True, eq=False)
class Maintainers:
    """The tab's callbacks. ``unlocked`` is the session's state: the admin token was given."""

    leaderboard: Leaderboard
    auth: Auth

    def allowed(self, unlocked: bool, profile: gr.OAuthProfile | None) -> bool:
        return bool(unlocked) or self.auth.is_maintainer(profile)

    def unlock(self, token: str, profile: gr.OAuthProfile | None) -> tuple:
        ok = self.auth.admin_token_matches(token) or self.auth.is_maintainer(profile)
        msg = "Unlocked for this session." if ok else "Wrong token (or not a maintainer)."
        return ok, gr.Column(visible=ok), msg, *(self.view(ok, profile) if ok else [gr.skip()] * 3)

    def view(self, unlocked: bool, profile: gr.OAuthProfile | None) -> tuple:
        """Current gold, the submission picker and the rejected uploads."""
        if not self.allowed(unlocked, profile):
            return gr.skip(), gr.skip(), gr.skip()
        lb = self.leaderboard
        return gold_markdown(lb), gr.Dropdown(choices=submission_choices(lb)), rejected_frame(lb)

    def rescore(self, unlocked: bool, profile: gr.OAuthProfile | None, progress=gr.Progress()) -> str:
        self._check(unlocked, profile)
        progress(0.1, desc="Rescoring every submission on the current gold")
        return rescore_markdown(self.leaderboard.rescore())

    def hide(self, sid: str, unlocked: bool, profile: gr.OAuthProfile | None) -> tuple:
        return self._set_hidden(sid, True, unlocked, profile)

    def unhide(self, sid: str, unlocked: bool, profile: gr.OAuthProfile | None) -> tuple:
        return self._set_hidden(sid, False, unlocked, profile)

    def _set_hidden(self, sid: str, hidden: bool, unlocked: bool, profile: gr.OAuthProfile | None) -> tuple:
        self._check(unlocked, profile)
        if not sid:
            return "Choose a submission first.", gr.skip()
        done = self.leaderboard.set_hidden(sid, hidden, profile.username if profile is not None else "admin-token")
        verb = "Hidden" if hidden else "Unhidden"
        msg = f"{verb}: `{sid}`." if done else f"Unknown submission `{escape_markdown(sid)}`."
        return msg, gr.Dropdown(choices=submission_choices(self.leaderboard), value=sid)

    def _check(self, unlocked: bool, profile: gr.OAuthProfile | None) -> None:
        if not self.allowed(unlocked, profile):
            raise gr.Error("Maintainers only.")


@dataclass(frozen=True, eq=False)
class AdminTab:
    """The tab's components (the panel stays hidden until unlocked)."""

    unlocked: gr.State
    token: gr.Textbox
    unlock: gr.Button
    message: gr.Markdown
    panel: gr.Column
    gold: gr.Markdown
    rescore: gr.Button
    refresh: gr.Button
    rescore_report: gr.Markdown
    pick: gr.Dropdown
    hide: gr.Button
    unhide: gr.Button
    hide_message: gr.Markdown
    rejected: gr.Dataframe

    @property
    def view(self) -> list:
        return [self.gold, self.pick, self.rejected]

    @classmethod
    def mount(cls, maintainers: Maintainers, redraw: Redraw) -> AdminTab:
        with gr.Tab("Maintainers", id="tab-admin", elem_id="tab-admin"):
            tab = cls(gr.State(False), *_lock_components(maintainers.auth.oauth), *_panel_components())
            with tab.panel:  # read-only probe flags (ui/probes.py, docs/integrity.md)
                ProbeFlags(maintainers.leaderboard, maintainers.allowed).mount(tab.unlocked)
        tab._wire(maintainers, redraw)
        return tab

    def _wire(self, maintainers: Maintainers, redraw: Redraw) -> None:
        for trigger in (self.unlock.click, self.token.submit):
            trigger(
                maintainers.unlock,
                self.token,
                [self.unlocked, self.panel, self.message, *self.view],
                api_visibility="private",
            )
        self.refresh.click(maintainers.view, self.unlocked, self.view, api_visibility="private")
        self.rescore.click(maintainers.rescore, self.unlocked, self.rescore_report, api_visibility="private").then(
            maintainers.view, self.unlocked, self.view, api_visibility="private"
        )
        for button, callback in ((self.hide, maintainers.hide), (self.unhide, maintainers.unhide)):
            moderated = button.click(
                callback, [self.pick, self.unlocked], [self.hide_message, self.pick], api_visibility="private"
            )
            redraw.after(moderated)


def _lock_components(oauth: bool) -> tuple:
    """token, unlock, message."""
    with gr.Row():
        token = gr.Textbox(
            label="Admin token" + (" (or sign in with a maintainer account)" if oauth else ""),
            type="password",
            elem_id="admin-token",
        )
        unlock = gr.Button("Unlock", elem_id="admin-unlock", scale=0)
    how = "Sign in with a maintainer account or enter the admin token." if oauth else "Enter the admin token."
    message = gr.Markdown(
        "Maintainers rescore, hide or unhide submissions and see rejected uploads. " + how, elem_id="admin-msg"
    )
    return token, unlock, message


def _panel_components() -> tuple:
    """panel, gold, rescore, refresh, rescore_report, pick, hide, unhide, hide_message, rejected."""
    with gr.Column(visible=False, elem_id="admin-panel") as panel:
        gold = gr.Markdown(elem_id="gold-info")
        with gr.Row():
            rescore = gr.Button("Rescore all", variant="stop", elem_id="rescore-btn", scale=0)
            refresh = gr.Button("Refresh", size="sm", scale=0)
        rescore_report = gr.Markdown(elem_id="rescore-report")
        with gr.Row():
            pick = gr.Dropdown([], label="Submission", elem_id="hide-pick", scale=3)
            hide = gr.Button("Hide", elem_id="hide-btn", scale=0)
            unhide = gr.Button("Unhide", elem_id="unhide-btn", scale=0)
        hide_message = gr.Markdown(elem_id="hide-msg")
        rejected = gr.Dataframe(label="Rejected submissions", interactive=False, wrap=True, elem_id="rejected")
    return panel, gold, rescore, refresh, rescore_report, pick, hide, unhide, hide_message, rejected
