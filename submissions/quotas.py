"""Daily quotas per submitter and benchmark (UTC days): a bound on probing the hidden gold.

Counted from the stored submission records, so every replica agrees: *attempts* are all
uploads that reached validation (rejected ones too), *scored* are those not rejected.
Maintainers are exempt. Duplicates of an earlier upload cost nothing.
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
        return (
            f"{self.scored_left} of {self.policy.max_scored} scored submissions and "
            f"{self.attempts_left} of {self.policy.max_attempts} attempts left today; resets {when}."
        )


def day_start(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def quota_status(
    uploads: list[tuple[datetime, bool]], now: datetime, policy: QuotaPolicy, exempt: bool = False
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
    )
