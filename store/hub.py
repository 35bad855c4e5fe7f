"""Hub dataset repos as a store, with a local working copy so the app outlives Hub outages.

- Reads are served from a :class:`LocalStore` under ``cache_root`` (never from the network).
- ``put`` writes the cache first (durable), records the commit in an outbox (one JSON file per
  pending commit under ``cache_root/.outbox``), then pushes the outbox in order. A push commits
  with ``parent_commit=<head>``, so a concurrent writer makes it fail (412) instead of being
  overwritten; it then refetches the head and retries. 5xx, timeouts and network errors are
  retried with a short bounded backoff; if the Hub still fails, the entry waits for
  ``push_pending()``. An entry is removed only after its commit landed, and re-pushing an
  already landed entry is a no-op (the client skips files whose remote oid is unchanged).
- ``sync`` pulls files changed remotely (oid differs from the manifest of oids last seen) into
  the cache, never clobbering paths with writes still pending.

Locks (threads: ``threading.Lock``; processes sharing ``cache_root``: ``filelock``) keep local
write order and outbox order the same, and let one pusher at a time walk the outbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import filelock
import httpx2
from huggingface_hub import CommitOperationAdd, HfApi, RepoFile
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.utils import set_client_factory
from huggingface_hub.utils._http import default_client_factory
from huggingface_hub.utils.sha import git_hash

from .base import REPOS, AlreadyExists, check_path, check_repo
from .local import TMP_PREFIX, LocalStore, atomic_write

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard one push tries before leaving its write in the outbox."""

    attempts: int = 4  # tries on 5xx / timeout / network errors
    base_delay: float = 0.5  # first backoff, doubled each time up to max_delay
    max_delay: float = 4.0
    conflicts: int = 50  # re-tries after 409/412 (another writer moved the head)
    timeout: float = 30.0  # seconds per HTTP operation (connect, read, write)

    @classmethod
    def fast(cls, timeout: float = 1.0) -> RetryPolicy:
        """Tiny delays for tests."""
        return cls(attempts=3, base_delay=0.01, max_delay=0.05, timeout=timeout)


# -- per-call HTTP timeouts ---------------------------------------------------------------------
# huggingface_hub's shared client has no timeout, so a hanging Hub would block a put forever.
# A request hook applies our timeout only to requests made inside HubStore calls.
_TIMEOUT: ContextVar[float | None] = ContextVar("hubstore_timeout", default=None)
_hook_lock = threading.Lock()
_hook_installed = False


def _apply_timeout(request: httpx2.Request) -> None:
    timeout = _TIMEOUT.get()
    if timeout is not None:
        request.extensions["timeout"] = httpx2.Timeout(timeout).as_dict()


def _client_factory() -> httpx2.Client:
    client = default_client_factory()
    client.event_hooks["request"].append(_apply_timeout)
    return client


def _install_timeout_hook() -> None:
    global _hook_installed
    with _hook_lock:
        if not _hook_installed:
            set_client_factory(_client_factory)
            _hook_installed = True


# -- error classes -----------------------------------------------------------------------------
def _status(err: BaseException) -> int | None:
    """The HTTP status behind ``err`` (looking through wrapped causes), if any."""
    seen: BaseException | None = err
    while seen is not None:
        if isinstance(seen, HfHubHTTPError) and seen.response is not None:
            return seen.response.status_code
        seen = seen.__cause__ or seen.__context__
    return None


def is_conflict(err: BaseException) -> bool:
    return _status(err) in (409, 412)


def is_transient(err: BaseException) -> bool:
    """5xx, 408, 429, timeouts and network errors: worth retrying later."""
    status = _status(err)
    return status is None or status >= 500 or status in (408, 429)


def remote_oid(file: RepoFile) -> str:
    return file.lfs.sha256 if file.lfs else file.blob_id


def same_content(file: RepoFile, data: bytes) -> bool:
    """Compare local bytes to a remote file by hash (sha256 for LFS, git sha1 otherwise)."""
    if file.lfs:
        return hashlib.sha256(data).hexdigest() == file.lfs.sha256
    return git_hash(data) == file.blob_id


