"""The Report tab: a signed-in visitor says in a few words that a question looks wrong (the question
browser's "Report this question" link opens it filled in: ``app?tab=report&bench=scb&q=ID``).
Kept privately for maintainers, who read reports beside the item analysis's suspects; at most
leaderboard.items.REPORTS_PER_DAY per account in 24 hours. Nothing is shown back but thanks."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from leaderboard.items import REPORT_CHARS
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from ui.auth import Auth


@dataclass(frozen=True, eq=False)
class ReportQuestions:
    leaderboard: Leaderboard
    auth: Auth

    def send(
        self, benchmark: str, question_id: str, text: str, profile: gr.OAuthProfile | None, request: gr.Request | None
    ) -> str:
        identity = self.auth.identity(profile, request) if (profile is not None or not self.auth.oauth) else None
        account = identity.username if identity is not None else ""
        refused = self.leaderboard.items.report(benchmark, (question_id or "").strip(), text or "", account)
        return refused or "Thank you: the maintainers will look at this question."

    @staticmethod
    def prefill(request: gr.Request | None) -> tuple:
        """The benchmark and question the address names (the question browser's link), else unchanged."""
        params = dict(request.query_params) if request is not None else {}
        bench = params.get("bench")
        return (
            gr.Radio(value=bench) if bench in BENCHMARKS else gr.skip(),
            params["q"][:200] if params.get("q") else gr.skip(),
        )

    def mount(self, page: gr.Blocks) -> None:
        with gr.Tab("Report a question", id="tab-report", elem_id="tab-report"):
            gr.Markdown(
                "Does a question's answer or region look wrong? Tell the maintainers in a few words "
                f"(signed in; at most {REPORT_CHARS} characters). They see every report; the corrections made "
                "are listed on each benchmark's errata page: "
                + " · ".join(f"[{b.name}](errata/{b.id})" for b in BENCHMARKS.values())
                + "."
            )
            bench = gr.Radio(list(BENCHMARKS), value=next(iter(BENCHMARKS)), label="Benchmark", elem_id="report-bench")
            question = gr.Textbox(label="Question id", elem_id="report-q", max_lines=1)
            text = gr.Textbox(label="What looks wrong", lines=3, max_length=REPORT_CHARS, elem_id="report-text")
            send = gr.Button("Send report", elem_id="report-send")
            result = gr.Markdown(elem_id="report-result")
        send.click(self.send, [bench, question, text], result, api_visibility="private")
        page.load(self.prefill, None, [bench, question], api_visibility="private", queue=False)
