"""The public table: which submission is a team's row, how rows are ranked, what a view holds.

A row belongs to a team (whose name has one owner, submissions/teams.py) and a model: only
public submissions made under the team by its rightful users compete for it; the one the team
chose, else the latest or the best. A row whose winner a maintainer hid stays empty rather than
falling back to an older entry, and an anonymous entry shows no names until its reveal date.
Ranking and the "best" row rule follow the declaration's primary metric in its declared
direction; the columns come from :mod:`leaderboard.columns`, never from guessing at names;
numbers stay numbers (rounding is the UI's job).
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime

import pandas as pd

from leaderboard.baselines import PAPER_SOURCE, paper_rows, paper_url
from leaderboard.columns import Column, Kind, columns, export_columns, frame_columns, views
from leaderboard.ranks import RankRange, bounds, rank_ranges
from scoring.benchmarks import Metric, get_benchmark
from submissions import fields
from submissions.catalog import SubmissionState
from submissions.disclosure import Disclosure, Viewer, disclose, entry_state
from submissions.teams import name_key, rightful, state_key

__all__ = [  # the column model is leaderboard.columns; these names stay importable from here
    "ROW_RULES",
    "SCORED_SOURCE",
    "Board",
    "BoardRow",
    "Column",
    "RowFilter",
    "baseline_rows",
    "columns",
    "csv_safe",
    "export_columns",
    "figure_getter",
    "frame",
    "ranks",
    "scored_rows",
    "to_csv_bytes",
    "to_parquet_bytes",
    "views",
]

SCORED_SOURCE = "scored here"
ROW_RULES = ("latest", "best")
ANONYMOUS = "Anonymous submission"


@dataclass(frozen=True)
class BoardRow:
    """One line of the leaderboard: a (team, model) with the figures of its chosen submission."""

    model: str
    team: str
    model_type: str
    source: str
    figures: dict  # "overall" -> stats, grouping -> label -> stats
    submitted_at: str = ""
    submission_id: str = ""
    paper_url: str = ""
    code_url: str = ""
    key: str = ""  # the row id when it is not the named one (an anonymous row's; a reader's copy)
    info: Mapping[str, str] = field(default_factory=dict)  # the later public fields (submissions.fields)
    rank_keys: tuple[float, float, float] | None = None  # a reader's copy: the writer's order of the
    # primary interval's (low, point, high) as order keys (leaderboard.ranks.order_keys), the figures being rounded

    def rank_bounds(self, metric: Metric) -> tuple[float, float]:
        """The primary interval that ranks this row: the writer's exact order when given, else the figures'."""
        return (self.rank_keys[0], self.rank_keys[2]) if self.rank_keys else bounds(self.figures, metric)

    def value(self, name: str) -> str:
        return fields.value_of(self, name)

    @property
    def row_id(self) -> str:
        """A short stable id of the (team, model) pair, whichever submission is its row: what a
        link to the model's page carries (``?model=<row id>``). Paper rows get their own (the
        team "(paper)" is theirs). An anonymous row's is :func:`anonymous_row_id`."""
        return self.key or named_row_id(self.source, self.team, self.model)


def named_row_id(source: str, team: str, model: str) -> str:
    key = f"{source}\0{team.casefold()}\0{model.casefold()}".encode()
    return hashlib.sha256(key).hexdigest()[:12]


def anonymous_row_id(submission_id: str) -> str:
    """An anonymous row's id: one per entry (two anonymous rows never share one), and naming
    nobody (the submission id it hashes is random and never public while anonymous)."""
    return hashlib.sha256(f"anonymous row\0{submission_id}".encode()).hexdigest()[:12]


RowFilter = Callable[[BoardRow], bool]


