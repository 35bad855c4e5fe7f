"""Exponential backoff after wrong admin tokens, per client only.

A client gets ``free`` wrong tries; after that each further try must wait ``base * 2**k``
seconds (k = wrong tries beyond the free ones), up to ``cap``. A right token clears its
client's count; counts are forgotten after ``cap`` quiet seconds, and at most ``max_clients``
clients are remembered.

There is no budget shared by everyone: one (attacks.md #9: 34 wrong tokens from 34 addresses)
locked the maintainers out. What stops a guesser rotating addresses instead is who the client
is (:func:`client_of`): the socket's peer, or, behind a configured proxy
(LEADERBOARD_TRUSTED_PROXIES), the address that proxy appended, never a header the caller writes
itself; and a maintainer signed in with their account never meets the backoff.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache


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


class Proxies:
    """The proxies whose ``X-Forwarded-For`` entries are believed (LEADERBOARD_TRUSTED_PROXIES):
    addresses and CIDR ranges. Empty: none, the socket's peer is the client."""

    def __init__(self, networks: tuple[str, ...] = ()) -> None:
        self.networks = tuple(ipaddress.ip_network(n, strict=False) for n in networks)

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.strip())
        except ValueError:
            return False
        return any(ip.version == n.version and ip in n for n in self.networks)


NO_PROXIES = Proxies()


@lru_cache(maxsize=8)
def trusted(networks: tuple[str, ...]) -> Proxies:
    """The :class:`Proxies` of a setting (``UiSettings.trusted_proxies``), parsed once."""
    return Proxies(networks)


def client_of(request: object, proxies: Proxies = NO_PROXIES) -> str:
    """The caller's address: the socket's peer, unless that peer is a trusted proxy; then the
    nearest ``X-Forwarded-For`` entry that is not a trusted proxy (read from the right: each
    proxy appends the address it saw, everything further left is the caller's to invent)."""
    client = getattr(request, "client", None)
    peer = str(getattr(client, "host", None) or "unknown")
    if not proxies.trusts(peer):
        return peer
    headers = getattr(request, "headers", None) or {}
    getlist = getattr(headers, "getlist", None)  # every copy: a caller's own line may come first
    lines = getlist("x-forwarded-for") if getlist else [headers.get("x-forwarded-for") or ""]
    hops = [part.strip() for line in lines for part in line.split(",") if part.strip()]
    for hop in reversed(hops):
        if not proxies.trusts(hop):
            return hop
    return hops[0] if hops else peer
