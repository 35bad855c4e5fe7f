"""What a submitter learns from a scored submission: the Ladder rule (Blum & Hardt, 2015).

Every figure a submitter sees about the hidden test is information about its answer key; with
one full breakdown per submission, a team can recover the SCB key in about a hundred submissions
(docs/integrity.md). So, per submitter and benchmark, in submission order:

- the first scored submission is *shown*: its figures go to the answer, My submissions and the
  board (rounded, without counts of right answers: submissions.answer);
- a later one is shown only if its primary figure beats the submitter's best shown one by more
  than :data:`LADDER_STEP` points (in the metric's declared direction);
- otherwise it is *withheld*: scored and stored for the maintainers, but the submitter is told
  only that it did not beat the best shown figure by the step, and it is no board row.

A withheld answer carries one bit (above the step or not) instead of ~14 exact group counts, and
the best shown figure can climb at most 100/step times. Hidden or held submissions are never
shown (submissions.probes).
A maintainer's submission (``SubmissionMeta.maintainer``), or one by a name in ``exempt``, is
always shown. The rule is a pure function of the stored results, so every replica, restart and rescore agrees.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from scoring import SCORER_VERSION, get_benchmark
from scoring.engine import ResultRecord
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog, SubmissionState

LADDER_STEP = 1.0
"""Points of the primary metric a submission must gain over the best shown one to be shown
(SCB: 1 point is 32 of 3,178 questions, above the 0.77-point spread of chance)."""


@dataclass(frozen=True)
class LadderStep:
    """The decision for one scored submission, and the best shown one it was measured against."""

    submission_id: str
    shown: bool
    best_id: str  # the submitter's best shown submission after this one (itself when shown)
    best: float  # its primary figure, at full precision (the answer rounds it)


def ladder(states: Iterable[SubmissionState], gold_version: str, step: float = LADDER_STEP) -> dict[str, LadderStep]:
    """Decisions for one submitter's scored, visible submissions on one benchmark, oldest first."""
    out: dict[str, LadderStep] = {}
    best: tuple[float, str] | None = None
    for state in states:
        result = state.result(gold_version, SCORER_VERSION)
        if result is None or state.hidden:
            continue
        value = _ladder_value(result)
        if value is None:
            continue
        if best is None or value > best[0] + step:
            best = (value, state.meta.id)
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
    """The policy over a catalog: which results a submitter (and the board) may see."""

    def __init__(
        self, catalog: Catalog, exempt: Iterable[str] = (), step: float = LADDER_STEP, ladder: bool = True
    ) -> None:
        self.catalog = catalog
        self.exempt = frozenset(exempt)
        self.step = step
        self.ladder = ladder  # False: every scored result is shown (LEADERBOARD_FEEDBACK=full)
        self._cache: dict[tuple[str, str], tuple[int, dict[str, LadderStep]]] = {}
        self._lock = threading.Lock()

    def steps(self, submitter: str, benchmark: str, gold_version: str) -> dict[str, LadderStep]:
        """The submitter's ladder on that gold, cached until the catalog changes."""
        key, generation = (submitter, f"{benchmark}:{gold_version}"), self.catalog.generation
        with self._lock:
            cached = self._cache.get(key)
            if cached and cached[0] == generation:
                return cached[1]
        steps = ladder(self.catalog.by_submitter(submitter, benchmark), gold_version, self.step)
        with self._lock:
            self._cache[key] = (generation, steps)
        return steps

    def shown(self, state: SubmissionState, gold_version: str) -> bool:
        """Whether the submitter (and the public board) may see this submission's figures."""
        if state.hidden:
            return False
        if not self.ladder or state.meta.maintainer or state.meta.submitter in self.exempt:
            return True
        decision = self.steps(state.meta.submitter, state.meta.benchmark, gold_version).get(state.meta.id)
        return decision is None or decision.shown  # nothing scored on that gold: nothing to withhold

    def visible(self, states: Iterable[SubmissionState], gold_version: str) -> list[SubmissionState]:
        """The states that may be board rows (withheld ones are not; hidden ones the table drops)."""
        return [s for s in states if s.hidden or self.shown(s, gold_version)]

    def result_for_submitter(self, state: SubmissionState, gold_version: str) -> ResultRecord | None:
        """The result My submissions may show: None when withheld, hidden or held."""
        return state.latest_result(gold_version) if self.shown(state, gold_version) else None

    def answer(self, answer: SubmitAnswer, gold_version: str) -> SubmitAnswer:
        """The ``/submit`` answer as the policy lets the submitter see it (duplicates included)."""
        state = self.catalog.get(answer.submission_id) if answer.submission_id else None
        if answer.result is None or state is None or self.shown(state, gold_version):
            return answer
        if state.hidden:
            return answer.withheld("Scored; a maintainer is reviewing this submission, so its figures are not shown.")
        best = self.steps(state.meta.submitter, state.meta.benchmark, gold_version)[state.meta.id]
        primary = get_benchmark(state.meta.benchmark).primary
        why = (
            f"Scored and kept, but not shown: it does not beat your best shown {primary.label} "
            f"({best.best:.{primary.decimals}f}, submission {best.best_id}) by more than {self.step:g} points, "
            "so its figures stay private and your row is unchanged (the Ladder rule; see About, Integrity)."
        )
        repeat = "This file was already submitted; nothing was counted. " if answer.duplicate_of else ""
        return answer.withheld(repeat + why)
