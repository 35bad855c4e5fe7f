"""The public results dataset: only aggregates, one Parquet and one CSV per benchmark, and a
dataset card whose configs make ``datasets.load_dataset(repo)`` (every benchmark) and
``load_dataset(repo, benchmark_id)`` work for every registered benchmark.

Beside each table, ``data/{benchmark}.board.json`` (:class:`BoardSnapshot`) holds what the table
cannot say (each row's interval bounds and full submission time, and the order keys of its primary
interval), the gold's public facts and the group sizes: with the Parquet, what a reader
(:mod:`leaderboard.reader`, docs/topology.md) needs to serve the very board the writer serves
(:func:`board_rows`).

Every figure here is rounded to the decimals the board shows (``leaderboard.table.as_shown``;
the bounds to their interval's): a published mIoU of 2.5692562337246434 gave a row's exact IoU sums
per group, a gold-derived number beyond what is shown (attacks.md turn 4 #6). Ranks are computed
on the server at full precision; what lets a reader (and the browser) rank the rows a visitor
keeps exactly as here is each row's primary (low, point, high) as order keys
(:func:`leaderboard.ranks.order_keys`): places among all rows' values, no digits of them.

The card is generated from the benchmark declarations (column dictionary included), between
two markers: text a maintainer writes outside them, and front-matter keys they add or change
(except ``configs``, which must match the files), survive the next publish.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd
import yaml

from leaderboard.baselines import PAPER_SOURCE
from leaderboard.columns import LENIENT_KEY, Column, Kind, export_columns
from leaderboard.ranks import bounds, order_keys
from leaderboard.table import ANONYMOUS, BoardRow, as_shown, frame, named_row_id, to_csv_bytes, to_parquet_bytes
from scoring.benchmarks import BENCHMARKS
from scoring.benchmarks.base import Benchmark, Metric
from store import layout
from store.base import NotFound, Store
from store.golds import GoldInfo
from submissions import fields

log = logging.getLogger(__name__)
CARD_PATH = "README.md"
BEGIN = "<!-- BEGIN GENERATED: rewritten on every publish; write your own text outside these markers -->"
END = "<!-- END GENERATED -->"
FRONT_MATTER = {
    "license": "cc-by-4.0",
    "pretty_name": "Cultural VLM leaderboard results",
    "language": ["en"],
    "task_categories": ["visual-question-answering"],
    "tags": ["leaderboard", "culture", "vision-language", "evaluation"],
}
FIXED_COLUMNS = {
    Kind.RANK: "place on the board, 1 = best by the primary metric; ties go to the earlier submission",
    Kind.DATE: "when it was submitted (UTC; a timestamp in the Parquet, empty for the papers' rows)",
    Kind.URL: "a link the team gave (may be empty)",
}
TEXT_COLUMNS = {
    "source": f'who measured it: "{PAPER_SOURCE}" or this leaderboard',
    LENIENT_KEY: (
        "how many of the file's responses were read by rules looser than the official protocol (exactly one "
        "capital letter); the strict-protocol figure beside it counts them as wrong; empty for the papers' rows "
        "and files of answer letters only"
    ),
}


# ---------------------------------------------------------------- the tables


def public_frame(benchmark: str, rows: list[BoardRow]) -> pd.DataFrame:
    """All views' columns, keys with ``_`` for ``.`` (``overall_acc``), dates typed as timestamps."""
    df = as_shown(benchmark, frame(benchmark, rows, "all"))
    for col in export_columns(BENCHMARKS[benchmark]):
        if col.kind == Kind.DATE:
            df[col.key] = pd.to_datetime(df[col.key].replace("", None), utc=True, errors="coerce")
    return df.rename(columns=parquet_name)


def parquet_name(key: str) -> str:
    return key.replace(".", "_")


# ---------------------------------------------------------------- the card


def describe(bench: Benchmark, col: Column) -> str:
    """One line of the column dictionary, from the declarations (benchmarks and fields)."""
    declared = {f.name: f.meaning for f in fields.public_fields()}
    if col.figure is None or col.key in TEXT_COLUMNS:
        return declared.get(col.key) or TEXT_COLUMNS.get(col.key) or FIXED_COLUMNS.get(col.kind) or col.header
    section, label, name = col.figure
    metric = next((m for m in bench.metrics if name in (m.name, m.ci)), None)
    if metric is None:
        return col.header
    grouping = bench.grouping(section) if label is not None else None
    where = "overall" if grouping is None else f"{grouping.label.lower()} {grouping.show(label)} only"
    if col.kind == Kind.CI:
        return (
            f"half-width of the 95% bootstrap percentile interval of {metric.label}, {where} "
            "(percentage points; empty for the papers' rows)"
        )
    direction = "higher is better" if metric.higher_is_better else "lower is better"
    return f"{metric.label}, {where}: {metric.description} (percent, {direction})"


