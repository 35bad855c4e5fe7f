"""Formatting the Python side of the pages still needs: numbers, safe URLs and text, a row's
links and Hub facts, the board page's plots, a submission's answer as Markdown, an example file.

The board's table is drawn in the browser (``ui/static/board.js``) from :mod:`ui.board_data`,
which takes each row's links and Hub facts from here (:func:`row_links`, :func:`hub_facts`); the
Gradio tabs (Submit, My submissions, Compare, Admin, About) use the rest. Pure functions: no
storage, no Gradio. User-supplied text that ends up in HTML or Markdown is escaped, and only
``http(s)`` URLs ever become links.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping
from urllib.parse import quote, urlencode

import pandas as pd

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.columns import figure_key
from leaderboard.table import SCORED_SOURCE
from scoring.benchmarks import BENCHMARKS, Benchmark, Heatmap, Plot, Scatter
from submissions import fields
from ui import scatter

MISSING = "-"
_URL = fields.HTTP_URL
MODEL_TYPE_LABELS = {c.key: c.shown for c in fields.MODEL_TYPE.choices}
"""The one label (with its badge) of each stored model type: the form, the filter, the cell and
the model page say the same (submissions.fields.MODEL_TYPE)."""
TYPE_FILTERS = {key: (key,) for key in MODEL_TYPE_LABELS}
"""The board's Model type choices and the stored types each one keeps."""
SOURCES = (SCORED_SOURCE, PAPER_SOURCE)


# --------------------------------------------------------------------------- numbers


def is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_number(value: object, decimals: int = 2) -> str:
    """``85.1496`` -> ``"85.15"``; None or NaN -> ``"-"`` (never 0).

    >>> fmt_number(85.1496), fmt_number(float("nan")), fmt_number(0.0)
    ('85.15', '-', '0.00')
    """
    if is_missing(value):
        return MISSING
    return f"{float(value):.{decimals}f}"


def fmt_with_ci(value: object, half_width: object, decimals: int = 2) -> str:
    """A figure with the half-width of its 95% interval: ``"85.15 ± 1.24"``.

    >>> fmt_with_ci(84.9906, 1.2433), fmt_with_ci(85.15, float("nan")), fmt_with_ci(None, 1.0)
    ('84.99 ± 1.24', '85.15', '-')
    """
    if is_missing(value):
        return MISSING
    if is_missing(half_width):
        return fmt_number(value, decimals)
    return f"{fmt_number(value, decimals)} ± {fmt_number(half_width, decimals)}"


# --------------------------------------------------------------------------- safe text


def safe_url(url: object) -> str:
    """The URL if it is a plain http(s) address, else ``""``.

    >>> safe_url("https://arxiv.org/abs/1"), safe_url("javascript:alert(1)"), safe_url('https://a"b')
    ('https://arxiv.org/abs/1', '', '')
    """
    text = "" if url is None else str(url).strip()
    return text if _URL.match(text) else ""


def hub_url(repo: object) -> str:
    """The Hub page of a model id (``""`` for none; ids are checked when submitted)."""
    text = "" if is_missing(repo) else str(repo).strip()
    return f"{fields.HUB}/{text}" if text and fields.hub_repo_id(text) is None else ""


LENIENT_MARK = "†"


def row_links(row: Mapping) -> list[tuple[str, str]]:
    """(url, text) of a row's links: its Hub page, then every declared URL field."""
    out = [(hub_url(row.get(f.name)), "Hub") for f in fields.public_fields() if f.shown is fields.Shown.HUB]
    out += [(row.get(f.name), f.column_header.lower()) for f in fields.public_fields() if f.shown is fields.Shown.URL]
    return [(str(u), t) for u, t in out if safe_url(u)]


