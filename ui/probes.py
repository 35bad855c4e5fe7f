"""The Maintainers tab's read-only "Probe flags" block: submitters whose series look like probes
of the hidden test, with the evidence (never shown to the team; holding is the CLI's
``python -m leaderboard probes --hold``, see docs/integrity.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr

from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from submissions.probes import ProbeFlag
from ui.display import escape_markdown


def flags_markdown(flags: list[ProbeFlag], unread: int = 0) -> str:
    note = UNREAD_NOTE.format(n=unread) if unread else ""
    if not flags:
        return "### Probe flags\nNo submitter flagged." + note
    lines = [
        "### Probe flags",
        "| benchmark | submitters (series) | suspicious | flagged at | held | evidence |",
        "|---|---|---|---|---|---|",
    ]
    for f in flags:
        evidence = "<br>".join(f"`{p.submission_id}`: {escape_markdown('; '.join(p.reasons))}" for p in f.evidence[-5:])
        lines.append(
            f"| {f.benchmark} | {escape_markdown(', '.join(dict.fromkeys((f.submitter, *f.submitters))))} | "
            f"{len(f.evidence)} of {f.submissions} | "
            f"submission {f.flagged_at} | {len(f.held)} | {evidence} |"
        )
    return "\n".join(lines) + note


UNREAD_NOTE = (
    "\n\n{n} stored upload(s) left out: not read yet (the background job reads them), stopped at a job "
    "bound while read, or answering no question."
)


@dataclass(frozen=True, eq=False)
class ProbeFlags:
    """The block's callback; ``check`` is the tab's per-action permission check (admin token or
    maintainer identity; "" when allowed, else why not)."""

    leaderboard: Leaderboard
    check: Callable[[str, gr.OAuthProfile | None, gr.Request | None], str]

    def show(self, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None) -> str:
        refused = self.check(token, profile, request)
        if refused:
            raise gr.Error(refused)
        moderation = self.leaderboard.moderation
        flags = [f for b in BENCHMARKS for f in moderation.probe_report(b)]
        return flags_markdown(flags, sum(moderation.unread(b) for b in BENCHMARKS))

    def mount(self, token: gr.Textbox) -> None:
        """A button and its report, inside the (hidden until unlocked) panel; every click sends
        the token field and is checked again."""
        button = gr.Button("Show probe flags", size="sm", scale=0, elem_id="probe-flags-btn")
        report = gr.Markdown(elem_id="probe-flags")
        button.click(self.show, token, report, api_visibility="private")
