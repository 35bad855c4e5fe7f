"""The Compare tab: 2-4 models scored here on one benchmark, the first against each other, per
group: the difference, its 95% interval and a p-value, from the rows' published figures only
(``Leaderboard.compare``, leaderboard/compare.py: Compare shows nothing the rows do not).
Opened by ``?bench=scb&compare=<row id>,<row id>``.

The figures are combined off the web process, in fair turns per visitor (the signed-in account,
else the address: :func:`ui.throttle.visitor_of`), a bounded number per visitor; a visitor over
the bound reads "Busy ... try again in a moment" in the tab."""

from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr

from leaderboard.compare import MAX_MODELS, Pairing, TryAgain
from leaderboard.service import Leaderboard
from leaderboard.table import SCORED_SOURCE
from scoring.benchmarks import BENCHMARKS, Benchmark, get_benchmark
from submissions.fair_queue import PER_IDENTITY
from ui import display
from ui.page import SURVIVES_EVICTION
from ui.throttle import NO_PROXIES, Proxies, visitor_of

COMPARE_EVENTS = PER_IDENTITY + 1
"""Compare events Gradio runs at once: one more than a visitor's bound, so that while one
visitor holds its bound another visitor's call still reaches the fair turns
(``Leaderboard.compare_turns``) and goes before that visitor's waiting one, and the flooding
visitor's further calls are refused at once. No more: each event costs Gradio ~20 ms of the web
process's CPU whatever it answers, and a refusal answered sooner lets a flood send its next
event sooner (with 8 at once, a 20-loop flood sent 30-45% more events; docs/benchmarks.md)."""

HELP = (
    "Pick 2 to 4 models scored here (paper rows have no intervals). The first is compared with each other one, "
    "from the figures and 95% intervals their model pages publish: difference (first minus other), its 95% "
    "interval and p-value, treating the two figures as independent. Models answering the same questions are "
    "usually correlated, so this is conservative: a difference whose interval excludes 0 (marked **bold**) is "
    "clear. No paired test: it would need which questions each model got right, which never leaves the server."
)


def choices(leaderboard: Leaderboard, bench_id: str) -> list[tuple[str, str]]:
    """(label, row id) of the rows that can be compared, in rank order."""
    table = leaderboard.table(bench_id)
    scored = table[table["source"] == SCORED_SOURCE]
    return [(f"{m} ({t})", r) for m, t, r in zip(scored["model"], scored["team"], scored["row_id"], strict=True)]


def _fmt(value, decimals: int, signed: bool = False) -> str:
    if value is None:
        return display.MISSING
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


def pairing_html(bench: Benchmark, pairing: Pairing) -> str:
    rows = []
    for d in pairing.differences:
        metric = bench.metric(d.metric)
        where = (
            "Overall"
            if d.grouping == "overall"
            else f"{bench.grouping(d.grouping).label}: " + bench.grouping(d.grouping).show(d.label)
        )
        clear = d.low is not None and (d.low > 0 or d.high < 0)
        diff = _fmt(d.difference, metric.decimals, signed=True)
        # the board's format: the half-width of the 95% interval (the difference is the cell before)
        interval = (
            f"± {_fmt((d.high - d.low) / 2, metric.decimals)}" if d.low is not None and d.high is not None else ""
        )
        p = display.MISSING if d.p_value is None else (f"{d.p_value:.3f}" if d.p_value >= 0.001 else "<0.001")
        rows.append(
            f"<tr><th>{html.escape(where)}</th><td>{d.questions:,}</td><td>{html.escape(metric.label)}</td>"
            f"<td>{_fmt(d.a, metric.decimals)}</td><td>{_fmt(d.b, metric.decimals)}</td>"
            f"<td>{'<b>' + diff + '</b>' if clear else diff}</td><td>{interval}</td><td>{p}</td>"
            f"<td>{html.escape(d.test)}</td></tr>"
        )
    a, b = html.escape(pairing.a), html.escape(pairing.b)
    return (
        f"<h4>{a} vs {b}</h4><div class='heatmap-wrap' tabindex='0' role='region' aria-label='{a} vs {b}'>"
        "<table class='model-table compare-table'><thead><tr>"
        f"<th>Group</th><th>n</th><th>Metric</th><th>{a}</th><th>{b}</th><th>Difference</th><th>95% interval</th>"
        f"<th>p</th><th>Test</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


@dataclass(frozen=True, eq=False)
class Comparisons:
    """The tab's callbacks."""

    leaderboard: Leaderboard
    proxies: Proxies = NO_PROXIES  # whose X-Forwarded-For is believed (LEADERBOARD_TRUSTED_PROXIES)

    def options(self, bench_id: str, picked: list[str] | None = None) -> gr.Dropdown:
        known = choices(self.leaderboard, bench_id) if bench_id in BENCHMARKS else []
        ids = {r for _, r in known}
        return gr.Dropdown(choices=known, value=[r for r in picked or [] if r in ids])

    def show(
        self,
        bench_id: str,
        row_ids: list[str] | None,
        profile: gr.OAuthProfile | None = None,
        request: gr.Request | None = None,
    ) -> str:
        """The comparison's tables, or a note saying what is wrong or that the visitor is busy."""
        visitor = visitor_of(profile, request, self.proxies)
        try:
            pairings = self.leaderboard.compare(bench_id, list(row_ids or []), visitor=visitor)
        except (ValueError, TryAgain) as e:
            return f'<p class="empty-note">{html.escape(str(e))}</p>'
        bench = get_benchmark(bench_id)
        return "".join(pairing_html(bench, p) for p in pairings)


COMPARE_URL_JS = """(bench, rows) => {
  const p = new URLSearchParams(); p.set("bench", bench);
  if (rows && rows.length) p.set("compare", rows.join(","));
  history.replaceState(null, "", "?" + p.toString());
  return [];
}"""


@dataclass(frozen=True, eq=False)
class CompareTab:
    tab: gr.Tab
    bench: gr.Radio
    models: gr.Dropdown
    button: gr.Button
    result: gr.HTML

    @classmethod
    def mount(cls, comparisons: Comparisons) -> CompareTab:
        first = next(iter(BENCHMARKS))
        with gr.Tab("Compare", id="tab-compare", elem_id="tab-compare") as tab:
            gr.Markdown(HELP)
            bench = gr.Radio(
                [(b.name, b.id) for b in BENCHMARKS.values()], value=first, label="Benchmark", elem_id="cmp-bench"
            )
            models = gr.Dropdown(
                [],
                multiselect=True,
                max_choices=MAX_MODELS,
                elem_id="cmp-models",
                label=f"Models (2-{MAX_MODELS}, the first is the reference)",
                **SURVIVES_EVICTION,
            )
            button = gr.Button("Compare", variant="primary", elem_id="cmp-btn")
            result = gr.HTML(elem_id="cmp-result")
        tab.select(comparisons.options, [bench, models], models, api_visibility="private")
        bench.input(comparisons.options, [bench], models, api_visibility="private")
        button.click(
            comparisons.show, [bench, models], result, api_visibility="private", concurrency_limit=COMPARE_EVENTS
        ).then(None, [bench, models], None, js=COMPARE_URL_JS)
        return cls(tab, bench, models, button, result)
