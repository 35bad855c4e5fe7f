"""The benchmark registry: look a declaration up by id."""

from __future__ import annotations

from scoring.benchmarks.base import Benchmark, Grouping, Metric
from scoring.benchmarks.kviscuit import KVISCUIT
from scoring.benchmarks.scb import SCB

BENCHMARKS: dict[str, Benchmark] = {b.id: b for b in (SCB, KVISCUIT)}
"""Display order: SCB first."""


def get_benchmark(benchmark_id: str) -> Benchmark:
    """The declaration of ``benchmark_id``; a ValueError lists the known ids.

    >>> get_benchmark("scb").name
    'Seeing Culture Benchmark (SCB)'
    """
    try:
        return BENCHMARKS[benchmark_id]
    except KeyError:
        raise ValueError(f"unknown benchmark {benchmark_id!r}; known: {', '.join(BENCHMARKS)}") from None


__all__ = ["BENCHMARKS", "Benchmark", "Grouping", "Metric", "get_benchmark"]
