"""Adaptive attacks on the SCB answer key, run against the real scorer under a feedback policy.

    python perf/probe_attack.py --gold ../shared/data/scb-synthetic/gold.jsonl [--cap 2000]
    python perf/probe_attack.py --gold <any SCB gold> --check   # the small, fast run the test makes
    python perf/probe_attack.py --honest   # the detector's false holds on honest teams' series

The attacks of the red-team review (finding 3), as a submitter sees the leaderboard:

- ``partial``: probe files answering K questions per country, the rest missing (the interval
  decoder of the review); the minimum coverage refuses them before scoring;
- ``differential``: complete files, a known baseline with one flipped answer per group cell that
  no other probe shares, decoded from that cell's exact count of right answers;
- ``coin``: group-count coin weighing, several flips per country cell, split adaptively until
  each cell's count change names every probe;
- ``threshold``: the attack that targets the Ladder: a baseline with the 5 % of allowed missing
  answers, then files that fill some of them (to sit at the step) plus isolated probes, decoded
  whenever a file is shown;
- ``refusals``: the partial file with refusals (responses that state no letter) in place of the
  missing lines, so that it passes the minimum coverage (a refusal is an answered, wrong line):
  one isolated probe per group cell, the rest refused, decoded from each cell's count.

Policies (the oracle is :func:`scoring.engine.score_predictions` with the submission's seed,
:meth:`submissions.answer.SubmitAnswer.to_api` for rounding, :func:`submissions.feedback.ladder`,
:func:`submissions.publications.reveals` and :func:`submissions.probes.to_hold`, the functions the
leaderboard itself decides with); every one has the secret seed, rounding, no counts of right
answers and the 95 % minimum coverage:

- ``full``: every scored result shown (``LEADERBOARD_FEEDBACK=full``);
- ``ladder``: the Ladder rule per team, one account and team, every file private;
- ``publish``: the Ladder, and the team publishes every file it can (3 a week) to read its figures;
  it submits at the team's daily quota (5 a day), so a week is 35 scored submissions;
- ``sybil``: the Ladder, a fresh account and team for every submission (each one is a first);
- ``publish+hold`` and ``sybil+hold``: the same with the automatic hold of flagged probe series,
  i.e. the deployed default (``LEADERBOARD_FEEDBACK=ladder``, 3 publications a week, auto-hold on)
  against one team and against fresh accounts.

``--compare`` runs the red team's Compare decoder (turn 3, attack #3) against the Compare of
040358b (paired intervals from the public bootstrap seed, McNemar's p; kept below, verbatim in
substance, to measure the attack on it) and against the Compare of now (the rows' published
figures only, leaderboard.compare): three published rows (P0 random letters, P1 = P0 with 8
questions per country changed, P2 the third letter on the same ones), one Compare call, then
per country every d in {-1,0,1}^8 consistent with the page's rounded difference, interval and p
under the public weights. It prints the answers decided (and checked against the gold).

For each it prints the scored submissions needed for 10 %, 50 % and 100 % of the key (answers
the attacker has pinned, checked against the gold at the end), and after which submission the
probe detector (:mod:`submissions.probes`) flags the attacker's series. ``--check`` runs the
differential attack under every policy on a small cap (tests/submissions/test_integrity.py).

``--honest`` (once ``perf/honest_holds.py``) is the detector's other side: its false holds on the
honest-iteration corpus (tests/support/honest.py). Each series is sent in order to a fresh local
board with the default policy (the Ladder, the automatic hold) on the small test gold; it prints, per
series, the files sent, the files held and the files shown to their team, then the totals. Run it on
two checkouts to compare.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard import compare as published_compare  # noqa: E402
from scoring import SCORER_VERSION, Gold, get_benchmark, load_gold  # noqa: E402
from scoring.benchmarks.base import Stat  # noqa: E402
from scoring.engine import Predictions, question_columns, score_predictions  # noqa: E402
from scoring.metrics import CI_PERCENTILES, bootstrap_sums, bootstrap_weights, membership, ratio  # noqa: E402
from store.layout import ResultKey  # noqa: E402
from store.records import Publication, StoredResult, SubmissionMeta  # noqa: E402
from submissions.answer import SubmitAnswer  # noqa: E402
from submissions.catalog import SubmissionState  # noqa: E402
from submissions.feedback import LADDER_STEP, ladder  # noqa: E402
from submissions.probes import MISSING, UNREAD, Pattern, flags, pattern, to_hold  # noqa: E402
from submissions.publications import PUBLICATIONS_PER_WEEK, ration, reveals  # noqa: E402
from submissions.records import Status  # noqa: E402
from submissions.seeds import BootstrapSeeds  # noqa: E402

MIN_COVERAGE = 0.95
SCORED_PER_DAY = 5  # the default daily quota of scored submissions, per account and per team
MILESTONES = (0.10, 0.50, 1.00)


@dataclass(frozen=True)
class Policy:
    ladder: bool  # False: every scored result shown
    fresh_accounts: bool  # a new account and team for every submission
    publish: bool  # the team publishes every file its ration allows
    hold: bool  # the automatic hold of flagged probe series


POLICIES = {
    "full": Policy(False, False, False, False),
    "ladder": Policy(True, False, False, False),
    "publish": Policy(True, False, True, False),
    "sybil": Policy(True, True, False, False),
    "publish+hold": Policy(True, False, True, True),
    "sybil+hold": Policy(True, True, False, True),
}


# --------------------------------------------------------------------------- the oracle


@dataclass
class Oracle:
    """The leaderboard as a submitter sees it, under one policy; it keeps every submission for
    the detector and counts the scored ones (a held submission is scored, its figures not shown)."""

    gold: Gold
    policy: str
    seeds: BootstrapSeeds = field(default_factory=lambda: BootstrapSeeds(b"perf-probe-attack-secret"))
    states: list[SubmissionState] = field(default_factory=list)
    found: list[Pattern] = field(default_factory=list)
    scored: int = 0
    rejected: int = 0
    held: int = 0
    published: int = 0
    _matrix: np.ndarray | None = None

    def submit(self, letters: np.ndarray) -> dict | None:
        """The ``result`` of the ``/submit`` answer: None when refused, withheld or held."""
        policy, bench = POLICIES[self.policy], get_benchmark(self.gold.benchmark)
        i = len(self.states)
        who = f"sybil-{i}" if policy.fresh_accounts else "attacker"
        sid = f"p{i:05d}"
        when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=i / SCORED_PER_DAY)  # at the team's quota
        meta = SubmissionMeta(sid, bench.id, "probe", f"team of {who}", "open", "", "", "", who, sid, "xyxy",
                              when.isoformat(), 0, visibility="private")  # fmt: skip
        state = SubmissionState(meta)
        self.states.append(state)
        self._detect(letters, bench)
        if policy.hold and sid in to_hold(self.found):
            state.hidden = True  # the intake scores it, then the automatic hold takes it
        if (letters != MISSING).sum() < math.ceil(MIN_COVERAGE * self.gold.size - 1e-9):
            self.rejected += 1
            return None
        self.scored += 1
        if state.hidden:
            self.held += 1
            return None
        unread = letters == UNREAD  # refused: answered, and wrong
        read = np.where(unread, MISSING, letters).astype(np.int8)
        preds = Predictions(bench.id, self.gold.version, read, letters != MISSING, {}, int(unread.sum()))
        result = score_predictions(bench, self.gold, preds, seed=self.seeds.for_submission(sid))
        state.results[ResultKey.of(self.gold.version, SCORER_VERSION)] = StoredResult(sid, meta.submitted_at, result)
        answer = SubmitAnswer.of(Status.SCORED, sid, result=result)
        if policy.ladder and not self._published(state, when) and not ladder(self.states, self.gold.version)[sid].shown:
            answer = answer.withheld("not shown")
        return answer.to_api()["result"]

    def _published(self, state: SubmissionState, when: datetime) -> bool:
        """Publish ``state`` if the team's ration allows it now; whether it is public."""
        if not POLICIES[self.policy].publish:
            return False
        granted = reveals(self.states, PUBLICATIONS_PER_WEEK)
        if not ration(self.states, granted, "team", self.gold.benchmark, PUBLICATIONS_PER_WEEK, when).allows:
            return False
        state.publications[0] = Publication(True, state.meta.submitter, when.isoformat(), True)
        self.published += 1
        return state.meta.id in reveals(self.states, PUBLICATIONS_PER_WEEK)

    def _detect(self, letters: np.ndarray, bench) -> None:
        """The detector's pattern of the new file, against every earlier one (incrementally)."""
        i = len(self.states) - 1
        if self._matrix is None or i >= len(self._matrix):
            grown = np.full((max(64, 2 * i), self.gold.size), -1, dtype=np.int8)
            if self._matrix is not None:
                grown[:i] = self._matrix[:i]
            self._matrix = grown
        self._matrix[i] = letters
        submitters = np.array([s.meta.submitter for s in self.states])
        self.found.append(pattern(self.states, self._matrix[: i + 1], submitters, i, bench))

    def flagged_at(self) -> int | None:
        """The submission (1-based, of the attacker's series) after which the detector flags it."""
        found = flags(self.gold.benchmark, self.found, lambda _sid: False)
        return min((f.flagged_at for f in found), default=None)