def hub_facts(row: Mapping) -> list[tuple[str, str, str]]:
    """(label, text, url) of what the Hub said of the model when it was submitted, for its page:
    size, licence and the declared page-only facts; the pinned revision links that commit's
    files on the Hub (url ``""``: no link)."""
    out = []
    for f in fields.public_fields():
        value = row.get(f.name)
        if value is pd.NA or is_missing(value) or str(value) == "":
            continue
        if f.shown not in (fields.Shown.PARAMS, fields.Shown.TEXT, fields.Shown.PAGE):
            continue
        text = str(value)
        if f.name == fields.REVISION_FIELD:
            repo = hub_url(row.get(fields.HUB_FIELD))
            out.append((f.label, text[:12], f"{repo}/tree/{text}" if repo else ""))
        else:
            out.append((f.label, fields.size_text(value) if f.shown is fields.Shown.PARAMS else text, ""))
    return out


def escape_markdown(text: object) -> str:
    """Text safe inside Markdown: HTML escaped and Markdown punctuation backslashed.

    Quotes stay as they are (``quote=False``): Markdown text is no attribute, and the backslash
    before ``#`` broke the entity, so "team's" showed as "team&#x27;s"."""
    escaped = html.escape("" if text is None else str(text), quote=False)
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~>@:])", r"\\\1", escaped)


# --------------------------------------------------------------------------- plots


def short_label(bench: Benchmark, grouping: str, label: str) -> str:
    """How a group label is shown in a header: the grouping's declared short name (``T1``), else its display name."""
    return bench.grouping(grouping).abbrev(label)


def plot_title(bench: Benchmark, plot: Plot) -> str:
    """A declared plot's title: its own, else "Accuracy against mIoU" / "Accuracy by country"."""
    if isinstance(plot, Scatter):
        return plot.title or f"{bench.metric(plot.y).label} against {bench.metric(plot.x).label}"
    return f"{bench.heatmap_metric(plot).label} by {bench.grouping(plot.grouping).label.lower()}"


def drawn_plots(bench: Benchmark) -> list[Plot]:
    """The declared plots as drawn: a heatmap that names no metric is drawn once per metric of
    the grouping views (``view_metrics``: accuracy, and mIoU on a grounding benchmark)."""
    out: list[Plot] = []
    for plot in bench.plots:
        if isinstance(plot, Heatmap) and plot.metric is None:
            out += [Heatmap(plot.grouping, m) for m in bench.view_metrics]
        else:
            out.append(plot)
    return out


def plot_values(df: pd.DataFrame, bench: Benchmark, sizes: Mapping[str, Mapping[str, int]] | None = None) -> list[str]:
    """The value of every plot the benchmark declares, in order: HTML for both, a labelled SVG
    scatter (:mod:`ui.scatter`) and a heatmap (headed by each group's question count when
    ``sizes`` gives them)."""
    return [
        scatter_svg(df, bench, plot)
        if isinstance(plot, Scatter)
        else heatmap_html(
            df,
            bench,
            plot.grouping,
            bench.heatmap_metric(plot).name,
            title=plot_title(bench, plot),
            sizes=(sizes or {}).get(plot.grouping),
        )
        for plot in drawn_plots(bench)
    ]


def scatter_svg(df: pd.DataFrame, bench: Benchmark, plot: Scatter) -> str:
    """The declared scatter of ``df``'s rows, each point labelled with its model where it fits and
    keyed by its row (``row_id``), which the page's filters hide it by."""
    x, y = bench.metric(plot.x).label, bench.metric(plot.y).label
    frame = scatter_frame(df, bench, plot)
    points = scatter.points_of(frame, x, y, PAPER_SOURCE, _plotted(df, bench, plot, "row_id", len(frame)))
    return scatter.scatter_html(points, x, y, SOURCES)


def _plotted(df: pd.DataFrame, bench: Benchmark, plot: Scatter, column: str, count: int) -> list[str]:
    """``column`` of the rows :func:`scatter_frame` plots (both figures present), in its order;
    empty keys where the frame has no such column."""
    keys = [figure_key(bench.metric(plot.x).name), figure_key(bench.metric(plot.y).name)]
    if column not in df or not set(keys) <= set(df.columns):
        return [""] * count
    return [str(v) for v in df[df[keys].notna().all(axis=1)][column]]


