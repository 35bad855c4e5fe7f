"""What a team learns from a scored submission: the Ladder rule (Blum & Hardt, 2015), per team.

Every figure a team sees about the hidden test is information about its answer key; with one
full breakdown per submission, a team can recover half of the SCB key in about 790 submissions
(docs/integrity.md). So, per *ladder* and benchmark, in submission order:

- the first scored submission is *shown*: its figures go to the answer and My submissions
  (rounded, without counts of right answers: submissions.answer);
- a later one is shown only if it beats the ladder's best shown figure by more than the declared
  step on *any* of the benchmark's headline metrics (``Benchmark.headline``: SCB accuracy and
  mIoU, so that a grounding-only improvement shows; each in its declared direction);
- otherwise it is *withheld*: scored and stored, but the team is told only that it did not beat
  the best shown figures by their steps.

Every state has a reason its team can read (:meth:`Feedback.reason`: a stable code and a message
saying what happened and what would change it): shown, withheld by the Ladder, held for review
by the probe detector (on which kind of signal, never which files), hidden by a maintainer (with
the maintainer's reason); :meth:`Feedback.notes` add how the file was read.

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

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from scoring import SCORER_VERSION, get_benchmark
from scoring.benchmarks.base import HEADLINE_STEP
from scoring.engine import ResultRecord
from submissions.answer import Reason, SubmitAnswer
from submissions.catalog import Catalog, SubmissionState
from submissions.probes import SIGNALS
from submissions.publications import PUBLICATIONS_PER_WEEK, Ration, Reveal, ration, reveals
from submissions.records import Status
from submissions.teams import name_key, state_key

LADDER_STEP = HEADLINE_STEP
"""The default step of a headline metric, in points (each benchmark declares its own:
``Benchmark.headline``)."""
HELD = (
    "Scored and held for review automatically (no maintainer has acted on it yet): its figures are not "
    "shown until a maintainer reviews it."
)
NO_CONTACT = "the maintainers of this leaderboard"


@dataclass(frozen=True)
class LadderStep:
    """The decision for one scored submission, and the best shown figures it was measured against."""

    submission_id: str
    shown: bool
    best_id: str  # the ladder's best shown submission on the primary metric after this one
    best: float  # its primary figure, at full precision (the answer rounds it)
    bests: tuple[tuple[str, float, str], ...] = ()  # (metric, best shown figure, its submission) per headline metric


Best = dict[str, tuple[float, str]]  # headline metric -> (best shown value, in "beats is >" sign, submission id)


class _Links:
    """Accounts and teams joined into ladders as submissions arrive (union-find), each ladder
    with its best shown (value, submission id) per headline metric."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}
        self.best: dict[tuple[str, str], Best] = {}

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
            merged = dict(self.best.pop(t, {}))
            for metric, best in self.best.get(a, {}).items():
                merged[metric] = max(best, merged.get(metric, best))
            if merged:
                self.best[a] = merged
        return a


def ladder(
    states: Iterable[SubmissionState],
    gold_version: str,
    exempt: Callable[[SubmissionState], bool] = lambda s: s.meta.maintainer,
) -> dict[str, LadderStep]:
    """Decisions for a benchmark's scored, visible submissions (``states`` oldest first): a
    submission is shown when it beats its ladder's best shown figure by more than the declared
    step on any headline metric (or is the first with a figure on one of them)."""
    links, out = _Links(), {}
    for state in states:
        if exempt(state):
            continue
        root = links.join(state)  # hidden and unscored uploads link too: a hold unlinks nothing
        result = None if state.hidden else decided_on(state, gold_version)
        values = _ladder_values(result) if result is not None else {}
        if not values:
            continue
        bench = get_benchmark(result.benchmark)
        best = links.best.setdefault(root, {})
        steps = dict(bench.headline)
        shown = any(m not in best or v > best[m][0] + steps[m] for m, v in values.items())
        if shown:
            for m, v in values.items():
                if m not in best or v > best[m][0]:
                    best[m] = (v, state.meta.id)
        bests = tuple((m, _shown_value(bench.metric(m), best[m][0]), best[m][1]) for m in steps if m in best)
        primary = best.get(bench.primary_metric) or next(iter(best.values()))
        out[state.meta.id] = LadderStep(
            state.meta.id, shown, primary[1], _shown_value(bench.primary, primary[0]), bests
        )
    return out