class _Lock:
    """Mutual exclusion across threads and across processes sharing a cache folder."""

    def __init__(self, path: Path) -> None:
        self._thread = threading.RLock()
        self._file = filelock.FileLock(path, thread_local=False)

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._thread, self._file:
            yield


# -- outbox ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One pending commit; the bytes are read from the cache at push time."""

    file: Path
    repo: str
    paths: tuple[str, ...]
    message: str
    overwrite: bool


class Outbox:
    """Pending commits, one JSON file each, pushed in name (sequence) order."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "rejected").mkdir(parents=True, exist_ok=True)

    def add(self, repo: str, paths: list[str], message: str, overwrite: bool) -> None:
        """Append an entry (callers hold the write lock, so sequence numbers are ordered)."""
        seq = max((int(e.file.name.split("-")[0]) for e in self.entries()), default=0) + 1
        body = {"repo": repo, "paths": paths, "message": message, "overwrite": overwrite}
        name = f"{seq:012d}-{os.getpid()}-{time.time_ns()}.json"
        atomic_write(self.folder / name, json.dumps(body).encode(), overwrite=False)

    def entries(self) -> list[Entry]:
        out = []
        for file in sorted(self.folder.glob("[0-9]*.json")):
            with contextlib.suppress(FileNotFoundError):  # pushed meanwhile by another process
                body = json.loads(file.read_bytes())
                paths = tuple(body["paths"])
                out.append(Entry(file, body["repo"], paths, body["message"], body["overwrite"]))
        return out

    def paths(self, repo: str) -> set[str]:
        return {p for e in self.entries() if e.repo == repo for p in e.paths}

    def done(self, entry: Entry) -> None:
        entry.file.unlink(missing_ok=True)

    def reject(self, entry: Entry, paths: list[str]) -> None:
        """Park create-only writes that lost to different remote bytes (for maintainers)."""
        body = {"repo": entry.repo, "paths": paths, "message": entry.message, "rejected": True}
        atomic_write(self.folder / "rejected" / entry.file.name, json.dumps(body).encode(), overwrite=True)


class Manifest:
    """Remote oid last seen per path, so ``sync`` downloads only what changed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def load(self, repo: str) -> dict[str, str]:
        try:
            return json.loads((self.folder / f"{repo}.json").read_bytes())
        except FileNotFoundError:
            return {}

    def save(self, repo: str, oids: dict[str, str]) -> None:
        data = json.dumps(oids, sort_keys=True).encode()
        atomic_write(self.folder / f"{repo}.json", data, overwrite=True)


