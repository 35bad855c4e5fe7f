"""UI-agnostic formatting of the leaderboard: pure functions from the ranked frames of
:mod:`leaderboard.table` to what a page shows (rounded text, safe HTML, filters, plot data).

Nothing here touches storage or Gradio; ``app.py`` calls these and hands the results to
components. Every piece of user-supplied text that ends up in HTML goes through
:func:`html.escape`, and only ``http(s)`` URLs ever become links.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from leaderboard.table import Column, columns
from scoring.benchmarks import Benchmark

MISSING = "-"
_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)
MODEL_TYPE_LABELS = {"open": "open", "closed": "closed", "api": "API"}
SOURCES = ("scored here", "reported in paper")

# Soft tints that read on light and dark themes: one per column group, cycled.
GROUP_TINTS = (
    "rgba(59, 130, 246, 0.10)",
    "rgba(16, 185, 129, 0.10)",
    "rgba(245, 158, 11, 0.12)",
    "rgba(168, 85, 247, 0.10)",
    "rgba(236, 72, 153, 0.09)",
)
PLAIN_GROUPS = ("Model", "About")


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


def link(url: object, text: str) -> str:
    """An escaped ``<a>`` to ``url`` (http/https only); the escaped text alone otherwise."""
    target = safe_url(url)
    label = html.escape(str(text))
    if not target:
        return label
    return f'<a href="{html.escape(target, quote=True)}" target="_blank" rel="noopener noreferrer nofollow">{label}</a>'


def model_html(name: object, paper_url: object = "", code_url: object = "") -> str:
    """The model name, escaped, linked to its paper (else its code) when one is given.

    >>> model_html("<b>M</b>", "javascript:x")
    '&lt;b&gt;M&lt;/b&gt;'
    """
    text = "" if is_missing(name) else str(name)
    return link(paper_url if safe_url(paper_url) else code_url, text)


def links_html(paper_url: object, code_url: object) -> str:
    parts = [link(u, label) for u, label in ((paper_url, "paper"), (code_url, "code")) if safe_url(u)]
    return " · ".join(parts) if parts else MISSING


def escape_markdown(text: object) -> str:
    """Text safe inside Markdown: HTML escaped and Markdown punctuation backslashed."""
    escaped = html.escape("" if text is None else str(text))
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~>@:])", r"\\\1", escaped)


# --------------------------------------------------------------------------- table


@dataclass(frozen=True)
class ShownColumn:
    """A displayed column: the frame ``key``, the ``ci`` key folded into it (if any)."""

    key: str
    header: str
    group: str
    kind: str
    decimals: int = 2
    ci: str | None = None
    datatype: str = "str"  # gr.Dataframe datatype


def short_label(bench: Benchmark, grouping: str, label: str) -> str:
    """How a group label is shown in a header: ``T1`` for types, display names otherwise."""
    if grouping == "type":
        return f"T{label}"
    try:
        return bench.grouping(grouping).show(label)
    except KeyError:
        return label


def _metric_short(bench: Benchmark, name: str) -> str:
    for m in bench.metrics:
        if m.name == name:
            return "Acc" if m.name == "acc" else m.label
    return name


def shown_columns(bench: Benchmark, view: str = "overall") -> list[ShownColumn]:
    """The columns of a view as shown: intervals folded into their figure, URL columns merged
    into one "Links" column, headers unique and prefixed by their metric."""
    cols: list[Column] = columns(bench, view)
    out: list[ShownColumn] = []
    headers = {"rank": "Rank", "model": "Model", "team": "Team", "model_type": "Model type"}
    for col in cols:
        if col.kind == "ci":
            if out:
                prev = out[-1]
                out[-1] = ShownColumn(prev.key, prev.header, prev.group, prev.kind, prev.decimals, col.key, "number")
            continue
        if col.kind == "url":
            if col.key == "paper_url":
                out.append(ShownColumn("links", "Links", "About", "links", datatype="html"))
            continue
        if col.key in headers:
            dtype = "html" if col.key == "model" else ("number" if col.key == "rank" else "str")
            out.append(ShownColumn(col.key, headers[col.key], col.group, col.kind, col.decimals, datatype=dtype))
        elif col.key == "source":
            out.append(ShownColumn(col.key, "Source", col.group, col.kind))
        elif col.key == "submitted":
            out.append(ShownColumn(col.key, "Submitted", col.group, col.kind))
        else:
            parts = col.key.split(".")
            metric, label = _metric_short(bench, parts[-1]), short_label(bench, parts[0], ".".join(parts[1:-1]))
            if parts[0] == "overall":
                header = metric
            elif view == "overall":
                header = f"{metric} {label}" if parts[0] == "type" else label
            else:
                header = label if parts[-1] == bench.primary_metric else f"{label} {metric}"
            out.append(ShownColumn(col.key, header, col.group, "number", col.decimals, datatype="number"))
    # the source is what a reader must see first: move it beside the model's identity
    source = [c for c in out if c.key == "source"]
    out = [c for c in out if c.key != "source"]
    at = next((i + 1 for i, c in enumerate(out) if c.key == "model_type"), len(out))
    out[at:at] = source
    seen: dict[str, int] = {}
    unique = []
    for c in out:  # headers must be unique for the table widget
        n = seen.get(c.header, 0)
        seen[c.header] = n + 1
        unique.append(c if n == 0 else ShownColumn(c.key, f"{c.header} ({n + 1})", *_tail(c)))
    return unique


def _tail(c: ShownColumn) -> tuple:
    return (c.group, c.kind, c.decimals, c.ci, c.datatype)


def filter_frame(
    df: pd.DataFrame,
    model_types: Iterable[str] | None = None,
    sources: Iterable[str] | None = None,
    query: str = "",
) -> pd.DataFrame:
    """Rows whose model type and source are among those chosen and whose model or team
    contains ``query`` (case-insensitive); the server's order and ranks are kept."""
    if df.empty:
        return df
    mask = pd.Series(True, index=df.index)
    if model_types is not None:
        wanted = {str(t).lower() for t in model_types}
        mask &= df["model_type"].astype(str).str.lower().isin(wanted)
    if sources is not None:
        mask &= df["source"].isin(list(sources))
    q = (query or "").strip().casefold()
    if q:
        hay = (df["model"].astype(str) + " " + df["team"].astype(str)).str.casefold()
        mask &= hay.str.contains(q, regex=False)
    return df[mask]