def scatter_note(df: pd.DataFrame, bench: Benchmark, plot: Scatter) -> str:
    """Which rows the scatter leaves out (no figure for one of its axes), named, so no model is
    silently missing from the plot."""
    keys = [figure_key(plot.x), figure_key(plot.y)]
    if df.empty or not set(keys) <= set(df.columns):
        return ""
    left_out = df[df[keys].isna().any(axis=1)]
    if left_out.empty:
        return f"Every row shown has both {bench.metric(plot.x).label} and {bench.metric(plot.y).label}."
    names = ", ".join(left_out["model"].astype(str))  # plain text: its one caller escapes it for HTML
    return f"Not plotted (no {bench.metric(plot.x).label} or {bench.metric(plot.y).label}): {names}."


def _declared_scatter(df: pd.DataFrame) -> tuple[Benchmark, Scatter] | None:
    """The first registered scatter whose two figures the frame holds (callers that pass no plot)."""
    for bench in BENCHMARKS.values():
        for plot in bench.plots:
            if isinstance(plot, Scatter) and {figure_key(plot.x), figure_key(plot.y)} <= set(df.columns):
                return bench, plot
    return None


def scatter_frame(df: pd.DataFrame, bench: Benchmark | None = None, plot: Scatter | None = None) -> pd.DataFrame:
    """One point per row that has both overall figures of a declared scatter; the columns are
    Model, Team, Source, then the y and x metrics' labels (e.g. Accuracy, mIoU)."""
    if bench is None or plot is None:
        found = _declared_scatter(df)
        if found is None:
            return pd.DataFrame(columns=["Model", "Team", "Source"])
        bench, plot = found
    x, y = bench.metric(plot.x), bench.metric(plot.y)
    cols = ["Model", "Team", "Source", y.label, x.label]
    x_key, y_key = figure_key(x.name), figure_key(y.name)
    if df.empty or x_key not in df or y_key not in df:
        return pd.DataFrame(columns=cols)
    rows = df[df[x_key].notna() & df[y_key].notna()]
    return pd.DataFrame(
        {
            "Model": rows["model"].astype(str),
            "Team": rows["team"].astype(str),
            "Source": rows["source"].astype(str),
            y.label: rows[y_key].astype(float).round(y.decimals),
            x.label: rows[x_key].astype(float).round(x.decimals),
        },
        columns=cols,
    ).reset_index(drop=True)


HEATMAP_HELD = 50
"""The board's top rows a heatmap holds for the filters to choose from (it shows 20): a filter
that keeps rows further down the board finds fewer in it, and its note says so (board.js)."""


HEAT_TEXT_SWITCH = 50
"""Lightness (%) under which a heatmap cell's text turns white: black text reads at 4.5:1 or more on the
ramp's cells from 50 % up, white from 49 % down (tests/ui/test_display.py computes both)."""


def _heat_colour(value: float) -> str:
    """One blue whose lightness falls steadily from 96 % (0) to 30 % (100), so a weak cell is lighter
    in greyscale and to every kind of colour vision (the old yellow-to-blue ramp hardly changed in
    lightness from 40 to 80); its text is black, or white on the darker cells, at 4.5:1 or more."""
    v = max(0.0, min(100.0, value)) / 100
    lightness = round(96 - 66 * v)
    text = "#000" if lightness >= HEAT_TEXT_SWITCH else "#fff"
    return f"background-color:hsl(215, 50%, {lightness}%);color:{text}"


