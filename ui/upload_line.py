"""Per account, the uploads the door lets in: no more than its bound of checks can take.

Every check (validate-only, the pre-check of a submission) comes from an upload through the door,
and an account holds at most :data:`submissions.fair_queue.PER_IDENTITY` checks; a third is told
"busy, send it again" after its file has arrived, which is what six validate-only loops made of
the web process (164 files of 27 MB read for nothing in 20 s). So the door counts, per account,
its uploads arriving now, its arrived uploads whose check has not joined the queue yet (the
client asks for the check after the upload's answer; an arrived upload is matched to the first
check entered after it, or stops counting after ``landing`` s, as an upload nobody submits), and
its checks running or waiting; while they fill the bound, the next upload waits its turn, first
come first in.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from submissions.fair_queue import PER_IDENTITY, Checks

REMEMBERED = 1024
"""Accounts the line holds before it forgets those with nothing counting any more (an account's
landed upload is otherwise dropped only when that account comes again)."""


def no_checks(who: str) -> Checks:
    return Checks(0, 0)


@dataclass
class _Account:
    arriving: int = 0
    landed: deque[tuple[float, int]] = field(default_factory=deque)  # (when, checks entered by then)
    matched: int = 0  # the latest check (by its count) matched to an arrived upload
    waiting: deque[int] = field(default_factory=deque)  # tickets, first come first


class UploadLine:
    """See module doc. For one event loop (the door is ASGI middleware): no lock."""

    def __init__(
        self,
        checks: Callable[[str], Checks] = no_checks,
        landing: float = 2.0,
        bound: int = PER_IDENTITY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.checks, self.landing, self.bound, self.clock = checks, landing, bound, clock
        self._accounts: dict[str, _Account] = {}
        self._tickets = itertools.count()
        self._sweep_at = REMEMBERED

    def join(self, who: str) -> int:
        """A ticket in ``who``'s line; :meth:`leave` it whether or not it got in."""
        ticket = next(self._tickets)
        self._account(who).waiting.append(ticket)
        return ticket

    def may_enter(self, who: str, ticket: int) -> bool:
        """Whether the upload holding ``ticket`` is first in line and the account has room; then it
        is counted as arriving (:meth:`arrived` when it has)."""
        account = self._account(who)
        if account.waiting[0] != ticket or self.in_hand(who) >= self.bound:
            return False
        account.waiting.popleft()
        account.arriving += 1
        return True

    def enter(self, who: str, ticket: int) -> None:
        """Let the upload holding ``ticket`` in whether or not there is room (it waited long enough)."""
        account = self._account(who)
        if ticket in account.waiting:
            account.waiting.remove(ticket)
        account.arriving += 1

    def leave(self, who: str, ticket: int) -> None:
        account = self._account(who)
        if ticket in account.waiting:
            account.waiting.remove(ticket)
        self._forget_if_idle(who)

    def arrived(self, who: str, stored: bool) -> None:
        """An upload let in has been answered; ``stored``: its file is there to be checked."""
        account = self._account(who)
        account.arriving -= 1
        if stored:
            account.landed.append((self.clock(), self.checks(who).entered))
        self._forget_if_idle(who)

    def in_hand(self, who: str) -> int:
        """Uploads arriving, arrived uploads no check has matched yet, and checks held."""
        account = self._account(who)
        checks = self.checks(who)
        return account.arriving + self._unmatched(account, checks.entered) + checks.held

    def _unmatched(self, account: _Account, entered: int) -> int:
        """Arrived uploads younger than ``landing`` s that no check entered after them matches
        (each takes the first check after it not taken by an earlier one); the rest are dropped."""
        now, unmatched = self.clock(), deque()
        for when, before in account.landed:
            check = max(account.matched, before) + 1
            if check <= entered:
                account.matched = check
            elif now - when < self.landing:
                unmatched.append((when, before))
        account.landed = unmatched
        return len(unmatched)

    def _account(self, who: str) -> _Account:
        if who not in self._accounts and len(self._accounts) >= self._sweep_at:
            self._forget_the_idle()
        return self._accounts.setdefault(who, _Account())

    def _forget_the_idle(self) -> None:
        """Drop accounts with nothing arriving or waiting and no upload young enough to count;
        the next sweep waits until the line has doubled (amortized)."""
        now = self.clock()
        for who, account in list(self._accounts.items()):
            young = any(now - when < self.landing for when, _ in account.landed)
            if not account.arriving and not account.waiting and not young:
                del self._accounts[who]
        self._sweep_at = max(REMEMBERED, 2 * len(self._accounts))

    def _forget_if_idle(self, who: str) -> None:
        account = self._accounts.get(who)
        if account and not account.arriving and not account.waiting and not account.landed:
            del self._accounts[who]
