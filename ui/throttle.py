"""Exponential backoff after wrong admin tokens, per client only.

A client gets ``free`` wrong tries; after that each further try must wait ``base * 2**k``
seconds (k = wrong tries beyond the free ones), up to ``cap``. A right token clears its
client's count; counts are forgotten after ``cap`` quiet seconds, and at most ``max_clients``
clients are remembered.

There is no budget shared by everyone: one (attacks.md #9: 34 wrong tokens from 34 addresses)
locked the maintainers out. What stops a guesser rotating addresses instead is who the client
is (:func:`client_of`): the address a Space's proxy appends, else the socket's peer, never a
header the caller writes itself; and a maintainer signed in with their account never meets
the backoff.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Failures:
    count: int
    last: float


class Backoff:
    def __init__(
        self,
        free: int = 3,
        base: float = 1.0,
        cap: float = 900.0,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.max_clients = max_clients
        self.clock = clock
        self._failures: OrderedDict[str, _Failures] = OrderedDict()
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> float:
        """How long ``client`` must wait before its token may be checked (0: now)."""
        with self._lock:
            entry = self._failures.get(client)
            if entry is None or entry.count < self.free:
                return 0.0
            delay = min(self.base * 2 ** (entry.count - self.free), self.cap)
            return max(0.0, entry.last + delay - self.clock())

    def failed(self, client: str) -> int:
        """Count a wrong token; returns the client's wrong tries in a row."""
        with self._lock:
            now = self.clock()
            entry = self._failures.pop(client, None)
            if entry is None or now - entry.last >= self.cap:
                entry = _Failures(0, now)
            entry.count += 1
            entry.last = now
            self._failures[client] = entry
            while len(self._failures) > self.max_clients:
                self._failures.popitem(last=False)
            return entry.count

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


def client_of(request: object, behind_proxy: bool = False) -> str:
    """The caller's address. ``behind_proxy`` (on a Space): the one the nearest proxy appended to
    ``X-Forwarded-For`` (its last entry; the earlier ones are the caller's to invent). Otherwise
    the socket's peer: without a proxy in front, the whole header is the caller's invention."""
    if behind_proxy:
        headers = getattr(request, "headers", None) or {}
        getlist = getattr(headers, "getlist", None)  # every copy: a caller's own line may come first
        lines = getlist("x-forwarded-for") if getlist else [headers.get("x-forwarded-for") or ""]
        forwarded = [part.strip() for line in lines for part in line.split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    client = getattr(request, "client", None)
    return str(getattr(client, "host", None) or "unknown")


def visitor_of(profile: object | None, request: object | None, behind_proxy: bool = False) -> str:
    """Who a per-visitor bound counts (Compare's turns): the signed-in account, else the
    caller's address as :func:`client_of` finds it. No account is needed to compare, so an
    address stands for a visitor; the prefixes keep an account and an address apart."""
    username = getattr(profile, "username", None)
    return f"account:{username}" if username else f"address:{client_of(request, behind_proxy)}"
