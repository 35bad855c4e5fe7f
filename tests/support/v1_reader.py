"""The reader of the published table as it was before the declared fields (commit 040358b,
``leaderboard.publish.board_rows``), kept verbatim so the version-skew tests run an older
reader on a newer writer's table. Only its imports are written for this file."""

from __future__ import annotations

import pandas as pd

from leaderboard.columns import Kind, export_columns
from leaderboard.publish import BoardSnapshot, parquet_name
from leaderboard.table import BoardRow
from scoring.benchmarks import BENCHMARKS

V1_TEXT_COLUMNS = ("rank", "rank_worst", "model", "team", "model_type", "source", "submitted", "paper_url",
                   "code_url", "row_id")  # fmt: skip
"""The non-figure columns that writer published (its ``frame(benchmark, rows, "all")``)."""


def board_rows(benchmark: str, table: pd.DataFrame, snapshot: BoardSnapshot) -> list[BoardRow]:  # verbatim
    """The writer's rows again, from the public table and its snapshot: every figure of the
    table's columns as it was (float64 both ways), intervals from their bounds. ValueError when
    the two do not describe the same rows (read at different commits)."""
    if set(table["row_id"]) != set(snapshot.rows) or len(table) != len(snapshot.rows):
        raise ValueError(f"the {benchmark} table and its snapshot list different rows: published at different times?")
    cols = [c for c in export_columns(BENCHMARKS[benchmark]) if c.figure is not None and c.kind != Kind.CI]
    values = {c.figure: table[parquet_name(c.key)].astype(float).tolist() for c in cols}  # Python floats, NaN kept
    texts = {k: table[k].fillna("").astype(str).tolist() for k in ("model", "team", "model_type", "source",
                                                                    "paper_url", "code_url", "row_id")}  # fmt: skip
    rows = []
    for i, row_id in enumerate(texts["row_id"]):
        extras = snapshot.rows[row_id]
        figures: dict = {"overall": {name: list(b) for name, b in extras.bounds.items()}}
        for (section, label, name), column in values.items():
            if column[i] == column[i]:  # NaN: missing, as the writer's getter reads it
                node = figures.setdefault(section, {})
                (node.setdefault(label, {}) if label is not None else node)[name] = column[i]
        figures.update({k: v for k, v in (("gold_version", extras.gold_version),
                                          ("scorer_version", extras.scorer_version)) if v})  # fmt: skip
        rows.append(BoardRow(texts["model"][i], texts["team"][i], texts["model_type"][i], texts["source"][i], figures,
                             extras.submitted_at, "", texts["paper_url"][i], texts["code_url"][i]))  # fmt: skip
        if rows[-1].row_id != row_id:
            raise ValueError(f"row {row_id} of the {benchmark} table does not match its model, team and source")
    return rows
