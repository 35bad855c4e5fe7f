"""My submissions' Compare (issue 44): the team's own runs, private ones included, beside the board's rows.

Which runs a person may pick and every figure come from ``leaderboard.team_compare`` (the one
disclosure rule, the Ladder); this module draws the comparison as the board's Compare does
(ui/static/compare.js): a row per metric and group either run has a figure in, the difference, its
95% interval as "±" and p, the test named once; each row stacks as a card on a phone (ui/style.py).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr

from leaderboard.compare import Pairing
from leaderboard.service import Leaderboard
from leaderboard.team_compare import compare_runs, runs_for
from scoring import BENCHMARKS
from scoring.benchmarks import Benchmark
from ui.auth import Auth
from ui.page import SURVIVES_EVICTION


def _fixed(value: float | None, decimals: int, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


def _p(p: float | None) -> str:
    return "-" if p is None else f"{p:.3f}" if p >= 0.001 else "<0.001"


def pairing_html(bench: Benchmark, pairing: Pairing) -> str:
    heads = ["Group", "n", "Metric", pairing.a, pairing.b, "Difference", "95% interval", "p"]
    rows = []
    for d in pairing.differences:
        if d.a is None and d.b is None:
            continue
        metric = bench.metric(d.metric)
        where = "Overall" if d.grouping == "overall" else f"{bench.grouping(d.grouping).label}: "
        where += "" if d.grouping == "overall" else bench.grouping(d.grouping).show(d.label)
        dec = metric.decimals
        clear = d.low is not None and (d.low > 0 or d.high < 0)
        diff = _fixed(d.difference, dec, True)
        half = f"± {(d.high - d.low) / 2:.{dec}f}" if d.low is not None and d.high is not None else ""
        cells = [f"{d.questions:,}", metric.label, _fixed(d.a, dec), _fixed(d.b, dec), diff, half, _p(d.p_value)]
        shown = [html.escape(c) for c in cells]
        shown[4] = f"<b>{shown[4]}</b>" if clear else shown[4]
        tds = "".join(f'<td data-label="{html.escape(heads[i + 1])}">{c}</td>' for i, c in enumerate(shown))
        rows.append(f'<tr><th scope="row">{html.escape(where)}</th>{tds}</tr>')
    head = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in heads)
    title = f"{html.escape(pairing.a)} vs {html.escape(pairing.b)}"
    test = html.escape(pairing.differences[0].test) if pairing.differences else ""
    return (
        f'<h4>{title}</h4><p class="compare-test">Test: {test}.</p><div class="team-compare-wrap" tabindex="0" '
        f'role="region" aria-label="{title}"><table class="team-compare"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


@dataclass(frozen=True, eq=False)
class TeamCompare:
    """The callbacks: the runs a person may pick on a benchmark, and their comparison."""

    leaderboard: Leaderboard
    auth: Auth

    def runs(
        self, benchmark: str, picked: list[str] | None, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> gr.Dropdown:
        """The runs the viewer may compare; the picks still offered are kept (a late refresh of the tab
        must not wipe what the person has chosen meanwhile)."""
        identity = self.auth.identity(profile, request)
        found = runs_for(self.leaderboard, identity, benchmark) if benchmark in BENCHMARKS else []
        offered = [(r.name, r.key) for r in found]
        keys = {key for _, key in offered}
        kept = [key for key in picked or [] if key in keys]
        return gr.Dropdown(choices=offered, value=kept, multiselect=True)

    def show(self, keys: list[str] | None, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        identity = self.auth.identity(profile, request)
        try:
            bench, pairings = compare_runs(self.leaderboard, identity, list(keys or []))
        except ValueError as e:
            return f'<p class="empty-note">{html.escape(str(e))}.</p>'
        return "".join(pairing_html(bench, p) for p in pairings)


@dataclass(frozen=True, eq=False)
class TeamComparePanel:
    benchmark: gr.Dropdown
    picked: gr.Dropdown
    button: gr.Button
    result: gr.HTML

    @classmethod
    def mount(cls) -> TeamComparePanel:
        with gr.Accordion(
            "Compare your runs with the board (private ones included, seen by your team only)", open=False
        ):
            first = next(iter(BENCHMARKS))
            benchmark = gr.Dropdown(
                [(b.name, b.id) for b in BENCHMARKS.values()], value=first, label="Benchmark", elem_id="mine-cmp-bench"
            )
            picked = gr.Dropdown(  # its choices come from an event; every pick is checked again (compare_runs)
                [], multiselect=True, max_choices=4, label="Runs (2 to 4; the first is compared with each other one)",
                elem_id="mine-cmp-runs", **SURVIVES_EVICTION,
            )  # fmt: skip
            button = gr.Button("Compare", elem_id="mine-cmp-btn", size="sm")
            result = gr.HTML(elem_id="mine-cmp-result")
        return cls(benchmark, picked, button, result)

    def wire(self, compare: TeamCompare, opened: list) -> None:
        private = {"api_visibility": "private"}
        for trigger in (*opened, self.benchmark.change):
            trigger(compare.runs, [self.benchmark, self.picked], self.picked, **private)
        self.button.click(compare.show, self.picked, self.result, **private)
