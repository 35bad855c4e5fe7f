"""The leaderboard's web app (a Hugging Face Space runs this file).

A thin Gradio shell over :class:`leaderboard.service.Leaderboard`: callbacks read the
inputs, call the facade and hand the result to :mod:`ui.display` for rendering.
``build_app(leaderboard)`` builds the Blocks (tests use it); ``main()`` adds the background
jobs and launches. Run locally with ``python app.py`` (http://127.0.0.1:7860).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

import gradio as gr
import pandas as pd

from leaderboard.baselines import source_note
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from leaderboard.table import to_csv_bytes, to_parquet_bytes, views
from scoring import BENCHMARKS
from scoring.benchmarks import get_benchmark
from scoring.geometry import BOX_FORMATS
from submissions.answer import SubmitAnswer
from submissions.records import MODEL_TYPES, Identity, SubmissionForm
from ui import display

log = logging.getLogger("leaderboard.app")

SYSTEM_FONTS = ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "sans-serif"]
MONO_FONTS = ["ui-monospace", "SFMono-Regular", "Menlo", "monospace"]
CSS = """
.group-legend {font-size: 0.85em; margin: 2px 0 6px;}
.group-chip {display: inline-block; padding: 1px 8px; margin: 2px 4px 2px 0; border-radius: 10px;}
.heatmap-wrap {overflow-x: auto;}
table.heatmap {border-collapse: collapse; font-size: 0.85em; min-width: 50%;}
table.heatmap th, table.heatmap td {padding: 3px 8px; border: 1px solid rgba(128,128,128,0.25); text-align: center;}
table.heatmap td {color: #1f2937;}
table.heatmap th.model {text-align: left; font-weight: 500; white-space: nowrap;}
table.heatmap caption {font-weight: 600; text-align: left; padding: 4px 0;}
.paper-tag {font-size: 0.75em; opacity: 0.7; font-style: italic;}
.empty-note {opacity: 0.75; font-style: italic;}
.identity {font-size: 0.95em;}
"""


def oauth_enabled() -> bool:
    """OAuth (``gr.LoginButton``) only on a Space or when asked: offline it would crash."""
    return bool(os.environ.get("SPACE_ID")) or os.environ.get("LEADERBOARD_OAUTH", "") == "1"


# --------------------------------------------------------------------------- identity


_TOKEN_CACHE: dict[str, tuple[float, str | None]] = {}


def _bearer_user(request: gr.Request | None) -> str | None:
    """On a Space, an API client may identify with its HF token (Authorization: Bearer);
    the Hub says whose it is (cached ten minutes). Never a name typed by the caller."""
    header = (request.headers.get("authorization", "") if request is not None else "") or ""
    if not header.lower().startswith("bearer "):
        return None
    token = header[7:].strip()
    key = hashlib.sha256(token.encode()).hexdigest()
    cached = _TOKEN_CACHE.get(key)
    if cached and time.time() - cached[0] < 600:
        return cached[1]
    try:
        from huggingface_hub import whoami

        name = whoami(token=token).get("name")
    except Exception:  # an invalid token is simply not an identity
        name = None
    _TOKEN_CACHE[key] = (time.time(), name)
    return name


def identity_of(lb: Leaderboard, profile: gr.OAuthProfile | None, request: gr.Request | None) -> Identity | None:
    """Who is acting: the signed-in HF user on a Space, else the configured local identity."""
    if not oauth_enabled():
        return Identity(lb.settings.local_user, source="local")
    name = profile.username if profile is not None else _bearer_user(request)
    if not name:
        return None
    return Identity(name, is_maintainer=name in lb.settings.maintainers, source="huggingface")


def identity_text(lb: Leaderboard, profile: gr.OAuthProfile | None = None) -> str:
    if not oauth_enabled():
        return (
            f"Signed in locally as **{display.escape_markdown(lb.settings.local_user)}** "
            "(local identity, `LEADERBOARD_LOCAL_USER`)."
        )
    if profile is None:
        return "Not signed in: sign in with Hugging Face to submit."
    return f"Signed in with Hugging Face as **{display.escape_markdown(profile.username)}**."


# --------------------------------------------------------------------------- files


class Files:
    """Downloads written under one temp folder, named by content so sessions never clash."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="leaderboard-files-"))

    def write(self, name: str, data: bytes) -> str:
        folder = self.root / hashlib.sha256(data).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if not path.exists():
            path.write_bytes(data)
        return str(path)


# --------------------------------------------------------------------------- the app


def build_app(lb: Leaderboard) -> gr.Blocks:
    files = Files()
    oauth = oauth_enabled()
    type_choices = [(label, key) for key, label in MODEL_TYPES.items()]
    bench_choices = [(b.name, b.id) for b in BENCHMARKS.values()]

    # ---- browse ----
    def board_state(bench_id: str) -> str:
        """Changes whenever the rows could: a new record in the store or a new gold."""
        info = lb.gold_info(bench_id)
        return f"{lb.catalog.generation}:{info.version if info else ''}"

    rendered: OrderedDict[tuple, tuple] = OrderedDict()  # the last renderings, shared by all visitors
    rendered_lock = threading.Lock()

    def board_parts(bench_id: str, view: str, types: list[str], sources: list[str], query: str) -> tuple:
        key = (
            bench_id,
            view,
            tuple(sorted(types or [])),
            tuple(sorted(sources or [])),
            query or "",
            board_state(bench_id),
        )
        with rendered_lock:
            if key in rendered:
                rendered.move_to_end(key)
                return rendered[key]
        parts = render_board(bench_id, view, types, sources, query)
        with rendered_lock:
            rendered[key] = parts
            while len(rendered) > 64:
                rendered.popitem(last=False)
        return parts

    def render_board(bench_id: str, view: str, types: list[str], sources: list[str], query: str) -> tuple:
        bench = get_benchmark(bench_id)
        full = lb.table(bench_id, view)
        shown = display.filter_frame(full, types, sources, query)
        info = lb.gold_info(bench_id)
        note = (
            ""
            if info
            else (
                f"\n\n**No gold is loaded for {bench.name} yet**: only the papers' published rows are shown and "
                "submissions open once a maintainer adds the gold (`python -m leaderboard gold add`)."
            )
        )
        if full.empty:
            note += "\n\nNo rows yet: be the first to submit (Submit tab)."
        elif shown.empty:
            note += "\n\nNo rows match these filters."
        summary = display.summary_text(len(full), len(shown), info.questions if info else None) + note
        plot_rows = display.filter_frame(lb.table(bench_id, "all"), types, sources, query)
        stem = f"{bench_id}-{view}"
        legend = display.group_legend_html(bench, view) + display.group_css(bench, view, f"{bench_id}-table")
        plots = []
        if bench.grounding:
            plots.append(display.scatter_frame(plot_rows))
        for grouping in bench.groupings[1:] if bench.grounding else bench.groupings:
            plots.append(
                display.heatmap_html(plot_rows, bench, grouping.name, title=f"Accuracy by {grouping.label.lower()}")
            )
        return (
            display.table_value(shown, bench, view),
            display.datatypes(bench, view),
            legend,
            summary,
            files.write(f"{stem}.csv", to_csv_bytes(shown)),
            files.write(f"{stem}.parquet", to_parquet_bytes(shown)),
            plots,
        )

    def board_outputs(bench_id: str, view: str, types: list[str], sources: list[str], query: str):
        value, types_, legend, summary, csv, parquet, plots = board_parts(bench_id, view, types, sources, query)
        return [gr.Dataframe(value=value, datatype=types_), legend, summary, csv, parquet, *plots]

    def fingerprint(bench_id: str) -> str:
        return board_state(bench_id)

    boards: dict[str, dict] = {}

    with gr.Blocks(title="Cultural VLM Leaderboard", fill_width=True) as demo:
        gr.Markdown(
            "# Cultural vision-language leaderboard\n"
            "Seeing Culture Benchmark (SCB: pick the right image of four, then ground the cultural artifact) "
            "and K-Viscuit (Korean culture, multiple choice). Rows marked *reported in paper* are the "
            "papers' published figures, not scored here."
        )
        with gr.Row():
            if oauth:
                gr.LoginButton(scale=0)
            identity_md = gr.Markdown(identity_text(lb), elem_classes="identity", elem_id="identity")
        timer = gr.Timer(lb.settings.refresh_seconds)

        with gr.Tabs(elem_id="main-tabs"):
            for bench in BENCHMARKS.values():
                with gr.Tab(bench.name, id=f"tab-{bench.id}", elem_id=f"tab-{bench.id}") as bench_tab:
                    boards[bench.id] = _board_tab(bench)
                boards[bench.id]["tab"] = bench_tab

            # ---- submit ----
            with gr.Tab("Submit", id="tab-submit", elem_id="tab-submit"), gr.Row():
                with gr.Column(scale=3):
                    sub_bench = gr.Dropdown(bench_choices, value="scb", label="Benchmark", elem_id="sub-bench")
                    sub_file = gr.File(label="Predictions (JSONL)", type="filepath", elem_id="sub-file")
                    with gr.Row():
                        sub_model = gr.Textbox(label="Model name", max_length=100, elem_id="sub-model")
                        sub_team = gr.Textbox(label="Team", max_length=100, elem_id="sub-team")
                    with gr.Row():
                        sub_type = gr.Radio(type_choices, value="open", label="Model type", elem_id="sub-type")
                        sub_fmt = gr.Dropdown(
                            [(f"{k}: {v}", k) for k, v in BOX_FORMATS.items()],
                            value="xyxy",
                            label="Box format (SCB grounding; lines may override with bbox_format)",
                            elem_id="sub-fmt",
                        )
                    with gr.Row():
                        sub_paper = gr.Textbox(label="Paper URL (optional, http/https)", elem_id="sub-paper")
                        sub_code = gr.Textbox(label="Code URL (optional, http/https)", elem_id="sub-code")
                    sub_desc = gr.Textbox(label="Description (optional)", lines=2, max_length=1000)
                    sub_btn = gr.Button("Validate and score", variant="primary", elem_id="sub-btn")
                with gr.Column(scale=2):
                    quota_md = gr.Markdown(elem_id="quota")
                    result_md = gr.Markdown(
                        "Upload a file to see its aggregate result and rank here.", elem_id="sub-result"
                    )
                    errors_df = gr.Dataframe(
                        label="Errors (line numbers refer to your file)",
                        visible=False,
                        interactive=False,
                        wrap=True,
                        column_widths=["70px", "110px", "180px", "auto"],
                        elem_id="sub-errors",
                    )
                    answer_json = gr.JSON(visible=False)

            # ---- my submissions ----
            with gr.Tab("My submissions", id="tab-mine", elem_id="tab-mine") as mine_tab:
                mine_md = gr.Markdown()
                mine_df = gr.Dataframe(interactive=False, wrap=True, elem_id="mine-table")
                mine_btn = gr.Button("Refresh", size="sm")

            # ---- about ----
            with gr.Tab("About", id="tab-about", elem_id="tab-about") as about_tab:
                gr.Markdown(about_markdown(), elem_id="about")
                about_files = []
                for bench in BENCHMARKS.values():
                    with gr.Row():
                        about_files.append(gr.DownloadButton(f"{bench.id}: example submission", size="sm"))
                        about_files.append(gr.DownloadButton(f"{bench.id}: public question list", size="sm"))

            # ---- maintainers ----
            with gr.Tab("Maintainers", id="tab-admin", elem_id="tab-admin"):
                admin_ok = gr.State(False)
                with gr.Row():
                    admin_token = gr.Textbox(
                        label="Admin token" + (" (or sign in with a maintainer account)" if oauth else ""),
                        type="password",
                        elem_id="admin-token",
                    )
                    admin_unlock = gr.Button("Unlock", elem_id="admin-unlock", scale=0)
                admin_msg = gr.Markdown(
                    "Maintainers rescore, hide or unhide submissions and see rejected uploads. "
                    + (
                        "Sign in with a maintainer account or enter the admin token."
                        if oauth
                        else "Enter the admin token."
                    ),
                    elem_id="admin-msg",
                )
                with gr.Column(visible=False, elem_id="admin-panel") as admin_panel:
                    gold_md = gr.Markdown(elem_id="gold-info")
                    with gr.Row():
                        rescore_btn = gr.Button("Rescore all", variant="stop", elem_id="rescore-btn", scale=0)
                        admin_refresh = gr.Button("Refresh", size="sm", scale=0)
                    rescore_md = gr.Markdown(elem_id="rescore-report")
                    with gr.Row():
                        hide_pick = gr.Dropdown([], label="Submission", elem_id="hide-pick", scale=3)
                        hide_btn = gr.Button("Hide", elem_id="hide-btn", scale=0)
                        unhide_btn = gr.Button("Unhide", elem_id="unhide-btn", scale=0)
                    hide_md = gr.Markdown(elem_id="hide-msg")
                    rejected_df = gr.Dataframe(
                        label="Rejected submissions", interactive=False, wrap=True, elem_id="rejected"
                    )

        # ------------------------------------------------------------------ events
        def board_inputs(b):
            return [b["view"], b["types"], b["sources"], b["query"]]

        for bench_id, b in boards.items():

            def render(view, types, sources, query, _bench=bench_id):
                return board_outputs(_bench, view, types, sources, query)

            render.__name__ = f"render_{bench_id}"
            for control in (b["view"], b["types"], b["sources"]):
                control.change(render, board_inputs(b), b["outputs"], api_visibility="private")
            b["query"].submit(render, board_inputs(b), b["outputs"], api_visibility="private")
            b["search"].click(render, board_inputs(b), b["outputs"], api_visibility="private")

            def manual_refresh(view, types, sources, query, _bench=bench_id):
                lb.refresh()
                return [fingerprint(_bench), *board_outputs(_bench, view, types, sources, query)]

            b["refresh"].click(manual_refresh, board_inputs(b), [b["fp"], *b["outputs"]], api_visibility="private")
            # The first board renders with the page; the others when their tab is opened.
            opened = demo.load if bench_id == next(iter(BENCHMARKS)) else b["tab"].select
            opened(
                lambda *a, _bench=bench_id: [fingerprint(_bench), *board_outputs(_bench, *a)],
                board_inputs(b),
                [b["fp"], *b["outputs"]],
                api_visibility="private",
            )

            def tick(fp, view, types, sources, query, _bench=bench_id, _n=len(b["outputs"])):
                now = fingerprint(_bench)  # the scheduler refreshes the store; redraw only on change
                if now == fp:
                    return [gr.skip()] * (_n + 1)
                return [now, *board_outputs(_bench, view, types, sources, query)]

            timer.tick(
                tick,
                [b["fp"], *board_inputs(b)],
                [b["fp"], *b["outputs"]],
                api_visibility="private",
                show_progress="hidden",
            )

        # ---- submit (the same function serves the button and the API) ----
        def submit(
            benchmark: str,
            file: str | None,
            model: str,
            team: str,
            model_type: str,
            bbox_format: str,
            paper_url: str,
            code_url: str,
            description: str,
            request: gr.Request,
            profile: gr.OAuthProfile | None,
            progress=gr.Progress(),
        ) -> dict:
            """Validate and score one predictions file; returns the aggregate result, the new rank
            or the line-numbered errors, and the quota left. Same identity and quota as the web form."""
            identity = identity_of(lb, profile, request)
            if identity is None:
                return SubmitAnswer.refused("Sign in with Hugging Face to submit.").to_api()
            if not file:
                quota = lb.quota(identity, benchmark) if benchmark in BENCHMARKS else None
                return SubmitAnswer.refused("Choose a predictions file.", quota=quota).to_api()
            form = SubmissionForm(
                model=model, team=team, model_type=model_type or "", paper_url=paper_url or "",
                code_url=code_url or "", description=description or "", bbox_format=bbox_format or "xyxy",
            )  # fmt: skip
            progress(0.0, desc="Uploading")
            answer = lb.submit(benchmark, Path(file), form, identity, Path(file).name, lambda f, m: progress(f, desc=m))
            return answer.to_api()

        def quota_text(text: str) -> str:
            return f"**Quota**: {display.escape_markdown(text)}" if text else ""

        def show_answer(answer: dict, benchmark: str):
            bench = get_benchmark(benchmark) if benchmark in BENCHMARKS else None
            errors = display.errors_frame(answer)
            return (
                display.result_markdown(answer, bench),
                gr.Dataframe(value=errors, visible=not errors.empty),
                quota_text(answer.get("quota") or ""),
            )

        sub_inputs = [sub_bench, sub_file, sub_model, sub_team, sub_type, sub_fmt, sub_paper, sub_code, sub_desc]
        event = sub_btn.click(
            submit, sub_inputs, answer_json, api_name="submit", show_progress_on=[result_md], concurrency_limit=4
        ).then(show_answer, [answer_json, sub_bench], [result_md, errors_df, quota_md], api_visibility="private")
        for bench_id, b in boards.items():
            event = event.then(
                lambda *a, _bench=bench_id: [fingerprint(_bench), *board_outputs(_bench, *a)],
                board_inputs(b),
                [b["fp"], *b["outputs"]],
                api_visibility="private",
            )

        def quota_for(benchmark: str, request: gr.Request, profile: gr.OAuthProfile | None):
            identity = identity_of(lb, profile, request)
            if identity is None:
                return "**Quota**: sign in to see your daily quota."
            return quota_text(lb.quota(identity, benchmark).message())

        sub_bench.change(quota_for, sub_bench, quota_md, api_visibility="private")
        demo.load(quota_for, sub_bench, quota_md, api_visibility="private")

        def who(profile: gr.OAuthProfile | None) -> str:
            return identity_text(lb, profile)

        demo.load(who, None, identity_md, api_visibility="private")

        # ---- my submissions ----
        def my_submissions(request: gr.Request, profile: gr.OAuthProfile | None):
            identity = identity_of(lb, profile, request)
            if identity is None:
                return "Sign in to see your submissions.", pd.DataFrame()
            rows = []
            for state in sorted(lb.submissions_of(identity), key=lambda s: s.meta.submitted_at, reverse=True):
                info = lb.gold_info(state.meta.benchmark)
                result = state.latest_result(info.version) if info else None
                status = lb.status(state)
                rows.append(
                    {
                        "submitted": state.meta.submitted_at[:16].replace("T", " "),
                        "benchmark": state.meta.benchmark,
                        "model": state.meta.model,
                        "team": state.meta.team,
                        "status": status.value + (" (hidden)" if state.hidden else ""),
                        "accuracy": display.fmt_number(result.overall.get("acc") if result else None),
                        "rank": lb.rank_of(state.meta.benchmark, state.meta.id) or "-",
                        "id": state.meta.id,
                    }
                )
            text = f"{len(rows)} submission(s) by **{display.escape_markdown(identity.username)}**."
            return text, pd.DataFrame(rows)

        for trigger in (mine_tab.select, mine_btn.click):
            trigger(my_submissions, None, [mine_md, mine_df], api_visibility="private")
        event.then(my_submissions, None, [mine_md, mine_df], api_visibility="private")

        # ---- about downloads ----
        def about_downloads():
            out = []
            for bench in BENCHMARKS.values():
                questions = lb.public_questions(bench.id)
                out.append(
                    files.write(f"{bench.id}-example-submission.jsonl", display.example_submission(bench, questions))
                )
                out.append(
                    gr.DownloadButton(value=files.write(f"{bench.id}-questions.jsonl", questions), interactive=True)
                    if questions
                    else gr.DownloadButton(value=None, interactive=False, label=f"{bench.id}: no question list yet")
                )
            return out

        about_tab.select(about_downloads, None, about_files, api_visibility="private")

        # ---- maintainers ----
        def allowed(unlocked: bool, profile: gr.OAuthProfile | None) -> bool:
            by_profile = oauth and profile is not None and profile.username in lb.settings.maintainers
            return bool(unlocked) or by_profile

        def unlock(token: str, profile: gr.OAuthProfile | None):
            expected = lb.settings.admin_token or ""
            ok = bool(expected) and hmac.compare_digest((token or "").encode(), expected.encode())
            ok = ok or allowed(False, profile)
            msg = "Unlocked for this session." if ok else "Wrong token (or not a maintainer)."
            return ok, gr.Column(visible=ok), msg, *(admin_view(ok, profile) if ok else [gr.skip()] * 3)

        def admin_view(unlocked: bool, profile: gr.OAuthProfile | None):
            if not allowed(unlocked, profile):
                return gr.skip(), gr.skip(), gr.skip()
            return gold_markdown(lb), gr.Dropdown(choices=submission_choices(lb)), rejected_frame(lb)

        def rescore(unlocked: bool, profile: gr.OAuthProfile | None, progress=gr.Progress()):
            if not allowed(unlocked, profile):
                raise gr.Error("Maintainers only.")
            progress(0.1, desc="Rescoring every submission on the current gold")
            return rescore_markdown(lb.rescore())

        def set_hidden(sid: str, hidden: bool, unlocked: bool, profile: gr.OAuthProfile | None):
            if not allowed(unlocked, profile):
                raise gr.Error("Maintainers only.")
            if not sid:
                return "Choose a submission first.", gr.skip()
            by = profile.username if profile is not None else "admin-token"
            done = lb.set_hidden(sid, hidden, by)
            verb = "Hidden" if hidden else "Unhidden"
            msg = f"{verb}: `{sid}`." if done else f"Unknown submission `{display.escape_markdown(sid)}`."
            return msg, gr.Dropdown(choices=submission_choices(lb), value=sid)

        admin_outputs = [gold_md, hide_pick, rejected_df]
        for trigger in (admin_unlock.click, admin_token.submit):
            trigger(unlock, admin_token, [admin_ok, admin_panel, admin_msg, *admin_outputs], api_visibility="private")
        admin_refresh.click(admin_view, admin_ok, admin_outputs, api_visibility="private")
        rescore_btn.click(rescore, admin_ok, rescore_md, api_visibility="private").then(
            admin_view, admin_ok, admin_outputs, api_visibility="private"
        )

        def hide(sid: str, unlocked: bool, profile: gr.OAuthProfile | None):
            return set_hidden(sid, True, unlocked, profile)

        def unhide(sid: str, unlocked: bool, profile: gr.OAuthProfile | None):
            return set_hidden(sid, False, unlocked, profile)

        for btn, fn in ((hide_btn, hide), (unhide_btn, unhide)):
            ev = btn.click(
                fn,
                [hide_pick, admin_ok],
                [hide_md, hide_pick],
                api_visibility="private",
            )
            for bench_id, b in boards.items():
                ev = ev.then(
                    lambda *a, _bench=bench_id: [fingerprint(_bench), *board_outputs(_bench, *a)],
                    board_inputs(b),
                    [b["fp"], *b["outputs"]],
                    api_visibility="private",
                )
    return demo


def _board_tab(bench) -> dict:
    """The components of one benchmark's tab (events are wired in build_app)."""
    b: dict = {"fp": gr.State("")}
    gr.Markdown(f"{bench.description} *{bench.paper}.*")
    with gr.Row(equal_height=True):
        b["view"] = gr.Radio(
            [(label, view) for view, label in views(bench)], value="overall", label="View",
            elem_id=f"{bench.id}-view", scale=2,
        )  # fmt: skip
        b["types"] = gr.CheckboxGroup(
            [(label, key) for key, label in display.MODEL_TYPE_LABELS.items()],
            value=list(display.MODEL_TYPE_LABELS),
            label="Model type",
            elem_id=f"{bench.id}-types",
            scale=1,
        )
        b["sources"] = gr.CheckboxGroup(
            list(display.SOURCES), value=list(display.SOURCES), label="Source", elem_id=f"{bench.id}-sources", scale=1
        )
        with gr.Column(scale=2):
            b["query"] = gr.Textbox(
                label="Search model or team", placeholder="e.g. qwen", elem_id=f"{bench.id}-query", submit_btn=False
            )
            with gr.Row():
                b["search"] = gr.Button("Search", size="sm", elem_id=f"{bench.id}-search")
                b["refresh"] = gr.Button("Refresh", size="sm", elem_id=f"{bench.id}-refresh")
    legend = gr.HTML(elem_id=f"{bench.id}-legend")
    table = gr.Dataframe(
        interactive=False,
        datatype=display.datatypes(bench),
        max_height=620,
        elem_id=f"{bench.id}-table",
        show_label=False,
        buttons=["fullscreen", "copy"],
        pinned_columns=2,
    )
    summary = gr.Markdown(elem_id=f"{bench.id}-summary")
    with gr.Row():
        csv = gr.DownloadButton("Download CSV", size="sm", elem_id=f"{bench.id}-csv", scale=0)
        parquet = gr.DownloadButton("Download Parquet", size="sm", elem_id=f"{bench.id}-parquet", scale=0)
    outputs = [table, legend, summary, csv, parquet]
    gr.Markdown("### Plots")
    if bench.grounding:
        outputs.append(
            gr.ScatterPlot(
                x="mIoU",
                y="Accuracy",
                color="Source",
                title="Reasoning vs grounding: accuracy against mIoU (one point per model)",
                tooltip=["Model", "Team", "Accuracy", "mIoU"],
                x_lim=[0, 100],
                y_lim=[0, 100],
                height=380,
                elem_id=f"{bench.id}-scatter",
            )
        )
    for grouping in bench.groupings[1:] if bench.grounding else bench.groupings:
        outputs.append(gr.HTML(elem_id=f"{bench.id}-heat-{grouping.name}"))
    b["outputs"] = outputs
    return b


# --------------------------------------------------------------------------- maintainer views


def gold_markdown(lb: Leaderboard) -> str:
    rows = ["| benchmark | gold version | questions | loaded | by | previous |", "|---|---|---|---|---|---|"]
    for bench in BENCHMARKS.values():
        info = lb.gold_info(bench.id)
        if info is None:
            rows.append(f"| {bench.id} | none | - | - | - | - |")
            continue
        prev = f"`{info.previous_version[:12]}`" if info.previous_version else "-"
        rows.append(
            f"| {bench.id} | `{info.version[:12]}` | {info.questions:,} | {info.added_at[:19].replace('T', ' ')} UTC | "
            f"{display.escape_markdown(info.added_by)} | {prev} |"
        )
    return "### Current gold\n" + "\n".join(rows)


def submission_choices(lb: Leaderboard) -> list[tuple[str, str]]:
    states = sorted(lb.catalog.all(), key=lambda s: s.meta.submitted_at, reverse=True)
    return [
        (
            f"{s.meta.id} · {s.meta.benchmark} · {s.meta.model} · {s.meta.team}" + (" · HIDDEN" if s.hidden else ""),
            s.meta.id,
        )
        for s in states
    ]


def rejected_frame(lb: Leaderboard) -> pd.DataFrame:
    rows = []
    for bench in BENCHMARKS.values():
        info = lb.gold_info(bench.id)
        for state in lb.rejected(bench.id):
            rejection = state.rejection(info.version) if info else None
            issues = rejection.issues if rejection else ()
            rows.append(
                {
                    "id": state.meta.id,
                    "benchmark": bench.id,
                    "model": state.meta.model,
                    "team": state.meta.team,
                    "submitter": state.meta.submitter,
                    "errors": rejection.total if rejection else 0,
                    "first errors": "; ".join(
                        f"line {i.line}: {i.message}" if i.line else i.message for i in issues[:5]
                    ),
                }
            )
    return pd.DataFrame(rows, columns=["id", "benchmark", "model", "team", "submitter", "errors", "first errors"])


def rescore_markdown(report: dict) -> str:
    lines = ["### Rescore report"]
    for bench_id, part in report.items():
        counts = ", ".join(f"{k}: {v}" for k, v in (part.get("counts") or {}).items())
        lines.append(f"**{bench_id}**: {counts or 'nothing to do'}")
        for change in part.get("rank_changes", []):
            lines.append(
                f"- {display.escape_markdown(change.model)} ({display.escape_markdown(change.team)}): "
                f"{change.before or 'new'} → {change.after or 'gone'}"
            )
    return "\n\n".join(lines) if len(lines) > 1 else "Nothing to rescore (no gold loaded)."


# --------------------------------------------------------------------------- about


def about_markdown() -> str:
    """The About tab: tasks, metrics (as in SPEC), formats, box formats and the API."""
    parts = ["## The benchmarks"]
    for bench in BENCHMARKS.values():
        parts.append(f"**{bench.name}**: {bench.description} Paper: *{bench.paper}*.")
    parts.append(
        'Question types. SCB: type 1 (T1) = options from the same country ("within culture"), type 2 (T2) = '
        'options from different countries ("across culture"), type 3 (T3) = a mix. K-Viscuit: type 1 (T1) = '
        "visual recognition, type 2 (T2) = visual reasoning. The SCB gold (answers and masks) is hidden and never "
        "published; pages and the API only ever show aggregate figures."
    )
    parts.append(METRICS_MD)
    for bench in BENCHMARKS.values():
        rows = "\n".join(f"| `{k}` | {v} |" for k, v in bench.prediction_fields.items())
        examples = "\n".join(bench.example_lines)
        parts.append(
            f"### Submission format: {bench.name}\nJSONL, one object per line, UTF-8.\n\n"
            f"| field | meaning |\n|---|---|\n{rows}\n\n```json\n{examples}\n```"
        )
    parts.append(SUBMISSION_RULES_MD)
    boxes = "\n".join(f"| `{k}` | {v} |" for k, v in BOX_FORMATS.items())
    parts.append(f"### Box formats (SCB)\n| format | coordinates |\n|---|---|\n{boxes}\n\n{BOX_NOTE}")
    notes = [
        f"{b.name}: {display.escape_markdown(source_note(b.id))}" for b in BENCHMARKS.values() if source_note(b.id)
    ]
    if notes:
        parts.append("### Paper rows\n" + "\n\n".join(notes))
    parts.append(API_MD)
    parts.append('### Downloads\nExample submissions (every question answered "A", a box for SCB) and question lists:')
    return "\n\n".join(parts)


METRICS_MD = """## Metrics
SCB, for every group G (all; type 1/2/3; each country; each category):

- `acc(G) = 100 * |C(G)| / |G|`, where C(G) is the questions of G answered correctly; |G| counts every gold \
question, submitted or not.
- `miou(G) = 100 * mean of IoU(q) over q in C(G)` (only correctly answered questions advance to stage 2; wrong \
answers are excluded, not counted as 0). A correct answer with no grounding has IoU 0. `miou` is null ("-") when \
the submission has no grounding on any line, or C(G) is empty.
- `IoU(q)`: prediction and gold are both rasterised on the gold image's height x width grid with COCO conventions \
(pycocotools: continuous coordinates, a box is `[x, y, w, h]`, polygon parts are merged), then `|P and G| / |P or G|`.
- Beyond the paper: `gacc50(G)` (`GAcc@0.5`) = 100 * share of questions of G answered correctly AND grounded with \
IoU >= 0.5; `ciou(G)` = 100 * sum of intersections / sum of unions over C(G); 95% bootstrap confidence intervals \
(1,000 resamples of questions, fixed seed) for acc and miou, shown as "value ± half-width".

K-Viscuit: `acc` overall, per type, per category, micro-averaged as above.

Figures are stored at full precision and shown rounded to 2 decimals. Ranking: overall accuracy descending, ties \
to the earlier submission (the papers' rows count as the earliest).
"""

SUBMISSION_RULES_MD = """### Rules for every file
- `answer`: `A`-`D`, any case; surrounding whitespace, one pair of brackets/parentheses and a trailing `.` or `)` \
are tolerated (`"(b)"`, `"B."`). Any other value is a format error.
- `response` (optional): the model's raw text, used only where `answer` is absent; what the extractor cannot read \
counts as wrong and is reported as "unparsed".
- SCB grounding, at most one of `bbox`, `polygon`, `mask` per line. Boxes and polygons reaching outside the image \
are clipped to it.
- Errors are reported with their line numbers (first 20 listed, then a count); a file with any error is not scored.
- Missing questions are not an error: they count as wrong, and the result says how many.
- Daily quota per user and benchmark (UTC days): a limited number of scored submissions and of attempts; an \
identical file submitted again costs nothing.
"""

BOX_NOTE = (
    "Chosen once per submission (form field / API argument, default `xyxy`) and overridable per line with "
    "`bbox_format`. `bbox_ref_size: [w, h]` (per line) says which frame absolute pixels refer to when it is not the "
    "original image (Qwen2.5-VL answers in pixels of its resized input). Never guess a convention from the size of "
    "the numbers."
)

API_MD = """### Submitting from code
```python
from gradio_client import Client, handle_file

client = Client("http://127.0.0.1:7860")  # or the Space id, e.g. "org/cultural-vlm-leaderboard"
answer = client.predict(
    "scb",                               # benchmark: "scb" or "kviscuit"
    handle_file("predictions.jsonl"),    # file
    "MyModel-7B",                        # model
    "My Lab",                            # team
    "open",                              # model_type: open | closed | api
    "xyxy_1000",                         # bbox_format
    "https://arxiv.org/abs/...",         # paper_url ("" if none)
    "",                                  # code_url
    "",                                  # description
    api_name="/submit",
)
print(answer["status"], answer["rank"], answer["quota"])
for error in answer["errors"]:
    print(error["line"], error["field"], error["message"])
```
The answer holds `status`, `message`, `submission_id`, `result` (aggregate figures only), `rank`, `errors` \
(`line`, `field`, `code`, `message`), `total_errors` and `quota`. The same identity and quota rules apply as in the \
web form.
"""


# --------------------------------------------------------------------------- main

_SCHEDULER_LOCK = threading.Lock()
_SCHEDULER = None


def start_scheduler(lb: Leaderboard):
    """Background jobs, started once per process: refresh the table from the store, resume
    unscored submissions, retry pending Hub pushes. Never restarts the Space."""
    global _SCHEDULER
    with _SCHEDULER_LOCK:
        if _SCHEDULER is not None:
            return _SCHEDULER
        from apscheduler.schedulers.background import BackgroundScheduler

        scheduler = BackgroundScheduler(daemon=True, job_defaults={"coalesce": True, "max_instances": 1})
        scheduler.add_job(lb.refresh, "interval", seconds=max(5, lb.settings.refresh_seconds), id="refresh")
        scheduler.add_job(_finish_work, "interval", minutes=5, id="resume", args=(lb,), next_run_time=_soon())
        scheduler.add_job(lb.push_pending, "interval", minutes=2, id="push_pending")
        scheduler.start()
        _SCHEDULER = scheduler
        return scheduler


def _finish_work(lb: Leaderboard) -> None:
    """Rebuild corrupted derived files first, then score what a crash or a new gold left."""
    lb.repair()
    lb.resume()


def _soon():
    from datetime import datetime, timedelta

    return datetime.now() + timedelta(seconds=10)


def create_leaderboard(settings: Settings | None = None) -> Leaderboard:
    settings = settings or Settings.from_env()
    lb = Leaderboard(settings)
    if not settings.uses_hub and settings.demo:
        lb.seed_demo()
    return lb


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    lb = create_leaderboard()
    start_scheduler(lb)
    demo = build_app(lb)
    # Reads are cached and thread-safe: let many visitors load at once (Gradio runs one at a time by default).
    demo.queue(default_concurrency_limit=16)
    port = os.environ.get("GRADIO_SERVER_PORT")
    demo.launch(
        server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
        server_port=int(port) if port else None,
        css=CSS,
        theme=gr.themes.Soft(font=SYSTEM_FONTS, font_mono=MONO_FONTS),
    )


if __name__ == "__main__":
    main()
