"""The Maintainers tab: current gold, rescoring, hiding submissions, rejected uploads, probe flags
and the item analysis's suspect questions (ui/items.py).

It opens with the admin token, or for a signed-in maintainer account. Every callback checks
again, from the token field's value sent with it: a hidden panel or a session is not a permission.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import gradio as gr
import pandas as pd

from leaderboard.rescore_report import ReportLine, report_lines
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.errors import Issue
from store.records import HOLD_REASON
from submissions.probes import held_queue
from ui.auth import Auth
from ui.display import escape_markdown
from ui.items import ItemSuspects
from ui.page import SURVIVES_EVICTION
from ui.probes import ProbeFlags
from ui.throttle import Backoff, client_of, trusted

log = logging.getLogger(__name__)

REJECTED_COLUMNS = ["id", "benchmark", "model", "team", "submitter", "errors", "first errors"]
HELD_COLUMNS = ["id", "benchmark", "model", "team", "submitter", "held at", "by", "why"]


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
    gold = "### Current gold\n" + "\n".join(rows) + staged_markdown(leaderboard) + preview_markdown(leaderboard)
    return gold + "\n\n" + storage_markdown(leaderboard)


def preview_markdown(leaderboard: Leaderboard) -> str:
    """What switching to each staged gold would do, as ``gold add`` prints it (maintainers only:
    gold facts and every row's figures before -> after)."""
    blocks = []
    for bench in BENCHMARKS.values():
        shown = leaderboard.corrections.staged_preview(bench.id)  # kept, or computed off this render
        if shown is not None:
            body = "\n".join(line.replace("`", "'") for line in shown.text())
            blocks.append(f"```\n{body}\n```")
    return "\n\n### What the switch would do\n" + "\n".join(blocks) if blocks else ""


def staged_markdown(leaderboard: Leaderboard) -> str:
    """Golds waiting for the rescore that makes them current (the board shows the current one)."""
    lines = [
        f"- **{bench.id}**: `{info.version[:12]}` ({info.questions:,} questions, by {escape_markdown(info.added_by)}) "
        "is staged; the board switches to it once every submission is scored on it (Rescore all, or the "
        "background job within minutes)."
        for bench in BENCHMARKS.values()
        if (info := leaderboard.corrections.staged_gold(bench.id)) is not None
    ]
    return "\n\n### Staged gold\n" + "\n".join(lines) if lines else ""


def storage_markdown(leaderboard: Leaderboard) -> str:
    """Read-only storage health (as ``python -m leaderboard status``): sync, waiting and refused writes."""
    health = leaderboard.health()
    flag = "" if health.store.ok else " (needs attention)"
    body = "\n".join(line.replace("`", "'") for line in health.lines())
    return f"### Storage{flag}\n```\n{body}\n```"


def submission_choices(leaderboard: Leaderboard, benchmark: str | None = None) -> list[tuple[str, str]]:
    """(label, id) of every submission of ``benchmark`` (all: None), newest first, for the
    hide/unhide picker (per benchmark: one flat list had a maintainer hide the wrong one)."""
    states = sorted(leaderboard.catalog.all(benchmark), key=lambda s: s.meta.submitted_at, reverse=True)
    return [
        (f"{s.meta.id} · {s.meta.benchmark} · {s.meta.model} · {s.meta.team}" + _flag(s), s.meta.id) for s in states
    ]


def _flag(state) -> str:
    if state.held:
        return " · HELD for review"
    return " · HIDDEN" if state.hidden else ""


def held_frame(leaderboard: Leaderboard) -> pd.DataFrame:
    """The held queue, oldest hold first (``python -m leaderboard held``): release with Unhide,
    or Hide with a reason the team is shown."""
    rows = [
        [
            s.meta.id,
            s.meta.benchmark,
            s.meta.model,
            s.meta.team,
            s.meta.submitter,
            s.moderation.at[:16].replace("T", " "),
            s.moderation.by,
            s.moderation.reason.removeprefix(HOLD_REASON).strip(),
        ]
        for s in held_queue(leaderboard.catalog.all())
    ]
    return pd.DataFrame(rows, columns=HELD_COLUMNS)


def first_errors(issues: Sequence[Issue]) -> str:
    return "; ".join(f"line {i.line}: {i.message}" if i.line else i.message for i in issues[:5])


def rejected_frame(leaderboard: Leaderboard) -> pd.DataFrame:
    rows = []
    for bench in BENCHMARKS.values():
        info = leaderboard.gold_info(bench.id)
        for state in leaderboard.corrections.rejected(bench.id):
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
    """The CLI's report (leaderboard.rescore_report) as Markdown: a benchmark's outcome, then
    bullets; names escaped, a gold version as a short code span."""
    lines = report_lines(report, name=escape_markdown, version=lambda v: f"`{v[:12]}`")
    return "### Rescore report\n" + "\n".join(map(_markdown_line, lines))


def _markdown_line(line: ReportLine) -> str:
    """A benchmark's outcome is a paragraph; what followed, a bullet; a rank change, a bullet under it."""
    return f"\n{line.text}" if line.depth == 0 else "  " * (line.depth - 1) + f"- {line.text}"


def rescore_plan(leaderboard: Leaderboard) -> str:
    """What Rescore all will do, a line per benchmark with a gold: the browser's confirmation
    shows it, and the click carries it back, so a gold staged or switched since the tab was
    drawn is not rescored on a confirmation of another plan."""
    lines = []
    for bench in BENCHMARKS.values():
        current, staged = leaderboard.gold_info(bench.id), leaderboard.corrections.staged_gold(bench.id)
        if current is None:
            continue
        if staged is not None:
            lines.append(
                f"{bench.id}: on the staged gold {staged.version[:12]}, then the board switches to it "
                f"from {current.version[:12]}"
            )
            shown = leaderboard.corrections.staged_preview(bench.id)
            if shown is not None:  # the confirmation says what the switch does, rows that would leave first
                lines.append(
                    f"  the switch: {shown.summary}" if shown.ready else "  the switch: its preview is being computed"
                )
        else:
            lines.append(f"{bench.id}: on its current gold {current.version[:12]} (nothing is staged)")
    return "\n".join(lines) or "no benchmark has a gold yet: nothing to rescore"


@dataclass(frozen=True, eq=False)
class Maintainers:
    """The tab's callbacks. Every one checks the caller again: the admin token typed in the tab
    (sent with each action, never remembered by the session) or a maintainer account. Wrong
    tokens are logged (without the token) and slow the next tries down (:mod:`ui.throttle`)."""

    leaderboard: Leaderboard
    auth: Auth
    backoff: Backoff = field(default_factory=Backoff)

    def check(self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None) -> str:
        """ "" if the caller may act, else why not."""
        if self.auth.is_maintainer(profile, request):
            return ""
        if not token:
            return "Maintainers only: enter the admin token" + (
                " or sign in with a maintainer account." if self.auth.oauth else "."
            )
        client = client_of(request, trusted(self.auth.settings.trusted_proxies))
        wait = self.backoff.wait_seconds(client)
        if wait > 0:
            log.warning("admin token try from %s refused: backing off %.0f s", client, wait)
            return f"Too many wrong admin tokens: try again in {math.ceil(wait)} s."
        if self.auth.admin_token_matches(token):
            self.backoff.succeeded(client)
            return ""
        tries = self.backoff.failed(client)
        log.warning("wrong admin token from %s (%d in a row)", client, tries)
        return "Wrong token (or not a maintainer)."

    def unlock(
        self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None, benchmark: str = ""
    ) -> tuple:
        refused = self.check(token, profile, request)
        msg = refused or "Unlocked: each action checks the token again."
        ok = not refused
        return gr.Column(visible=ok), msg, *(self._view(benchmark) if ok else [gr.skip()] * VIEW_OUTPUTS)

    def view(
        self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None, benchmark: str = ""
    ) -> tuple:
        """Current gold, the submission picker (of ``benchmark``'s submissions: the first by
        default), the rejected uploads, the held queue and the rescore plan."""
        if self.check(token, profile, request):
            return (gr.skip(),) * VIEW_OUTPUTS
        return self._view(benchmark)

    def _view(self, benchmark: str = "") -> tuple:
        lb = self.leaderboard
        picker = gr.Dropdown(choices=submission_choices(lb, benchmark or next(iter(BENCHMARKS))))  # one benchmark's
        return gold_markdown(lb), picker, rejected_frame(lb), held_frame(lb), rescore_plan(lb)

    def rescore(
        self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None, progress=gr.Progress()
    ) -> str:
        self._require(token, profile, request)
        progress(0.05, desc="Rescoring every submission on the staged (else current) gold")
        return rescore_markdown(
            self.leaderboard.corrections.rescore(on_progress=lambda share, what: progress(share, desc=what))
        )

    def rescore_if_confirmed(
        self,
        token: str,
        confirmed: str,
        plan: str,
        profile: gr.OAuthProfile | None,
        request: gr.Request | None = None,
        progress=gr.Progress(),
    ) -> str:
        """ "Rescore all" after the browser's confirmation (``CONFIRM_RESCORE_JS``) of ``plan``: it can
        take minutes. ``confirmed`` comes through a Textbox, which turns a JS ``false`` into the
        truthy "False": only the exact word :data:`CONFIRMED` starts it, and only if ``plan`` is
        still :func:`rescore_plan`."""
        if confirmed != CONFIRMED:
            return "Rescore cancelled."
        self._require(token, profile, request)
        now = rescore_plan(self.leaderboard)
        if plan != now:
            lines = "\n".join(f"- {line}" for line in now.splitlines())
            return (
                "Nothing was rescored: the gold changed since this tab showed it. Rescore all would now "
                f"run:\n\n{lines}\n\nPress Rescore all again to confirm that."
            )
        return self.rescore(token, profile, request, progress)

    def hide(
        self, sid: str, reason: str, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None
    ) -> tuple:
        return self._set_hidden(sid, True, reason, token, profile, request)

    def unhide(
        self, sid: str, reason: str, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None
    ) -> tuple:
        return self._set_hidden(sid, False, "", token, profile, request)

    def pick_benchmark(
        self, benchmark: str, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None
    ) -> gr.Dropdown:
        """The picker's submissions of one benchmark (the one the maintainer chose)."""
        self._require(token, profile, request)
        return gr.Dropdown(choices=submission_choices(self.leaderboard, benchmark or None), value=None)

    def describe(self, sid: str, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None) -> str:
        """What is picked, in words: Hide's confirmation quotes it."""
        self._require(token, profile, request)
        state = self.leaderboard.catalog.get(sid) if sid else None
        if state is None:
            return ""
        meta = state.meta
        return (
            f"Picked: `{meta.id}` · {meta.benchmark} · {escape_markdown(meta.model)} · "
            f"{escape_markdown(meta.team)}{_flag(state)}"
        )

    def _set_hidden(
        self, sid: str, hidden: bool, reason: str, token: str, profile: gr.OAuthProfile | None, request
    ) -> tuple:
        self._require(token, profile, request)
        if reason == HIDE_CANCELLED:  # still picked: the next confirmation quotes it again
            return (
                f"Nothing was hidden (cancelled). {self.describe(sid, token, profile, request)}",
                gr.skip(),
                gr.skip(),
            )
        if not sid:
            return "Choose a submission first.", gr.skip(), gr.skip()
        state = self.leaderboard.catalog.get(sid)
        was_held = state is not None and state.held
        by = profile.username if profile is not None else "admin-token"
        done = self.leaderboard.moderation.set_hidden(sid, hidden, by, reason or "")
        if not done:
            msg = f"Unknown submission `{escape_markdown(sid)}`."
        elif hidden:
            why = (
                f" The team is shown your reason: {escape_markdown(reason.strip())}"
                if reason.strip()
                else " No reason given: the team is told none was given."
            )
            msg = f"Hidden: `{sid}`.{why}"
        else:
            msg = f"{'Released' if was_held else 'Unhidden'}: `{sid}`."
        bench = state.meta.benchmark if state is not None else None
        return (
            msg,
            gr.Dropdown(choices=submission_choices(self.leaderboard, bench), value=sid),
            held_frame(self.leaderboard),
        )

    def _require(self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None) -> None:
        refused = self.check(token, profile, request)
        if refused:
            raise gr.Error(refused)


@dataclass(frozen=True, eq=False)
class AdminTab:
    """The tab's components (the panel stays hidden until unlocked)."""

    token: gr.Textbox
    unlock: gr.Button
    message: gr.Markdown
    panel: gr.Column
    gold: gr.Markdown
    rescore: gr.Button
    refresh: gr.Button
    rescore_report: gr.Markdown
    pick: gr.Dropdown
    reason: gr.Textbox
    hide: gr.Button
    unhide: gr.Button
    hide_message: gr.Markdown
    held: gr.Dataframe
    rejected: gr.Dataframe
    plan: gr.Textbox  # what Rescore all will do (rescore_plan): the confirmation shows it
    pick_bench: gr.Radio  # the picker lists one benchmark's submissions

    @property
    def view(self) -> list:
        return [self.gold, self.pick, self.rejected, self.held, self.plan]

    @classmethod
    def mount(cls, maintainers: Maintainers) -> AdminTab:
        with gr.Tab("Maintainers", id="tab-admin", elem_id="tab-admin"):
            tab = cls(*_lock_components(maintainers.auth.oauth), *_panel_components())
            with tab.panel:  # read-only probe flags (ui/probes.py, docs/integrity.md)
                ProbeFlags(maintainers.leaderboard, maintainers.check).mount(tab.token)
                ItemSuspects.of(maintainers.leaderboard, maintainers.check).mount(tab.token)
        tab._wire(maintainers)
        return tab

    def _wire(self, maintainers: Maintainers) -> None:
        """Each action sends the token field along: the server checks it every time."""
        for trigger in (self.unlock.click, self.token.submit):
            trigger(
                maintainers.unlock,
                [self.token, self.pick_bench],
                [self.panel, self.message, *self.view],
                api_visibility="private",
            )
        self.refresh.click(maintainers.view, [self.token, self.pick_bench], self.view, api_visibility="private")
        self.rescore.click(
            maintainers.rescore_if_confirmed,
            [self.token, self.plan, self.plan],
            self.rescore_report,
            js=CONFIRM_RESCORE_JS,
            api_visibility="private",
        ).then(maintainers.view, [self.token, self.pick_bench], self.view, api_visibility="private")
        self.pick_bench.change(
            maintainers.pick_benchmark, [self.pick_bench, self.token], self.pick, api_visibility="private"
        )
        self.pick.change(maintainers.describe, [self.pick, self.token], self.hide_message, api_visibility="private")
        for button, callback, js in (
            (self.hide, maintainers.hide, CONFIRM_HIDE_JS),
            (self.unhide, maintainers.unhide, None),
        ):
            button.click(
                callback,
                [self.pick, self.reason, self.token],
                [self.hide_message, self.pick, self.held],
                js=js,
                api_visibility="private",
            )


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


VIEW_OUTPUTS = 5
HIDE_CANCELLED = "\x00cancelled"
"""The reason Hide's confirmation sends when the maintainer cancels (no one types a NUL)."""
CONFIRM_HIDE_JS = f"""(sid, reason, token) => (sid && !window.confirm(
  "Hide this submission from the public board?\\n\\n"
  + (document.querySelector("#hide-msg")?.innerText || sid)
  + "\\n\\nThe team is shown your reason."))
  ? [sid, "{HIDE_CANCELLED.encode("unicode_escape").decode()}", token] : [sid, reason, token]"""
CONFIRMED = "confirmed"
CONFIRM_RESCORE_JS = f"""(token, _, plan) => [token, window.confirm(
  "Rescore every submission?\\n\\n" + plan
  + "\\n\\nThis can take minutes and may change public ranks.")
  ? "{CONFIRMED}" : "", plan]"""


def _panel_components() -> tuple:
    """panel, gold, rescore, refresh, rescore_report, pick, reason, hide, unhide, hide_message, held, rejected, plan,
    pick_bench."""
    with gr.Column(visible=False, elem_id="admin-panel") as panel:
        gold = gr.Markdown(elem_id="gold-info")
        with gr.Row():
            rescore = gr.Button("Rescore all", variant="stop", elem_id="rescore-btn", scale=0)
            refresh = gr.Button("Refresh", size="sm", scale=0)
        rescore_report = gr.Markdown(elem_id="rescore-report")
        with gr.Row():
            pick_bench = gr.Radio(
                list(BENCHMARKS), value=next(iter(BENCHMARKS)), label="Benchmark", elem_id="hide-bench", scale=1
            )
            pick = gr.Dropdown([], label="Submission", elem_id="hide-pick", scale=3, **SURVIVES_EVICTION)
            reason = gr.Textbox(label="Reason (shown to the team)", elem_id="hide-reason", scale=2)
            hide = gr.Button("Hide", elem_id="hide-btn", scale=0)
            unhide = gr.Button("Unhide / release", elem_id="unhide-btn", scale=0)
        hide_message = gr.Markdown(elem_id="hide-msg")
        held = gr.Dataframe(
            label="Held for review (release: pick it and Unhide / release; or Hide with a reason)",
            headers=HELD_COLUMNS,
            interactive=False,
            wrap=True,
            elem_id="held-queue",
        )
        rejected = gr.Dataframe(label="Rejected submissions", interactive=False, wrap=True, elem_id="rejected")
        plan = gr.Textbox(visible="hidden", elem_id="rescore-plan")  # in the page: the confirmation reads it
    return (
        panel,
        gold,
        rescore,
        refresh,
        rescore_report,
        pick,
        reason,
        hide,
        unhide,
        hide_message,
        held,
        rejected,
        plan,
        pick_bench,
    )
