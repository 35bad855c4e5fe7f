"""Exponential backoff after wrong admin tokens, per client and for everyone together.

A client gets ``free`` wrong tries; after that each further try must wait ``base * 2**k``
seconds (k = wrong tries beyond the free ones), up to ``cap``. All clients together get
``global_free`` wrong tries before the same backoff applies to everyone, so rotating addresses
does not help a guesser. A right token clears its client's count; counts are forgotten after
``cap`` quiet seconds, and at most ``max_clients`` clients are remembered.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

EVERYONE = "*"


@dataclass
class _Failures:
    count: int
    last: float


class Backoff:
    def __init__(
        self,
        free: int = 3,
        global_free: int = 30,
        base: float = 1.0,
        cap: float = 900.0,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.global_free = global_free
        self.base = base
        self.cap = cap
        self.max_clients = max_clients
        self.clock = clock
        self._failures: OrderedDict[str, _Failures] = OrderedDict()
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> float:
        """How long ``client`` must wait before its token may be checked (0: now)."""
        with self._lock:
            now = self.clock()
            return max(self._wait(client, self.free, now), self._wait(EVERYONE, self.global_free, now))

    def failed(self, client: str) -> int:
        """Count a wrong token; returns the client's wrong tries in a row."""
        with self._lock:
            now = self.clock()
            self._bump(EVERYONE, now)
            return self._bump(client, now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)

    def _wait(self, key: str, free: int, now: float) -> float:
        entry = self._failures.get(key)
        if entry is None or entry.count < free:
            return 0.0
        delay = min(self.base * 2 ** (entry.count - free), self.cap)
        return max(0.0, entry.last + delay - now)

    def _bump(self, key: str, now: float) -> int:
        entry = self._failures.pop(key, None)
        if entry is None or now - entry.last >= self.cap:
            entry = _Failures(0, now)
        entry.count += 1
        entry.last = now
        self._failures[key] = entry
        while len(self._failures) > self.max_clients:
            self._failures.popitem(last=False)
        return entry.count


def client_of(request: object) -> str:
    """The caller's address: the one the nearest proxy added to ``X-Forwarded-For`` (a Space's
    proxy), else the socket's peer. Without a proxy the header is the caller's to invent, which
    is why the global budget exists."""
    headers = getattr(request, "headers", None) or {}
    forwarded = [part.strip() for part in (headers.get("x-forwarded-for") or "").split(",") if part.strip()]
    if forwarded:
        return forwarded[-1]
    client = getattr(request, "client", None)
    return str(getattr(client, "host", None) or "unknown")
