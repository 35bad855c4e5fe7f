"""Turns for the CPU work a caller waits for (validate-only, the pre-check of an upload): fair
between accounts and bounded per account.

Validate-only is free and unlimited, so one account's loop used to fill every slot: six loops
took board views from p50 36 to 513 ms, and every other account's check queued behind all of
their requests (attacks.md #10). Here at most ``slots`` checks run at once (the scoring pool's
workers); when a slot frees, the waiting account that was served longest ago goes next (round
robin), so an account waits behind at most one check of each other active account; and an
account holding ``per_identity`` checks, running or waiting, gets no more: its next one is
refused at once (the caller answers "busy, send it again"), so a flood costs a refusal, not a
thread waiting in line.

A check stopped at its job bound cost the only worker its whole bound (60 s): the account pays for
it (:meth:`FairQueue.strike`): its checks are refused for :data:`STRIKE_SECONDS` after, so each
account can hold the worker past a bound once per window, not once per check (the red team's three
accounts, each sending a workbook that ran the whole bound, held an honest check 178 s: red.md N4).
Cheap refusals (size, rows, cells, members: scoring/readers/harness_files.py,
scoring/readers/bundle.py) come first, so an honest file never nears the bound.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from types import TracebackType
from typing import NamedTuple

PER_IDENTITY = 2
"""Checks one account may have running or waiting at once (a browser tab and a script)."""
STRIKE_SECONDS = 600.0
"""How long an account's checks are refused after one of them ran past its job bound (the window
of the upload budget, ui.uploads): an honest file is checked in a few seconds, 20 times under the bound."""


class Checks(NamedTuple):
    """An account's checks: ``held`` running or waiting now, and ``entered`` so far (a count that
    only grows while the account is remembered; the upload door matches its uploads to it)."""

    held: int
    entered: int


class Turn:
    """One admitted check: ``with turn:`` waits for a slot and frees it on leaving."""

    def __init__(self, queue: FairQueue, who: str) -> None:
        self.queue, self.who = queue, who
        self.granted = False

    def __enter__(self) -> Turn:
        self.queue._wait_for(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.queue._leave(self)


class FairQueue:
    """See module doc. Thread-safe; ``enter`` never blocks, ``with turn`` does."""

    def __init__(
        self,
        slots: int = 1,
        per_identity: int = PER_IDENTITY,
        strike_seconds: float = STRIKE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if slots < 1 or per_identity < 1:
            raise ValueError(
                f"a fair queue needs at least one slot and one check per account, got {slots}, {per_identity}"
            )
        self.slots, self.per_identity = slots, per_identity
        self._cond = threading.Condition()
        self._running: Counter[str] = Counter()
        self._waiting: dict[str, deque[Turn]] = {}
        self._served: dict[str, int] = {}  # account -> when it last got a slot (a counter)
        self._entered: Counter[str] = Counter()  # account -> checks admitted to the line so far
        self._clock = itertools.count(1)
        self.strike_seconds, self.time = strike_seconds, clock
        self._struck: dict[str, float] = {}  # account -> until when its checks are refused

    def strike(self, who: str) -> None:
        """``who``'s check ran past its bound: refuse its checks for :attr:`strike_seconds`."""
        with self._cond:
            now = self.time()
            self._struck = {w: t for w, t in self._struck.items() if t > now}  # bounded: expired ones go
            self._struck[who] = now + self.strike_seconds

    def struck_for(self, who: str) -> float:
        """Seconds before ``who`` may check again after a strike (0: now)."""
        with self._cond:
            return max(0.0, self._struck.get(who, 0.0) - self.time())

    def enter(self, who: str) -> Turn | None:
        """A place in line for ``who``, or None when they already hold ``per_identity`` checks."""
        with self._cond:
            if self.held(who) >= self.per_identity:
                return None
            turn = Turn(self, who)
            self._waiting.setdefault(who, deque()).append(turn)
            self._entered[who] += 1
            if len(self._entered) > 4096:  # bounded: a forgotten account counts from 0 again
                self._entered = Counter({who: self._entered[who]})
            return turn

    def held(self, who: str) -> int:
        """Checks of ``who`` running or waiting."""
        return self.checks(who).held

    def checks(self, who: str) -> Checks:
        """``who``'s checks held now and entered so far."""
        with self._cond:
            return Checks(self._running[who] + len(self._waiting.get(who, ())), self._entered[who])

    def _wait_for(self, turn: Turn) -> None:
        with self._cond:
            self._grant()
            while not turn.granted:
                self._cond.wait()

    def _leave(self, turn: Turn) -> None:
        with self._cond:
            if turn.granted:
                self._running[turn.who] -= 1
                if not self._running[turn.who]:
                    del self._running[turn.who]
            else:  # left without waiting (an error before its turn): give its place up
                waiting = self._waiting.get(turn.who)
                if waiting and turn in waiting:
                    waiting.remove(turn)
                    if not waiting:
                        del self._waiting[turn.who]
            self._grant()

    def _grant(self) -> None:
        """Give free slots to the first waiting turn of the account with the fewest running
        checks, served longest ago (under the lock)."""
        granted = False
        while self._waiting and sum(self._running.values()) < self.slots:
            who = min(self._waiting, key=lambda w: (self._running[w], self._served.get(w, 0)))
            turn = self._waiting[who].popleft()
            if not self._waiting[who]:
                del self._waiting[who]
            turn.granted, granted = True, True
            self._running[who] += 1
            self._served[who] = next(self._clock)
        if granted:
            self._cond.notify_all()
        if len(self._served) > 4096:  # forget accounts with nothing in line (bounded memory)
            self._served = {w: t for w, t in self._served.items() if w in self._waiting or w in self._running}
