"""A benchmark is a declaration (after lm-evaluation-harness tasks).

Everything the engine, the CLI, the storage and the UI need to know about one benchmark is in
one frozen :class:`Benchmark`: how to load its gold, its answer choices, how keys and
predictions look, which groups and metrics it reports, how the board shows them (overview
columns, per-grouping views, plots), and what its folder holds beside (demo, citation, About text,
paper rows). A third benchmark is one new folder (``scoring/benchmarks/<id>/``) whose ``__init__``
names its declaration ``BENCHMARK``; no module below compares a metric or grouping name with a literal.

A metric is a declared ratio of two per-question statistic columns (after torchmetrics'
``_update`` then ``_reduce``): the engine produces the :class:`Stat` columns, a group's figure
is ``100 * sum(numerator) / sum(denominator)`` over its questions, and what an empty
denominator gives is the metric's ``if_empty`` (None: "no figure", shown as "-").

Mistakes in a declaration raise :class:`DeclarationError` when the declaration is built (at
import); looking up a name that is not declared raises :class:`UnknownName`, listing the known.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from scoring.benchmarks.families import Family
from scoring.gold import Gold


class DeclarationError(Exception):
    """A benchmark declared wrongly: the programmer's mistake, raised at import, never a user's."""


class UnknownName(KeyError, ValueError):
    """A benchmark, grouping, metric or view name that is not declared; the message lists the known ones.

    A KeyError (a failed lookup) and a ValueError (a bad argument) alike, so callers of either kind catch it.

    >>> str(UnknownName("grouping", "continent", ["type", "country"]))
    "unknown grouping 'continent'; known: type, country"
    """

    def __init__(self, kind: str, name: object, known: Iterable[str]) -> None:
        self.kind, self.name, self.known = kind, name, tuple(known)
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(self.known)}")

    def __str__(self) -> str:
        return str(self.args[0])


class Stat(StrEnum):
    """Per-question columns the engine produces; every figure is a ratio of two column sums."""

    QUESTIONS = "questions"  # 1 for every gold question
    CORRECT = "correct"  # 1 if the chosen letter is right
    CORRECT_STRICT = "correct_strict"  # 1 if right and not read by a rule looser than the exact letter
    IOU = "iou"  # IoU of the grounding if correct, else 0
    HIT50 = "hit50"  # 1 if correct and IoU >= 0.5
    INTER = "inter"  # intersection in pixels if correct, else 0
    UNION = "union"  # union in pixels if correct, else 0


GROUNDING_STATS = frozenset({Stat.IOU, Stat.HIT50, Stat.INTER, Stat.UNION})
"""Columns that exist only when a submission grounds something."""

RESERVED_KEYS = frozenset({"benchmark", "gold_version", "scorer_version", "counts", "overall"})
"""Keys of a result record that a grouping may not be named."""

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _check_name(what: str, name: str) -> None:
    if not _NAME.match(name):
        raise DeclarationError(f"{what} {name!r} must be lower-case letters, digits and '_' (it is a column key)")


@dataclass(frozen=True)
class Metric:
    """A figure reported per group: ``100 * sum(numerator) / sum(denominator)``.

    ``interval`` adds a bootstrap interval under the key :attr:`ci`; ``if_empty`` is what a
    group whose denominator sums to 0 gives (None: no figure). A metric built on grounding
    columns is None for a submission that grounds nothing.
    """

    name: str
    label: str
    description: str
    numerator: Stat
    denominator: Stat
    higher_is_better: bool = True
    decimals: int = 2
    interval: bool = False
    if_empty: float | None = None
    short: str = ""  # a column header, e.g. "Acc"; the label when empty

    def __post_init__(self) -> None:
        _check_name("metric", self.name)
        if not isinstance(self.numerator, Stat) or not isinstance(self.denominator, Stat):
            raise DeclarationError(f"metric {self.name!r}: numerator and denominator must be Stat columns")
        if not 0 <= self.decimals <= 6:
            raise DeclarationError(f"metric {self.name!r}: decimals must be 0 to 6, not {self.decimals}")

    @property
    def ci(self) -> str | None:
        """The key of its interval in a result record, if it reports one."""
        return f"{self.name}_ci" if self.interval else None

    @property
    def needs_grounding(self) -> bool:
        return bool(GROUNDING_STATS & {self.numerator, self.denominator})

    @property
    def abbrev(self) -> str:
        return self.short or self.label


ACCURACY = Metric(
    "acc", "Accuracy", "share of questions answered right", Stat.CORRECT, Stat.QUESTIONS, interval=True, short="Acc"
)
"""Multiple-choice accuracy: every benchmark here reports it (with its own description)."""


HEADLINE_STEP = 1.0
"""The default Ladder step of a headline metric, in points (SCB accuracy: 32 of 3,178 questions,
above the 0.77-point spread of chance)."""


@dataclass(frozen=True)
class Grouping:
    """A way to split the questions (type, country, category) and how to show its labels."""

    name: str
    label: str
    order: tuple[str, ...]
    display: Mapping[str, str] = field(default_factory=dict)  # long names, e.g. "T1 within culture"
    short: Mapping[str, str] = field(default_factory=dict)  # for column headers, e.g. "T1"
    question_field: str = ""  # the public question list's field holding the label; by default the name

    def __post_init__(self) -> None:
        _check_name("grouping", self.name)
        if self.name in RESERVED_KEYS:
            raise DeclarationError(f"grouping {self.name!r} clashes with a result record key")
        if not self.order or len(set(self.order)) != len(self.order):
            raise DeclarationError(f"grouping {self.name!r}: order must list each label once")
        stray = (set(self.display) | set(self.short)) - set(self.order)
        if stray:
            raise DeclarationError(f"grouping {self.name!r}: display names for labels not in order: {sorted(stray)}")

    def show(self, value: str) -> str:
        return self.display.get(value, value)

    def abbrev(self, value: str) -> str:
        return self.short.get(value) or self.show(value)

    @property
    def field(self) -> str:
        """The question list's field of the label (the question browser filters by it)."""
        return self.question_field or self.name


