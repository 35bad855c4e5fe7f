"""The "My submissions" tab and its API: a team's own submissions, private ones included.

Every figure of each record (with intervals, per group in the detail), its status, visibility and
place on the board, the errors of rejected uploads; Publish (as the model's row, optionally
anonymous until a date) and Withdraw. The same callbacks serve scripts as ``/my_submissions``,
``/my_result``, ``/publish`` and ``/unpublish`` (docs/teams.md), with the identity of ``/submit``:
nobody sees or changes another team's private entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gradio as gr
import pandas as pd
from gradio.events import Dependency

from leaderboard.entries import Entry
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.benchmarks import get_benchmark
from submissions.answer import public_result
from ui import display
from ui.auth import Auth, request_token
from ui.contact import contact_markdown
from ui.describe import CorrectionPanel, Corrections, history_markdown
from ui.downloads import Downloads
from ui.failures import failures_html
from ui.page import SURVIVES_EVICTION
from ui.team_compare import TeamCompare, TeamComparePanel
from ui.unparsed import unparsed_cell, unparsed_markdown

SIGN_IN = "Sign in to see your submissions."


def figure_text(value: object, interval: object = None, decimals: int = 2) -> str:
    """``80.00 ± 3.57`` (the board's one interval format: half the interval its rounded bounds
    give, as leaderboard.table shows it), or the figure alone, or ``-``."""
    half = None
    if isinstance(interval, list | tuple) and len(interval) == 2 and not any(map(display.is_missing, interval)):
        half = (round(interval[1], decimals) - round(interval[0], decimals)) / 2
    return display.fmt_with_ci(value, half, decimals)


def metric_columns() -> dict[str, tuple[str, int]]:
    """Column header -> (metric name, decimals) for every metric any benchmark declares, once."""
    columns: dict[str, tuple[str, int]] = {}
    for bench in BENCHMARKS.values():
        for metric in bench.metrics:
            columns.setdefault(metric.abbrev, (metric.name, metric.decimals))
    return columns


GOLD_CHANGE = "gold change"
"""The column saying what the last gold correction did to an entry's figures (only when one did)."""


def entry_row(entry: Entry) -> dict:
    meta, result = entry.state.meta, entry.result
    declared = {m.name for m in get_benchmark(meta.benchmark).metrics}
    row = {
        "submitted": meta.submitted_at[:16].replace("T", " "),
        "benchmark": meta.benchmark,
        "model": meta.model,
        "team": meta.team,
        "visibility": entry.visibility + (" (anonymous)" if entry.state.anonymous else ""),
        "board": entry.where,
        "status": entry.status.value,
        "rank": entry.rank or "-",
        # what a gold correction did to it: "rescored on gold <version> (<date>): accuracy a -> b"
        GOLD_CHANGE: next((n.message for n in entry.notes if n.code == "rescored"), ""),
    }
    for header, (name, decimals) in metric_columns().items():
        known = result is not None and name in declared
        overall = result.overall if known else {}
        row[header] = figure_text(overall.get(name), overall.get(f"{name}_ci"), decimals) if known else ""
    row.update(box_format=meta.bbox_format, file=meta.filename, errors=len(entry.issues()), id=meta.id)
    return row


def empty_table() -> pd.DataFrame:
    """No rows under the table's own headers (a frame without columns showed Gradio's 1, 2, 3)."""
    return pd.DataFrame(columns=["submitted", "benchmark", "model", "team", "visibility", "board", "status", "id"])