def benchmark_section(bench: Benchmark) -> str:
    groups = "; ".join(f"{g.label.lower()}: {', '.join(g.show(v) for v in g.order)}" for g in bench.groupings)
    rows = "\n".join(f"| `{parquet_name(c.key)}` | {describe(bench, c)} |" for c in export_columns(bench) if c.in_frame)
    return (
        f"### {bench.name} (config `{bench.id}`)\n\n{bench.description}\n\nPaper: *{bench.paper}*. "
        f"Groups: {groups}.\n\nFiles: `{layout.public_table(bench.id, 'parquet')}` (also as CSV), "
        f"question list `{layout.public_questions(bench.id)}`.\n\n| column | meaning |\n|---|---|\n{rows}\n"
    )


def generated_body(dataset_id: str, space_id: str | None) -> str:
    """Everything between the markers: description, loading, question lists, columns, citations."""
    first = next(iter(BENCHMARKS))
    space = (
        f"The leaderboard itself, where models are submitted: https://huggingface.co/spaces/{space_id}\n\n"
        if space_id
        else ""
    )
    return (
        "# Cultural VLM leaderboard: public results\n\n"
        "Aggregate scores of every model on the leaderboard, one table per benchmark "
        f'({", ".join(f"`{b}`" for b in BENCHMARKS)}). Rows whose `source` is "{PAPER_SOURCE}" are '
        "the benchmark papers' published figures, not scored here. Figures are percentages at full "
        "precision. No gold answer, mask, image size or per-question result is in this dataset.\n\n"
        + space
        + "## Loading\n\n```python\nfrom datasets import load_dataset\n\n"
        + "\n".join(f'{b.replace("-", "_")} = load_dataset("{dataset_id}", "{b}", split="train")' for b in BENCHMARKS)
        + f'\nsame_as_{first} = load_dataset("{dataset_id}", split="train")  # the default config\n```\n\n'
        "One config per benchmark, since their columns differ; the first is the default.\n\n"
        "## Question lists\n\n`questions/<benchmark>.jsonl` holds the public side of each benchmark's "
        "questions (id, group labels and what the benchmark's harness needs to ask), never the "
        "answers: what a submission must answer. They come from the benchmarks' own releases and keep "
        "those releases' terms.\n\n## Columns\n\n"
        + "\n".join(benchmark_section(b) for b in BENCHMARKS.values())
        + "\n## Citation\n\nIf you use these results, cite the benchmarks:\n\n"
        + citations()
        + "\n"
    )


def citations() -> str:
    """Every benchmark's citation (its folder's ``citation.bib``) in one BibTeX block."""
    entries = "\n\n".join(b.citation for b in BENCHMARKS.values() if b.citation)
    return f"```bibtex\n{entries}\n```" if entries else ""


def configs() -> list[dict]:
    """One config per benchmark; the first is the ``default`` one, so ``load_dataset(repo)``
    works (the tables have different columns, so they cannot be stacked into one config)."""
    return [
        {
            "config_name": b,
            **({"default": True} if i == 0 else {}),
            "data_files": [{"split": "train", "path": layout.public_table(b, "parquet")}],
        }
        for i, b in enumerate(BENCHMARKS)
    ]


def split_card(text: str) -> tuple[dict, str, str]:
    """(front matter, text before the generated block, text after it) of an existing card; a
    card without markers keeps all its text after the block."""
    meta: dict = {}
    if text.startswith("---\n") and "\n---" in text[4:]:
        head, text = text[4:].split("\n---", 1)
        loaded = yaml.safe_load(head)
        meta = loaded if isinstance(loaded, dict) else {}
        text = text.lstrip("\n")
    if BEGIN in text and END in text:
        before, rest = text.split(BEGIN, 1)
        return meta, before, rest.split(END, 1)[1]
    return meta, "", ("\n" + text) if text.strip() else ""


def card(dataset_id: str, existing: str = "", space_id: str | None = None) -> bytes:
    """The card: our front matter under the maintainer's (``configs`` always ours), the
    generated block, and the maintainer's text around it."""
    old_meta, before, after = split_card(existing)
    meta = {**FRONT_MATTER, **old_meta, "configs": configs()}
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    return f"---\n{head}---\n{before}{BEGIN}\n{generated_body(dataset_id, space_id)}{END}{after}".encode()


# ---------------------------------------------------------------- the board snapshot

BOARD_FORMAT = 1