@dataclass(frozen=True)
class Panel:
    """One column group of the overview table.

    ``overall`` (default): the metric's overall figure (and interval), then its figure per label
    of grouping ``by`` if given, headed "Acc T1"; the group is titled by the metric.
    ``overall=False``: only the figure per label of ``by``, headed by the label; the group is
    titled by the grouping.
    """

    metric: str
    by: str | None = None
    overall: bool = True


@dataclass(frozen=True)
class Scatter:
    """A scatter of two metrics' overall figures, one point per row (rows missing either are left out)."""

    x: str
    y: str
    title: str = ""


@dataclass(frozen=True)
class Heatmap:
    """A models x labels heatmap of one metric (the primary one when None) by one grouping."""

    grouping: str
    metric: str | None = None


Plot = Scatter | Heatmap


@dataclass(frozen=True)
class InspectStep:
    """A solver or scorer of an ``inspect-ai`` task in ``eval.yaml``: a name Inspect's Hub loader
    knows (``inspect_ai/_eval/task/hf.py``: ``HFSolver``, ``HFScorer``) and its arguments."""

    name: str
    args: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class HubInspect:
    """How Inspect AI runs a task from the dataset itself (``inspect eval hf/OWNER/NAME/TASK``), which
    hub-docs requires of every ``inspect-ai`` benchmark: ``field_spec`` names the dataset's columns
    (``input``, ``input_image``, ``target``, ``choices``, ``metadata``), then the solvers and scorers.

    ``caveat`` says why a run from the Hub is not the leaderboard's protocol, when it is not (printed
    as a comment of the file): the exact protocol is the kit's own task (``inspect eval scoring/<id>``)."""

    field_spec: Mapping[str, object]
    solvers: tuple[InspectStep, ...]
    scorers: tuple[InspectStep, ...]
    caveat: str = ""


@dataclass(frozen=True)
class HubTask:
    """One task of the benchmark's ``eval.yaml`` on the Hub: a sub-leaderboard of one figure.

    ``metric`` is the declared metric whose overall figure a row reports there; ``note_metric``
    a metric whose figure goes into the entry's ``notes`` when it differs (K-Viscuit's official
    protocol beside the lenient accuracy)."""

    id: str
    metric: str
    description: str = ""
    note_metric: str | None = None
    inspect: HubInspect | None = None
    """What ``evaluation_framework: inspect-ai`` requires of the task (None: another framework)."""


@dataclass(frozen=True)
class HubRegistration:
    """How the benchmark appears in the Hub's evaluation system (hub-docs ``eval-results.md``):
    the dataset repo its authors register as a Benchmark (``eval.yaml`` at its root; the
    leaderboard's ``LEADERBOARD_HUB_DATASETS`` may name another) and its tasks, each the
    ``task_id`` of the ``.eval_results`` entries a row gives."""

    dataset_id: str
    tasks: tuple[HubTask, ...]
    config: str = "default"
    split: str = "test"
    evaluation_framework: str = "inspect-ai"
    question_rows: bool = False
    """Whether the dataset's rows are the family's questions (its fields, its images and its answers), so
    a harness may run on the dataset itself (the lmms-eval task does) instead of the public list."""