def cell_counts(result: dict, gold: Gold) -> dict[tuple[str, str], int]:
    """Exact right-answer counts per group cell, read back from rounded accuracies (a step of
    0.01 % is finer than 1/|G| for every group here: the rounding alone does not hide them)."""
    out = {}
    metric = get_benchmark(gold.benchmark).primary.name
    for name in gold.groups:
        for label, stats in result[name].items():
            out[(name, label)] = round(stats[metric] * stats["questions"] / 100)
    return out


# --------------------------------------------------------------------------- the attacker's knowledge


@dataclass
class Key:
    """What the attacker knows: letters still possible per question (a 4-bit mask) and its cells."""

    gold: Gold
    choices: int
    possible: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.possible = np.full(self.gold.size, (1 << self.choices) - 1, dtype=np.int16)

    def known(self) -> np.ndarray:
        """The pinned letter per question, -1 when more than one is possible."""
        single = (self.possible & (self.possible - 1)) == 0
        return np.where(single, np.log2(np.maximum(self.possible, 1)).astype(np.int8), -1)

    def share(self) -> float:
        return float((self.known() >= 0).mean())

    def right(self, q: int, letter: int) -> None:
        self.possible[q] = 1 << letter

    def wrong(self, q: int, letter: int) -> None:
        self.possible[q] &= ~(1 << letter)

    def candidate(self, q: int, avoid: int) -> int | None:
        """A still possible letter other than ``avoid`` (the baseline's)."""
        for c in range(self.choices):
            if c != avoid and self.possible[q] >> c & 1:
                return c
        return None

    def cells(self) -> list[np.ndarray]:
        return [codes for _labels, codes in self.gold.groups.values()]


