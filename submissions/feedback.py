"""What a team learns from a scored submission: the Ladder rule (Blum & Hardt, 2015), per team.

Every figure a team sees about the hidden test is information about its answer key; with one
full breakdown per submission, a team can recover half of the SCB key in about 790 submissions
(docs/integrity.md). So, per *ladder* and benchmark, in submission order:

- the first scored submission is *shown*: its figures go to the answer and My submissions
  (rounded, without counts of right answers: submissions.answer);
- a later one is shown only if its primary figure beats the ladder's best shown one by more than
  :data:`LADDER_STEP` points (in the metric's declared direction);
- otherwise it is *withheld*: scored and stored, but the team is told only that it did not beat
  the best shown figure by the step.

A ladder is a team together with its accounts: every account that submits under a team shares
its ladder, and so does every other team those accounts submit under (a new member account, or
a new team name, is no fresh start). It is linked in submission order, so a later link never
changes an earlier decision.

The board is the team's choice (docs/teams.md): a published submission is its row and its figures
are shown, withheld or not. Publishing is rationed (submissions.publications) so that it cannot
be a full-feedback channel. Hidden or held submissions are never shown (submissions.probes).
A maintainer's submission (``SubmissionMeta.maintainer``), or one by a name in ``exempt``, is
always shown and joins no ladder. Everything is a pure function of the stored records, so every
replica, restart and rescore agrees.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from scoring import SCORER_VERSION, get_benchmark
from scoring.engine import ResultRecord
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.publications import PUBLICATIONS_PER_WEEK, Ration, Reveal, ration, reveals
from submissions.teams import name_key, state_key

LADDER_STEP = 1.0
"""Points of the primary metric a submission must gain over the best shown one to be shown
(SCB: 1 point is 32 of 3,178 questions, above the 0.77-point spread of chance)."""
HELD = "Scored and held for review by a maintainer: its figures are not shown unless a maintainer releases it."


@dataclass(frozen=True)
class LadderStep:
    """The decision for one scored submission, and the best shown one it was measured against."""

    submission_id: str
    shown: bool
    best_id: str  # the ladder's best shown submission after this one (itself when shown)
    best: float  # its primary figure, at full precision (the answer rounds it)


class _Links:
    """Accounts and teams joined into ladders as submissions arrive (union-find), each ladder
    with its best shown (value, submission id)."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}
        self.best: dict[tuple[str, str], tuple[float, str]] = {}

    def root(self, node: tuple[str, str]) -> tuple[str, str]:
        self.parent.setdefault(node, node)
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def join(self, state: SubmissionState) -> tuple[str, str]:
        """The ladder of ``state`` after linking its account and its team."""
        a, t = self.root(("account", state.meta.submitter)), self.root(("team", state_key(state)))
        if a != t:
            self.parent[t] = a
            bests = [b for b in (self.best.pop(t, None), self.best.get(a)) if b is not None]
            if bests:
                self.best[a] = max(bests)
        return a


def ladder(
    states: Iterable[SubmissionState],
    gold_version: str,
    step: float = LADDER_STEP,
    exempt: Callable[[SubmissionState], bool] = lambda s: s.meta.maintainer,
) -> dict[str, LadderStep]:
    """Decisions for a benchmark's scored, visible submissions (``states`` oldest first)."""
    links, out = _Links(), {}
    for state in states:
        if exempt(state):
            continue
        root = links.join(state)  # hidden and unscored uploads link too: a hold unlinks nothing
        result = None if state.hidden else state.result(gold_version, SCORER_VERSION)
        value = _ladder_value(result) if result is not None else None
        if value is None:
            continue
        best = links.best.get(root)
        if best is None or value > best[0] + step:
            best = links.best[root] = (value, state.meta.id)
        out[state.meta.id] = LadderStep(state.meta.id, best[1] == state.meta.id, best[1], _shown_value(result, best[0]))
    return out


def _ladder_value(result: ResultRecord) -> float | None:
    """The primary figure, negated when lower is better, so that "beats" is always ``>``."""
    primary = get_benchmark(result.benchmark).primary
    value = result.overall.get(primary.name)
    if value is None:
        return None
    return float(value) if primary.higher_is_better else -float(value)


def _shown_value(result: ResultRecord, ladder_value: float) -> float:
    return ladder_value if get_benchmark(result.benchmark).primary.higher_is_better else -ladder_value