@dataclass(frozen=True)
class SiteRow:
    """What a site export needs beside the figures: the row's public facts and the command's options."""

    model: str
    model_type: str = ""
    date: str = ""
    source: str = ""
    paper_or_repo: str = ""
    contact: str = ""
    markdown: bool = False


def two_decimals(value: float | None) -> float | None:
    """A figure as the benchmarks' own sites print it (2 decimals), None as it is."""
    return None if value is None else round(float(value), 2)


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


@dataclass(frozen=True)
class DemoData:
    """A benchmark's demo (the declaration's ``demo`` slot): its gold generator, an optional public
    question list, teams and their submissions. Why demo data exists: a benchmark's real gold may be
    hidden by its authors, and the project must run (app, tests, benchmark scripts) without anything
    outside its own tree; the app seeds an empty store from every registered benchmark's demo."""

    gold: Callable[[int], list[Record]]
    """seed -> gold records, as a maintainer's gold file holds them."""
    submission: Callable[[DemoTeam, Sequence[Record]], list[Record]]
    teams: tuple[DemoTeam, ...] = ()
    questions: Callable[[Sequence[Record]], list[Record]] | None = None
    """gold -> its public side (no answers), written beside the gold when given."""


@dataclass(frozen=True)
class Benchmark:
    """The declaration of one benchmark (see module doc)."""

    id: str
    name: str
    description: str
    paper: str
    key_field: str
    prediction_fields: Mapping[str, str]  # field -> one-line explanation (About page)
    choices: str
    """The answer letters, in order: a gold answer is an index into this string."""
    groupings: tuple[Grouping, ...]
    metrics: tuple[Metric, ...]
    primary_metric: str
    """Ranks the board (in its ``higher_is_better`` direction) and picks a team's "best" row."""
    load_gold: Callable[[Path], Gold]
    parse_key: Callable[[object], object | None]
    read_line: Callable[[dict, Gold, int, str, str | None], object | None]
    """Check the benchmark-specific fields of one line and return its grounding (or None);
    raises LineError. Arguments: the line, the gold, the row, the submission's box format and
    the letter the line answers (None if unreadable): checks may use only public facts. A
    grounding benchmark's also takes ``grounding_format=`` (keyword), the submission's declared
    family for ``grounding_response`` lines (scoring/grounding_formats.py)."""
    public_questions: Callable[[Path], list[dict]] = lambda path: []
    """The public side of the gold's questions (no answer, no gold geometry): what a team needs
    to run its model, published as the question list."""
    gold_folder: Callable[[Path], bytes] | None = None
    """A gold given as a folder (its authors' release shape) as the one JSON Lines file the store keeps,
    which ``load_gold`` reads back to the same version; None: a gold is one file."""
    load_public_gold: Callable[[Path], Gold] | None = None
    """Reads a public question list as a *public* gold (keys and public facts, no answers):
    what the offline validator checks a file against, with the server's checks and codes."""
    questions_note: str = ""
    """One paragraph on the question list: where the inputs come from, how options map to letters."""
    box_sample: Callable[[dict, Gold, int, str | None], object | None] | None = None
    """Grounding benchmarks: a line's box in the file's own format and the public frame it is
    read in (a ``scoring.boxcheck.BoxSample``), or None; feeds the box-format sanity check."""
    overlap: Callable[[object, Gold, int], tuple[int, int]] | None = None
    """Grounding benchmarks: (intersection, union) in pixels of a grounding (or None) with the
    gold region of a row."""
    overlaps: Callable[[dict, Gold, object], tuple[object, object]] | None = None
    """Optional, for speed: ``overlap`` of many rows at once, ``(groundings by row, gold, rows
    array) -> (intersections, unions)`` arrays in the order of ``rows``; the same integers."""
    read_lines: Callable[[list[dict], Gold, list[int], list[str], str], tuple[dict, tuple] | None] | None = None
    """Optional, for speed: ``read_line`` and ``box_sample`` of every line of a file at once,
    ``(lines, gold, rows, letters, box format) -> (groundings by row, box samples)`` as the
    per-line calls would give them, or None when any line holds anything it does not handle
    or either call would refuse (the engine then reads the file line by line: scoring/batch.py)."""
    example_lines: tuple[str, ...] = ()
    example_fields: Mapping[str, object] = field(default_factory=dict)
    """Fields added to every line of a template submission (e.g. a box), beside key and answer."""
    overview: tuple[Panel, ...] = ()
    """The overview's column groups; by default every metric's overall figure."""
    view_metrics: tuple[str, ...] = ()
    """The metrics shown per label in each grouping's view; by default the primary one."""
    group_metrics: tuple[str, ...] = ()
    """The metrics published per label of every grouping (the results dataset, the board's data): the
    view metrics and these; the board's group focus ranks by any of them. By default the view metrics."""
    plots: tuple[Plot, ...] = ()
    shifted_keys: Callable[[list[tuple[int, object, object]], Gold], str | None] | None = None
    """Optional whole-file check of the keys as given: ``(line, parsed key, the line's echo of
    :attr:`key_echo` or None)`` per line with a key -> a message when the keys are wholly shifted
    (K-Viscuit's 1-based ids), else None; from public facts only. The engine then reports that one
    whole-file issue instead of the line issues it explains."""
    key_echo: str = ""
    """A field a line may echo beside its key, which names the question too (K-Viscuit's ``id_``)."""
    reading_facts: tuple[str, ...] | None = None
    """The ``gold.extra`` fields reading a file looks at (besides the keys and option texts): public
    facts such as option image sizes. A file's stored reading is reused on another gold whose facts
    match (scoring/reading.py). None: not declared, a reading is reused on the same gold version only."""
    strict_metric: str | None = None
    """The metric of the benchmark's official protocol, which counts a response only when it is
    exactly one capital letter (K-Viscuit's ``run_vqa.py``): the result carries it beside the
    lenient figure, and the board shows it and marks rows whose responses were read leniently.
    Its difference from the lenient figure counts the right answers among the leniently read lines:
    one more aggregate per submission, harmless on K-Viscuit (its gold is public); a hidden-gold
    benchmark should weigh that before declaring one (docs/integrity.md)."""
    hub: HubRegistration | None = None
    """Its registration in the Hub's evaluation system (leaderboard/hub_results.py); None: none."""
    family: Family | None = None
    """Its kind of question (``scoring.benchmarks.families``: multiple choice on an image, SCB's two
    stages) with where a public row keeps each part: what the runner asks, the harness inputs (the
    VLMEvalKit TSV), the shipped harness tasks and the demo images read. None: no harness inputs
    (the site offers the question list only)."""
    protocol: Mapping[str, Callable[..., tuple]] = field(default_factory=dict)
    """What a model is asked, one builder per stage (``scoring.benchmarks.protocol``): the parts (text,
    image index) of a question's prompt, which every harness adapter sends (``scoring.harness``); the one
    place the benchmark's prompts are written. By default the family's."""
    site_export: Callable[[dict, SiteRow], dict | str] | None = None
    """The row in the shape of the benchmark's own site or paper (``python -m leaderboard export``):
    ``(result record, SiteRow) -> a JSON record or a text``; None: none."""
    headline: Mapping[str, float] = field(default_factory=dict)
    """The metrics a team iterates on, each with its Ladder step in points: a team's later private
    submission is shown when it beats the team's best shown figure by more than the step on any
    of them (submissions.feedback). By default the primary metric with :data:`HEADLINE_STEP`."""
    citation: str = ""
    """How to cite the benchmark (BibTeX, its folder's ``citation.bib``): About, the results dataset's
    card and the README's readers all show this one copy."""
    about: str = ""
    """What the About page says of this benchmark beyond its declared facts (Markdown, its folder's
    ``about.md``): its question types and how its figures are computed."""
    paper_rows: Mapping[str, object] = field(default_factory=dict)
    """The paper's published rows (its folder's ``baselines.json``): ``source``, ``paper_url``,
    ``note`` and ``models`` (model -> ``model_type`` and figures per grouping); empty: none."""
    demo: DemoData | None = None
    """Its demo data (:class:`DemoData`), which the embedded default seeds; None: no demo."""
    harness_name: str = ""
    """Its name in the files a harness writes where the id will not do (VLMEvalKit's dataset
    ``{harness_name}_LB``, a name its prediction files carry); by default the id."""

    def __post_init__(self) -> None:
        if not re.match(r"^[a-z0-9][a-z0-9_-]*$", self.id):
            raise DeclarationError(f"benchmark id {self.id!r} must be lower-case letters, digits, '-' and '_'")
        if not self.overview:
            object.__setattr__(self, "overview", tuple(Panel(m.name) for m in self.metrics))
        if not self.view_metrics:
            object.__setattr__(self, "view_metrics", (self.primary_metric,))
        extra = tuple(m for m in self.group_metrics if m not in self.view_metrics)
        object.__setattr__(self, "group_metrics", (*self.view_metrics, *extra))
        if not self.headline:
            object.__setattr__(self, "headline", {self.primary_metric: HEADLINE_STEP})
        if not self.harness_name:
            object.__setattr__(self, "harness_name", self.id)
        if not self.protocol and self.family is not None:
            object.__setattr__(self, "protocol", self.family.protocol(self.choices))
        for check in (self._check_choices, self._check_names, self._check_references):
            check()

    def _fail(self, message: str) -> None:
        raise DeclarationError(f"benchmark {self.id!r}: {message}")

    def _check_choices(self) -> None:
        letters = self.choices
        if len(letters) < 2 or len(set(letters)) != len(letters) or not re.fullmatch(r"[A-Z]+", letters):
            self._fail(f"choices must be 2 or more distinct capital letters, not {letters!r}")

    def _check_names(self) -> None:
        names = [m.name for m in self.metrics]
        if not names or len(set(names)) != len(names):
            self._fail("metrics must be declared, each name once")
        keys = names + [m.ci for m in self.metrics if m.ci] + [Stat.QUESTIONS.value, Stat.CORRECT.value]
        if len(set(keys)) != len(keys):
            self._fail(f"metric names and interval keys clash with each other or with the counts: {keys}")
        groupings = [g.name for g in self.groupings]
        if len(set(groupings)) != len(groupings):
            self._fail(f"each grouping name once, not {groupings}")
        if self.strict_metric is not None and self.strict_metric not in names:
            self._fail(f"strict_metric {self.strict_metric!r} is not a declared metric; declared: {', '.join(names)}")
        if self.primary_metric not in names:
            self._fail(f"primary_metric {self.primary_metric!r} is not a declared metric; declared: {', '.join(names)}")
        if self.overlap is None and any(m.needs_grounding for m in self.metrics):
            self._fail("a metric uses grounding columns, but the benchmark declares no overlap (grounding)")

    def _check_references(self) -> None:
        """Every name the overview, views and plots mention is declared (else an error at import)."""
        metrics = {m.name for m in self.metrics}
        groupings = {g.name for g in self.groupings}
        used_metrics = [p.metric for p in self.overview] + list(self.group_metrics) + list(self.headline)
        if any(not step > 0 for step in self.headline.values()):
            self._fail(f"every headline metric's Ladder step must be above 0, not {dict(self.headline)}")
        used_groupings = [p.by for p in self.overview if p.by is not None]
        for panel in self.overview:
            if not panel.overall and panel.by is None:
                self._fail(f"an overview panel of {panel.metric!r} shows nothing: give it `by` or overall=True")
        for plot in self.plots:
            if isinstance(plot, Scatter):
                used_metrics += [plot.x, plot.y]
            else:
                used_metrics += [plot.metric] if plot.metric else []
                used_groupings.append(plot.grouping)
        for task in self.hub.tasks if self.hub else ():
            used_metrics += [task.metric] + ([task.note_metric] if task.note_metric else [])
        for kind, used, known in (("metric", used_metrics, metrics), ("grouping", used_groupings, groupings)):
            unknown = sorted(set(used) - known)
            if unknown:
                self._fail(f"overview, views or plots name unknown {kind}s {unknown}; declared: {sorted(known)}")

    @property
    def grounding(self) -> bool:
        return self.overlap is not None

    @property
    def primary(self) -> Metric:
        return self.metric(self.primary_metric)

    @property
    def headline_metrics(self) -> tuple[tuple[Metric, float], ...]:
        """The headline metrics with their Ladder steps, in declaration order (primary first)."""
        return tuple((self.metric(name), step) for name, step in self.headline.items())

    def grouping(self, name: str) -> Grouping:
        for g in self.groupings:
            if g.name == name:
                return g
        raise UnknownName(f"grouping of {self.id}", name, [g.name for g in self.groupings])

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise UnknownName(f"metric of {self.id}", name, [m.name for m in self.metrics])

    def heatmap_metric(self, plot: Heatmap) -> Metric:
        return self.metric(plot.metric or self.primary_metric)

    def example_line(self, question: Mapping[str, object]) -> dict:
        """A valid template line for one public question: its key, the first choice, ``example_fields``."""
        return {self.key_field: question[self.key_field], "answer": self.choices[0], **self.example_fields}