def group_tints(shown: Sequence[ShownColumn]) -> dict[str, str]:
    """Column group -> background tint (Model/About columns stay plain)."""
    tints: dict[str, str] = {}
    for c in shown:
        if c.group not in PLAIN_GROUPS and c.group not in tints:
            tints[c.group] = GROUP_TINTS[len(tints) % len(GROUP_TINTS)]
    return tints


def _cell(row: Mapping, col: ShownColumn) -> tuple[object, str]:
    """(sortable value, displayed text) of one cell."""
    if col.kind == "links":
        return ("paper" if safe_url(row.get("paper_url")) else ""), links_html(
            row.get("paper_url"), row.get("code_url")
        )
    value = row.get(col.key)
    if col.key == "model":  # the sort key is escaped too: no raw user text in an HTML column
        return html.escape(str(value)), model_html(value, row.get("paper_url"), row.get("code_url"))
    if col.key == "rank":
        return int(value), str(int(value))
    if col.key == "model_type":
        text = str(value or "")
        return text, MODEL_TYPE_LABELS.get(text.lower(), text) or MISSING
    if col.kind == "number":
        number = None if is_missing(value) else float(value)
        shown = fmt_with_ci(value, row.get(col.ci), col.decimals) if col.ci else fmt_number(value, col.decimals)
        return number, shown
    text = "" if is_missing(value) else str(value)
    return text, text or MISSING