def scored_rows(
    states: Iterable[SubmissionState],
    gold_version: str | None,
    scorer_version: str | None,
    row_rule: str = "latest",
    first_users: dict[str, tuple[str, str]] | None = None,
    today: str | None = None,
    disclosed: Callable[[SubmissionState], Disclosure] | None = None,
    owners: dict[str, frozenset[str]] | None = None,
) -> list[BoardRow]:
    """One row per (team, model) of public, rightful, scored submissions (module doc).
    ``scorer_version`` None takes each submission's newest result on that gold; ``gold_version``
    None its newest result on any gold (the board as it stood before a rescore). ``first_users``
    (submissions.teams.Teams.first_users) says who owned names used before owners were recorded;
    by default the first submitter among ``states``. ``today`` (YYYY-MM-DD) reveals anonymous
    entries whose date has come. Each row shows what the disclosure rule lets a visitor see of
    its submission (``disclosed``; by default from the submission's own records). ``owners``
    (Teams.owners) says who ever owned each name: a submission recording another owner does not
    stand for the team."""
    if row_rule not in ROW_RULES:
        raise ValueError(f"row rule must be one of {ROW_RULES}")
    states = list(states)
    if first_users is None:
        first_users = {}
        for state in sorted(states, key=lambda s: (s.meta.submitted_at, s.meta.id)):
            first_users.setdefault(state_key(state), (state.meta.submitter, state.meta.team))
    chosen: dict[tuple[str, str], tuple[tuple, SubmissionState, BoardRow]] = {}
    public = fields.public_fields()
    for state in states:
        if not state.public or not rightful(state, first_users, owners):
            continue
        row = _row_of(state, gold_version, scorer_version, public)
        if row is None:
            continue
        meta = state.meta
        # the team's choice first (the newest choice wins), then the rule: latest, or the better
        # primary figure and then the earlier submission
        if row_rule == "latest":
            rank: tuple = (state.chosen_at, meta.submitted_at)
        else:
            rule = (-_rank_value(row.figures, get_benchmark(meta.benchmark).primary), _negated(meta.submitted_at))
            rank = (state.chosen_at, *rule)
        key = (state_key(state), _model_key(state))
        if key not in chosen or rank > chosen[key][0]:
            chosen[key] = (rank, state, row)
    today = today or datetime.now(UTC).date().isoformat()
    disclosed = disclosed or (lambda s: disclose(Viewer.VISITOR, entry_state(s, today)))
    shown = ((row, state, disclosed(state)) for _, state, row in chosen.values())
    return [_shown(row, state, d) for row, state, d in shown if d.listed]


def _model_key(state: SubmissionState) -> str:
    """The compared form of the model's name, made once per state (boards are rebuilt often)."""
    key = state.derived.get("model_key")
    if key is None:
        key = state.derived["model_key"] = name_key(state.meta.model)
    return key


_SERVER_SIDE = ("source", "submission_id", "key", "info", "rank_keys")
"""Row fields that are not the submission's: where the figures come from, the server's own
link to the submission (no public file or page prints it; the history goes through the gate),
the later declared fields, which are filtered one by one, and a reader's order keys."""


def _shown(row: BoardRow, state: SubmissionState, disclosure: Disclosure) -> BoardRow:
    """The row as the public sees it: every field of the submission the disclosure does not
    allow is blanked (an allow-list: a new field stays out until allowed); an anonymous row
    gets its placeholder names and an id of its own."""
    blank = {
        f.name: {} if f.name == "figures" else ""
        for f in dataclass_fields(BoardRow)
        if f.name not in _SERVER_SIDE and not disclosure.shows(f.name)
    }
    info = {k: v for k, v in row.info.items() if disclosure.shows(k)}
    if not blank and info == dict(row.info):
        return row
    row = replace(row, **blank, info=info)
    if "model" in blank:
        until = f"(anonymous until {state.reveal_date})" if state.reveal_date else "(anonymous)"
        row = replace(row, model=ANONYMOUS, team=until, key=anonymous_row_id(state.meta.id))
    return row


def _row_of(
    state: SubmissionState, gold_version: str | None, scorer_version: str | None, public: tuple[fields.Field, ...]
) -> BoardRow | None:
    """The state's row for that gold (and scorer), made once: results never change, they are
    only added (hence the count in the cache key)."""
    cache_key = ("board_row", gold_version, scorer_version, len(state.results))
    if cache_key in state.derived:
        return state.derived[cache_key]
    if gold_version is None:
        result = state.newest_result()
    elif scorer_version is None:
        result = state.latest_result(gold_version)
    else:
        result = state.result(gold_version, scorer_version)
    meta = state.meta
    row = None
    if result is not None:
        classic = {f.name: getattr(meta, f.name) for f in public if f.name in fields.CLASSIC}
        info = {f.name: v for f in public if f.name not in fields.CLASSIC and (v := meta.info.get(f.name))}
        row = BoardRow(
            **classic,
            source=SCORED_SOURCE,
            figures=result.to_dict(),
            submitted_at=meta.submitted_at,
            submission_id=meta.id,
            info=info,
        )
    state.derived[cache_key] = row
    return row


