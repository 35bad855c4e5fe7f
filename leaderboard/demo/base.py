"""The demo registry: per benchmark, a generated gold and ready-made submissions of known quality.

Why demo data exists: the real SCB gold is hidden by its authors, and the project must run
(app, tests, benchmark scripts) without anything outside its own tree. The app seeds an empty
store from every registered :class:`DemoData` whose benchmark is registered, so a benchmark
brings its own demo (``leaderboard/demo/scb.py``, a plugin's module) and nothing else changes.

Everything is a pure function of its arguments: the same seed gives the same records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scoring.benchmarks import BENCHMARKS, UnknownName

Record = dict[str, Any]


@dataclass(frozen=True)
class DemoTeam:
    """The parameters of one demo submission (``grounding``/``box_format`` matter for grounding benchmarks)."""

    benchmark: str
    name: str
    slug: str
    accuracy: float
    seed: int
    model_type: str  # "open" | "closed" | "API"
    team: str = "demo"
    grounding: str = "none"
    box_format: str = "xyxy"
    missing: int = 0
    as_response: float = 0.0

    @property
    def filename(self) -> str:
        return f"{self.benchmark}_{self.slug}.jsonl"

    def submission(self, gold: Sequence[Record]) -> list[Record]:
        """Generate this team's submission lines against ``gold``, by its benchmark's demo."""
        return demo_for(self.benchmark).submission(self, gold)


@dataclass(frozen=True)
class DemoData:
    """One benchmark's demo: its gold generator, an optional public question list, teams and their submissions."""

    benchmark: str
    gold: Callable[[int], list[Record]]
    """seed -> gold records, as a maintainer's gold file holds them."""
    submission: Callable[[DemoTeam, Sequence[Record]], list[Record]]
    teams: tuple[DemoTeam, ...] = ()
    questions: Callable[[Sequence[Record]], list[Record]] | None = None
    """gold -> its public side (no answers), written beside the gold when given."""


@dataclass(frozen=True)
class DemoFiles:
    """One demo written to disk: the gold, its public side (if any) and each team's submission."""

    gold: Path
    questions: Path | None
    submissions: dict[DemoTeam, Path]


def write_files(demo: DemoData, folder: Path, seed: int = 0) -> DemoFiles:
    """Write ``{id}_gold.jsonl``, ``{id}_questions.jsonl`` and ``examples/{team file}`` under ``folder``."""
    gold = demo.gold(seed)
    questions = None
    if demo.questions is not None:
        questions = write_jsonl(folder / f"{demo.benchmark}_questions.jsonl", demo.questions(gold))
    return DemoFiles(
        gold=write_jsonl(folder / f"{demo.benchmark}_gold.jsonl", gold),
        questions=questions,
        submissions={t: write_jsonl(folder / "examples" / t.filename, demo.submission(t, gold)) for t in demo.teams},
    )


DEMOS: dict[str, DemoData] = {}
"""Registered demos by benchmark id. Updated in place, never rebound."""


def register(demo: DemoData) -> DemoData:
    """Add a benchmark's demo (again is a no-op); another demo for a taken benchmark id raises."""
    existing = DEMOS.get(demo.benchmark)
    if existing is not None and existing is not demo:
        raise ValueError(f"a demo for {demo.benchmark!r} is already registered")
    DEMOS[demo.benchmark] = demo
    return demo


def unregister(benchmark: str) -> None:
    demo_for(benchmark)
    del DEMOS[benchmark]


def demo_for(benchmark: str) -> DemoData:
    try:
        return DEMOS[benchmark]
    except KeyError:
        raise UnknownName("demo", benchmark, DEMOS) from None


def registered() -> list[DemoData]:
    """The demos of registered benchmarks, in the benchmarks' display order."""
    return [DEMOS[b] for b in BENCHMARKS if b in DEMOS]


# --------------------------------------------------------------------------- helpers for generators


def answer_letters(rng: np.random.Generator, gold_letters: Sequence[str], accuracy: float, choices: str) -> list[str]:
    """``round(accuracy * N)`` correct letters at random positions, another of ``choices`` elsewhere."""
    n, k = len(gold_letters), len(choices)
    correct = np.zeros(n, dtype=bool)
    correct[rng.choice(n, round(min(max(accuracy, 0.0), 1.0) * n), replace=False)] = True
    shifts = rng.integers(1, k, n)
    return [g if ok else choices[(choices.index(g) + int(s)) % k] for g, ok, s in zip(gold_letters, correct, shifts)]


def finish_lines(
    rng: np.random.Generator, lines: list[Record], missing: int, as_response: float, key_field: str = "question_id"
) -> list[Record]:
    """Drop ``missing`` lines and turn a share ``as_response`` of answers into raw text."""
    n = len(lines)
    keep = np.ones(n, dtype=bool)
    keep[rng.choice(n, min(missing, n), replace=False)] = False
    verbose = np.zeros(n, dtype=bool)
    verbose[rng.choice(n, round(min(max(as_response, 0.0), 1.0) * n), replace=False)] = True
    out = []
    for line, kept, wordy in zip(lines, keep, verbose):
        if not kept:
            continue
        if wordy:
            line = {
                key_field: line[key_field],
                "response": f"The answer is ({line['answer']}).",
                **{k: v for k, v in line.items() if k not in (key_field, "answer")},
            }
        out.append(line)
    return out


def choice_submission(team: DemoTeam, gold: Sequence[Record]) -> list[Record]:
    """The multiple-choice family's demo submission, for any benchmark of it: lines keyed by the
    declaration's key field (a gold record's own, else its row index), its answer letters (a gold
    ``answer`` is a letter or an index into them), ``round(accuracy * N)`` right at random."""
    bench = BENCHMARKS[team.benchmark]
    rng = np.random.default_rng(team.seed)
    right = [bench.choices[a] if isinstance(a, int) else str(a) for a in (r["answer"] for r in gold)]
    letters = answer_letters(rng, right, team.accuracy, bench.choices)
    lines = [
        {bench.key_field: record.get(bench.key_field, row), "answer": letter}
        for row, (record, letter) in enumerate(zip(gold, letters, strict=True))
    ]
    return finish_lines(rng, lines, team.missing, team.as_response, bench.key_field)


def dumps_jsonl(records: Iterable[Record]) -> bytes:
    """Records as JSON lines (compact separators, UTF-8, a newline after every line)."""
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode("utf-8")


def write_jsonl(path: Path, records: Iterable[Record]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(dumps_jsonl(records))
    return path
