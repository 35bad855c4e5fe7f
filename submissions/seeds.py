"""Bootstrap seeds per submission, from a server secret: intervals maintainers can reproduce and
submitters cannot.

With the fixed public seed, a submitter could rebuild the 1,000 resampling weights and read from
the interval endpoints *which* of its probe answers were right (docs/integrity.md, finding 3 of
the red-team review). The leaderboard therefore seeds each submission's bootstrap with
HMAC-SHA256(secret, submission id) cut to 64 bits: the same submission always gets the same
seed (rescoring and repair reproduce its figures), and without the secret the seed is unknown.

The secret is ``LEADERBOARD_BOOTSTRAP_SECRET`` when set; otherwise the first start generates one
and stores it create-only in the private gold repo, so replicas and restarts share it.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from scoring.metrics import BOOTSTRAP_SEED
from store import layout
from store.base import AlreadyExists, NotFound, Store
from store.records import BootstrapSecret

log = logging.getLogger(__name__)
SECRET_BYTES = 32


@dataclass(frozen=True, repr=False)
class BootstrapSeeds:
    """Seeds the bootstrap of each submission; ``key`` None gives the fixed public seed (CLI, tests).
    ``repr`` is hidden so that the key never reaches a log line or a traceback."""

    key: bytes | None = None

    def for_submission(self, submission_id: str) -> int:
        if self.key is None:
            return BOOTSTRAP_SEED
        digest = hmac.new(self.key, submission_id.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big")

    def __repr__(self) -> str:
        return f"BootstrapSeeds({'secret' if self.key is not None else 'fixed'})"

    def resolved(self) -> BootstrapSeeds:
        return self


FIXED_SEEDS = BootstrapSeeds()


class Seeds(Protocol):
    """What the lifecycle needs: a seed per submission, and a plain (picklable) form for workers."""

    def for_submission(self, submission_id: str) -> int: ...

    def resolved(self) -> BootstrapSeeds: ...


class StoredSeeds:
    """The leaderboard's seeds: the secret is read (or created) on first use, not at start, so a
    replica does not sync the store before its first refresh."""

    def __init__(self, store: Store, configured: str | None, clock: Callable[[], str]) -> None:
        self._store, self._configured, self._clock = store, configured, clock
        self._seeds: BootstrapSeeds | None = None
        self._lock = threading.Lock()

    def resolved(self) -> BootstrapSeeds:
        with self._lock:
            if self._seeds is None:
                self._seeds = load_or_create(self._store, self._configured, self._clock())
            return self._seeds

    def for_submission(self, submission_id: str) -> int:
        return self.resolved().for_submission(submission_id)

    def __repr__(self) -> str:
        return "StoredSeeds()"


def load_or_create(store: Store, configured: str | None, now: str = "") -> BootstrapSeeds:
    """The configured secret, else the stored one, else a new one stored create-only (a replica
    that loses the race reads the winner's)."""
    if configured:
        return BootstrapSeeds(configured.encode())
    path = layout.bootstrap_secret()
    try:
        return BootstrapSeeds(bytes.fromhex(BootstrapSecret.from_bytes(store.read("gold", path), path).secret))
    except NotFound:
        pass
    body = BootstrapSecret(secrets.token_hex(SECRET_BYTES), now).to_bytes()
    try:
        store.put("gold", {path: body}, "Add the bootstrap seed secret")
        log.info("generated a bootstrap seed secret in the gold repo")
    except AlreadyExists:  # another replica stored one first: bring it in and use it
        store.sync()
        body = store.read("gold", path)
    return BootstrapSeeds(bytes.fromhex(BootstrapSecret.from_bytes(body, path).secret))
