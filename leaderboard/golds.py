"""A gold correction as the board sees it: what a switch would do (the preview, before anything
switches), what it did (the rescore report's summary) and what it did to each entry of a team.

A gold change is a migration of every stored outcome. Outcomes are kept per gold version (one
result file per submission, gold and scorer), so switching back to a gold gives back the board it
had without scoring anything again; team events (publications, quotas, holds) are records of what
a team did and do not depend on the gold (submissions.publications, submissions.quotas).

The preview scores every submission of the benchmark on the new gold in memory (nothing is
stored) and builds the board that gold would show with the facade's own board code, so the
"after" it prints is the board the switch would publish. It is a maintainer surface: it names
gold facts (counts of changed answers, group sizes) and each row's figures, which are public on
the board anyway; it never names which questions a team got right.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from scoring import SCORER_VERSION, get_benchmark
from scoring.goldcheck import GoldChanges
from store.golds import CheckedGold
from store.layout import ResultKey, gold_key
from store.records import GoldInfo, StoredRejection, StoredResult
from submissions.answer import Reason, SubmitAnswer
from submissions.catalog import SubmissionState
from submissions.reading import Evaluated
from submissions.records import Status

SHORT = 12
"""Characters of a gold version shown to people (a sha256 prefix)."""


@dataclass(frozen=True)
class RankChange:
    team: str
    model: str
    before: int | None
    after: int | None


def rank_changes(before: pd.DataFrame, after: pd.DataFrame) -> list[RankChange]:
    """Rows whose place in the table's order moved. Places, not the honest ranks the board shows
    (leaderboard.ranks): two rows with overlapping intervals that swap share a rank before and
    after, and a maintainer must still see that a gold change swapped them."""
    old, new = _places(before), _places(after)
    return [
        RankChange(team, model, old.get((team, model)), new.get((team, model)))
        for team, model in sorted(set(old) | set(new))
        if old.get((team, model)) != new.get((team, model))
    ]


def _places(table: pd.DataFrame) -> dict[tuple[str, str], int]:
    return {(r.team, r.model): place for place, r in enumerate(table.itertuples(), 1)}


@dataclass(frozen=True)
class RowMove:
    """One row of the board across a switch: its place and headline figures before and after
    (None: no row), and why it leaves or comes back."""

    team: str
    model: str
    before: int | None
    after: int | None
    figures_before: tuple[tuple[str, str], ...]  # (metric label, value as the board prints it)
    figures_after: tuple[tuple[str, str], ...]
    reason: str = ""

    @property
    def changed(self) -> bool:
        return (self.before, self.figures_before) != (self.after, self.figures_after)

    def line(self) -> str:
        before, after = dict(self.figures_before), dict(self.figures_after)
        figures = [f"{label} {before.get(label, '-')} -> {after.get(label, '-')}" for label in {**before, **after}]
        text = f"{self.team} / {self.model}: rank {self.before or '-'} -> {self.after or '-'}"
        return text + "".join(f"; {f}" for f in figures) + (f" ({self.reason})" if self.reason else "")


@dataclass(frozen=True)
class GoldPreview:
    """What switching ``benchmark`` from gold ``current`` to ``new`` would do (nothing stored)."""

    benchmark: str
    current: str
    new: str
    changes: GoldChanges | None
    rows: tuple[RowMove, ...]
    leaks: tuple = ()  # the leak audit of its public list as it would be published (scoring.leakaudit)
    basis: str = ""  # what it was computed from (leaderboard.corrections.preview_basis): kept with it
    checked: CheckedGold | None = field(default=None, compare=False, repr=False)  # the gold compiled and audited
    outcomes: Mapping[str, Evaluated] = field(default_factory=dict, compare=False, repr=False)
    """What it scored, by submission id: recorded once the gold is staged (same gold, scorer and
    seeds), so the rescore that follows scores only what arrived since (issue 40 item 3)."""
    over_bound: tuple[str, ...] = ()  # uploads stopped at a job bound while read: rejected, never read again

    @property
    def leaving(self) -> tuple[RowMove, ...]:
        return tuple(r for r in self.rows if r.before is not None and r.after is None)

    @property
    def needs_confirmation(self) -> bool:
        """A changed question set or group sizes, or a row that would leave the board."""
        return bool(self.leaving) or (self.changes is not None and self.changes.needs_confirmation)

    def summary(self) -> str:
        """One line for a confirmation: the question set, and the rows that stay, leave or come."""
        changes = self.changes
        questions = f"{changes.removed:,} questions removed, {changes.added:,} added, " if changes else ""
        answers = f"{changes.answers_changed:,} answers changed; " if changes else ""
        coming = sum(r.before is None for r in self.rows)
        rows = f"rows: {len(self.rows) - len(self.leaving) - coming} stay, {len(self.leaving)} leave, {coming} come"
        leaving = "".join(f"\n  leaves: {r.line()}" for r in self.leaving)
        return f"{questions}{answers}{rows}{leaving}"

    def lines(self) -> list[str]:
        if self.current == self.new:
            return [f"{self.benchmark}: gold {self.new[:SHORT]} is the current gold: nothing would switch"]
        out = [f"{self.benchmark}: switching the board from gold {self.current[:SHORT]} to {self.new[:SHORT]} would:"]
        out += [f"  {line}" for line in (self.changes.lines() if self.changes else ["(the first gold)"])]
        moved = [r for r in self.rows if r.changed]
        coming = sum(r.before is None for r in self.rows)
        kept = len(self.rows) - len(self.leaving) - coming
        out.append(f"  rows on the board (paper rows included): {kept} stay, {len(self.leaving)} leave, {coming} come")
        if moved:
            out.append("  per row (rank and figures before -> after; - is no row):")
            out += [f"    {r.line()}" for r in moved]
        else:
            out.append("  no row's rank or figures change")
        if self.over_bound:
            out.append(
                f"  {len(self.over_bound)} upload(s) ran past a job's bound while read: rejected on every gold, "
                f"never read again: {', '.join(self.over_bound)}"
            )
        return out


@dataclass(frozen=True)
class ShownPreview:
    """A staged gold's preview as the Maintainers tab shows it: the kept one when it is of today's
    staged gold and stored submissions (``ready``), else word that it is being computed."""

    benchmark: str
    staged: str
    ready: bool
    lines: tuple[str, ...] = ()
    summary: str = ""

    def text(self) -> list[str]:
        """Its lines, or one saying it is being computed (never outdated rows)."""
        if self.ready:
            return list(self.lines)
        return [
            f"{self.benchmark}: the preview of switching to gold {self.staged[:SHORT]} is being computed "
            "(once, in the background); Refresh to see it."
        ]


class RowsWouldLeave(Exception):
    """A gold whose switch would take rows off the board: nothing was stored; add it again with
    confirmation (``preview`` says which rows and why)."""

    def __init__(self, preview: GoldPreview) -> None:
        self.preview = preview
        rows = "; ".join(r.line() for r in preview.leaving)
        super().__init__(
            f"{preview.benchmark}: the new gold would take rows off the board; confirm to stage it: {rows}"
        )


def preview(
    benchmark: str,
    current: str,
    new: str,
    changes: GoldChanges | None,
    states: Iterable[SubmissionState],
    evaluate: Callable[[SubmissionState], SubmitAnswer],
    board_on: Callable[[list[SubmissionState], str], pd.DataFrame],
    before: pd.DataFrame,
    leaks: tuple = (),
) -> GoldPreview:
    """The preview of a switch to gold ``new``: each submission as it would stand on it (its
    stored outcome there if it has one, else ``evaluate``), the board ``board_on`` builds from
    them, and every row's move against ``before`` (the board now)."""
    shadows, why = [], {}
    for state in states:
        shadow, reason = _on_gold(state, new, evaluate)
        shadows.append(shadow)
        if reason:
            why[(state.meta.team, state.meta.model)] = reason
    after = board_on(shadows, new)
    return GoldPreview(benchmark, current, new, changes, tuple(row_moves(benchmark, before, after, why)), leaks)


