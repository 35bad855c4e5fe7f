"""Compare as the board page's script computes it (``ui/static/compare.js``), in Python: the
rows' figures rebuilt from the page's own data (figures as shown, the overall intervals' "±" and the
groups' from ``_group_ci``, as the model pages show them), then :func:`leaderboard.compare.compare`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from leaderboard.compare import Pairing, compare
from scoring.benchmarks import get_benchmark


def page_figures(bench_data: Mapping, row: Mapping) -> dict:
    """One page row (``ui.board_data.rows_data``) as the figures :func:`compare` reads."""
    figures: dict = {"overall": {"questions": bench_data["gold_questions"] or 0}}
    for metric in bench_data["metrics"]:
        name = metric["name"]
        figures["overall"][name] = row.get(f"overall.{name}")
        if f"overall.{name}_ci" in row:
            figures["overall"][f"{name}_ci"] = row[f"overall.{name}_ci"]
    for grouping in bench_data["groupings"]:
        sizes = bench_data["sizes"].get(grouping["name"], {})
        intervals = (row.get("_group_ci") or {}).get(grouping["name"], {})
        figures[grouping["name"]] = {
            label: {
                "questions": sizes.get(label, 0),
                **{m["name"]: row.get(f"{grouping['name']}.{label}.{m['name']}") for m in bench_data["metrics"]},
                **{f"{m}_ci": half for m, half in intervals.get(label, {}).items()},  # the model page's "±"
            }
            for label in grouping["labels"]
        }
    return figures


def page_compare(bench_data: Mapping, row_ids: Sequence[str]) -> tuple[Pairing, ...]:
    """What the page's Compare shows for ``row_ids`` (2-4 scored rows of ``bench_data``)."""
    rows = {r["row_id"]: r for r in bench_data["rows"]}
    picked = [(f"{rows[i]['model']} ({rows[i]['team']})", page_figures(bench_data, rows[i])) for i in row_ids]
    return compare(get_benchmark(bench_data["id"]), picked)
