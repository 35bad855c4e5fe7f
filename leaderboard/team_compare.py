"""Compare for a team (issue 44): its own submissions, private ones included, beside the board's rows.

The runs a signed-in person may compare are the board's scored rows (public to everyone) and the
submissions of their own teams whose figures the one disclosure rule lets them see: through
``Visibility.entry`` (None for another team's entry), with the figures ``public_result`` gives the
team (rounded, and None where the Ladder withholds them or a hold keeps them back, so such an
entry is not offered). Every figure is then as its team or the public already sees it, and the
statistics are :mod:`leaderboard.compare`'s, from those figures alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from leaderboard.compare import MAX_MODELS, MIN_MODELS, Pairing, compare
from leaderboard.table import SCORED_SOURCE, BoardRow
from scoring.benchmarks import BENCHMARKS, Benchmark, get_benchmark
from submissions.answer import public_figures, public_result
from submissions.records import Identity

if TYPE_CHECKING:
    from leaderboard.service import Leaderboard

MINE, ROW = "mine:", "row:"


@dataclass(frozen=True)
class Run:
    """One comparable run: ``key`` (``mine:<submission id>`` or ``row:<row id>``), its name, its figures."""

    key: str
    benchmark: str
    name: str
    figures: Mapping


def shown_figures(bench: Benchmark, figures: Mapping) -> dict:
    """A board row's figures as a page shows them (rounded, without counts of right answers)."""
    out: dict = {"overall": public_figures(bench, figures.get("overall") or {})}
    for g in bench.groupings:
        labels = figures.get(g.name) or {}
        out[g.name] = {label: public_figures(bench, stats) for label, stats in labels.items()}
    return out


def own_runs(lb: Leaderboard, identity: Identity, benchmark: str | None = None) -> list[Run]:
    """``identity``'s and its teams' submissions whose figures it may see, newest first."""
    runs = []
    for entry in lb.visibility.entries(identity, benchmark):
        result = public_result(entry.result)
        if result is None:
            continue
        meta = entry.state.meta
        name = f"{meta.model} · yours, {entry.visibility} · {meta.id}"
        runs.append(Run(MINE + meta.id, meta.benchmark, name, result))
    return runs


def board_runs(lb: Leaderboard, benchmark: str) -> list[Run]:
    bench = get_benchmark(benchmark)
    rows: Sequence[BoardRow] = lb.board(benchmark).rows
    return [
        Run(ROW + r.row_id, benchmark, f"{r.model} ({r.team})", shown_figures(bench, r.figures))
        for r in rows
        if r.source == SCORED_SOURCE
    ]


def runs_for(lb: Leaderboard, identity: Identity | None, benchmark: str) -> list[Run]:
    """What ``identity`` may compare on ``benchmark``: its own runs first, then the board's rows."""
    mine = own_runs(lb, identity, benchmark) if identity is not None else []
    return [*mine, *board_runs(lb, benchmark)]


def compare_runs(
    lb: Leaderboard, identity: Identity | None, keys: Sequence[str]
) -> tuple[Benchmark, tuple[Pairing, ...]]:
    """The first run against each other one; ValueError says what is wrong (a run not offered to
    ``identity`` is "not one of the runs you may compare", whether or not it exists)."""
    if not MIN_MODELS <= len(keys) <= MAX_MODELS:
        raise ValueError(f"pick {MIN_MODELS} to {MAX_MODELS} runs to compare, not {len(keys)}")
    benchmarks = {_benchmark_of(lb, identity, k) for k in keys}
    if len(benchmarks) != 1 or None in benchmarks:
        raise ValueError("pick runs of one benchmark, each one you may compare")
    benchmark = benchmarks.pop()
    offered = {r.key: r for r in runs_for(lb, identity, benchmark)}
    missing = [k for k in keys if k not in offered]
    if missing:
        raise ValueError(f"{missing[0]} is not one of the runs you may compare")
    bench = get_benchmark(benchmark)
    return bench, compare(bench, [(offered[k].name, offered[k].figures) for k in keys])


def _benchmark_of(lb: Leaderboard, identity: Identity | None, key: str) -> str | None:
    if key.startswith(MINE) and identity is not None:
        entry = lb.visibility.entry(identity, key.removeprefix(MINE))
        return entry.state.meta.benchmark if entry is not None else None
    if key.startswith(ROW):
        row_id = key.removeprefix(ROW)
        return next((b for b in BENCHMARKS if lb.board(b).row(row_id) is not None), None)
    return None
