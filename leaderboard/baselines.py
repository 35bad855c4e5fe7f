"""The papers' published rows, carried in the project as data (leaderboard/data/)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from scoring.benchmarks import get_benchmark

BASELINES_FILE = Path(__file__).parent / "data" / "paper-baselines.json"
PAPER_SOURCE = "reported in paper"


@lru_cache(maxsize=1)
def _load() -> dict:
    return json.loads(BASELINES_FILE.read_text(encoding="utf-8"))


def paper_rows(benchmark: str) -> list[dict]:
    """One dict per published model: ``model``, ``model_type`` and figures shaped like a result
    record (``overall``, then one mapping per grouping), with the data's label names."""
    bench = get_benchmark(benchmark)
    entry = _load().get(benchmark)
    if not entry:
        return []
    rows = []
    for model, published in entry["models"].items():
        figures = {"overall": with_strict(bench, published["overall"])}
        for grouping in bench.groupings:
            back = {grouping.show(label): label for label in grouping.order}
            figures[grouping.name] = {back.get(k, k): v for k, v in published.get(grouping.name, {}).items()}
        rows.append({"model": model, "model_type": published.get("model_type", ""), "figures": figures})
    return rows


def with_strict(bench, overall: dict) -> dict:
    """A paper's overall figures with the official protocol's figure: the papers scored by that
    protocol (the benchmark's ``strict_metric``), so their primary figure is the strict one too
    (else every paper row read "-" under Acc strict and sorted last by it)."""
    strict, primary = bench.strict_metric, bench.primary_metric
    if strict and strict not in overall and primary in overall:
        return {**overall, strict: overall[primary]}
    return overall


def paper_url(benchmark: str) -> str:
    """The address of the paper the benchmark's published rows come from ("" when not given)."""
    return _load().get(benchmark, {}).get("paper_url", "")


def source_note(benchmark: str) -> str:
    entry = _load().get(benchmark, {})
    return ". ".join(v.rstrip(".") for v in (entry.get("source", ""), entry.get("note", "")) if v) + "."
