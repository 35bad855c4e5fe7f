"""The benchmark registry: look a declaration up by id, register a new one, load plugin modules.

A benchmark is a folder (``scoring/benchmarks/<id>/``) whose ``__init__`` names its declaration
``BENCHMARK``; loading the folder registers it (:func:`load_folder`). The shipped folders are named
in :mod:`scoring.benchmarks.shipped` and load with the package; any other (a *plugin*, in this tree
or outside it) loads when its module is named in ``LEADERBOARD_PLUGINS`` (comma-separated,
:func:`plugins_named`): the leaderboard imports them through :func:`load_plugins` at start, before it
reads the registry, and hands the same names to the processes it spawns (:func:`loaded_plugins`);
the scoring CLI and every harness adapter read them through :func:`declared`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scoring.benchmarks.base import Benchmark, DeclarationError, UnknownName

PLUGINS_VARIABLE = "LEADERBOARD_PLUGINS"

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

    >>> get_benchmark(next(iter(BENCHMARKS))) is next(iter(BENCHMARKS.values()))
    True
    """
    try:
        return BENCHMARKS[benchmark_id]
    except (KeyError, TypeError):
        raise UnknownName("benchmark", benchmark_id, BENCHMARKS) from None


def load_plugins(modules: Iterable[str]) -> None:
    """Import each named module once and register the declaration it names ``BENCHMARK`` (a benchmark
    folder's ``__init__``); a module that calls :func:`register` itself on import works too."""
    for name in modules:
        if name in _PLUGINS:
            continue
        load_folder(name)
        _PLUGINS.append(name)


def load_folder(name: str) -> Benchmark | None:
    """Import the module ``name`` and register its ``BENCHMARK``, if it has one. Importing a folder
    registers nothing by itself: only the shipped list and ``LEADERBOARD_PLUGINS`` do."""
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        raise DeclarationError(f"benchmark plugin {name!r} could not be imported: {e}") from e
    bench = getattr(module, "BENCHMARK", None)
    return register(bench) if bench is not None else None


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


def plugins_named(text: str) -> tuple[str, ...]:
    """The modules a ``LEADERBOARD_PLUGINS`` value names (comma-separated, blanks ignored).

    >>> plugins_named(" a.b , ,c ")
    ('a.b', 'c')
    """
    return tuple(name.strip() for name in text.split(",") if name.strip())


def load_environment_plugins(environ: Mapping[str, str] = os.environ) -> None:
    """Load the plugins ``LEADERBOARD_PLUGINS`` names in ``environ`` (the process's environment)."""
    load_plugins(plugins_named(environ.get(PLUGINS_VARIABLE, "")))


def declared(benchmark_id: str, environ: Mapping[str, str] = os.environ) -> Benchmark:
    """The benchmark's declaration, after loading the plugins ``LEADERBOARD_PLUGINS`` names: how the
    scoring CLI and every harness adapter (in its own environment) look a benchmark up."""
    load_environment_plugins(environ)
    return get_benchmark(benchmark_id)
