"""A model's page: who made it, its links and description, every figure with its interval, the
figures per group (tables with group sizes, and bars), its submission history, and the gold
and scorer versions it was scored with. Opened by a click on a board row or by ``?model=<row id>``.

:func:`page_html` is pure (details in, escaped HTML out); :class:`ModelTab` is the tab.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import gradio as gr

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.service import Leaderboard, ModelDetails
from leaderboard.table import ANONYMOUS
from scoring.benchmarks import BENCHMARKS, Benchmark, get_benchmark
from submissions import fields
from ui import display

EMPTY = '<p class="empty-note">Click a row of a board (or open a <code>?model=</code> link) to see a model here.</p>'


def _interval(stats: dict, metric) -> tuple[float | None, float | None]:
    ci = stats.get(metric.ci) if metric.ci else None
    return (ci[0], ci[1]) if isinstance(ci, list) and len(ci) == 2 else (None, None)


def _figure_cell(stats: dict, metric) -> str:
    value = stats.get(metric.name)
    low, high = _interval(stats, metric)
    text = display.fmt_number(value, metric.decimals)
    if low is not None and not display.is_missing(value):
        text += f' <span class="ci">[{low:.{metric.decimals}f}, {high:.{metric.decimals}f}]</span>'
    return f"<td>{text}</td>"


def _bar(value: object, metric) -> str:
    if display.is_missing(value):
        return '<span class="bar-empty">-</span>'
    width = max(0.0, min(100.0, float(value)))
    return f'<span class="bar" style="width:{width:.1f}%"></span>'


def overall_html(bench: Benchmark, details: ModelDetails) -> str:
    overall = details.row.figures.get("overall", {})
    rows = "".join(
        f"<tr><th>{html.escape(m.label)}</th>{_figure_cell(overall, m)}<td>{html.escape(m.description)}</td></tr>"
        for m in bench.metrics
    )
    return (
        '<table class="model-table"><thead><tr><th>Metric</th><th>Value [95% interval]</th><th>What it is</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def groups_html(bench: Benchmark, details: ModelDetails, sizes: dict[str, dict[str, int]]) -> str:
    """One table per grouping: label, questions, every metric (with interval where stored), bars of the primary."""
    parts = []
    for grouping in bench.groupings:
        figures = details.row.figures.get(grouping.name, {})
        head = "".join(f"<th>{html.escape(m.label)}</th>" for m in bench.metrics)
        body = []
        for label in grouping.order:
            stats = figures.get(label, {})
            n = stats.get("questions", sizes.get(grouping.name, {}).get(label))
            cells = "".join(_figure_cell(stats, m) for m in bench.metrics)
            bar = _bar(stats.get(bench.primary_metric), bench.primary)
            body.append(
                f"<tr><th>{html.escape(grouping.show(label))}</th><td>{display.fmt_number(n, 0)}</td>{cells}"
                f'<td class="bar-cell">{bar}</td></tr>'
            )
        parts.append(
            f"<h4>By {html.escape(grouping.label.lower())}</h4>"
            f'<div class="heatmap-wrap"><table class="model-table"><thead><tr><th>{html.escape(grouping.label)}</th>'
            f"<th>n</th>{head}<th>{html.escape(bench.primary.label)}</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table></div>"
        )
    return "".join(parts)


def history_html(bench: Benchmark, details: ModelDetails) -> str:
    if not details.history:
        if details.row.source == PAPER_SOURCE:
            return "<p>No submissions here: the figures are the paper's.</p>"
        return "<p>Not shown while the entry is anonymous.</p>" if details.row.model == ANONYMOUS else ""
    rows = "".join(
        f"<tr><td>{html.escape(h.submitted_at[:16].replace('T', ' '))}</td><td><code>{html.escape(h.submission_id)}"
        f"</code></td><td>{html.escape(h.status)}</td><td>{display.fmt_number(h.primary, bench.primary.decimals)}</td>"
        f"<td>{'shown on the board' if h.chosen else ''}</td></tr>"
        for h in details.history
    )
    return (
        '<table class="model-table"><thead><tr><th>Submitted (UTC)</th><th>Id</th><th>Status</th>'
        f"<th>{html.escape(bench.primary.label)}</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
    )


def hub_facts(values: dict[str, str]) -> list[str]:
    """What the Hub said of the model when it was submitted: size, licence, the declared
    page-only facts, and the pinned revision linked to that commit's files."""
    out = []
    for f in fields.public_fields():
        value = values.get(f.name, "")
        if not value or f.shown not in (fields.Shown.PARAMS, fields.Shown.TEXT, fields.Shown.PAGE):
            continue
        if f.name == fields.REVISION_FIELD:
            repo = display.hub_url(values.get(fields.HUB_FIELD))
            code = f"<code>{html.escape(value[:12])}</code>"
            out.append(
                f"<b>{html.escape(f.label)}</b> " + (display.link(f"{repo}/tree/{value}", value[:12]) if repo else code)
            )
        else:
            shown = fields.size_text(value) if f.shown is fields.Shown.PARAMS else value
            out.append(f"<b>{html.escape(f.label)}</b> {html.escape(shown)}")
    return out