def group_links(bench: Benchmark, grouping: str, label: str, metric: str, questions: int | None) -> str:
    """A heatmap column's header: the group's name links the board's focus on it (ranked by this
    metric, ui/static/focus.js), its question count the question browser filtered to it."""
    focus = urlencode({"bench": bench.id, "focus": f"{grouping}:{label}", "metric": metric}, quote_via=quote)
    name = html.escape(short_label(bench, grouping, label))
    target = html.escape(f"{grouping}:{label}")
    head = f'<a href="?{html.escape(focus)}" data-focus="{target}" data-metric="{metric}">{name}</a>'
    if questions is None:
        return head
    field = bench.grouping(grouping).field
    browse = urlencode({"bench": bench.id, f"f.{field}": label}, quote_via=quote)
    return f'{head}<br><a class="group-n" href="questions?{html.escape(browse)}">{questions:,} questions</a>'


def heatmap_html(
    df: pd.DataFrame,
    bench: Benchmark,
    grouping: str,
    metric: str | None = None,
    max_rows: int = 20,
    title: str = "",
    sizes: Mapping[str, int] | None = None,
    held_rows: int = HEATMAP_HELD,
) -> str:
    """An HTML heatmap of ``metric`` (the primary one by default): one row per model (in rank
    order), one column per group label headed by its question count when known, cells with the
    metric's declared decimals (as the table).

    It holds the board's top ``held_rows`` rows, each keyed by its table row (``data-row``), and
    shows the first ``max_rows``: the page's script shows instead the first ``max_rows`` of those
    the filters keep (ui/static/board.js), so a filtered heatmap is built once too."""
    if df.empty:
        return '<p class="empty-note">No rows to plot.</p>'
    labels = list(bench.grouping(grouping).order)
    declared = bench.metric(metric or bench.primary_metric)
    keys = [figure_key(declared.name, grouping, label) for label in labels]
    present = [k for k in keys if k in df.columns]
    if not present:
        return '<p class="empty-note">No figures by this grouping.</p>'
    sizes = sizes or {}

    def head(label: str) -> str:
        return f"<th>{group_links(bench, grouping, label, declared.name, sizes.get(label))}</th>"

    body = []
    for i, (_, row) in enumerate(df.head(max(max_rows, held_rows)).iterrows()):
        cells = []
        for key in keys:
            value = row.get(key)
            if is_missing(value):
                cells.append('<td class="missing">-</td>')
            else:
                shade = _heat_colour(float(value) if declared.higher_is_better else 100 - float(value))
                cells.append(f'<td style="{shade}">{float(value):.{declared.decimals}f}</td>')
        paper = ' <span class="paper-tag">paper</span>' if row.get("source") == SOURCES[1] else ""
        key = html.escape(str(row.get("row_id", "")))
        hidden = " hidden" if i >= max_rows else ""
        model = html.escape(str(row.get("model")))
        body.append(f'<tr data-row="{key}"{hidden}><th class="model">{model}{paper}</th>{"".join(cells)}</tr>')
    caption = f"<caption>{html.escape(title)}</caption>" if title else ""
    more = f"Top {max_rows} rows shown." if len(df) > max_rows else ""
    more = f'<p class="empty-note heat-note" data-shown="{max_rows}" data-held="{len(body)}">{more}</p>'
    return (
        # a box that scrolls sideways on a phone is a tab stop, so a keyboard can scroll it (axe)
        f'<div class="heatmap-wrap" tabindex="0" role="region" aria-label="{html.escape(title or "heatmap")}">'
        f'<table class="heatmap">{caption}<thead><tr><th>Model</th>'
        f"{''.join(head(label) for label in labels)}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>{more}</div>"
    )


# --------------------------------------------------------------------------- submissions