def isolated_probes(key: Key, base: np.ndarray, limit: int | None = None) -> list[tuple[int, int, tuple[str, str]]]:
    """(question, letter, its own cell): probes of undecided questions, each alone in one cell."""
    names = list(key.gold.groups)
    codes = [key.gold.groups[n][1] for n in names]
    labels = [key.gold.groups[n][0] for n in names]
    undecided = np.flatnonzero(key.known() < 0)
    claimed: set[tuple[int, int]] = set()
    occupied: set[tuple[int, int]] = set()
    probes = []
    for g in range(len(names)):
        for q in undecided:
            cell = (g, int(codes[g][q]))
            mine = {(h, int(codes[h][q])) for h in range(len(names))}
            if cell in occupied or mine & claimed:
                continue
            letter = key.candidate(int(q), int(base[q]))
            if letter is None:
                continue
            claimed.add(cell)
            occupied |= mine
            probes.append((int(q), letter, (names[g], labels[g][cell[1]])))
            if limit and len(probes) >= limit:
                return probes
    return probes


def learn_differential(key: Key, base: np.ndarray, q: int, letter: int, delta: int) -> None:
    """One flip ``base[q] -> letter``: +1 the new letter is right, -1 the old one, 0 neither."""
    if delta > 0:
        key.right(q, letter)
    elif delta < 0:
        key.right(q, int(base[q]))
    else:
        key.wrong(q, letter)
        key.wrong(q, int(base[q]))