def _on_gold(
    state: SubmissionState, version: str, evaluate: Callable[[SubmissionState], SubmitAnswer]
) -> tuple[SubmissionState, str]:
    """A copy of ``state`` with its outcome on ``version`` (stored or evaluated now), and why it
    would not be a row there (empty when it would be scored)."""
    if state.status(version, SCORER_VERSION) in (Status.SCORED, Status.REJECTED):
        rejection = state.rejection(version)
        return state, "" if rejection is None else f"rejected on that gold: {_first(rejection.issues)}"
    try:
        answer = evaluate(state)
    except Exception as err:  # the preview must say so, not crash the maintainer's command
        return state, f"scoring failed: {type(err).__name__}"
    if answer.status is Status.REJECTED:
        rejection = StoredRejection(answer.issues, answer.total_issues, "")
        shadow = dataclasses.replace(state, rejections={**state.rejections, gold_key(version): rejection})
        return shadow, f"rejected on that gold: {_first(answer.issues)}"
    key = ResultKey.of(version, answer.result.scorer_version)
    results = {**state.results, key: StoredResult(state.meta.id, "", answer.result)}
    return dataclasses.replace(state, results=results, derived={}), ""


def _first(issues) -> str:
    return issues[0].message if issues else "no issue listed"


def row_moves(
    benchmark: str, before: pd.DataFrame, after: pd.DataFrame, why: dict[tuple[str, str], str] | None = None
) -> list[RowMove]:
    """Every row of either board, with its place and headline figures on both."""
    old, new = _places(before), _places(after)
    figures_old, figures_new = _figures(benchmark, before), _figures(benchmark, after)
    why = why or {}
    moves = []
    for key in sorted(set(old) | set(new), key=lambda k: (new.get(k) or old.get(k) or 0, k)):
        reason = ""
        if key in old and key not in new:
            reason = why.get(key) or "no longer a row (hidden, withdrawn or not scored on that gold)"
        elif key in new and key not in old:
            reason = why.get(key) or "a row again: scored on that gold"
        moves.append(RowMove(*key, old.get(key), new.get(key), figures_old.get(key, ()), figures_new.get(key, ())))
        moves[-1] = dataclasses.replace(moves[-1], reason=reason)
    return moves