def table_value(df: pd.DataFrame, bench: Benchmark, view: str = "overall") -> dict:
    """The value for a ``gr.Dataframe``: ``data`` keeps full-precision numbers (so sorting a
    column is numeric, missing sorts lowest), ``metadata.display_value`` the rounded text with
    its ``±`` interval and ``-`` for missing. Column-group tints come from :func:`group_css`,
    once per column instead of once per cell (a 1,000-row board would ship 0.9 MB of styles)."""
    shown = shown_columns(bench, view)
    data, display = [], []
    for row in df.to_dict(orient="records"):
        cells = [_cell(row, c) for c in shown]
        data.append([v for v, _ in cells])
        display.append([t for _, t in cells])
    return {
        "headers": [c.header for c in shown],
        "data": data,
        "metadata": {"display_value": display} if data else None,
    }


def group_css(bench: Benchmark, view: str, table_id: str) -> str:
    """A ``<style>`` tinting the columns of each group in the table ``#table_id`` (Gradio 6
    renders body cells as ``role="gridcell"`` elements with a 0-based ``data-col``)."""
    shown = shown_columns(bench, view)
    tints = group_tints(shown)
    rules = [
        f'#{table_id} [role="gridcell"][data-col="{i}"] {{background-color: {tints[c.group]};}}'
        for i, c in enumerate(shown)
        if c.group in tints
    ]
    return "<style>" + "\n".join(rules) + "</style>"


def datatypes(bench: Benchmark, view: str = "overall") -> list[str]:
    return [c.datatype for c in shown_columns(bench, view)]


def group_legend_html(bench: Benchmark, view: str = "overall") -> str:
    """A one-line legend of the column groups with the tints the table uses."""
    shown = shown_columns(bench, view)
    tints = group_tints(shown)
    chips = []
    for group, tint in tints.items():
        members = [c.header for c in shown if c.group == group]
        detail = f": {html.escape(', '.join(members))}" if view == "overall" and len(members) > 1 else ""
        chips.append(
            f'<span class="group-chip" style="background-color:{tint}"><b>{html.escape(group)}</b>{detail}</span>'
        )
    return '<div class="group-legend">Column groups: ' + " ".join(chips) + "</div>"


def summary_text(total: int, shown: int, gold_questions: int | None) -> str:
    gold = f" · gold: {gold_questions:,} questions" if gold_questions else ""
    return f"Showing {shown} of {total} rows{gold}."


# --------------------------------------------------------------------------- plots


