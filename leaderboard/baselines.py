"""The papers' published rows: each benchmark's ``paper_rows`` (its folder's ``baselines.json``)."""

from __future__ import annotations

from scoring.benchmarks import get_benchmark

PAPER_SOURCE = "reported in paper"


def paper_rows(benchmark: str) -> list[dict]:
    """One dict per published model: ``model``, ``model_type`` and figures shaped like a result
    record (``overall``, then one mapping per grouping), with the data's label names."""
    bench = get_benchmark(benchmark)
    entry = bench.paper_rows
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
    return str(get_benchmark(benchmark).paper_rows.get("paper_url", ""))


def source_note(benchmark: str) -> str:
    """Where the paper rows come from and what to know of them ("" when the benchmark has none:
    About then prints no "Paper rows" line for it, not a lone ".")."""
    entry = get_benchmark(benchmark).paper_rows
    parts = [str(v).rstrip(".") for v in (entry.get("source", ""), entry.get("note", "")) if v]
    return ". ".join(parts) + "." if parts else ""
