"""The Maintainers tab's read-only "Probe flags" block: submitters whose series look like probes
of the hidden test, with the evidence (never shown to the team; holding is the CLI's
``python -m leaderboard probes --hold``, see docs/integrity.md)."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from submissions.probes import ProbeFlag
from ui.display import escape_markdown


def flags_markdown(flags: list[ProbeFlag]) -> str:
    if not flags:
        return "### Probe flags\nNo submitter flagged."
    lines = [
        "### Probe flags",
        "| benchmark | submitter | suspicious | flagged at | held | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for f in flags:
        evidence = "<br>".join(f"`{p.submission_id}`: {escape_markdown('; '.join(p.reasons))}" for p in f.evidence[-5:])
        lines.append(
            f"| {f.benchmark} | {escape_markdown(f.submitter)} | {len(f.evidence)} of {f.submissions} | "
            f"submission {f.flagged_at} | {len(f.held)} | {evidence} |"
        )
    return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class ProbeFlags:
    """The block's callback; ``allowed`` is the tab's permission check."""

    leaderboard: Leaderboard
    allowed: object

    def show(self, unlocked: bool, profile: gr.OAuthProfile | None) -> str:
        if not self.allowed(unlocked, profile):
            raise gr.Error("Maintainers only.")
        return flags_markdown([f for b in BENCHMARKS for f in self.leaderboard.probe_report(b)])

    def mount(self, unlocked: gr.State) -> None:
        """A button and its report, inside the (hidden until unlocked) panel."""
        button = gr.Button("Show probe flags", size="sm", scale=0, elem_id="probe-flags-btn")
        report = gr.Markdown(elem_id="probe-flags")
        button.click(self.show, unlocked, report, api_visibility="private")