def result_markdown(answer: dict, bench: Benchmark | None) -> str:
    """A submission's answer as Markdown: the aggregate figures and the rank, or the errors."""
    status = answer.get("status", "")
    lines = [f"### {'Result' if status == 'scored' else 'Not scored'}: {escape_markdown(answer.get('message', ''))}"]
    errors = answer.get("errors") or []
    if errors:  # the first error at the top: the table of them is far below the form (a phone's screens)
        first = errors[0]
        where = line_place(first["line"], first.get("file", "")) if first.get("line") else "the file"
        field = f" [{first['field']}]" if first.get("field") else ""
        message = escape_markdown(first.get("message", ""))
        lines.append(f"First error, {escape_markdown(where)}{escape_markdown(field)}: {message}")
    if answer.get("submission_id"):
        lines.append(f"Submission id: `{answer['submission_id']}`")
    result = answer.get("result")
    if result:
        counts = result.get("counts", {})
        if answer.get("rank"):
            lines.append(f"**Rank {answer['rank']}** on the {bench.name if bench else ''} board.")
        overall = result.get("overall", {})
        rows = ["| metric | value |", "|---|---|"]
        for m in bench.metrics if bench else ():
            ci_value = overall.get(m.ci) if m.ci else None
            half = (ci_value[1] - ci_value[0]) / 2 if isinstance(ci_value, list) and len(ci_value) == 2 else None
            rows.append(f"| {escape_markdown(m.label)} | {fmt_with_ci(overall.get(m.name), half, m.decimals)} |")
        lines.append("\n".join(rows))
        if counts:
            lines.append(
                "Questions: {questions} · submitted: {submitted} · missing (counted wrong): {missing} · "
                "unparsed: {unparsed}".format(
                    **{k: counts.get(k, 0) for k in ("questions", "submitted", "missing", "unparsed")}
                )
                + (f" · read leniently: {counts['lenient']:,}" if counts.get("lenient") else "")
            )
        strict = bench.metric(bench.strict_metric) if bench and bench.strict_metric else None
        if strict is not None and counts.get("lenient"):
            lines.append(
                f"{counts['lenient']:,} response(s) were read by rules looser than the official protocol, which "
                f"counts a response only when it is exactly one capital letter: by that rule, as the papers' rows "
                f"were scored, {escape_markdown(strict.label)} is "
                f"{fmt_number(overall.get(strict.name), strict.decimals)}. "
                f"The board marks this row {LENIENT_MARK} and shows both."
            )
    if errors:
        total = answer.get("total_errors", len(errors))
        listed = f"the first {len(errors)} listed" if total > len(errors) else "listed"
        lines.append(f"**{total} error(s)**, {listed} in the table below the form.")
    return "\n\n".join(lines)


def line_place(line: int, file: str = "") -> str:
    """Where a line is: ``line 12``, or for one of several files given ``samples_scb_stage1.jsonl line 12``.

    >>> line_place(12, "logs/toy/samples_scb_stage1.jsonl")
    'logs/toy/samples_scb_stage1.jsonl line 12'
    """
    return f"{file} line {line}" if file else f"line {line}"


def errors_frame(answer: dict) -> pd.DataFrame:
    """The errors table: an error of one of several files given names that file first in its message
    (the line column stays narrow: a file name there wrapped letter by letter on a phone)."""
    rows = [
        {
            "line": e.get("line", 0) or "file",
            "field": e.get("field", ""),
            "code": e.get("code", ""),
            "message": f"{e['file']}: {e.get('message', '')}" if e.get("file") else e.get("message", ""),
        }
        for e in answer.get("errors") or []
    ]
    return pd.DataFrame(rows, columns=["line", "field", "code", "message"])


# --------------------------------------------------------------------------- examples


def example_submission(bench: Benchmark, public_questions: bytes, limit: int | None = None) -> bytes:
    """A valid template submission: a line per public question, as the declaration's
    ``example_line`` writes it (the first choice, plus e.g. a box). Falls back to the
    declaration's example lines when no question list exists."""
    lines = []
    for raw in public_questions.decode("utf-8").splitlines():
        if not raw.strip():
            continue
        lines.append(json.dumps(bench.example_line(json.loads(raw))))
        if limit and len(lines) >= limit:
            break
    if not lines:
        lines = list(bench.example_lines)
    return ("\n".join(lines) + "\n").encode("utf-8")
