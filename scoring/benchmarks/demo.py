"""Demo data: per benchmark, a generated gold and ready-made submissions of known quality.

A benchmark's demo is its declaration's ``demo`` slot (:class:`scoring.benchmarks.base.DemoData`,
made by its folder's ``demo.py``): one registry, the benchmarks'. :func:`write_demo` writes every
registered benchmark's demo files, ``Leaderboard.seed_demo`` loads them into an empty store, and
``python -m scoring demo OUT_DIR`` writes them from the shell (with the plugins
``LEADERBOARD_PLUGINS`` names). The helpers below are what the folders' generators share. Everything
is a pure function of its arguments: the same seed gives the same records.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.benchmarks.base import Benchmark, DemoData, DemoTeam, Record, UnknownName
from scoring.benchmarks.registry import BENCHMARKS, get_benchmark


@dataclass(frozen=True)
class DemoFiles:
    """One demo written to disk: the gold, its public side (if any) and each team's submission."""

    gold: Path
    questions: Path | None
    submissions: dict[DemoTeam, Path]


def demo_of(benchmark: str) -> DemoData:
    """The demo of a registered benchmark (UnknownName when it is not registered or declares none)."""
    demo = get_benchmark(benchmark).demo
    if demo is None:
        raise UnknownName("demo", benchmark, [b.id for b in registered()])
    return demo


def registered() -> list[Benchmark]:
    """The registered benchmarks that declare a demo, in display order."""
    return [b for b in BENCHMARKS.values() if b.demo is not None]


def demo_teams() -> tuple[DemoTeam, ...]:
    """Every registered demo's teams, in display order."""
    return tuple(team for bench in registered() for team in bench.demo.teams)


def team_submission(team: DemoTeam, gold: Sequence[Record]) -> list[Record]:
    """A demo team's submission lines against ``gold``, by its benchmark's demo."""
    return demo_of(team.benchmark).submission(team, gold)


def write_files(benchmark: str, folder: Path, seed: int = 0) -> DemoFiles:
    """Write ``{id}_gold.jsonl``, ``{id}_questions.jsonl`` and ``examples/{team file}`` under ``folder``."""
    demo = demo_of(benchmark)
    gold = demo.gold(seed)
    questions = None
    if demo.questions is not None:
        questions = write_jsonl(folder / f"{benchmark}_questions.jsonl", demo.questions(gold))
    return DemoFiles(
        gold=write_jsonl(folder / f"{benchmark}_gold.jsonl", gold),
        questions=questions,
        submissions={t: write_jsonl(folder / "examples" / t.filename, demo.submission(t, gold)) for t in demo.teams},
    )


def write_demo(folder: Path, seed: int = 0) -> dict[str, Path]:
    """Write every registered demo; paths by name: ``{id}_gold``, ``{id}_questions`` (when it has a
    public side) and each team's file stem (``{id}_{slug}`` for ``examples/{id}_{slug}.jsonl``)."""
    paths: dict[str, Path] = {}
    for bench in registered():
        files = write_files(bench.id, Path(folder), seed)
        paths[f"{bench.id}_gold"] = files.gold
        if files.questions is not None:
            paths[f"{bench.id}_questions"] = files.questions
        paths |= {path.stem: path for path in files.submissions.values()}
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m scoring demo OUT_DIR", file=sys.stderr)
        return 2
    for name, path in write_demo(Path(args[0])).items():
        print(f"{name}\t{path}")
    return 0


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
    bench = get_benchmark(team.benchmark)
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