def _figures(benchmark: str, table: pd.DataFrame) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """Each row's headline figures as the board prints them (("Accuracy", "62.14"), ...)."""
    bench = get_benchmark(benchmark)
    metrics = [m for m, _step in bench.headline_metrics]
    out = {}
    for record in table.to_dict("records"):
        shown = []
        for metric in metrics:
            value = record.get(f"overall.{metric.name}")
            if value is not None and not pd.isna(value):
                shown.append((metric.label, f"{float(value):.{metric.decimals}f}"))
        out[(record["team"], record["model"])] = tuple(shown)
    return out


def entry_notes(
    state: SubmissionState, current: GoldInfo, shown: bool, keys_of: Callable[[str], frozenset | None]
) -> tuple[Reason, ...]:
    """What a gold change did to one of a team's entries, for its team: the questions added
    since the file was sent (public: the question lists say so) and, when its figures are shown
    to the team (``shown``: the Ladder and holds decide), its figures before -> after."""
    out = []
    first = min(state.results.values(), key=lambda stored: stored.scored_at, default=None)
    if first is not None and first.result.gold_version != current.version:
        then, now = keys_of(first.result.gold_version), keys_of(current.version)
        added = len(now - then) if then is not None and now is not None else 0
        if added:
            out.append(
                Reason(
                    "added_questions",
                    (
                        f"{added:,} question{'s were' if added != 1 else ' was'} added by gold "
                        f"{current.version[:SHORT]} after this file was sent; it has no line for them, so each "
                        "counts as unanswered (wrong)."
                    ),
                )
            )
    before, after = state.latest_result(current.previous_version), state.latest_result(current.version)
    if shown and before is not None and after is not None:
        moved = _moved(state.meta.benchmark, before.overall, after.overall)
        if moved:
            when = current.added_at[:10]
            out.append(Reason("rescored", f"rescored on gold {current.version[:SHORT]} ({when}): {moved}"))
    return tuple(out)


def _moved(benchmark: str, before: dict, after: dict) -> str:
    """The headline figures that a rescore changed, as shown ("accuracy 25.39 -> 25.41")."""
    parts = []
    for metric, _step in get_benchmark(benchmark).headline_metrics:
        a, b = before.get(metric.name), after.get(metric.name)
        if a is None or b is None:
            continue
        old, new = f"{float(a):.{metric.decimals}f}", f"{float(b):.{metric.decimals}f}"
        if old != new:
            parts.append(f"{metric.label.lower()} {old} -> {new}")
    return "; ".join(parts)