# --------------------------------------------------------------------------- attacks


Step = Callable[[Oracle, Key], bool]
"""One scored submission of an attack; False when it has nothing left to ask."""


def partial(oracle: Oracle, key: Key, per_country: int = 16) -> Iterator[bool]:
    """The review's interval decoder needs files answering only the probes: each is refused."""
    codes = key.cells()[1] if len(key.cells()) > 1 else key.cells()[0]
    while True:
        letters = np.full(key.gold.size, -1, dtype=np.int8)
        for label in np.unique(codes):
            rows = np.flatnonzero((codes == label) & (key.known() < 0))[:per_country]
            letters[rows] = 0
        yield oracle.submit(letters) is not None


def differential(oracle: Oracle, key: Key) -> Iterator[bool]:
    base = np.zeros(key.gold.size, dtype=np.int8)  # all "A": a baseline known exactly once shown
    first = oracle.submit(base)
    counts = cell_counts(first, key.gold) if first else None
    while True:
        probes = isolated_probes(key, base)
        if not probes:
            return
        letters = base.copy()
        for q, letter, _cell in probes:
            letters[q] = letter
        result = oracle.submit(letters)
        if result is not None and counts is not None:
            now = cell_counts(result, key.gold)
            for q, letter, cell in probes:
                learn_differential(key, base, q, letter, now[cell] - counts[cell])
        elif result is not None:  # the first file was withheld: this one is the attacker's reference
            counts = cell_counts(result, key.gold)
        yield True


def coin(oracle: Oracle, key: Key, batch: int = 4) -> Iterator[bool]:
    """Batches of flips per country cell; a cell whose change is not ±size is split in two."""
    base = np.zeros(key.gold.size, dtype=np.int8)
    first = oracle.submit(base)
    counts = cell_counts(first, key.gold) if first else None
    name = list(key.gold.groups)[1] if len(key.gold.groups) > 1 else next(iter(key.gold.groups))
    labels, codes = key.gold.groups[name]
    pending: dict[int, list[int]] = {}  # cell -> questions to test together next
    while True:
        tests: dict[int, list[tuple[int, int]]] = {}
        for c in range(len(labels)):
            rows = pending.pop(c, None) or [int(q) for q in np.flatnonzero((codes == c) & (key.known() < 0))[:batch]]
            picks = [(q, key.candidate(q, int(base[q]))) for q in rows]
            tests[c] = [(q, x) for q, x in picks if x is not None]
        if not any(tests.values()):
            return
        letters = base.copy()
        for group in tests.values():
            for q, x in group:
                letters[q] = x
        result = oracle.submit(letters)
        if result is not None and counts is not None:
            now = cell_counts(result, key.gold)
            for c, group in tests.items():
                delta = now[(name, labels[c])] - counts[(name, labels[c])]
                _weigh(key, base, group, delta, pending, c)
        elif result is not None:
            counts = cell_counts(result, key.gold)
        yield True