class Feedback:
    """The policy over a catalog: which results a team (and the board) may see, and how many
    submissions a team may still make public."""

    def __init__(
        self,
        catalog: Catalog,
        exempt: Iterable[str] = (),
        step: float = LADDER_STEP,
        ladder: bool = True,
        publications: int = PUBLICATIONS_PER_WEEK,
    ) -> None:
        self.catalog = catalog
        self.exempt = frozenset(exempt)
        self.step = step
        self.ladder = ladder  # False: every scored result is shown (LEADERBOARD_FEEDBACK=full)
        self.publications = publications  # per team, benchmark and 7 days (only under the Ladder)
        self._cache: dict[tuple[str, str], tuple[int, object]] = {}
        self._lock = threading.Lock()

    def is_exempt(self, state: SubmissionState) -> bool:
        return state.meta.maintainer or state.meta.submitter in self.exempt

    def _cached(self, key: tuple[str, str], make: Callable[[], object]) -> object:
        generation = self.catalog.generation
        with self._lock:
            cached = self._cache.get(key)
            if cached and cached[0] == generation:
                return cached[1]
        value = make()
        with self._lock:
            self._cache[key] = (generation, value)
        return value

    def steps(self, benchmark: str, gold_version: str) -> dict[str, LadderStep]:
        """The benchmark's ladders on that gold, cached until the catalog changes."""
        make = lambda: ladder(self.catalog.all(benchmark), gold_version, self.step, self.is_exempt)  # noqa: E731
        return self._cached((benchmark, gold_version), make)

    def reveals(self, benchmark: str) -> dict[str, Reveal]:
        """The granted publications of the benchmark (submissions.publications)."""
        make = lambda: reveals(self.catalog.all(benchmark), self.publications, self.exempt)  # noqa: E731
        return self._cached((benchmark, "reveals"), make)

    def shown(self, state: SubmissionState, gold_version: str) -> bool:
        """Whether the team may see this submission's figures."""
        if state.hidden:
            return False
        if not self.ladder or self.is_exempt(state) or state.meta.id in self.reveals(state.meta.benchmark):
            return True
        decision = self.steps(state.meta.benchmark, gold_version).get(state.meta.id)
        return decision is None or decision.shown  # nothing scored on that gold: nothing to withhold

    def visible(self, states: Iterable[SubmissionState], gold_version: str) -> list[SubmissionState]:
        """The states that may be board rows: all but, under the Ladder, a public one whose
        publication was over the ration (hidden ones the table drops itself)."""
        states = list(states)
        if not self.ladder or not states:
            return states
        granted = self.reveals(states[0].meta.benchmark)
        return [s for s in states if not s.public or s.meta.id in granted or self.is_exempt(s)]

    def ration(self, benchmark: str, team: str, now: datetime, free: bool = False) -> Ration:
        """The publication ration of ``team`` at ``now`` (no limit under ``full`` or when ``free``)."""
        key = name_key(team)
        states = [s for s in self.catalog.all(benchmark) if state_key(s) == key]
        granted = self.reveals(benchmark)
        return ration(states, granted, team, benchmark, self.publications, now, free or not self.ladder)

    def may_publish(self, state: SubmissionState, now: datetime, maintainer: bool = False) -> Ration:
        """The ration that publishing ``state`` now draws on: free for a maintainer, an exempt
        submission, and one that was public before (its figures are out already)."""
        free = maintainer or self.is_exempt(state) or state.meta.id in self.reveals(state.meta.benchmark)
        return self.ration(state.meta.benchmark, state.meta.team, now, free)

    def result_for_submitter(self, state: SubmissionState, gold_version: str) -> ResultRecord | None:
        """The result My submissions may show: None when withheld, hidden or held."""
        return state.latest_result(gold_version) if self.shown(state, gold_version) else None

    def answer(self, answer: SubmitAnswer, gold_version: str) -> SubmitAnswer:
        """The ``/submit`` answer as the policy lets the submitter see it (duplicates included)."""
        state = self.catalog.get(answer.submission_id) if answer.submission_id else None
        if answer.result is None or state is None or self.shown(state, gold_version):
            return answer
        if state.hidden:
            return answer.withheld(HELD)
        best = self.steps(state.meta.benchmark, gold_version)[state.meta.id]
        primary = get_benchmark(state.meta.benchmark).primary
        why = (
            f"Scored and kept, but not shown: it does not beat your team's best shown {primary.label} "
            f"({best.best:.{primary.decimals}f}, submission {best.best_id}) by more than {self.step:g} points, "
            "so its figures stay private (the Ladder rule; see About, Integrity). Publishing it shows them; "
            f"a team may make {self.publications} submissions public per benchmark a week."
        )
        repeat = "This file was already submitted; nothing was counted. " if answer.duplicate_of else ""
        return answer.withheld(repeat + why)
