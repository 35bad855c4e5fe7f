"""The one column model of the board, built from the benchmark declaration.

A view's columns are, in order: the row's identity (rank, model, team, model type, source), the
figures the declaration asks for, then when and where it came from. The descriptive columns are
the public fields of :mod:`submissions.fields`, each keyed by its name. Every :class:`Column` says
where its value lives in a row's figures (``figure``), how it is shown (header, group, kind,
decimals, the interval folded into it) and which way is better. The ranked frame holds the
data columns (:func:`frame_columns`), a page shows the display columns (:func:`shown_columns`):
an interval is folded into its figure and the URLs into one "Links" column. Nothing here
or downstream parses a key: keys (``overall.acc``, ``type.1.miou``) are built, never split.

Views: ``overall`` (the declared overview panels), one per grouping (the declared
``view_metrics`` for each of its labels), and ``all`` (every column of every view once, then the
declared ``group_metrics`` no view shows, per label: the public dataset's schema).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from scoring.benchmarks import Benchmark, Grouping, Metric, Panel, UnknownName
from submissions import fields
from submissions.fields import Field, Shown

OVERVIEW = "overall"
EVERY_VIEW = "all"


class Kind(StrEnum):
    """What a column holds, hence how it is rendered and sorted."""

    RANK = "rank"
    MODEL = "model"  # the model's name, linked to its paper or code
    MODEL_TYPE = "model_type"
    TEXT = "text"
    NUMBER = "number"  # a figure
    CI = "ci"  # the half-width of a figure's interval (shown folded into the figure)
    DATE = "date"
    URL = "url"  # data only; shown through the LINKS column
    DATA = "data"  # data only: the rank range's worst end (shown in the Rank cell), the row id
    LINKS = "links"  # display only: the row's Hub, paper and code links
    PARAMS = "params"  # a parameter count (an integer; shown as "7.6B", sorted by the count)


@dataclass(frozen=True)
class Column:
    """One column: ``key`` in the ranked frame, ``header`` and ``group`` on the page.

    ``figure`` is where a figure sits in a row's figures, ``(section, label, field)``: section
    ``overall`` (label None) or a grouping name. ``ci`` is the key of the interval shown with a
    figure. ``higher_is_better`` is the declared direction of a figure, None for other columns.
    """

    key: str
    header: str
    group: str
    kind: Kind
    decimals: int = 2
    ci: str | None = None
    higher_is_better: bool | None = None
    figure: tuple[str, str | None, str] | None = None

    @property
    def in_frame(self) -> bool:
        return self.kind is not Kind.LINKS

    @property
    def shown(self) -> bool:
        return self.kind not in (Kind.CI, Kind.URL, Kind.DATA)


MODEL_GROUP, ABOUT_GROUP = "Model", "About"
_FIELD_KINDS = {
    Shown.MODEL: Kind.MODEL,
    Shown.TEAM: Kind.TEXT,
    Shown.TYPE: Kind.MODEL_TYPE,
    Shown.TEXT: Kind.TEXT,
    Shown.URL: Kind.URL,
    Shown.HUB: Kind.URL,
    Shown.PARAMS: Kind.PARAMS,
    Shown.PAGE: Kind.DATA,
}
_BESIDE_NAME = (Shown.MODEL, Shown.TEAM, Shown.TYPE)


def field_column(f: Field) -> Column:
    """A declared field's column (submissions.fields): its name is the key, its label the header."""
    group = MODEL_GROUP if f.shown in _BESIDE_NAME else ABOUT_GROUP
    return Column(f.name, f.column_header, group, _FIELD_KINDS[f.shown], decimals=1)


def identity_columns() -> tuple[Column, ...]:
    """Rank, the fields shown beside the name (model, team, model type), then the source."""
    named = [field_column(f) for f in fields.public_fields() if f.shown in _BESIDE_NAME]
    return (
        Column("rank", "Rank", MODEL_GROUP, Kind.RANK, decimals=0),
        Column("rank_worst", "Rank (worst)", MODEL_GROUP, Kind.DATA, decimals=0),
        *named,
        Column("source", "Source", ABOUT_GROUP, Kind.TEXT),  # what a reader must see first: beside the identity
    )


def provenance_columns() -> tuple[Column, ...]:
    """When it was submitted, every other public field in declaration order (those shown only on
    the model page are in the public dataset alone: :func:`export_columns`), the links, the row id."""
    rest = [field_column(f) for f in fields.public_fields() if f.shown not in (*_BESIDE_NAME, Shown.PAGE)]
    return (
        Column("submitted", "Submitted", ABOUT_GROUP, Kind.DATE),
        *rest,
        Column("links", "Links", ABOUT_GROUP, Kind.LINKS),
        Column("row_id", "Row id", ABOUT_GROUP, Kind.DATA),
    )


def views(bench: Benchmark) -> list[tuple[str, str]]:
    """(view id, label): the overview, then one view per grouping."""
    return [(OVERVIEW, "Overview")] + [(g.name, f"By {g.label.lower()}") for g in bench.groupings]


def figure_key(name: str, section: str = OVERVIEW, label: str | None = None) -> str:
    """The frame key of a figure: ``overall.acc``, ``type.1.miou`` (built here, never parsed).

    >>> figure_key("acc"), figure_key("miou", "type", "1")
    ('overall.acc', 'type.1.miou')
    """
    return f"{section}.{name}" if label is None else f"{section}.{label}.{name}"