# -- the store ---------------------------------------------------------------------------------
class HubStore:
    """The store contract over three Hub dataset repos, served from a local working copy."""

    def __init__(
        self,
        cache_root: Path,
        repo_ids: dict[str, str],
        token: str | None,
        endpoint: str | None = None,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.cache_root = Path(cache_root)
        self.repo_ids = {check_repo(r): repo_ids[r] for r in REPOS}
        self.retry = retry or RetryPolicy()
        self.api = HfApi(endpoint=endpoint, token=token)
        self.local = LocalStore(self.cache_root)
        self.outbox = Outbox(self.cache_root / ".outbox")
        self.manifest = Manifest(self.cache_root / ".manifest")
        locks = self.cache_root / ".locks"
        locks.mkdir(exist_ok=True)
        self._write_lock = _Lock(locks / "write.lock")  # local write + outbox order
        self._push_lock = _Lock(locks / "push.lock")  # one pusher walks the outbox
        self._sync_lock = _Lock(locks / "sync.lock")  # manifest updates
        self._created: set[str] = set()
        self.last_error: str | None = None
        _install_timeout_hook()

    # -- reads: always the cache -----------------------------------------------------------
    def read(self, repo: str, path: str) -> bytes:
        return self.local.read(repo, path)

    def exists(self, repo: str, path: str) -> bool:
        return self.local.exists(repo, path)

    def list(self, repo: str, prefix: str = "") -> list[str]:
        return self.local.list(repo, prefix)

    # -- writes ----------------------------------------------------------------------------
    def put(self, repo: str, files: Mapping[str, bytes], message: str, *, overwrite: bool = False) -> None:
        """Write to the cache and the outbox, then push; a Hub failure leaves it pending."""
        check_repo(repo)
        files = {check_path(p): bytes(d) for p, d in files.items()}
        on_hub: set[str] = set()
        if not overwrite:
            self.local.check_create_only(repo, files)
            on_hub = self._check_remote(repo, files)
        with self._write_lock():
            changed = self.local.write(repo, files, overwrite=overwrite)
            to_push = [p for p in changed if p not in on_hub]
            if to_push:
                self.outbox.add(repo, to_push, message, overwrite)
        if to_push:
            self.push_pending()

    def _check_remote(self, repo: str, files: Mapping[str, bytes]) -> set[str]:
        """Raise AlreadyExists if the Hub holds other bytes; return paths it holds as is.

        Best effort (one try, no backoff): offline, the push re-checks before committing.
        """
        new = [p for p in files if not self.local.exists(repo, p)]
        if not new:
            return set()
        try:
            remote = self._call(lambda: self._paths_info(repo, new))
        except Exception as err:  # noqa: BLE001 - the Hub being away must not block writes
            log.info("create-only check of %s skipped: %r", repo, err)
            return set()
        clash = [f.path for f in remote if not same_content(f, files[f.path])]
        if clash:
            raise AlreadyExists(f"{repo}: {', '.join(clash)} already hold other content on the Hub")
        return {f.path for f in remote}

    def _paths_info(self, repo: str, paths: list[str]) -> list[RepoFile]:
        repo_id = self.repo_ids[repo]
        infos = self.api.get_paths_info(repo_id, paths, repo_type="dataset")
        return [f for f in infos if isinstance(f, RepoFile)]

    # -- pushing ---------------------------------------------------------------------------
    def pending(self) -> int:
        return len(self.outbox.entries())

    def push_pending(self) -> int:
        """Push outbox entries in order, stopping at the first that still fails."""
        with self._push_lock():
            for entry in self.outbox.entries():
                if not entry.file.exists():
                    continue
                try:
                    self._retrying(lambda e=entry: self._push(e))
                except Exception as err:  # noqa: BLE001 - kept for later, reported in describe()
                    self.last_error = f"{type(err).__name__}: {err}"
                    log.warning("push of %s deferred: %s", entry.file.name, self.last_error)
                    break
                self.outbox.done(entry)
                self._forget(entry.repo, entry.paths)
        return self.pending()

    def _push(self, entry: Entry) -> None:
        """One commit of ``entry`` on top of the current head (412 if the head moves)."""
        repo_id = self.repo_ids[entry.repo]
        self._ensure_repo(entry.repo)
        head = self.api.repo_info(repo_id, repo_type="dataset", timeout=self.retry.timeout).sha
        files = {p: self.local.read(entry.repo, p) for p in entry.paths}
        if not entry.overwrite:
            files = self._drop_rejected(entry, files)
        if not files:
            return
        ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()]
        self.api.create_commit(
            repo_id,
            ops,
            commit_message=entry.message,
            repo_type="dataset",
            parent_commit=head,
        )

    def _drop_rejected(self, entry: Entry, files: dict[str, bytes]) -> dict[str, bytes]:
        """Create-only writes must not replace different bytes another writer pushed first."""
        remote = self._paths_info(entry.repo, list(files))
        lost = [f.path for f in remote if not same_content(f, files[f.path])]
        if lost:
            log.error("%s: %s exist on the Hub with other bytes; kept theirs", entry.repo, lost)
            self.outbox.reject(entry, lost)
            self._forget(entry.repo, lost)  # so the next sync restores the Hub's version
        return {p: d for p, d in files.items() if p not in lost}

    def _ensure_repo(self, repo: str) -> None:
        if repo not in self._created:
            private = repo != "results"
            self.api.create_repo(self.repo_ids[repo], repo_type="dataset", private=private, exist_ok=True)
            self._created.add(repo)

    def _retrying(self, fn: Callable[[], T]) -> T:
        """Run ``fn``: on 409/412 again at once, on transient errors after a backoff."""
        failures = conflicts = 0
        while True:
            try:
                return self._call(fn)
            except Exception as err:
                if is_conflict(err) and conflicts < self.retry.conflicts:
                    conflicts += 1
                    spread = min(self.retry.max_delay, self.retry.base_delay * conflicts) / 2
                    time.sleep(random.uniform(0, spread))  # de-synchronise racing writers
                    continue
                failures += 1
                if not is_transient(err) or failures >= self.retry.attempts:
                    raise
                delay = self.retry.base_delay * 2 ** (failures - 1)
                time.sleep(min(self.retry.max_delay, delay))

    def _call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` with our HTTP timeout applied to its requests."""
        token = _TIMEOUT.set(self.retry.timeout)
        try:
            return fn()
        finally:
            _TIMEOUT.reset(token)

    # -- pulling ---------------------------------------------------------------------------
    def sync(self) -> None:
        """Push what waits, then pull what others committed; Hub errors leave the cache as is."""
        self.push_pending()
        for repo in REPOS:
            try:
                self._retrying(lambda r=repo: self._pull(r))
            except Exception as err:  # noqa: BLE001 - serve the cache while the Hub is away
                self.last_error = f"{type(err).__name__}: {err}"
                log.warning("sync of %s skipped: %s", repo, self.last_error)

    def _pull(self, repo: str) -> None:
        repo_id = self.repo_ids[repo]
        self._ensure_repo(repo)
        head = self.api.repo_info(repo_id, repo_type="dataset", timeout=self.retry.timeout).sha
        tree = self.api.list_repo_tree(repo_id, repo_type="dataset", recursive=True, revision=head)
        remote = {f.path: f for f in tree if isinstance(f, RepoFile) and _storable(f.path)}
        with self._sync_lock():
            seen = self.manifest.load(repo)
            for path, file in sorted(remote.items()):
                if seen.get(path) != remote_oid(file) and self._pull_file(repo, file, head):
                    seen[path] = remote_oid(file)
            self.manifest.save(repo, seen)

    def _pull_file(self, repo: str, file: RepoFile, head: str) -> bool:
        """Bring one remote file into the cache unless a local write of it is pending."""
        if file.path in self.outbox.paths(repo):
            return False
        with contextlib.suppress(Exception):
            if same_content(file, self.local.read(repo, file.path)):
                return True
        data = self._download(repo, file.path, head)
        with self._write_lock():
            if file.path in self.outbox.paths(repo):
                return False
            atomic_write(self.local.file(repo, file.path), data, overwrite=True)
        return True

    def _download(self, repo: str, path: str, revision: str) -> bytes:
        tmp_root = self.cache_root / ".tmp"
        tmp_root.mkdir(exist_ok=True)
        with tempfile.TemporaryDirectory(dir=tmp_root, prefix=TMP_PREFIX) as tmp:
            local = self.api.hf_hub_download(
                self.repo_ids[repo], path, repo_type="dataset", revision=revision, local_dir=tmp
            )
            return Path(local).read_bytes()

    def _forget(self, repo: str, paths: tuple[str, ...] | list[str]) -> None:
        """Drop manifest oids so the next sync re-checks these paths against the Hub."""
        with self._sync_lock():
            seen = self.manifest.load(repo)
            if any(p in seen for p in paths):
                self.manifest.save(repo, {p: o for p, o in seen.items() if p not in paths})

    def describe(self) -> str:
        repos = ", ".join(f"{r}={self.repo_ids[r]}" for r in REPOS)
        state = f"{self.pending()} commit(s) pending" + (
            f", last error: {self.last_error}" if self.pending() and self.last_error else ""
        )
        return f"Hub {self.api.endpoint} datasets {repos}; cache {self.cache_root}; {state}"


def _storable(path: str) -> bool:
    """Hub files the contract can name (skips e.g. ``.gitattributes``)."""
    try:
        check_path(path)
    except ValueError:
        return False
    return True
