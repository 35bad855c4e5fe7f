"""The board's scatter as inline SVG, every point labelled with its model where the label fits.

Gradio 6's ``gr.ScatterPlot`` draws points with hover only (its Vega spec has no text layer) and
``gr.Plot`` needs Altair, Plotly or Matplotlib, none of which the app ships. So the scatter is
drawn here, like the heatmaps: an SVG per layout (a wide one, and a narrow one for phones, which
the CSS swaps at 640 px so labels keep a legible size), labels placed greedily in rank order
on one of twelve spots around their point without overlapping another label or point, and a ``<title>`` on every point
(the hover text: model, team, both figures, source). A label that cannot fit is left out; its
point keeps its hover text and the caption says how many are labelled.

A point needs no hover: it is a tab stop named by that text (``aria-label``) with a wider
transparent circle to tap (its radius in ui/static/board.css), and carries its table row's key
(``data-row``), so the page's script hides the points of rows the filters leave out and shows a
tapped or focused point's details (ui/static/board.js) while the SVG stays built once per data change.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd

Box = tuple[float, float, float, float]  # left, top, right, bottom


@dataclass(frozen=True)
class Canvas:
    """One layout: the SVG's size, the plot area's margins, the label font and tick step."""

    name: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    font: int
    max_chars: int
    tick_step: int

    def x(self, value: float) -> float:
        return self.left + (self.width - self.left - self.right) * value / 100

    def y(self, value: float) -> float:
        return self.height - self.bottom - (self.height - self.top - self.bottom) * value / 100

    @property
    def area(self) -> Box:
        return self.left, self.top, self.width - self.right, self.height - self.bottom


WIDE = Canvas("wide", 880, 440, 52, 20, 14, 44, 12, 32, 10)
NARROW = Canvas("narrow", 320, 380, 38, 14, 12, 42, 11, 17, 20)
POINT_RADIUS = 4.5
CHAR_WIDTH = 0.6  # of the font size: a generous estimate for the system sans-serif
SCORED_COLOUR, PAPER_COLOUR = "#ea580c", "#2563eb"  # orange filled / blue hollow: shape tells them apart too


@dataclass(frozen=True)
class Point:
    model: str
    team: str
    source: str
    x: float
    y: float
    paper: bool
    row: str = ""  # the key of its table row (the board's row_id): the page's filters hide it by that


def points_of(
    frame: pd.DataFrame, x_label: str, y_label: str, paper_source: str, rows: list[str] | None = None
) -> list[Point]:
    """The points of a :func:`ui.display.scatter_frame` (Model, Team, Source and the two figures), in its
    order; ``rows`` are their table rows' keys, in the same order."""
    keys = rows if rows is not None else [""] * len(frame)
    return [
        Point(
            str(r["Model"]),
            str(r["Team"]),
            str(r["Source"]),
            float(r[x_label]),
            float(r[y_label]),
            r["Source"] == paper_source,
            str(key),
        )
        for (_, r), key in zip(frame.iterrows(), keys, strict=True)
    ]


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: Box, area: Box) -> bool:
    return box[0] >= area[0] and box[1] >= area[1] - 4 and box[2] <= area[2] + 4 and box[3] <= area[3]


def short_name(name: str, max_chars: int) -> str:
    return name if len(name) <= max_chars else name[: max_chars - 1].rstrip() + "…"


def place_labels(points: list[Point], canvas: Canvas) -> list[tuple[float, float, str] | None]:
    """Where each point's label goes (its text's left and baseline, and the text), or None where
    no spot beside the point is free. Earlier points (higher ranks) choose first."""
    centres = [(canvas.x(p.x), canvas.y(p.y)) for p in points]
    r = POINT_RADIUS + 1
    taken: list[Box] = [(cx - r, cy - r, cx + r, cy + r) for cx, cy in centres]
    height, gap = canvas.font * 1.15, POINT_RADIUS + 3
    placed: list[tuple[float, float, str] | None] = []
    for point, (cx, cy) in zip(points, centres, strict=True):
        text = short_name(point.model, canvas.max_chars)
        width = len(text) * canvas.font * CHAR_WIDTH
        spots = [
            (cx + gap, cy - height / 2),
            (cx - gap - width, cy - height / 2),
            (cx - width / 2, cy - gap - height),
            (cx - width / 2, cy + gap),
            (cx + gap, cy - gap - height + 3),
            (cx + gap, cy + gap - 3),
            (cx - gap - width, cy - gap - height + 3),
            (cx - gap - width, cy + gap - 3),
            (cx - width + 4, cy - gap - height),
            (cx - 4, cy - gap - height),
            (cx - width + 4, cy + gap),
            (cx - 4, cy + gap),
        ]
        spot = next(
            (
                (left, top)
                for left, top in spots
                if _inside((left, top, left + width, top + height), canvas.area)
                and not any(_overlaps((left, top, left + width, top + height), t) for t in taken)
            ),
            None,
        )
        if spot is None:
            placed.append(None)
            continue
        taken.append((spot[0], spot[1], spot[0] + width, spot[1] + height))
        placed.append((spot[0], spot[1] + canvas.font * 0.9, text))
    return placed


