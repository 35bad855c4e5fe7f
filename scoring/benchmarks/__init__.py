"""The benchmark registry: look a declaration up by id, register a new one, load plugin modules.

A benchmark outside this package is a *plugin*: a module that builds a :class:`Benchmark` and
calls :func:`register` on import. The leaderboard imports the modules named in
``LEADERBOARD_PLUGINS`` (comma-separated) through :func:`load_plugins` at start, before it reads
the registry, and hands the same names to the processes it spawns (:func:`loaded_plugins`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass

from scoring.benchmarks.base import (
    Benchmark,
    DeclarationError,
    Grouping,
    Heatmap,
    Metric,
    Panel,
    Plot,
    Scatter,
    Stat,
    UnknownName,
)
from scoring.benchmarks.kviscuit import KVISCUIT
from scoring.benchmarks.scb import SCB

BENCHMARKS: dict[str, Benchmark] = {}
"""Registered declarations by id, in registration (display) order. Updated in place, never rebound."""

_PLUGINS: list[str] = []


def register(benchmark: Benchmark) -> Benchmark:
    """Add ``benchmark`` to the registry (again is a no-op); another declaration under a taken id raises."""
    if not isinstance(benchmark, Benchmark):
        raise DeclarationError(f"register() takes a Benchmark, not {type(benchmark).__name__}")
    existing = BENCHMARKS.get(benchmark.id)
    if existing is not None and existing is not benchmark:
        raise DeclarationError(f"benchmark id {benchmark.id!r} is already registered by another declaration")
    BENCHMARKS[benchmark.id] = benchmark
    return benchmark


def unregister(benchmark_id: str) -> None:
    """Remove a registered benchmark (tests, or a plugin being reloaded)."""
    get_benchmark(benchmark_id)
    del BENCHMARKS[benchmark_id]


def get_benchmark(benchmark_id: str) -> Benchmark:
    """The declaration of ``benchmark_id``; an UnknownName (a KeyError and a ValueError) lists the known ids.

    >>> get_benchmark("scb").name
    'Seeing Culture Benchmark (SCB)'
    """
    try:
        return BENCHMARKS[benchmark_id]
    except (KeyError, TypeError):
        raise UnknownName("benchmark", benchmark_id, BENCHMARKS) from None


def load_plugins(modules: Iterable[str]) -> None:
    """Import each named module once (each registers its benchmarks on import)."""
    for name in modules:
        if name in _PLUGINS:
            continue
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise DeclarationError(f"benchmark plugin {name!r} could not be imported: {e}") from e
        _PLUGINS.append(name)


@dataclass(frozen=True)
class Asked:
    """What a harness's logged prompt shows it asked: a benchmark's stage, and for a grounding stage
    the preset (the model family whose box convention it asked for)."""

    benchmark: str
    stage: str
    family: str | None = None


def asked(prompt: str) -> Asked | None:
    """The first registered benchmark whose family recognises the prompt (lmms-eval's ``input``) by
    its own instructions; None when none does (another task, or no prompt)."""
    for bench in BENCHMARKS.values():
        seen = bench.family.recognise(prompt) if bench.family is not None else None
        if seen is not None:
            return Asked(bench.id, seen.stage, seen.preset)
    return None


def loaded_plugins() -> tuple[str, ...]:
    """The plugin modules loaded so far, for worker processes to load in turn."""
    return tuple(_PLUGINS)


register(SCB)
register(KVISCUIT)

__all__ = [
    "BENCHMARKS",
    "Asked",
    "Benchmark",
    "DeclarationError",
    "Grouping",
    "Heatmap",
    "Metric",
    "Panel",
    "Plot",
    "Scatter",
    "Stat",
    "UnknownName",
    "asked",
    "get_benchmark",
    "load_plugins",
    "loaded_plugins",
    "register",
    "unregister",
]