def _weigh(key: Key, base: np.ndarray, group: list, delta: int, pending: dict, cell: int) -> None:
    if len(group) == 1 or abs(delta) == len(group):
        for q, x in group:
            learn_differential(key, base, q, x, int(np.sign(delta)) if len(group) > 1 else delta)
        return
    pending[cell] = [q for q, _ in group[: len(group) // 2]]  # mixed or cancelling: weigh half next


def threshold(oracle: Oracle, key: Key) -> Iterator[bool]:
    """Against the Ladder: start low (all "A", the 5 % of allowed missing answers left out), then
    send files that fill some missing answers (to land near the step) in two reserved country
    cells, plus one probe in each other country cell; learn whenever a file is shown."""
    n = key.gold.size
    name = list(key.gold.groups)[1] if len(key.gold.groups) > 1 else next(iter(key.gold.groups))
    labels, codes = key.gold.groups[name]
    reserved = codes >= len(labels) - 2
    holes = np.flatnonzero(reserved)[: n - math.ceil(MIN_COVERAGE * n - 1e-9)]
    best = np.zeros(n, dtype=np.int8)
    best[holes] = -1
    counts = cell_counts(oracle.submit(best), key.gold)
    fill = 4 * (math.floor(LADDER_STEP * n / 100) + 1)  # about a step of right answers expected
    while True:
        letters = best.copy()
        letters[np.flatnonzero(best < 0)[:fill]] = 0
        probes = []
        for c in range(len(labels) - 2):
            undecided = np.flatnonzero((codes == c) & (key.known() < 0))
            if undecided.size and (x := key.candidate(int(undecided[0]), int(best[undecided[0]]))) is not None:
                probes.append((int(undecided[0]), x, (name, labels[c])))
                letters[undecided[0]] = x
        if not probes:
            return
        result = oracle.submit(letters)
        if result is not None:
            now = cell_counts(result, key.gold)
            for q, letter, cell in probes:
                learn_differential(key, best, q, letter, now[cell] - counts[cell])
            best, counts = letters, now
        yield True


def refusals(oracle: Oracle, key: Key) -> Iterator[bool]:
    """Every line refused but one isolated probe per group cell: a cell's count is that probe's truth."""
    base = np.full(key.gold.size, UNREAD, dtype=np.int8)
    while True:
        probes = isolated_probes(key, base)
        if not probes:
            return
        letters = base.copy()
        for q, letter, _cell in probes:
            letters[q] = letter
        result = oracle.submit(letters)
        if result is not None:
            now = cell_counts(result, key.gold)
            for q, letter, cell in probes:
                key.right(q, letter) if now[cell] > 0 else key.wrong(q, letter)
        yield True


ATTACKS = {"partial": partial, "differential": differential, "coin": coin, "threshold": threshold, "refusals": refusals}


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class Outcome:
    attack: str
    policy: str
    scored: int
    rejected: int
    held: int
    published: int
    learned: float
    milestones: dict[float, int | None]
    correct: bool
    flagged_at: int | None
    seconds: float


def run(gold: Gold, attack: str, policy: str, cap: int) -> Outcome:
    started = time.perf_counter()
    oracle, key = Oracle(gold, policy), Key(gold, len(get_benchmark(gold.benchmark).choices))
    reached: dict[float, int | None] = dict.fromkeys(MILESTONES)
    for attempts, _ in enumerate(ATTACKS[attack](oracle, key), 1):
        share = key.share()
        for m in MILESTONES:
            if reached[m] is None and share >= m - 1e-12:
                reached[m] = oracle.scored
        if oracle.scored >= cap or attempts >= cap or share >= 1.0:
            break
    known = key.known()
    right = bool(((known < 0) | (known == gold.answers)).all())
    return Outcome(attack, policy, oracle.scored, oracle.rejected, oracle.held, oracle.published, key.share(), reached,
                   right, oracle.flagged_at(), time.perf_counter() - started)  # fmt: skip


def table(outcomes: list[Outcome], cap: int) -> str:
    def when(v: int | None) -> str:
        return f"{v:,}" if v is not None else f"> {cap:,}"

    lines = [
        "| attack | policy | 10 % of key | 50 % | 100 % | learned | scored | refused | held | published "
        "| flagged at | right | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        m = o.milestones
        lines.append(
            f"| {o.attack} | {o.policy} | {when(m[0.10])} | {when(m[0.50])} | {when(m[1.00])} | {o.learned:.1%} | "
            f"{o.scored:,} | {o.rejected:,} | {o.held:,} | {o.published:,} | {o.flagged_at or 'no'} | "
            f"{'yes' if o.correct else 'NO'} | {o.seconds:.0f} |"
        )
    return "\n".join(lines)


def check(gold: Gold, cap: int = 20) -> list[Outcome]:
    """The differential attack under every policy, ``cap`` scored submissions each (the test's run)."""
    return [run(gold, "differential", policy, cap) for policy in POLICIES]


# --------------------------------------------------------------------------- the Compare decoder (attack #3)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    m = a_only + b_only
    if m == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(m, k) for k in range(min(a_only, b_only) + 1)) / 2**m)


def public_seed_compare(bench, gold: Gold, a: dict, b: dict) -> dict[tuple[str, str], tuple]:
    """The accuracy rows of 040358b's Compare (leaderboard/compare.py there): per group
    (difference, low, high, p) of the paired resamples of the public seed, McNemar's exact p."""
    metric = bench.primary
    columns, member = membership(gold.groups, gold.size)
    wanted = {metric.numerator, metric.denominator}
    sums = {k: bootstrap_sums(c, member, gold.groups, wanted) for k, c in (("a", a), ("b", b))}
    figure = lambda s: ratio(s[metric.numerator], s[metric.denominator], if_empty=metric.if_empty)  # noqa: E731
    point = {k: figure({s: c[s] @ member for s in wanted}) for k, c in (("a", a), ("b", b))}
    resampled = figure(sums["a"]) - figure(sums["b"])
    right_a, right_b = a[Stat.CORRECT] > 0, b[Stat.CORRECT] > 0
    out = {}
    for j, cell in enumerate(columns):
        in_group = member[:, j] > 0
        low, high = np.percentile(resampled[:, j], CI_PERCENTILES)
        p = mcnemar_exact(int((right_a & ~right_b & in_group).sum()), int((right_b & ~right_a & in_group).sum()))
        out[cell] = (float(point["a"][j] - point["b"][j]), float(low), float(high), p)
    return out


def published_rows_compare(bench, gold: Gold, a: dict, b: dict) -> dict[tuple[str, str], tuple]:
    """The accuracy rows of the Compare of now: from the two rows' published figures only."""
    found = published_compare.compare_pair(bench, a, b, ("P", "Q"))
    return {(d.grouping, d.label): (d.difference, d.low, d.high, d.p_value)
            for d in found.differences if d.metric == bench.primary.name}  # fmt: skip


def page_text(shown: tuple) -> tuple[str, ...]:
    """What the Compare page prints of one group: 2 decimals, p to 3 (ui/compare.py)."""
    diff, low, high, p = shown
    cells = [f"{v:+.2f}" if v is not None else "-" for v in (diff, low, high)]
    return (*cells, "-" if p is None else (f"{p:.3f}" if p >= 0.001 else "<0.001"))


def _candidates(k: int) -> np.ndarray:
    return np.array(np.meshgrid(*[[-1, 0, 1]] * k, indexing="ij")).reshape(k, -1).T  # 3^k x k


def consistent(
    shown: tuple[str, ...], weights: np.ndarray, in_group: np.ndarray, probes: np.ndarray, only_difference: bool
) -> np.ndarray:
    """The d in {-1,0,1}^k (k probes of one group) whose paired Compare, under the public weights,
    prints ``shown``: the decoder of the review (sim_compare.decode_group). ``only_difference``:
    match the difference alone (what the two published rows give anyway)."""
    d = _candidates(len(probes))
    n = int(in_group.sum())
    diff = 100 * d.sum(axis=1) / n
    if only_difference:  # the interval and p are not read: not computed (a third of the test's time)
        return d[[page_text((v, None, None, None))[0] == shown[0] for v in diff]]
    denominators = weights[:, in_group].sum(axis=1).astype(np.float64)  # resamples
    resampled = 100 * (weights[:, probes].astype(np.float64) @ d.T) / denominators[:, None]  # resamples x 3^k
    low, high = np.percentile(resampled, CI_PERCENTILES, axis=0)
    p = [mcnemar_exact(int(a), int(b)) for a, b in zip((d > 0).sum(axis=1), (d < 0).sum(axis=1))]
    texts = [page_text(t) for t in zip(diff, low, high, p)]
    return d[[t == shown for t in texts]]


@dataclass(frozen=True)
class CompareOutcome:
    compare: str
    probes: int
    decoder: str
    determined: int  # (pair, probe) whose d the consistent candidates agree on, of 2 x probes
    decided: int  # answers pinned to one letter
    right: int
    ruled_out: int  # (question, letter) pairs excluded
    consistent_true: int  # groups whose true d was among the consistent ones (the decoder's model fits)
    groups: int
    seconds: float


def compare_attack(
    gold: Gold, which: str, per_country: int = 8, seed: int = 7, only_difference: bool = False
) -> CompareOutcome:
    """Three published rows, one Compare call, the decoder (module doc); ``which``: "040358b" or
    "now"; ``only_difference``: the decoder reads only the shown difference."""
    started = time.perf_counter()
    bench = get_benchmark(gold.benchmark)
    rng = np.random.default_rng(seed)
    choices = len(bench.choices)
    p0 = rng.integers(0, choices, gold.size).astype(np.int8)
    name = "country" if "country" in gold.groups else next(iter(gold.groups))
    labels, codes = gold.groups[name]
    probes = {label: np.flatnonzero(codes == c)[:per_country] for c, label in enumerate(labels)}
    rows = [p0]
    for shift in (1, 2):  # P1: the next letter on the probes, P2: the third
        changed = p0.copy()
        for qs in probes.values():
            changed[qs] = (p0[qs] + shift) % choices
        rows.append(changed)
    seeds = BootstrapSeeds(b"perf-probe-attack-secret")
    predictions = [Predictions(bench.id, gold.version, r, r >= 0, {}, 0) for r in rows]
    if which == "040358b":
        shown_of = [question_columns(bench.id, gold, p) for p in predictions]
        run = public_seed_compare
    else:
        shown_of = [score_predictions(bench, gold, p, seed=seeds.for_submission(f"row-{i}")).to_dict()
                    for i, p in enumerate(predictions)]  # fmt: skip
        run = published_rows_compare
    weights = bootstrap_weights(gold.size)
    possible = np.full(gold.size, (1 << choices) - 1, dtype=np.int16)
    fits = groups = determined = 0
    for other in (1, 2):  # one Compare call: P0 against P1 and against P2
        shown = run(bench, gold, shown_of[0], shown_of[other])
        for c, label in enumerate(labels):
            qs = probes[label]
            found = consistent(page_text(shown[(name, label)]), weights, codes == c, qs, only_difference)
            truth = (rows[0][qs] == gold.answers[qs]).astype(int) - (rows[other][qs] == gold.answers[qs]).astype(int)
            groups += 1
            fits += bool(found.size and (found == truth).all(axis=1).any())
            if not found.size:
                continue  # nothing fits the public-weights model: nothing learned
            for i, q in enumerate(qs):
                values = set(found[:, i].tolist())
                determined += len(values) == 1
                if values == {1}:
                    possible[q] &= 1 << int(rows[0][q])
                elif values == {-1}:
                    possible[q] &= 1 << int(rows[other][q])
                elif values == {0}:
                    possible[q] &= ~((1 << int(rows[0][q])) | (1 << int(rows[other][q])))
    asked = np.concatenate(list(probes.values()))
    single = possible[asked] & (possible[asked] - 1) == 0
    pinned = asked[single & (possible[asked] > 0)]
    letters = np.log2(possible[pinned]).astype(int)
    ruled = int(sum(choices - bin(int(m)).count("1") for m in possible[asked]))
    decoder = "difference only" if only_difference else "difference, interval, p"
    right = int((letters == gold.answers[pinned]).sum())
    return CompareOutcome(which, asked.size, decoder, determined, int(pinned.size), right, ruled, fits, groups,
                          time.perf_counter() - started)  # fmt: skip


def compare_runs(gold: Gold) -> list[CompareOutcome]:
    """The decoder on 040358b's Compare and on now's, and the difference-only decoder on now's
    (it reads what the two published rows say anyway: the ration accounts for it)."""
    runs = [("040358b", False), ("now", False), ("now", True)]
    return [compare_attack(gold, which, only_difference=only) for which, only in runs]


def compare_table(outcomes: list[CompareOutcome]) -> str:
    lines = [
        "| attack | Compare | decoder reads | rows published | Compare calls | probes | d determined (2 pairs) "
        "| answers decided | right | letters ruled out | decoder's model fits | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        lines.append(
            f"| compare | {o.compare} | {o.decoder} | 3 | 1 | {o.probes} | {o.determined}/{2 * o.probes} | {o.decided} "
            f"| {o.right} | {o.ruled_out} | "
            f"{o.consistent_true}/{o.groups} groups | {o.seconds:.0f} |"
        )
    return "\n".join(lines)


def honest_holds() -> int:
    """Per series of the honest corpus (3 seeds each): files sent, held, shown to their team."""
    from submissions.records import Identity
    from submissions.request import SubmitRequest
    from tests.support import honest
    from tests.support.submissions import board, form, write_gold

    totals: Counter = Counter()
    print("| series | seed | files | held | shown |")
    print("|---|---|---|---|---|")
    for name, seed, series in honest.corpus():
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            lb = board(d / "data", write_gold(d / "gold.jsonl"), max_scored_per_day=50)
            held = shown = 0
            for i, (who, team, model, body) in enumerate(series):
                path = honest.write(d / f"f{i}.jsonl", body)
                answer = lb.submissions.submit(
                    SubmitRequest("scb", path, form(model, team, visibility="private"), Identity(who))
                )
                held += bool(answer.submission_id and lb.moderation.is_held(answer.submission_id))
                shown += answer.result is not None
        totals.update(files=len(series), held=held, shown=shown)
        print(f"| {name} | {seed} | {len(series)} | {held} | {shown} |", flush=True)
    print(f"| **all** | | {totals['files']} | {totals['held']} | {totals['shown']} |")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gold", type=Path, help="an SCB gold file (JSONL or Parquet); every run but --honest")
    p.add_argument("--cap", type=int, default=2000, help="stop an attack after this many scored submissions")
    p.add_argument("--attacks", nargs="*", default=list(ATTACKS), choices=list(ATTACKS))
    p.add_argument("--policies", nargs="*", default=list(POLICIES), choices=list(POLICIES))
    p.add_argument("--check", action="store_true", help="the differential attack under every policy, cap 20")
    p.add_argument("--compare", action="store_true", help="only the Compare decoder, on 040358b's Compare and now")
    p.add_argument("--honest", action="store_true", help="only the false holds on the honest-iteration corpus")
    args = p.parse_args(argv)
    if args.honest:
        return honest_holds()
    if args.gold is None:
        p.error("--gold is needed for the attacks")
    gold = load_gold("scb", args.gold)
    if args.check:
        print(table(check(gold), 20))
        return 0
    compared = compare_table(compare_runs(gold))
    if args.compare:
        print(compared)
        return 0
    outcomes = []
    for attack in args.attacks:
        for policy in args.policies if attack != "partial" else ["ladder"]:
            outcomes.append(run(gold, attack, policy, args.cap))
            print(table(outcomes[-1:], args.cap).splitlines()[-1], flush=True)
    print(f"\n{gold.size:,} questions, cap {args.cap:,} scored submissions, step {LADDER_STEP:g} point(s), "
          f"{PUBLICATIONS_PER_WEEK} publications a week, {SCORED_PER_DAY} scored a day\n")  # fmt: skip
    print(table(outcomes, args.cap))
    print("\n" + compared)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
