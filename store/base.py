"""The store contract: three file trees laid out like Hugging Face dataset repos.

- ``gold``        (private): gold versions, ``{benchmark}/{version}.jsonl`` + ``{benchmark}/current.json``
- ``submissions`` (private): immutable uploads and everything derived from them
- ``results``     (public):  only public aggregates (Parquet/CSV per benchmark + a dataset card)

Both backends (a local folder, the Hub) implement the same contract, tested by the same
contract tests. Paths are POSIX, relative, and checked by :func:`check_path` so that no
user-supplied name can escape its tree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

REPOS: tuple[str, ...] = ("gold", "submissions", "results")

_SAFE_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=-]{0,127}$")


class StoreError(Exception):
    """Base class of storage failures (never a submitter's fault)."""


class NotFound(StoreError):
    """The path does not exist in that repo."""


class AlreadyExists(StoreError):
    """An immutable path already holds different content."""


class Unavailable(StoreError):
    """The remote cannot take a durable write now: nothing of it was stored; try again later."""


class RepoNotPrivate(StoreError):
    """A repo that must be private (gold, submissions) is public on the Hub: nothing is written to it."""


@dataclass(frozen=True)
class StoreHealth:
    """What maintainers need to know of a store (``python -m leaderboard status``, Maintainers tab)."""

    where: str  # describe(): backend, repos, working copy
    ready: bool  # a complete sync ran in this process: writes and quota decisions may be made
    consistent: bool  # the last sync was complete: publish and resume may rely on the copy
    last_sync: str | None  # ISO time of the last complete sync (None: never, in this working copy)
    pending: int  # derived writes waiting to be pushed
    parked: tuple[str, ...]  # writes the remote refused for good, with the reason (dead letters)
    last_error: str | None
    problems: tuple[str, ...]  # start-up checks that failed (token, missing or public repos)

    @property
    def ok(self) -> bool:
        return self.ready and self.consistent and not self.parked and not self.problems


def check_repo(repo: str) -> str:
    if repo not in REPOS:
        raise ValueError(f"unknown repo {repo!r}; known: {', '.join(REPOS)}")
    return repo


def check_path(path: str) -> str:
    """Return ``path`` if every part is a safe file name, else raise ValueError.

    >>> check_path("scb/2026-11-29/abc.json")
    'scb/2026-11-29/abc.json'
    >>> check_path("../etc/passwd")
    Traceback (most recent call last):
    ...
    ValueError: unsafe path '../etc/passwd'
    """
    parts = path.split("/")
    if not path or any(not _SAFE_PART.match(p) or p in {".", ".."} for p in parts):
        raise ValueError(f"unsafe path {path!r}")
    return path


class Store(Protocol):
    """What submissions/ and leaderboard/ need from storage."""

    def read(self, repo: str, path: str) -> bytes:
        """The file's bytes; raises NotFound."""

    def exists(self, repo: str, path: str) -> bool: ...

    def list(self, repo: str, prefix: str = "") -> list[str]:
        """Sorted paths of all files at or below ``prefix`` (a folder or '')."""

    ready: bool
    """True once the store holds a complete copy (always for a local store): until then a
    quota, duplicate, publish or resume decision would rest on partial data."""
    consistent: bool
    """True while the last sync was complete (publish and resume wait otherwise)."""

    def put(
        self, repo: str, files: Mapping[str, bytes], message: str, *, overwrite: bool = False, durable: bool = False
    ) -> None:
        """Write all ``files``, as one commit where the backend has commits.

        With ``overwrite=False`` a path that already holds the same bytes is a no-op (so a
        retried write is idempotent) and one that holds other bytes raises AlreadyExists
        before anything is written. Each file appears whole or not at all (atomic rename).

        ``durable=True``: return only once the write survives losing this machine's disk (on
        the Hub: committed); if that cannot be done in bounded time raise Unavailable and keep
        nothing of it. ``durable=False`` (derived, rebuildable files): the remote may receive
        it later, batched with other writes.
        """

    def sync(self) -> None:
        """Bring in what other writers (another replica, the CLI) have stored since."""

    def pending(self) -> int:
        """How many local writes still wait to reach the remote (0 for a local store)."""

    def push_pending(self) -> int:
        """Try to push waiting writes; return how many are still waiting."""

    def describe(self) -> str:
        """One line for the Maintainers tab: where the data lives."""

    def health(self) -> StoreHealth: ...