def scatter_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Accuracy against mIoU, one point per row that has a grounding figure."""
    cols = ["Model", "Team", "Source", "Accuracy", "mIoU"]
    if df.empty or "overall.miou" not in df:
        return pd.DataFrame(columns=cols)
    rows = df[df["overall.miou"].notna() & df["overall.acc"].notna()]
    return pd.DataFrame(
        {
            "Model": rows["model"].astype(str),
            "Team": rows["team"].astype(str),
            "Source": rows["source"].astype(str),
            "Accuracy": rows["overall.acc"].astype(float).round(2),
            "mIoU": rows["overall.miou"].astype(float).round(2),
        },
        columns=cols,
    ).reset_index(drop=True)


def _heat_colour(value: float) -> str:
    """Light red (0) to light green (100), readable under dark text."""
    v = max(0.0, min(100.0, value)) / 100
    return f"hsl({round(10 + 120 * v)}, 70%, {round(88 - 8 * v)}%)"


def heatmap_html(
    df: pd.DataFrame, bench: Benchmark, grouping: str, metric: str = "acc", max_rows: int = 20, title: str = ""
) -> str:
    """An HTML heatmap: one row per model (in rank order), one column per group label."""
    if df.empty:
        return '<p class="empty-note">No rows to plot.</p>'
    labels = list(bench.grouping(grouping).order)
    keys = [f"{grouping}.{label}.{metric}" for label in labels]
    present = [k for k in keys if k in df.columns]
    if not present:
        return '<p class="empty-note">No figures by this grouping.</p>'
    head = "".join(f"<th>{html.escape(short_label(bench, grouping, label))}</th>" for label in labels)
    body = []
    for _, row in df.head(max_rows).iterrows():
        cells = []
        for key in keys:
            value = row.get(key)
            if is_missing(value):
                cells.append('<td class="missing">-</td>')
            else:
                cells.append(f'<td style="background-color:{_heat_colour(float(value))}">{float(value):.1f}</td>')
        paper = ' <span class="paper-tag">paper</span>' if row.get("source") == SOURCES[1] else ""
        body.append(f'<tr><th class="model">{html.escape(str(row.get("model")))}{paper}</th>{"".join(cells)}</tr>')
    caption = f"<caption>{html.escape(title)}</caption>" if title else ""
    more = f'<p class="empty-note">Top {max_rows} rows shown.</p>' if len(df) > max_rows else ""
    return (
        f'<div class="heatmap-wrap"><table class="heatmap">{caption}<thead><tr><th>Model</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>{more}</div>"
    )


# --------------------------------------------------------------------------- submissions


def result_markdown(answer: dict, bench: Benchmark | None) -> str:
    """A submission's answer as Markdown: the aggregate figures and the rank, or the errors."""
    status = answer.get("status", "")
    lines = [f"### {'Result' if status == 'scored' else 'Not scored'}: {escape_markdown(answer.get('message', ''))}"]
    if answer.get("submission_id"):
        lines.append(f"Submission id: `{answer['submission_id']}`")
    result = answer.get("result")
    if result:
        counts = result.get("counts", {})
        if answer.get("rank"):
            lines.append(f"**Rank {answer['rank']}** on the {bench.name if bench else ''} board.")
        overall = result.get("overall", {})
        rows = ["| metric | value |", "|---|---|"]
        metric_names = [(m.name, m.label, m.ci) for m in bench.metrics] if bench else [("acc", "Accuracy", "acc_ci")]
        for name, label, ci in metric_names:
            ci_value = overall.get(ci) if ci else None
            half = (ci_value[1] - ci_value[0]) / 2 if isinstance(ci_value, list) and len(ci_value) == 2 else None
            rows.append(f"| {escape_markdown(label)} | {fmt_with_ci(overall.get(name), half)} |")
        lines.append("\n".join(rows))
        if counts:
            lines.append(
                "Questions: {questions} · submitted: {submitted} · missing (counted wrong): {missing} · "
                "unparsed: {unparsed}".format(
                    **{k: counts.get(k, 0) for k in ("questions", "submitted", "missing", "unparsed")}
                )
            )
    errors = answer.get("errors") or []
    if errors:
        total = answer.get("total_errors", len(errors))
        lines.append(f"**{total} error(s)**" + (f", first {len(errors)} listed:" if total > len(errors) else ":"))
    return "\n\n".join(lines)


def errors_frame(answer: dict) -> pd.DataFrame:
    rows = [
        {
            "line": e.get("line", 0) or "file",
            "field": e.get("field", ""),
            "code": e.get("code", ""),
            "message": e.get("message", ""),
        }
        for e in answer.get("errors") or []
    ]
    return pd.DataFrame(rows, columns=["line", "field", "code", "message"])


# --------------------------------------------------------------------------- examples


def example_submission(bench: Benchmark, public_questions: bytes, limit: int | None = None) -> bytes:
    """A valid template submission: every public question answered "A" (SCB: with a box in
    ``xyxy_1000``). Falls back to the declaration's example lines when no question list exists."""
    lines = []
    for raw in public_questions.decode("utf-8").splitlines():
        if not raw.strip():
            continue
        q = json.loads(raw)
        line = {"question_id": q["question_id"], "answer": "A"}
        if bench.grounding:
            line |= {"bbox": [250, 250, 750, 750], "bbox_format": "xyxy_1000"}
        lines.append(json.dumps(line))
        if limit and len(lines) >= limit:
            break
    if not lines:
        lines = list(bench.example_lines)
    return ("\n".join(lines) + "\n").encode("utf-8")