def _negated(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def baseline_rows(benchmark: str) -> list[BoardRow]:
    return [
        BoardRow(
            model=r["model"],
            team="(paper)",
            model_type=r["model_type"],
            source=PAPER_SOURCE,
            figures=r["figures"],
            paper_url=paper_url(benchmark),
        )
        for r in paper_rows(benchmark)
    ]


def figure_getter(column: Column):
    """A function reading ``column``'s figure out of a row's figures: NaN when absent or null,
    an interval as its half-width. Built once per column, so a table of 10,000 rows costs one
    lookup per cell."""
    assert column.figure is not None
    section, label, name = column.figure
    decimals = column.decimals

    def get(figures: dict) -> float:
        node = figures.get(section)
        if label is not None:
            node = node.get(label) if node else None
        value = node.get(name) if node else None
        kind = type(value)
        if kind is float or kind is int:
            return value if value == value else math.nan
        if kind is list and len(value) == 2:  # half the interval as shown: what its rounded bounds give
            return (round(value[1], decimals) - round(value[0], decimals)) / 2
        return math.nan

    return get


def _rank_value(figures: dict, metric: Metric, key: float | None = None) -> float:
    """Sorts ascending from the best row: the overall figure (or ``key``, its order key on a
    reader), negated when higher is better; a missing figure sorts last whatever the direction."""
    value = key if key is not None else figures.get("overall", {}).get(metric.name)
    if type(value) not in (float, int) or value != value:
        return math.inf
    return -value if metric.higher_is_better else value


def frame(benchmark: str, rows: list[BoardRow], view: str = "overall") -> pd.DataFrame:
    """The table of a view, ranked within ``rows`` (:mod:`leaderboard.ranks`: ties and rows
    whose intervals overlap share a rank) and ordered by rank, then the primary figure in its
    declared direction, then the earlier submission (papers' rows count as the earliest).
    Absent figures are NaN. Full precision: what leaves the server goes through :func:`as_shown`."""
    bench = get_benchmark(benchmark)
    cols = frame_columns(bench, view)
    ordered = _ordered(benchmark, rows)
    getters = [(c.key, figure_getter(c)) for c in cols if c.figure is not None]
    keys = {c.key for c in cols}
    classic = [n for n in fields.CLASSIC if n in keys]  # attributes of the row; the later fields are in its info
    later = [f.name for f in fields.public_fields() if f.name in keys and f.name not in fields.CLASSIC]
    figure_keys = [k for k, _ in getters]
    records = []
    for row, rank in ordered:
        record = {k: get(row.figures) for k, get in getters}
        record.update({n: getattr(row, n) for n in classic})
        info = row.info
        record.update({n: info.get(n, "") for n in later})
        record.update(
            rank=rank.best, rank_worst=rank.worst, source=row.source, submitted=row.submitted_at[:10], row_id=row.row_id
        )
        records.append(record)
    if not records:
        return pd.DataFrame(columns=[c.key for c in cols])
    df = pd.DataFrame.from_records(records, columns=[c.key for c in cols])
    df[figure_keys] = df[figure_keys].astype(float)
    for c in cols:
        if c.kind is Kind.PARAMS:  # a count: exact integers, missing as <NA> (Parquet int64, CSV digits)
            df[c.key] = pd.array([int(v) if v else None for v in df[c.key]], dtype="Int64")
    return df


def as_shown(benchmark: str, df: pd.DataFrame) -> pd.DataFrame:
    """A view's table with every figure rounded to the decimals its column shows: what every public
    surface carries (the page data, the results dataset). Ranked before, at full precision; a digit
    more would be a gold-derived number beyond what the board shows (attacks.md turn 4 #6: a
    row's exact IoU sums per group)."""
    out = df.copy()
    for c in export_columns(get_benchmark(benchmark)):
        if c.figure is not None and c.key in out:
            out[c.key] = out[c.key].astype(float).round(c.decimals)
    return out


def _ordered(benchmark: str, rows: list[BoardRow]) -> list[tuple[BoardRow, RankRange]]:
    """Rows with their rank ranges, in board order: rank, then the primary figure in its declared
    direction, then the earlier submission, papers' rows first among equals."""
    primary = get_benchmark(benchmark).primary
    ranges = rank_ranges([r.rank_bounds(primary) for r in rows], primary.higher_is_better)
    order = sorted(
        range(len(rows)),
        key=lambda i: (
            ranges[i].best,
            _rank_value(rows[i].figures, primary, rows[i].rank_keys[1] if rows[i].rank_keys else None),
            rows[i].submitted_at,
            rows[i].source != PAPER_SOURCE,
            rows[i].model,
        ),
    )
    return [(rows[i], ranges[i]) for i in order]


def ranks(benchmark: str, rows: list[BoardRow]) -> dict[str, int]:
    """submission id -> its (best) rank on the board of ``rows``, as :func:`frame` shows it."""
    return {row.submission_id: rank.best for row, rank in _ordered(benchmark, rows) if row.submission_id}


@dataclass
class Board:
    """All rows of one benchmark, ready to view (the app caches one per catalog generation)."""

    benchmark: str
    rows: list[BoardRow] = field(default_factory=list)

    def view(self, view: str = "overall", keep: RowFilter | None = None) -> pd.DataFrame:
        """A view of the rows ``keep`` accepts (all by default), ranked among themselves."""
        rows = self.rows if keep is None else [r for r in self.rows if keep(r)]
        return frame(self.benchmark, rows, view)

    def row(self, row_id: str) -> BoardRow | None:
        return next((r for r in self.rows if r.row_id == row_id), None)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: object) -> object:
    """Neutralise spreadsheet formulas in text cells (CSV injection): prefix a quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(csv_safe)
    # RFC 4180 line ends: a field holding a bare \r is then quoted (with "\n" it would split the row)
    return safe.to_csv(index=False, lineterminator="\r\n").encode("utf-8")


def to_parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    return buf.getvalue()