@dataclass(frozen=True)
class RowExtras:
    """What the table cannot say exactly about one row: its full submission time, the bounds of
    its overall intervals (the table has half-widths; bootstrap intervals are not symmetric)
    and the gold (short key) and scorer its figures come from."""

    submitted_at: str = ""
    bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)  # interval name -> (low, high), as shown
    gold_version: str = ""
    scorer_version: str = ""
    order: tuple[float, float, float] | None = None  # the primary's (low, point, high) as order keys

    def to_dict(self) -> dict:
        bounds = {name: _json_numbers(b) for name, b in self.bounds.items()}
        order = {} if self.order is None else {"order": _json_numbers(self.order)}
        return {
            "submitted_at": self.submitted_at,
            "bounds": bounds,
            "gold_version": self.gold_version,
            "scorer_version": self.scorer_version,
            **order,
        }


def _json_numbers(values) -> list[float | None]:
    return [v if math.isfinite(v) else None for v in values]  # strict JSON has no NaN


@dataclass(frozen=True)
class BoardSnapshot:
    """``data/{benchmark}.board.json``: beside the table (read together, at one commit), each
    row's :class:`RowExtras` by row id, the gold's public facts (its short key, date and size)
    and the questions per group. No submission id, no per-group interval, no tally of a
    submitter's file. Strict JSON, so any JSON reader takes it."""

    benchmark: str
    rows: Mapping[str, RowExtras]  # row id -> extras
    gold: GoldInfo | None  # only benchmark, version (the short key), added_at and questions are set
    group_sizes: Mapping[str, Mapping[str, int]]

    @classmethod
    def of(
        cls, benchmark: str, rows: list[BoardRow], gold: GoldInfo | None, sizes: Mapping[str, Mapping[str, int]]
    ) -> BoardSnapshot:
        public = (
            None
            if gold is None
            else GoldInfo(benchmark, layout.gold_key(gold.version), "", gold.added_at, "", gold.questions)
        )
        bench = BENCHMARKS[benchmark]
        intervals = {c.figure[2]: c.decimals for c in export_columns(bench) if c.kind == Kind.CI and c.figure}
        orders = _orders(rows, bench.primary)
        return cls(
            benchmark, {r.row_id: _extras(r, intervals, o) for r, o in zip(rows, orders, strict=True)}, public, sizes
        )

    def to_bytes(self) -> bytes:
        gold = self.gold
        body = {
            "format": BOARD_FORMAT,
            "benchmark": self.benchmark,
            "gold": None if gold is None else {k: getattr(gold, k) for k in ("version", "added_at", "questions")},
            "group_sizes": self.group_sizes,
            "rows": {row_id: e.to_dict() for row_id, e in self.rows.items()},
        }
        return json.dumps(body, allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> BoardSnapshot:
        """Read one back; ValueError naming ``where`` and the fault for anything else."""
        try:
            body = json.loads(data)
            if body.get("format") != BOARD_FORMAT:
                raise ValueError(f"format {body.get('format')!r}, this reader knows {BOARD_FORMAT}")
            benchmark, gold = str(body["benchmark"]), body["gold"]
            info = (
                None
                if gold is None
                else GoldInfo(benchmark, str(gold["version"]), "", str(gold["added_at"]), "", int(gold["questions"]))
            )
            rows = {str(row_id): _read_extras(e) for row_id, e in body["rows"].items()}
            sizes = {str(g): {str(k): int(n) for k, n in labels.items()} for g, labels in body["group_sizes"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{where}: not a board snapshot ({type(e).__name__}: {e})") from None
        return cls(benchmark, rows, info, sizes)


def _orders(rows: list[BoardRow], primary: Metric) -> list[tuple[float, float, float]]:
    """Every row's primary (low, point, high) as order keys over all the rows: a reader ranks and
    orders them exactly as here (``BoardRow.rank_keys``) from figures published rounded."""
    triples = []
    for row in rows:
        if row.rank_keys:
            triples.append(row.rank_keys)
            continue
        low, high = bounds(row.figures, primary)
        point = row.figures.get("overall", {}).get(primary.name)
        triples.append((low, float(point) if type(point) in (int, float) else math.nan, high))
    keys = iter(order_keys([v for triple in triples for v in triple]))
    return [(next(keys), next(keys), next(keys)) for _ in triples]


def _extras(row: BoardRow, intervals: Mapping[str, int], order: tuple[float, float, float]) -> RowExtras:
    overall = row.figures.get("overall", {})
    shown = {}
    for name, decimals in intervals.items():
        value = overall.get(name)
        if isinstance(value, list | tuple) and len(value) == 2 and all(type(v) in (int, float) for v in value):
            shown[name] = (round(float(value[0]), decimals), round(float(value[1]), decimals))
    gold = str(row.figures.get("gold_version") or "")
    scorer = str(row.figures.get("scorer_version") or "")
    return RowExtras(row.submitted_at, shown, layout.gold_key(gold), scorer, order)


def _read_extras(item: dict) -> RowExtras:
    bounds = {str(k): (_number(lo), _number(hi)) for k, (lo, hi) in item["bounds"].items()}
    texts = [item[k] for k in ("submitted_at", "gold_version", "scorer_version")]
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("a row's times and versions must be strings")
    order = item.get("order")  # a writer before the figures were rounded published none
    keys = None if order is None else (_number(order[0]), _number(order[1]), _number(order[2]))
    return RowExtras(texts[0], bounds, texts[1], texts[2], keys)


def _number(value: object) -> float:
    """A bound read back: null was a NaN (strict JSON has none)."""
    return math.nan if value is None else float(value)


def board_rows(benchmark: str, table: pd.DataFrame, snapshot: BoardSnapshot) -> list[BoardRow]:
    """The writer's rows again, from the public table and its snapshot: every figure of the
    table's columns as it was (float64 both ways), intervals from their bounds. ValueError when
    the two do not describe the same rows (read at different commits)."""
    if set(table["row_id"]) != set(snapshot.rows) or len(table) != len(snapshot.rows):
        raise ValueError(f"the {benchmark} table and its snapshot list different rows: published at different times?")
    cols = [c for c in export_columns(BENCHMARKS[benchmark]) if c.figure is not None and c.kind != Kind.CI]
    missing = [math.nan] * len(table)  # a figure an older writer did not publish (SCB's GAcc@0.5 per group)
    values = {  # Python floats, NaN kept
        c.figure: table[parquet_name(c.key)].astype(float).tolist() if parquet_name(c.key) in table else missing
        for c in cols
    }
    texts = {k: _texts(table, k) for k in ("source", "row_id", *(f.name for f in fields.public_fields()))}
    rows = []
    for i, row_id in enumerate(texts["row_id"]):
        extras = snapshot.rows[row_id]
        figures: dict = {"overall": {name: list(b) for name, b in extras.bounds.items()}}
        for (section, label, name), column in values.items():
            if column[i] == column[i]:  # NaN: missing, as the writer's getter reads it
                node = figures.setdefault(section, {})
                (node.setdefault(label, {}) if label is not None else node)[name] = column[i]
        figures.update(
            {k: v for k, v in (("gold_version", extras.gold_version), ("scorer_version", extras.scorer_version)) if v}
        )
        classic, info = fields.split({f.name: texts[f.name][i] for f in fields.public_fields()})
        model, team, source = classic["model"], classic["team"], texts["source"][i]
        named = named_row_id(source, team, model)
        if named != row_id and model != ANONYMOUS:  # an anonymous row's id is its own, not its shown names'
            raise ValueError(f"row {row_id} of the {benchmark} table does not match its model, team and source")
        key = "" if named == row_id else row_id
        rows.append(
            BoardRow(
                **classic,
                source=source,
                figures=figures,
                submitted_at=extras.submitted_at,
                key=key,
                info={k: v for k, v in info.items() if v},
                rank_keys=extras.order,
            )
        )
    return rows


def _texts(table: pd.DataFrame, key: str) -> list[str]:
    """A text column as the writer's rows held it: a column an older writer did not publish
    reads as empty (a newer writer's extra columns are ignored), a count as its digits."""
    if key not in table:
        return [""] * len(table)
    column = table[key]
    if pd.api.types.is_numeric_dtype(column):
        return ["" if pd.isna(v) else str(int(v)) for v in column]
    return column.fillna("").astype(str).tolist()


def publish(
    store: Store,
    benchmark: str,
    rows: list[BoardRow],
    dataset_id: str = "results",
    space_id: str | None = None,
    *,
    gold: GoldInfo | None = None,
    group_sizes: Mapping[str, Mapping[str, int]] | None = None,
) -> None:
    """Write the benchmark's public table (all views' columns), its board snapshot and the card,
    in one commit. ``dataset_id``: what ``load_dataset`` is given (the Hub repo id, or the local
    folder); ``gold`` and ``group_sizes``: the board's current gold and its questions per group."""
    ids = [r.row_id for r in rows]
    if len(set(ids)) != len(ids):  # the snapshot is keyed by row id: a reader would refuse the board
        log.error("two %s rows share a row id: not publishing (the public files stay as they were)", benchmark)
        return
    df = public_frame(benchmark, rows)
    snapshot = BoardSnapshot.of(benchmark, rows, gold, group_sizes or {})
    files = {
        layout.public_table(benchmark, "parquet"): to_parquet_bytes(df),
        layout.public_table(benchmark, "csv"): to_csv_bytes(df),
        layout.public_board(benchmark): snapshot.to_bytes(),
        CARD_PATH: card(dataset_id, existing_card(store), space_id),
    }
    store.put("results", files, f"Update {benchmark} results", overwrite=True)


def existing_card(store: Store) -> str:
    try:
        return store.read("results", CARD_PATH).decode("utf-8", errors="replace")
    except NotFound:
        return ""