def without_empty_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Only the metric columns some listed submission has: a K-Viscuit-only list has no mIoU
    column (empty columns shrank to one letter per line and pushed the rest out of view)."""
    empty = [c for c in (*metric_columns(), GOLD_CHANGE) if c in frame and (frame[c] == "").all()]
    return frame.drop(columns=empty)


def detail_markdown(entry: Entry) -> str:
    """One submission in full: form, visibility, every figure per group, the errors."""
    meta, bench = entry.state.meta, get_benchmark(entry.state.meta.benchmark)
    esc = display.escape_markdown
    lines = [
        f"### {esc(meta.model)} · {esc(meta.team)} · `{meta.id}`",
        f"**Status**: {entry.status.value} · **Visibility**: {entry.visibility}"
        + (f" (anonymous until {entry.state.reveal_date})" if entry.state.anonymous and entry.state.reveal_date else "")
        + (" (anonymous)" if entry.state.anonymous and not entry.state.reveal_date else "")
        + f" · **Board**: {esc(entry.where)}",
        f"**File**: {esc(meta.filename or '-')} · **Box format**: {meta.bbox_format} · "
        f"**Submitted** {meta.submitted_at[:19].replace('T', ' ')} UTC by {esc(meta.submitter)}",
    ]
    if entry.reason is not None:
        lines.append(f"**Why**: {esc(entry.reason.message)} (`{entry.reason.code}`)")
    lines += [f"**Read**: {esc(n.message)} (`{n.code}`)" for n in entry.notes]
    if entry.result is not None:
        lines.append(_figures_table(entry, bench))
    if corrected := history_markdown(entry.state):
        lines.append(corrected)
    for past in entry.to_api()["past_errors"]:
        lines.append(f"**Rejected** on gold `{past['gold']}` ({past['total']} error(s)):")
        lines += [
            f"- {esc(display.line_place(e['line'], e.get('file', '')))}: {esc(e['message'])}"
            if e["line"]
            else f"- {esc(e['message'])}"
            for e in past["errors"]
        ]
    return "\n\n".join(lines)


def _figures_table(entry: Entry, bench) -> str:
    record = entry.result.to_dict()
    head = "| group | questions | " + " | ".join(m.abbrev for m in bench.metrics) + " |"
    rows = [head, "|" + "---|" * (len(bench.metrics) + 2)]

    def line(label: str, stats: dict) -> str:
        figures = [figure_text(stats.get(m.name), stats.get(m.ci) if m.ci else None, m.decimals) for m in bench.metrics]
        return f"| {display.escape_markdown(label)} | {stats.get('questions', '-')} | " + " | ".join(figures) + " |"

    rows.append(line("overall", record["overall"]))
    for grouping in bench.groupings:
        for label, stats in (record.get(grouping.name) or {}).items():
            rows.append(line(f"{grouping.label}: {grouping.display.get(label, label)}", stats))
    return "\n".join(rows)


@dataclass(frozen=True, eq=False)
class MySubmissions:
    """The tab's callbacks and the API endpoints behind it."""

    leaderboard: Leaderboard
    auth: Auth
    downloads: Downloads = field(default_factory=Downloads)

    def show(self, request: gr.Request, profile: gr.OAuthProfile | None) -> tuple[str, pd.DataFrame]:
        identity = self.auth.identity(profile, request)
        if identity is None:
            return SIGN_IN, empty_table()
        entries = self.leaderboard.visibility.entries(identity)
        mine = sum(e.state.meta.submitter == identity.username for e in entries)
        text = f"{len(entries)} submission(s) by **{display.escape_markdown(identity.username)}**"
        text += "." if mine == len(entries) else f" and your teams ({mine} uploaded by you)."
        if not entries:
            return text, empty_table()
        return text, without_empty_columns(pd.DataFrame([entry_row(e) | self.unparsed(e) for e in entries]))

    def unparsed(self, entry: Entry) -> dict[str, str]:
        """The lines whose answer or grounding could not be read (line number and text; never the gold)."""
        counts = entry.result.counts if entry.result is not None else None
        counted = counts.get("unparsed", 0) + counts.get("grounding_unparsed", 0) if counts is not None else None
        return {"unparsed lines": unparsed_cell(self.leaderboard.submissions.unparsed_lines(entry.state), counted)}

    def choices(self, request: gr.Request, profile: gr.OAuthProfile | None) -> gr.Dropdown:
        identity = self.auth.identity(profile, request)
        entries = self.leaderboard.visibility.entries(identity) if identity else []
        labels = [(f"{e.state.meta.id} · {e.state.meta.model} · {e.visibility}", e.state.meta.id) for e in entries]
        return gr.Dropdown(choices=labels)

    def detail(self, submission_id: str | None, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        identity = self.auth.identity(profile, request)
        if identity is None:
            return SIGN_IN
        entry = self.leaderboard.visibility.entry(identity, submission_id or "")
        if entry is None:
            return "Choose one of your submissions."
        listed = self.leaderboard.submissions.unparsed_lines(entry.state)
        parts = [
            unparsed_markdown([(u.line, u.text, u.file) for u in listed if u.kind == kind], kind)
            for kind in ("answer", "grounding")
        ]
        return detail_markdown(entry) + "".join(f"\n\n{p}" for p in parts if p)

    def failures(self, submission_id: str | None, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        """Where the chosen submission fails (ui/failures.py): its groups worst first, from its figures
        as its team may see them (none while the Ladder withholds them) and the board's rows."""
        identity = self.auth.identity(profile, request)
        entry = self.leaderboard.visibility.entry(identity, submission_id or "") if identity else None
        if entry is None or entry.result is None:
            return ""
        bench = get_benchmark(entry.state.meta.benchmark)
        board = [r.figures for r in self.leaderboard.board(bench.id).rows]
        return failures_html(bench, public_result(entry.result), board)

    def change(
        self, submission_id: str | None, public: bool, anonymous: bool, reveal_date: str, request, profile
    ) -> str:
        """Publish or withdraw the chosen submission; the message says what was done or why not."""
        identity = self.auth.identity(profile, request)
        if identity is None:
            return SIGN_IN
        if not submission_id:
            return "Choose one of your submissions first."
        try:
            return self.leaderboard.visibility.set_visibility(
                identity, submission_id, public, bool(anonymous), reveal_date or ""
            )
        except (PermissionError, ValueError) as e:
            return str(e)

    def publish_button(
        self, sid: str | None, anonymous: bool, reveal: str, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> str:
        return self.change(sid, True, anonymous, reveal, request, profile)

    def withdraw_button(self, sid: str | None, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        return self.change(sid, False, False, "", request, profile)

    # ---- the model's Hub page (leaderboard.hub_results) ----
    def eval_results(
        self, sid: str | None, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> tuple[gr.DownloadButton, str]:
        """The chosen row's ``.eval_results`` file to download, or why it has none."""
        identity = self.auth.identity(profile, request)
        entry = self.leaderboard.visibility.entry(identity, sid or "") if identity else None
        if entry is None:
            return gr.DownloadButton(value=None, interactive=False), ""
        results = self.leaderboard.visibility.eval_results(entry.state.meta.benchmark, entry.state.meta.id, identity)
        if results.refusal:
            return gr.DownloadButton(value=None, interactive=False), f"For the model's Hub page: {results.refusal}."
        path = self.downloads.write(results.file_name, results.text.encode("utf-8"))
        where = f"`{results.model_repo}`" if results.model_repo else "your model repo (the row names none)"
        note = (
            f"For the model's Hub page: {len(results.entries)} figure(s) as the board shows them, "
            f"for `.eval_results/` in {where}."
        )
        return gr.DownloadButton(value=path, interactive=True), note

    def open_pr(
        self,
        sid: str | None,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        oauth_token: gr.OAuthToken | None = None,
    ) -> str:
        """Open the pull request adding the file to the row's model repo, with the owner's own token."""
        identity = self.auth.identity(profile, request)
        entry = self.leaderboard.visibility.entry(identity, sid or "") if identity else None
        if entry is None:
            return SIGN_IN if identity is None else "Choose one of your submissions first."
        token = request_token(request, oauth_token) if self.auth.oauth else ""
        pr = self.leaderboard.visibility.open_eval_results_pr(
            identity, token, entry.state.meta.benchmark, entry.state.meta.id
        )
        if not pr.opened:
            return f"No pull request: {pr.refusal}"
        if pr.community:
            return (
                "Pull request opened as a community submission (the Hub does not show your account as able to "
                f"write {entry.state.meta.info.get('model_repo', 'the model repo')}, so it does not say "
                f"'verified'): {pr.url}"
            )
        return f"Pull request opened: {pr.url}"

    # ---- the API (gr.api endpoints: typed parameters, the same identity as /submit) ----
    def expose_api(self) -> None:
        """Declare the endpoints; call outside ``gr.Tabs`` (a ``gr.Api`` among the tabs makes Gradio 6
        draw every later tab's button twice once it is clicked)."""
        gr.api(self.api_my_submissions, api_name="my_submissions")
        gr.api(self.api_my_result, api_name="my_result")
        gr.api(self.api_publish, api_name="publish")
        gr.api(self.api_unpublish, api_name="unpublish")
        gr.api(Corrections(self.leaderboard, self.auth).api_correct, api_name="correct")  # ui/describe.py

    def api_my_submissions(self, benchmark: str = "", request: gr.Request = None) -> list[dict]:
        """Every submission of yours and your teams' (newest first), private ones included, each
        with every figure of its result; ``benchmark`` ("" for all) narrows the list."""
        identity = self.auth.identity(None, request)
        if identity is None:
            raise gr.Error(SIGN_IN)
        return [e.to_api() for e in self.leaderboard.visibility.entries(identity, benchmark or None)]

    def api_my_result(self, submission_id: str, request: gr.Request = None) -> dict:
        """One submission of yours or your team's: status, visibility, rank, every figure, errors."""
        identity = self.auth.identity(None, request)
        entry = self.leaderboard.visibility.entry(identity, submission_id) if identity else None
        if entry is None:
            raise gr.Error(f"No submission {submission_id!r} of yours." if identity else SIGN_IN)
        return entry.to_api()

    def api_publish(
        self, submission_id: str, anonymous: bool = False, reveal_date: str = "", request: gr.Request = None
    ) -> dict:
        """Make a submission of your team public, as its model's board row."""
        return self._api_change(submission_id, True, anonymous, reveal_date, request)

    def api_unpublish(self, submission_id: str, request: gr.Request = None) -> dict:
        """Withdraw a submission of your team from the board (it stays scored and private)."""
        return self._api_change(submission_id, False, False, "", request)

    def _api_change(self, submission_id: str, public: bool, anonymous: bool, reveal: str, request) -> dict:
        identity = self.auth.identity(None, request)
        if identity is None:
            raise gr.Error(SIGN_IN)
        try:
            message = self.leaderboard.visibility.set_visibility(
                identity, submission_id, public, bool(anonymous), reveal or ""
            )
        except (PermissionError, ValueError) as e:
            raise gr.Error(str(e)) from None
        return {"message": message, **self.leaderboard.visibility.entry(identity, submission_id).to_api()}


@dataclass(frozen=True, eq=False)
class MineTab:
    """The tab's components."""

    tab: gr.Tab
    summary: gr.Markdown
    table: gr.Dataframe
    refresh: gr.Button
    pick: gr.Dropdown
    detail: gr.Markdown
    anonymous: gr.Checkbox
    reveal_date: gr.Textbox
    publish: gr.Button
    withdraw: gr.Button
    message: gr.Markdown
    hub: HubPageRow
    fails: gr.HTML
    correct: CorrectionPanel
    compare: TeamComparePanel

    @classmethod
    def mount(cls, mine: MySubmissions, after: Dependency) -> MineTab:
        """Listed when the tab opens, on Refresh, and after each submission (``after``)."""
        with gr.Tab("My submissions", id="tab-mine", elem_id="tab-mine") as tab:
            summary = gr.Markdown()
            table = gr.Dataframe(interactive=False, wrap=True, elem_id="mine-table")
            gr.Markdown(contact_markdown(mine.leaderboard.settings), elem_id="mine-contact")
            refresh = gr.Button("Refresh", size="sm")
            with gr.Row():
                pick = gr.Dropdown([], label="Submission", elem_id="mine-pick", scale=3, **SURVIVES_EVICTION)
                anonymous = gr.Checkbox(label="Anonymous", elem_id="mine-anonymous", scale=0)
                reveal_date = gr.Textbox(label="Reveal on (YYYY-MM-DD)", elem_id="mine-reveal", scale=1)
                publish = gr.Button("Publish as the model's row", variant="primary", elem_id="mine-publish", scale=0)
                withdraw = gr.Button("Withdraw (make private)", elem_id="mine-withdraw", scale=0)
            message = gr.Markdown(elem_id="mine-msg")
            fails = gr.HTML(elem_id="mine-fails")  # where it fails, first under the picker (ui/failures.py)
            correct = CorrectionPanel.mount()
            hub = HubPageRow.mount()
            detail = gr.Markdown(elem_id="mine-detail")
            compare = TeamComparePanel.mount()
        parts = (tab, summary, table, refresh, pick, detail, anonymous, reveal_date, publish, withdraw, message, hub)
        tab = cls(*parts, fails, correct, compare)
        tab._wire(mine, after)
        hub.wire(mine, pick)
        pick.change(mine.failures, pick, fails, api_visibility="private")
        correct.wire(Corrections(mine.leaderboard, mine.auth), pick)
        compare.wire(TeamCompare(mine.leaderboard, mine.auth), [tab.tab.select, tab.refresh.click])
        return tab

    def _wire(self, mine: MySubmissions, after: Dependency) -> None:
        for trigger in (self.tab.select, self.refresh.click, after.then):
            trigger(mine.show, None, [self.summary, self.table], api_visibility="private").then(
                mine.choices, None, self.pick, api_visibility="private"
            )
        self.pick.change(mine.detail, self.pick, self.detail, api_visibility="private")
        for changed in (
            self.publish.click(
                mine.publish_button,
                [self.pick, self.anonymous, self.reveal_date],
                self.message,
                api_visibility="private",
            ),
            self.withdraw.click(mine.withdraw_button, self.pick, self.message, api_visibility="private"),
        ):
            changed.then(mine.show, None, [self.summary, self.table], api_visibility="private").then(
                mine.detail, self.pick, self.detail, api_visibility="private"
            ).then(mine.choices, None, self.pick, api_visibility="private").then(
                mine.eval_results, self.pick, [self.hub.download, self.hub.note], api_visibility="private"
            )


@dataclass(frozen=True, eq=False)
class HubPageRow:
    """The chosen row on its model's Hub page: its ``.eval_results`` file, and a pull request."""

    download: gr.DownloadButton
    pull_request: gr.Button
    note: gr.Markdown

    @classmethod
    def mount(cls) -> HubPageRow:
        with gr.Row():
            download = gr.DownloadButton(
                "Download .eval_results file", interactive=False, elem_id="mine-eval-results", scale=0
            )
            pull_request = gr.Button("Open a pull request on the model repo", elem_id="mine-eval-pr", scale=0)
        return cls(download, pull_request, gr.Markdown(elem_id="mine-eval-note"))

    def wire(self, mine: MySubmissions, pick: gr.Dropdown) -> None:
        pick.change(mine.eval_results, pick, [self.download, self.note], api_visibility="private")
        self.pull_request.click(mine.open_pr, pick, self.note, api_visibility="private")