def decided_on(state: SubmissionState, gold_version: str) -> ResultRecord | None:
    """The result a submission's Ladder decision is made on: the first it had, the figures its
    team was measured by when it arrived. A record of what the team was shown: a gold change
    neither takes back figures a team saw nor shows ones it withheld (its figures follow the
    current gold once shown)."""
    first = min(state.results.values(), key=lambda stored: stored.scored_at, default=None)
    return first.result if first is not None else state.result(gold_version, SCORER_VERSION)


def _ladder_values(result: ResultRecord) -> dict[str, float]:
    """The headline figures that exist, negated when lower is better, so that "beats" is ``>``."""
    out = {}
    for metric, _step in get_benchmark(result.benchmark).headline_metrics:
        value = result.overall.get(metric.name)
        if value is not None:
            out[metric.name] = float(value) if metric.higher_is_better else -float(value)
    return out


def _shown_value(metric, ladder_value: float) -> float:
    return ladder_value if metric.higher_is_better else -ladder_value


class Feedback:
    """The policy over a catalog: which results a team (and the board) may see, and how many
    submissions a team may still make public."""

    def __init__(
        self,
        catalog: Catalog,
        exempt: Iterable[str] = (),
        ladder: bool = True,
        publications: int = PUBLICATIONS_PER_WEEK,
        contact: str = NO_CONTACT,
    ) -> None:
        self.catalog = catalog
        self.contact = contact  # where a team writes to the maintainers (leaderboard.config: contact)
        self.exempt = frozenset(exempt)
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
        make = lambda: ladder(self.catalog.all(benchmark), gold_version, self.is_exempt)  # noqa: E731
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
        why = "maintainer" if free else "this leaderboard shows every result: full feedback"
        return ration(states, granted, team, benchmark, self.publications, now, free or not self.ladder, why)

    def may_publish(self, state: SubmissionState, now: datetime, maintainer: bool = False) -> Ration:
        """The ration that publishing ``state`` now draws on: free for a maintainer, an exempt
        submission, and one that was public before (its figures are out already)."""
        free = maintainer or self.is_exempt(state) or state.meta.id in self.reveals(state.meta.benchmark)
        return self.ration(state.meta.benchmark, state.meta.team, now, free)

    def result_for_submitter(self, state: SubmissionState, gold_version: str) -> ResultRecord | None:
        """The result My submissions may show: None when withheld, hidden or held."""
        return state.latest_result(gold_version) if self.shown(state, gold_version) else None

    def answer(self, answer: SubmitAnswer, gold_version: str) -> SubmitAnswer:
        """The ``/submit`` answer as the policy lets the submitter see it (duplicates included),
        with the reason of its state and the notes on how the file was read."""
        state = self.catalog.get(answer.submission_id) if answer.submission_id else None
        if answer.result is None or state is None:
            return answer
        reason, notes = self.reason(state, gold_version, Status.SCORED), self.notes(state, gold_version)
        if self.shown(state, gold_version):
            return answer.with_reason(reason, notes)
        repeat = "This file was already submitted; nothing was counted. " if answer.duplicate_of else ""
        return answer.withheld(repeat + reason.message, reason).with_reason(reason, notes)

    def reason(self, state: SubmissionState, gold_version: str, status: Status) -> Reason:
        """Why ``state`` stands where it does, for its team (submissions.answer.REASON_CODES)."""
        if state.hidden:
            return self._held(state) if state.held else self._hidden(state)
        if status is Status.REJECTED:
            return Reason(
                "rejected", "Not scored: the file has format errors (listed with it); fix them, send it again."
            )
        if status is Status.FAILED:
            return Reason("failed", "Scoring failed on an internal error; it is retried automatically.")
        if status is not Status.SCORED:
            return Reason("pending", "Received; scoring is pending.")
        if self.shown(state, gold_version):
            where = "on the board" if state.public else "to your team only (private: publish it to make it a row)"
            return Reason("shown", f"Scored: its figures are shown {where}.")
        return Reason("ladder_withheld", self._withheld(state, gold_version))

    def notes(self, state: SubmissionState, gold_version: str) -> tuple[Reason, ...]:
        """How the file was read: unparsed responses and lenient reads (file facts, no gold)."""
        result = state.latest_result(gold_version)
        counts = result.counts if result is not None else {}
        out = []
        if counts.get("unparsed"):
            unparsed = (
                f"{counts['unparsed']:,} of {counts.get('submitted', 0):,} lines give a response that states no "
                "letter the reader understands (a refusal, or a form it cannot read); each counts as a wrong "
                "answer, as in the paper, and is listed under unparsed lines. A line with an explicit "
                '"answer" letter is never misread.'
            )
            out.append(Reason("unparsed_lines", unparsed))
        if counts.get("set_aside"):
            n = counts["set_aside"]
            set_aside = (
                f"{n:,} line{'s' if n != 1 else ''} answer{'' if n != 1 else 's'} questions the current gold no "
                "longer has; they are not scored (a maintainer removed those questions from the benchmark)."
            )
            out.append(Reason("set_aside_lines", set_aside))
        if counts.get("lenient"):
            lenient = (
                f"{counts['lenient']:,} lines were read by a rule looser than the benchmark's official protocol "
                "(for example the option's text instead of its letter); the official protocol would count "
                "them wrong."
            )
            out.append(Reason("lenient_reads", lenient))
        return tuple(out)

    def _withheld(self, state: SubmissionState, gold_version: str) -> str:
        step = self.steps(state.meta.benchmark, gold_version)[state.meta.id]
        bench = get_benchmark(state.meta.benchmark)
        steps = dict(bench.headline)
        owners = {sid: self._owner(state, sid) for _, _, sid in step.bests}
        bests = [
            f"{bench.metric(m).label} ({v:.{bench.metric(m).decimals}f}, submission {sid}{owners[sid]}) by more "
            f"than {steps[m]:g} point{'s' if steps[m] != 1 else ''}"
            for m, v, sid in step.bests
        ]
        if any(owners.values()):  # a best of another team of the ladder (docs/integrity.md): not "your team's"
            beats = "the best shown figures of your ladder (your team and the other team names its accounts submit "
            beats += "under share one): " + ", nor ".join(bests)
        else:
            beats = "your team's best shown " + ", nor its best shown ".join(bests)
        return (
            f"Scored and kept, but not shown: it does not beat {beats}, "
            "so its figures stay private (the Ladder rule; see About, Integrity). A later file that beats any of "
            "these is shown; publishing this one shows its figures now "
            f"(a team may make {self.publications} submissions public per benchmark a week)."
        )

    def _owner(self, state: SubmissionState, best_id: str) -> str:
        """Whose best ``best_id`` is, told to ``state``'s team: "" for its own team's; the team's name
        when this account submitted it (it knows that team); else only that it is another of the ladder."""
        best = self.catalog.get(best_id)
        if best is None or state_key(best) == state_key(state):
            return ""
        if best.meta.submitter == state.meta.submitter:
            return f" of your account's team {best.meta.team!r}"
        return " of another team of your ladder"

    def _held(self, state: SubmissionState) -> Reason:
        moderation = state.moderation
        signals = [SIGNALS[c] for c in _signals(moderation.reason) if c in SIGNALS] if moderation else []
        automatic = moderation is not None and moderation.by == "automatic"
        found = f"The probe detector found {'; '.join(signals)}" if signals else "The probe detector flagged its series"
        by_hand = "Scored and held for review by a maintainer: its figures are not shown until it is released."
        who = HELD if automatic else by_hand
        message = (
            f"{who} {found} (in your files, or in files linked to them by near-identical answers); probes of the "
            "hidden answers look like this, and so, sometimes, does honest work. What happens next: a maintainer "
            "reviews held files and releases honest work, whose figures are then shown as usual. To explain your "
            f"series or to ask, write to {self.contact}."
        )
        return Reason("held_for_review", message)

    def _hidden(self, state: SubmissionState) -> Reason:
        moderation = state.moderation
        why = moderation.reason.strip() if moderation and moderation.reason.strip() else "no reason was given"
        when = f" on {moderation.at[:10]}" if moderation and moderation.at else ""
        message = (
            f"Hidden by a maintainer{when}: {why}. It is off the board and its figures are not shown. "
            f"To ask about it, write to {self.contact}."
        )
        return Reason("hidden_by_maintainer", message)


def _signals(reason: str) -> list[str]:
    """The signal codes a hold's moderation reason records ("... (signals: near_copy, one_letter)")."""
    match = re.search(r"signals: ([a-z_, ]+)", reason)
    return [c.strip() for c in match.group(1).split(",")] if match else []