def page_html(bench: Benchmark, details: ModelDetails, sizes: dict[str, dict[str, int]], rank: str = "") -> str:
    """The whole page, every user-supplied text escaped and only http(s) links."""
    row = details.row
    values = {f.name: row.value(f.name) for f in fields.public_fields()}
    links = [display.link(u, t) for u, t in display.row_links(values)]
    kind = display.MODEL_TYPE_LABELS.get(str(row.model_type).lower(), str(row.model_type))
    facts = [
        f"<b>Team</b> {html.escape(row.team)}",
        f"<b>Model type</b> {html.escape(kind or '-')}",
        f"<b>Source</b> {html.escape(row.source)}",
        *hub_facts(values),
    ]
    if rank:
        facts.append(f"<b>Rank</b> {html.escape(rank)}")
    if details.box_format:
        facts.append(f"<b>Box format</b> <code>{html.escape(details.box_format)}</code>")
    versions = (
        f"Scored on gold <code>{html.escape(details.gold_version[:12])}</code> with scorer "
        f"<code>{html.escape(details.scorer_version)}</code>."
        if details.gold_version
        else "Published figures, not scored here."
    )
    description = f"<p>{html.escape(details.description)}</p>" if details.description else ""
    return (
        f'<div class="model-page"><h2>{html.escape(row.model)}</h2>'
        f'<p class="model-facts">{" · ".join(facts)}</p>'
        f"<p>{' · '.join(links) if links else 'No links given.'}</p>{description}"
        f"<h3>{html.escape(bench.name)}: figures</h3>{overall_html(bench, details)}"
        f"<h3>Per group</h3>{groups_html(bench, details, sizes)}"
        f"<h3>Submission history</h3>{history_html(bench, details)}<p>{versions}</p></div>"
    )


@dataclass(frozen=True, eq=False)
class ModelPages:
    """The tab's callback: a page from (benchmark, row id)."""

    leaderboard: Leaderboard

    def show(self, bench_id: str | None, row_id: str | None) -> str:
        if not row_id or bench_id not in BENCHMARKS:
            return EMPTY
        details = self.leaderboard.details(bench_id, row_id)
        if details is None:
            return f'<p class="empty-note">No row {html.escape(row_id)} on the {html.escape(bench_id)} board.</p>'
        table = self.leaderboard.table(bench_id)
        match = table[table["row_id"] == row_id]
        rank = ""
        if not match.empty:
            rank = display.RankRange(int(match["rank"].iloc[0]), int(match["rank_worst"].iloc[0])).text()
        return page_html(get_benchmark(bench_id), details, self.leaderboard.group_sizes(bench_id), rank)


MODEL_URL_JS = """(bench, row) => {
  if (!row) return [];
  const p = new URLSearchParams(); p.set("bench", bench); p.set("model", row);
  history.replaceState(null, "", "?" + p.toString());
  return [];
}"""


@dataclass(frozen=True, eq=False)
class ModelTab:
    tab: gr.Tab
    bench: gr.Textbox  # hidden textboxes, not States: the address bar's js reads them in the browser
    row: gr.Textbox
    page: gr.HTML

    @classmethod
    def mount(cls, pages: ModelPages) -> ModelTab:
        with gr.Tab("Model", id="tab-model", elem_id="tab-model") as tab:
            bench = gr.Textbox(visible=False, elem_id="model-bench")
            row = gr.Textbox(visible=False, elem_id="model-row")
            page = gr.HTML(EMPTY, elem_id="model-page")
        return cls(tab, bench, row, page)

    def open(self, event, pages: ModelPages, tabs: gr.Tabs):
        """After ``event`` set the states (bench, row id): draw the page, switch to it, put it in the URL."""
        return (
            event.then(pages.show, [self.bench, self.row], self.page, api_visibility="private")
            .then(lambda: gr.Tabs(selected="tab-model"), None, tabs, api_visibility="private")
            .then(None, [self.bench, self.row], None, js=MODEL_URL_JS)
        )