def _figure(metric: Metric, section: str, label: str | None, header: str, group: str) -> Column:
    key = figure_key(metric.name, section, label)
    ci = figure_key(metric.ci, section) if metric.ci and label is None else None
    return Column(
        key, header, group, Kind.NUMBER, metric.decimals, ci, metric.higher_is_better, (section, label, metric.name)
    )


LENIENT_KEY = "counts.lenient"
"""The frame key of how many responses a row's file had read by rules looser than the official
exact letter (NaN: no responses, or a paper's row): the board marks such rows."""


def _lenient(group: str) -> Column:
    """Beside the strict-protocol figure: the count that says why it differs from the lenient one."""
    return Column(LENIENT_KEY, "Read leniently", group, Kind.NUMBER, 0, figure=("counts", None, "lenient"))


def _interval(metric: Metric, group: str) -> Column:
    """The half-width of the overall figure's interval (a data column; shown inside its figure)."""
    assert metric.ci is not None
    return Column(
        figure_key(metric.ci),
        f"{metric.abbrev} ±",
        group,
        Kind.CI,
        metric.decimals,
        figure=(OVERVIEW, None, metric.ci),
    )


def _panel(bench: Benchmark, panel: Panel) -> list[Column]:
    """One overview group: the overall figure (and interval) and/or the figure per label of ``by``."""
    metric = bench.metric(panel.metric)
    by: Grouping | None = bench.grouping(panel.by) if panel.by else None
    labels = by.order if by else ()
    if not panel.overall:
        assert by is not None  # the declaration checks it
        return [_figure(metric, by.name, label, by.abbrev(label), by.label) for label in labels]
    group = metric.label
    cols = [_figure(metric, OVERVIEW, None, metric.abbrev, group)]
    if metric.ci:
        cols.append(_interval(metric, group))
    if metric.name == bench.strict_metric:
        cols.append(_lenient(group))
    if by is not None:
        cols += [_figure(metric, by.name, label, f"{metric.abbrev} {by.abbrev(label)}", group) for label in labels]
    return cols


def _grouping_view(bench: Benchmark, grouping: Grouping) -> list[Column]:
    """Per label, one group holding the declared view metrics (the primary one headed by the label alone)."""
    cols = []
    for label in grouping.order:
        for metric in map(bench.metric, bench.view_metrics):
            short = grouping.abbrev(label)
            header = short if metric.name == bench.primary_metric else f"{short} {metric.abbrev}"
            cols.append(_figure(metric, grouping.name, label, header, grouping.show(label)))
    return cols


def _unique_headers(cols: list[Column]) -> list[Column]:
    """Headers made unique for the table widget (a suffix " (2)" on repeats; declared labels rarely clash)."""
    seen: dict[str, int] = {}
    out = []
    for c in cols:
        n = seen.get(c.header, 0)
        seen[c.header] = n + 1
        out.append(c if n == 0 else replace(c, header=f"{c.header} ({n + 1})"))
    return out


def columns(bench: Benchmark, view: str = OVERVIEW) -> list[Column]:
    """Every column of a view (data and display), in page order; an unknown view raises UnknownName."""
    if view == EVERY_VIEW:
        return export_columns(bench)
    if view == OVERVIEW:
        figures = [c for panel in bench.overview for c in _panel(bench, panel)]
    elif view in {g.name for g in bench.groupings}:
        figures = _grouping_view(bench, bench.grouping(view))
    else:
        raise UnknownName(f"view of {bench.id}", view, [v for v, _ in views(bench)] + [EVERY_VIEW])
    return _unique_headers([*identity_columns(), *figures, *provenance_columns()])


def _published_per_group(bench: Benchmark) -> list[Column]:
    """The declared ``group_metrics`` per label of every grouping (SCB's GAcc@0.5 by country): public
    figures as the view's are, rounded to the metric's decimals, though no view shows them."""
    return [
        _figure(metric, g.name, label, f"{g.abbrev(label)} {metric.abbrev}", g.show(label))
        for g in bench.groupings
        for label in g.order
        for metric in map(bench.metric, bench.group_metrics)
    ]


def export_columns(bench: Benchmark) -> list[Column]:
    """Every column of every view once (by key, first seen), then the declared fields shown only
    on the model page (the pinned revision, ...): the public dataset's schema."""
    seen: dict[str, Column] = {}
    for view, _ in views(bench):
        for col in columns(bench, view):
            seen.setdefault(col.key, col)
    for col in _published_per_group(bench):
        seen.setdefault(col.key, col)
    page_only = [field_column(f) for f in fields.public_fields() if f.shown is Shown.PAGE]
    return [*seen.values(), *page_only]


def frame_columns(bench: Benchmark, view: str = OVERVIEW) -> list[Column]:
    """The data columns of a view: what the ranked frame, the CSV and the Parquet hold."""
    return [c for c in columns(bench, view) if c.in_frame]


def shown_columns(bench: Benchmark, view: str = OVERVIEW) -> list[Column]:
    """The columns a page shows: intervals folded into their figures, the URLs into "Links"."""
    return [c for c in columns(bench, view) if c.shown]
