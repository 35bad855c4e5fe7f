"""Pure scoring for the cultural VLM leaderboard: formats, validation, geometry, metrics.

Reads only the files it is handed; no Gradio, no Hub. The one entry point for a submission is
:func:`score_file`; gold comes from :func:`load_gold` (a benchmark's declared loader).
"""

from __future__ import annotations

from pathlib import Path

from scoring.benchmarks import BENCHMARKS, Benchmark, get_benchmark
from scoring.engine import SCORER_VERSION, Predictions, ResultRecord, score_file, score_predictions, validate_file
from scoring.errors import GoldError, Issue, SubmissionError
from scoring.gold import Gold
from scoring.jsonl import Limits


def load_gold(benchmark: str, path: str | Path) -> Gold:
    """Load and compile the gold of ``benchmark`` from ``path`` (JSONL, Parquet, COCO JSON)."""
    return get_benchmark(benchmark).load_gold(Path(path))


def load_questions(benchmark: str, path: str | Path) -> Gold:
    """Load a public question list of ``benchmark`` as a public gold: it validates a file with the
    server's checks and codes, and cannot score it (GoldError if the list is broken)."""
    bench = get_benchmark(benchmark)
    if bench.load_public_gold is None:
        raise GoldError(f"{bench.name} publishes no question list to validate against")
    return bench.load_public_gold(Path(path))


__all__ = [
    "BENCHMARKS",
    "SCORER_VERSION",
    "Benchmark",
    "Gold",
    "GoldError",
    "Issue",
    "Limits",
    "Predictions",
    "ResultRecord",
    "SubmissionError",
    "get_benchmark",
    "load_gold",
    "load_questions",
    "score_file",
    "score_predictions",
    "validate_file",
]