def _axes(canvas: Canvas, x_label: str, y_label: str) -> str:
    left, top, right, bottom = canvas.area
    parts = []
    for value in range(0, 101, canvas.tick_step):
        x, y = canvas.x(value), canvas.y(value)
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}"/>')
        parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="tick" aria-hidden="true" x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{value}</text>'
        )
        parts.append(
            f'<text class="tick" aria-hidden="true" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value}</text>'
        )
    middle_x, middle_y = (left + right) / 2, (top + bottom) / 2
    parts.append(
        f'<text class="axis" x="{middle_x:.1f}" y="{canvas.height - 6}" text-anchor="middle">'
        f"{html.escape(x_label)}</text>"
    )
    parts.append(
        f'<text class="axis" transform="translate(12 {middle_y:.1f}) rotate(-90)" text-anchor="middle">'
        f"{html.escape(y_label)}</text>"
    )
    return "".join(parts)


def _svg(points: list[Point], canvas: Canvas, x_label: str, y_label: str) -> tuple[str, int]:
    """One layout's SVG and how many of its points carry a label."""
    marks = []
    labels = place_labels(points, canvas)
    for point, label in zip(points, labels, strict=True):
        cx, cy = canvas.x(point.x), canvas.y(point.y)
        team = point.team.removeprefix("(").removesuffix(")")  # a paper row's team is "(paper)": no doubled parentheses
        hover = f"{point.model} ({team}, {point.source}): {y_label} {point.y:g}, {x_label} {point.x:g}"
        colour = PAPER_COLOUR if point.paper else SCORED_COLOUR
        fill = "none" if point.paper else colour
        text = ""
        if label is not None:
            # beside the point, not in it: the point's name says the model in full, and a shortened
            # "Gemini-2.5-P…" inside the control was its text missing from its name (axe 4.14:
            # label-content-name-mismatch); keyed by its row, so the page's filters hide it with the point
            text = (
                f'<text class="label" data-row="{html.escape(point.row)}" aria-hidden="true" '
                f'x="{label[0]:.1f}" y="{label[1]:.1f}">{html.escape(label[2])}</text>'
            )
        named = html.escape(hover)
        marks.append(
            f'<g class="point" data-row="{html.escape(point.row)}" tabindex="0" role="button" aria-label="{named}">'
            f'<title>{named}</title><circle cx="{cx:.1f}" cy="{cy:.1f}" '
            f'r="{POINT_RADIUS}" fill="{fill}" stroke="{colour}" stroke-width="2"/>'
            f'<circle class="hit" cx="{cx:.1f}" cy="{cy:.1f}"/></g>{text}'  # its radius and fill: board.css
        )
    svg = (  # a group, not an image: its points are controls (an image's children are presentational)
        f'<svg class="scatter-svg scatter-{canvas.name}" viewBox="0 0 {canvas.width} {canvas.height}" '
        f'role="group" aria-label="{html.escape(y_label)} against {html.escape(x_label)}" '
        f'style="font-size:{canvas.font}px">{_axes(canvas, x_label, y_label)}{"".join(marks)}</svg>'
    )
    return svg, sum(label is not None for label in labels)


def scatter_html(points: list[Point], x_label: str, y_label: str, sources: tuple[str, str]) -> str:
    """The scatter for the page: the narrow SVG (first: a phone shows it), the wide one, a
    legend of the two sources and how many points are labelled."""
    if not points:
        return '<p class="empty-note">No rows to plot.</p>'
    narrow, labelled_narrow = _svg(points, NARROW, x_label, y_label)
    wide, labelled_wide = _svg(points, WIDE, x_label, y_label)
    scored, paper = (html.escape(s) for s in sources)
    legend = (
        f'<span class="scatter-key"><svg width="12" height="12"><circle cx="6" cy="6" r="4" fill="{SCORED_COLOUR}"/>'
        f"</svg> {scored}</span>"
        f'<span class="scatter-key"><svg width="12" height="12"><circle cx="6" cy="6" r="4" fill="none" '
        f'stroke="{PAPER_COLOUR}" stroke-width="2"/></svg> {paper}</span>'
    )
    counts = (
        f'<span class="scatter-count scatter-narrow">{_count(labelled_narrow, len(points))}</span>'
        f'<span class="scatter-count scatter-wide">{_count(labelled_wide, len(points))}</span>'
    )
    return f'<div class="scatter-wrap">{narrow}{wide}<div class="scatter-legend">{legend}{counts}</div></div>'


def _count(labelled: int, total: int) -> str:
    if labelled == total:
        return f"{total} points, all labelled; tap, click or focus a point for its figures."
    return (
        f"{labelled} of {total} points labelled (the rest overlap); tap, click or focus a point for its model "
        "and figures."
    )
