"""The publication ration: how many submissions a team may newly make public per benchmark per week.

Under the Ladder (submissions.feedback) a private submission's figures stay hidden from its team
unless it beats the team's best by the step. Publishing shows them, on the board and so to the
team too. Unlimited publishing would be a full-feedback channel (publish every probe, read its
row), so a team may newly make public at most ``limit`` submissions per benchmark in any rolling
:data:`WINDOW`:

- a scored submission counts the first time it becomes public: submitted as public, or published
  later (a rejected upload reveals nothing and never counts).
  Publishing it again after a withdrawal is free (its figures are out already), and withdrawing
  does not give the slot back;
- a maintainer's submission, a publication made by a maintainer, and a submission of an exempt
  name (``LEADERBOARD_MAINTAINERS``, the demo) do not count;
- a publication over the ration is refused by the facade, which says when the next one is
  allowed. One that got past on a concurrent replica is not granted here: that submission stays
  private until a later publication of it is granted.

A pure function of the stored metas and publication events, so every replica, restart and rescore
agrees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from submissions.catalog import SubmissionState
from submissions.teams import state_key

WINDOW = timedelta(days=7)
PUBLICATIONS_PER_WEEK = 3
"""The default ration (``LEADERBOARD_PUBLICATIONS_PER_WEEK``): a paper's main model and two
ablations a week, against the ~790 fully shown probe files half of the SCB key takes."""


@dataclass(frozen=True)
class Reveal:
    """A submission made public (its figures out): when, and whether it used a slot of the ration."""

    submission_id: str
    at: datetime
    counted: bool


@dataclass(frozen=True)
class Ration:
    """A team's publications on one benchmark as seen at one moment."""

    team: str
    benchmark: str
    limit: int
    counted: tuple[datetime, ...]  # the slots used within the window, oldest first
    exempt: bool = False
    why_free: str = "maintainer"  # why an exempt ration has no limit, as the message says it

    @property
    def allows(self) -> bool:
        return self.exempt or len(self.counted) < self.limit

    @property
    def next_at(self) -> datetime | None:
        """When a slot frees up (None while one is free)."""
        if self.allows:
            return None
        return self.counted[len(self.counted) - self.limit] + WINDOW

    def message(self) -> str:
        if self.allows:
            left = (
                f"no limit ({self.why_free})"
                if self.exempt
                else f"{self.limit - len(self.counted)} of {self.limit} left"
            )
            return f"Publications on {self.benchmark} in the last 7 days for team {self.team}: {left}."
        when = self.next_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        return (
            f"Team {self.team} has already made {len(self.counted)} submissions public on {self.benchmark} in the "
            f"last 7 days (the limit is {self.limit} a week, so that publishing cannot reveal every private "
            f"result; see About, Integrity). The next publication is allowed from {when}. Re-publishing a "
            "submission that was public before is always allowed."
        )


def when(iso: str) -> datetime:
    """A stored ISO 8601 time, read as UTC when it carries no zone."""
    at = datetime.fromisoformat(iso)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _events(states: Iterable[SubmissionState], exempt: frozenset[str]) -> list[tuple[datetime, str, bool]]:
    """(time, submission id, free) of every step that makes a submission public, oldest first."""
    out = []
    for s in states:
        if s.refused:  # an upload never scored has no figures to reveal (gold changes do not refund one)
            continue
        free = s.meta.maintainer or s.meta.submitter in exempt
        if s.meta.visibility == "public":
            out.append((when(s.meta.submitted_at), s.meta.id, free))
        for seq in sorted(s.publications):
            event = s.publications[seq]
            if event.public:
                out.append((when(event.at), s.meta.id, free or event.maintainer or event.by in exempt))
    return sorted(out, key=lambda e: (e[0], e[1]))


def reveals(states: Iterable[SubmissionState], limit: int, exempt: Iterable[str] = ()) -> dict[str, Reveal]:
    """The granted publications of a benchmark's submissions, by submission id (see module doc)."""
    by_team: dict[tuple[str, str], list[SubmissionState]] = {}
    for s in states:
        by_team.setdefault((s.meta.benchmark, state_key(s)), []).append(s)
    out: dict[str, Reveal] = {}
    for mine in by_team.values():
        used: deque[datetime] = deque()
        for at, sid, free in _events(mine, frozenset(exempt)):
            if sid in out:
                continue
            while used and used[0] <= at - WINDOW:
                used.popleft()
            if free or len(used) < limit:
                out[sid] = Reveal(sid, at, not free)
                used.extend([at] if not free else [])
    return out


def ration(
    team_states: Iterable[SubmissionState],
    granted: dict[str, Reveal],
    team: str,
    benchmark: str,
    limit: int,
    now: datetime,
    exempt: bool = False,
    why_free: str = "maintainer",
) -> Ration:
    """The ration of one team (``team_states``: its submissions on ``benchmark``) at ``now``."""
    used = sorted(
        r.at for s in team_states if (r := granted.get(s.meta.id)) is not None and r.counted and now - WINDOW < r.at
    )
    return Ration(team, benchmark, limit, tuple(used), exempt, why_free)
