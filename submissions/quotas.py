"""Daily quotas per submitter and benchmark (UTC days): a bound on probing the hidden gold.

Counted from the stored submission records, so every replica agrees: *attempts* are all
uploads that reached validation (rejected ones too), *scored* are those not rejected.
Maintainers are exempt. Duplicates of an earlier upload cost nothing. The same limits hold for
each account and for each team (all its members' uploads together): five accounts of one team
do not get five times the slots; an upload needs room in both (:func:`tighter`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


@dataclass(frozen=True)
class QuotaPolicy:
    max_scored: int = 5
    max_attempts: int = 20


@dataclass(frozen=True)
class QuotaStatus:
    scored_used: int
    attempts_used: int
    policy: QuotaPolicy
    resets_at: datetime
    exempt: bool = False
    scope: str = ""  # "" for the account, else the team whose quota this is

    @property
    def scored_left(self) -> int:
        return max(0, self.policy.max_scored - self.scored_used)

    @property
    def attempts_left(self) -> int:
        return max(0, self.policy.max_attempts - self.attempts_used)

    @property
    def allows_submission(self) -> bool:
        return self.exempt or (self.scored_left > 0 and self.attempts_left > 0)

    def message(self) -> str:
        if self.exempt:
            return "Maintainer: no daily limit."
        when = self.resets_at.strftime("%Y-%m-%d %H:%M UTC")
        whose = f" for team {self.scope}" if self.scope else ""
        return (
            f"{self.scored_left} of {self.policy.max_scored} scored submissions and "
            f"{self.attempts_left} of {self.policy.max_attempts} attempts left today{whose}; resets {when}."
        )


def day_start(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def tighter(account: QuotaStatus, team: QuotaStatus | None) -> QuotaStatus:
    """The quota that binds first: one that is used up, else the one with fewer scored slots
    (then attempts) left; the account's on a tie."""
    if team is None or account.exempt:
        return account
    if not account.allows_submission or not team.allows_submission:
        return team if not team.allows_submission else account
    left = lambda q: (q.scored_left, q.attempts_left)  # noqa: E731
    return team if left(team) < left(account) else account


def quota_status(
    uploads: list[tuple[datetime, bool]], now: datetime, policy: QuotaPolicy, exempt: bool = False, scope: str = ""
) -> QuotaStatus:
    """``uploads``: (time, was_rejected) of the submitter's uploads on this benchmark."""
    start = day_start(now)
    today = [rejected for when, rejected in uploads if when >= start]
    return QuotaStatus(
        scored_used=sum(1 for rejected in today if not rejected),
        attempts_used=len(today),
        policy=policy,
        resets_at=start + timedelta(days=1),
        exempt=exempt,
        scope=scope,
    )
