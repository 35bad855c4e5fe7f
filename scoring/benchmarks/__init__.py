"""The benchmarks: each one a folder (``scoring/benchmarks/<id>/``: its declaration, demo, site export,
citation, About text and paper rows), found through one registry (:mod:`scoring.benchmarks.registry`).

Importing this package loads the shipped folders (:mod:`scoring.benchmarks.shipped`); a plugin's folder
loads when ``LEADERBOARD_PLUGINS`` names its module (``scoring.benchmarks.toy``, the example kept in
this tree, is one).
"""

from __future__ import annotations

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
from scoring.benchmarks.registry import (
    BENCHMARKS,
    PLUGINS_VARIABLE,
    Asked,
    asked,
    declared,
    get_benchmark,
    load_environment_plugins,
    load_folder,
    load_plugins,
    loaded_plugins,
    plugins_named,
    register,
    unregister,
)
from scoring.benchmarks.shipped import SHIPPED

for _module in SHIPPED:
    load_folder(_module)

__all__ = [
    "BENCHMARKS",
    "PLUGINS_VARIABLE",
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
    "declared",
    "get_benchmark",
    "load_environment_plugins",
    "load_folder",
    "load_plugins",
    "loaded_plugins",
    "plugins_named",
    "register",
    "unregister",
]
