"""A benchmark is a declaration (after lm-evaluation-harness tasks).

Everything the engine, the CLI, the storage and the UI need to know about one benchmark is in
one frozen :class:`Benchmark`: how to load its gold, how keys and predictions look, which
groups and metrics it reports and how to display them. A third benchmark is one new module
registering one declaration; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from scoring.gold import Gold


@dataclass(frozen=True)
class Metric:
    """A figure reported per group. ``ci`` names its interval field, if it has one."""

    name: str
    label: str
    description: str
    higher_is_better: bool = True
    decimals: int = 2
    ci: str | None = None
    grounding: bool = False  # null when the submission has no grounding at all


@dataclass(frozen=True)
class Grouping:
    """A way to split the questions (type, country, category) and how to show its labels."""

    name: str
    label: str
    order: tuple[str, ...]
    display: Mapping[str, str] = field(default_factory=dict)
    short: Mapping[str, str] = field(default_factory=dict)  # for column headers, e.g. "T1"

    def show(self, value: str) -> str:
        return self.display.get(value, value)

    def abbrev(self, value: str) -> str:
        return self.short.get(value) or self.show(value)


@dataclass(frozen=True)
class Benchmark:
    """The declaration of one benchmark (see module doc)."""

    id: str
    name: str
    description: str
    paper: str
    key_field: str
    prediction_fields: Mapping[str, str]  # field -> one-line explanation (About page)
    groupings: tuple[Grouping, ...]
    metrics: tuple[Metric, ...]
    primary_metric: str
    load_gold: Callable[[Path], Gold]
    parse_key: Callable[[object], object | None]
    read_line: Callable[[dict, Gold, int, str, str | None], object | None]
    """Check the benchmark-specific fields of one line and return its grounding (or None);
    raises LineError. Arguments: the line, the gold, the row, the submission's box format and
    the letter the line answers (None if unreadable): checks may use only public facts."""
    public_questions: Callable[[Path], list[dict]] = lambda path: []
    """The public side of the gold's questions (no answer, no geometry), for the About page."""
    overlap: Callable[[object, Gold, int], tuple[int, int]] | None = None
    """Grounding benchmarks: (intersection, union) in pixels of a grounding (or None) with the
    gold region of a row."""
    example_lines: tuple[str, ...] = ()

    @property
    def grounding(self) -> bool:
        return self.overlap is not None

    def grouping(self, name: str) -> Grouping:
        for g in self.groupings:
            if g.name == name:
                return g
        raise KeyError(f"{self.id} has no grouping {name!r}; known: {[g.name for g in self.groupings]}")
