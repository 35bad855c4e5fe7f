"""Hub dataset repos as a store, with a local working copy so the app outlives Hub outages.

- Reads are served from a :class:`LocalStore` under ``cache_root`` (never from the network).
- ``put(..., durable=True)`` (inputs: uploads and their records, gold, moderation) returns only
  once its commit landed on the Hub; writes arriving together share one commit
  (:mod:`store.group_commit`). If the Hub cannot take it within the deadline the caller gets
  Unavailable and nothing of it is kept, not even in the cache: a Space's disk is wiped on
  restart, so only the Hub may hold an acknowledged write.
- ``put(...)`` (derived files, rebuildable from the inputs) writes the cache and an outbox entry
  (one JSON file per write under ``cache_root/.outbox``) and returns; ``push_pending()`` (a
  background job) pushes all entries of a repo in one commit. A push commits with
  ``parent_commit=<head>``, so a concurrent writer makes it fail (412) instead of being
  overwritten; it then refetches the head and retries. 5xx, timeouts and network errors are
  retried with a short bounded backoff; if the Hub still fails, the entries wait. An entry is
  removed only after its commit landed, and re-pushing a landed entry is a no-op (the client
  skips files whose remote oid is unchanged). An entry the Hub refuses for good (a 4xx other
  than auth) is parked with its error (``.outbox/parked``) so it does not block the others.
- Time is bounded: every request has a timeout and every push or pull a deadline, retries and
  waits included (``RetryPolicy``). A 429's ``Retry-After`` is honoured when it fits the
  deadline; a longer one (the Hub's hourly commit quota) leaves the write pending and holds
  further pushes until then instead of spending more commits. huggingface_hub's own retries
  (which sleep out any ``Retry-After``, an hour for the commit quota) never run under HubStore:
  its requests fail fast to this module's single retry loop.
- Uploads go through the Hub's LFS API, never Xet (see ``_install_client_settings``), and
  gold and submissions are pushed only to repos the Hub reports as private.
- ``sync`` pulls the three repos in parallel: a repo whose head is the one last pulled is
  skipped without listing; otherwise files changed remotely (oid differs from the manifest of
  oids last seen) are downloaded in parallel and put in place together, never clobbering paths
  with writes still pending. Until one sync completed (``ready``) no decision may rest on the
  cache; ``.sync/complete.json`` records the last complete sync.

Locks (threads: ``threading.Lock``; processes sharing ``cache_root``: ``filelock``) keep local
write order and outbox order the same, and let one pusher at a time walk the outbox.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TypeVar

import filelock
import httpx2
from huggingface_hub import CommitOperationAdd, HfApi, RepoFile, constants, hf_hub_url
from huggingface_hub.errors import HfHubHTTPError
from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status, set_client_factory
from huggingface_hub.utils._http import default_client_factory
from huggingface_hub.utils.sha import git_hash

from .base import REPOS, AlreadyExists, RepoNotPrivate, StoreHealth, Unavailable, check_path, check_repo
from .group_commit import GroupCommitter, Write
from .local import LocalStore, atomic_write, fsync_dir, write_temp

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """How hard one push tries before leaving its write in the outbox."""

    attempts: int = 4  # tries on 5xx / 429 / timeout / network errors
    base_delay: float = 0.5  # first backoff, doubled each time up to max_delay
    max_delay: float = 4.0
    conflicts: int = 50  # re-tries after 409/412 (another writer moved the head)
    timeout: float = 10.0  # seconds per HTTP operation (connect, read, write) without progress
    deadline: float = 30.0  # seconds a put (remote check + push) may take in all, waits included
    sync_deadline: float = 300.0  # seconds the pull of one repo may take (a cold cache downloads all)
    max_files: int = 500  # files per commit of the outbox (a rescore of 1,000 is a few commits)
    downloads: int = 8  # parallel downloads per repo during a sync

    @classmethod
    def fast(cls, timeout: float = 1.0, deadline: float = 5.0) -> RetryPolicy:
        """Tiny delays for tests."""
        return cls(
            attempts=3,
            base_delay=0.01,
            max_delay=0.05,
            timeout=timeout,
            deadline=deadline,
            sync_deadline=deadline,
        )


# -- bounded HTTP -------------------------------------------------------------------------------
# huggingface_hub's shared client has no timeout, and its retry helper sleeps out any Retry-After
# (an hour for the commit quota) up to five times. Requests made inside HubStore calls go through
# a transport that applies our timeout and deadline and turns every "try again later" (timeouts,
# network errors, 408, 429, 5xx) into HubUnavailable, which huggingface_hub does not retry: the
# retry loop of HubStore is the only one. Other users of the client (Gradio) are left as they are.
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class _Budget:
    timeout: float  # seconds per HTTP operation
    deadline: float  # time.monotonic() by which the whole HubStore call must be over


_BUDGET: ContextVar[_Budget | None] = ContextVar("hubstore_budget", default=None)
_install_lock = threading.Lock()
_installed = False


class HubUnavailable(Exception):
    """The Hub did not answer in time, could not be reached, or said to come back later."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


class _BudgetTransport(httpx2.BaseTransport):
    """Applies the caller's :class:`_Budget` to each request and fails fast instead of retrying."""

    def __init__(self, inner: httpx2.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        budget = _BUDGET.get()
        if budget is None:
            return self.inner.handle_request(request)
        where = f"{request.method} {request.url.path}"
        left = budget.deadline - time.monotonic()
        if left <= 0:
            raise HubUnavailable(f"{where}: out of time, the Hub is too slow")
        timeout = min(budget.timeout, left)
        request.extensions["timeout"] = httpx2.Timeout(timeout).as_dict()
        try:
            response = self.inner.handle_request(request)
        except httpx2.TimeoutException as err:
            raise HubUnavailable(f"{where}: no answer within {timeout:.3g} s") from err
        except httpx2.TransportError as err:
            raise HubUnavailable(f"{where}: {type(err).__name__}: {err}") from err
        if response.status_code in RETRY_STATUSES:
            raise _unavailable(response, where)
        return response

    def close(self) -> None:
        self.inner.close()


def _unavailable(response: httpx2.Response, where: str) -> HubUnavailable:
    """A HubUnavailable for a 408/429/5xx answer, with the Hub's message and Retry-After."""
    try:
        response.read()
        message = str(response.json().get("error", ""))
    except Exception:  # noqa: BLE001 - the status alone is enough
        message = ""
    finally:
        response.close()
    wait = _retry_after(response.headers)
    note = f" (retry after {wait:g} s)" if wait is not None else ""
    return HubUnavailable(
        f"{where}: {response.status_code} {message}{note}", status=response.status_code, retry_after=wait
    )


def _retry_after(headers: httpx2.Headers) -> float | None:
    """Seconds to wait from ``Retry-After`` or the ``RateLimit`` header (``t=``), if given."""
    value = headers.get("retry-after", "").strip()
    if value.isdigit():
        return float(value)
    if match := re.search(r";\s*t\s*=\s*(\d+)", headers.get("ratelimit", "")):
        return float(match.group(1))
    return None


def _client_factory() -> httpx2.Client:
    """huggingface_hub's default client (its hooks and settings) over the budget transport."""
    base = default_client_factory()
    client = httpx2.Client(
        event_hooks=base.event_hooks,
        follow_redirects=base.follow_redirects,
        timeout=base.timeout,
        transport=_BudgetTransport(httpx2.HTTPTransport()),
    )
    base.close()
    return client


def _install_client_settings() -> None:
    """Once per process: the bounded client, and the LFS upload path instead of Xet.

    With ``hf_xet`` installed (a dependency of huggingface_hub on x86_64), LFS files would be
    uploaded and downloaded by its Rust client: outside httpx, so no timeout or deadline reaches
    it, and outside what the tests' Hub speaks. The Hub still accepts the LFS protocol and
    moves such files to Xet storage itself; our files are small, so Xet's deduplication buys
    nothing. The flag is read at call time, so setting it after Gradio imported the client works.
    """
    global _installed
    with _install_lock:
        if not _installed:
            os.environ["HF_HUB_DISABLE_XET"] = "1"
            constants.HF_HUB_DISABLE_XET = True
            set_client_factory(_client_factory)
            _installed = True


# -- error classes -----------------------------------------------------------------------------
def _causes(err: BaseException) -> Iterator[BaseException]:
    """``err`` and the exceptions it wraps (huggingface_hub wraps upload errors)."""
    seen: BaseException | None = err
    while seen is not None:
        yield seen
        seen = seen.__cause__ or seen.__context__


def _status(err: BaseException) -> int | None:
    """The HTTP status behind ``err`` (looking through wrapped causes), if any."""
    for seen in _causes(err):
        if isinstance(seen, HfHubHTTPError) and seen.response is not None:
            return seen.response.status_code
        if isinstance(seen, HubUnavailable) and seen.status is not None:
            return seen.status
    return None


def _wait_asked(err: BaseException) -> float | None:
    """The Retry-After the Hub gave with ``err``, if any."""
    return next((e.retry_after for e in _causes(err) if isinstance(e, HubUnavailable)), None)


def _explain(err: BaseException) -> str:
    """``err`` for maintainers: the Hub's own complaint when huggingface_hub wrapped it."""
    cause = next((e for e in _causes(err) if isinstance(e, HubUnavailable)), err)
    text = " ".join(f"{type(cause).__name__}: {cause}".split())
    status = _status(err)
    return f"{text} (HTTP {status})" if status is not None and str(status) not in text else text


def is_conflict(err: BaseException) -> bool:
    return _status(err) in (409, 412)


def is_transient(err: BaseException) -> bool:
    """5xx, 408, 429, timeouts and network errors: worth retrying later. Anything else is not."""
    if any(isinstance(e, (HubUnavailable, httpx2.TransportError)) for e in _causes(err)):
        return True
    status = _status(err)
    return status is not None and status in RETRY_STATUSES


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
    """One pending write; the bytes are read from the cache at push time."""

    file: Path
    repo: str
    paths: tuple[str, ...]
    message: str
    overwrite: bool


class Outbox:
    """Pending writes, one JSON file each, pushed in name (sequence) order; writes the Hub
    refused are kept for maintainers under ``rejected/`` (lost a create-only race) and
    ``parked/`` (a permanent error)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for sub in ("rejected", "parked"):
            (folder / sub).mkdir(parents=True, exist_ok=True)

    def _names(self) -> list[str]:
        """The pending entries' file names (each starts with its sequence number, zero-padded)."""
        return [n for n in os.listdir(self.folder) if "0" <= n[:1] <= "9" and n.endswith(".json")]

    def _numbered(self) -> list[Path]:
        """The pending entries' files, in sequence order."""
        return [self.folder / name for name in sorted(self._names())]

    def add(self, repo: str, paths: list[str], message: str, overwrite: bool) -> None:
        """Append an entry (callers hold the write lock, so sequence numbers are ordered). The next
        number comes from the names alone: a backlog of n writes while the Hub is away costs n
        entries written, not n^2 read back (tests/store/test_outbox.py)."""
        seq = max((int(name.split("-")[0]) for name in self._names()), default=0) + 1
        body = {"repo": repo, "paths": paths, "message": message, "overwrite": overwrite}
        name = f"{seq:012d}-{os.getpid()}-{time.time_ns()}.json"
        atomic_write(self.folder / name, json.dumps(body).encode(), overwrite=False)

    def entries(self) -> list[Entry]:
        out = []
        for file in self._numbered():
            with contextlib.suppress(FileNotFoundError):  # pushed meanwhile by another process
                body = json.loads(file.read_bytes())
                paths = tuple(body["paths"])
                out.append(Entry(file, body["repo"], paths, body["message"], body["overwrite"]))
        return out

    def pending_count(self) -> int:
        return len(self._names())

    def paths(self, repo: str) -> set[str]:
        return {p for e in self.entries() if e.repo == repo for p in e.paths}

    def done(self, entry: Entry) -> None:
        entry.file.unlink(missing_ok=True)

    def reject(self, entry: Entry, paths: list[str]) -> None:
        """Park create-only writes that lost to different remote bytes (for maintainers)."""
        body = {"repo": entry.repo, "paths": paths, "message": entry.message, "rejected": True}
        atomic_write(self.folder / "rejected" / entry.file.name, json.dumps(body).encode(), overwrite=True)

    def park(self, entry: Entry, error: str) -> None:
        """Set aside an entry the Hub refused for good, with why, so later ones go on."""
        body = {"repo": entry.repo, "paths": list(entry.paths), "message": entry.message, "error": error}
        atomic_write(self.folder / "parked" / entry.file.name, json.dumps(body).encode(), overwrite=True)
        self.done(entry)

    def parked(self) -> tuple[str, ...]:
        """One line per set-aside write: repo, paths, and the Hub's reason."""
        lines = []
        for sub in ("rejected", "parked"):
            for file in sorted((self.folder / sub).glob("*.json")):
                body = json.loads(file.read_bytes())
                why = body.get("error") or "another writer stored other bytes first; theirs were kept"
                lines.append(f"{body['repo']}: {', '.join(body['paths'])} ({body['message']}): {why}")
        return tuple(lines)


class Manifest:
    """Per repo: the remote oid last seen per path, so ``sync`` downloads only what changed,
    and the head whose files the cache holds, so an unchanged repo is not even listed."""

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

    def head(self, repo: str) -> str | None:
        try:
            return (self.folder / f"{repo}.head").read_text().strip() or None
        except FileNotFoundError:
            return None

    def set_head(self, repo: str, head: str | None) -> None:
        atomic_write(self.folder / f"{repo}.head", (head or "").encode(), overwrite=True)


@dataclass(frozen=True)
class _Landed:
    """What one commit did: paths refused (other bytes on the Hub), the new head, the parent."""

    lost: frozenset[str]
    head: str | None  # None: nothing needed committing
    parent: str


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
        self._marker = self.cache_root / ".sync" / "complete.json"
        locks = self.cache_root / ".locks"
        locks.mkdir(exist_ok=True)
        self._write_lock = _Lock(locks / "write.lock")  # local write + outbox order
        self._push_lock = _Lock(locks / "push.lock")  # one pusher walks the outbox
        self._sync_lock = _Lock(locks / "sync.lock")  # manifest updates
        self._pull_lock = threading.Lock()  # one sync at a time in this process
        min_left = min(self.retry.timeout, self.retry.deadline / 4)
        self._groups = {r: GroupCommitter(partial(self._commit_durable, r), min_left) for r in REPOS}
        self._created: set[str] = set()
        self._hold_until = 0.0  # time.monotonic() before which pushes wait (the Hub said Retry-After)
        self.last_error: str | None = None
        self.ready = False  # a complete sync ran in this process
        self.consistent = False  # the last sync was complete
        self.problems: tuple[str, ...] = ()  # start-up checks that failed
        self._checked = False
        _install_client_settings()

    # -- reads: always the cache -----------------------------------------------------------
    def read(self, repo: str, path: str) -> bytes:
        return self.local.read(repo, path)

    def exists(self, repo: str, path: str) -> bool:
        return self.local.exists(repo, path)

    def list(self, repo: str, prefix: str = "") -> list[str]:
        return self.local.list(repo, prefix)

    # -- writes ----------------------------------------------------------------------------
    def put(
        self, repo: str, files: Mapping[str, bytes], message: str, *, overwrite: bool = False, durable: bool = False
    ) -> None:
        """Durable: commit now (see module doc). Otherwise: cache + outbox, pushed later."""
        check_repo(repo)
        files = {check_path(p): bytes(d) for p, d in files.items()}
        if not overwrite:
            self.local.check_create_only(repo, files)
        if durable:
            deadline = time.monotonic() + self.retry.deadline
            self._groups[repo].write(Write(files, message, overwrite, deadline))
            return
        with self._write_lock():
            changed = self.local.write(repo, files, overwrite=overwrite)
            if changed:
                self.outbox.add(repo, changed, message, overwrite)

    def _commit_durable(self, repo: str, batch: list[Write]) -> None:
        """One commit of a batch of durable writes, then the cache (the group committer's leader)."""
        if time.monotonic() < self._hold_until:
            raise Unavailable(f"the Hub asked to wait before committing again ({self.last_error})")
        files: dict[str, bytes] = {}
        for w in batch:  # create-only writes of one path with other bytes: the first one wins
            if clash := [p for p, d in w.files.items() if not w.overwrite and files.get(p, d) != d]:
                w.error = AlreadyExists(f"{repo}: {', '.join(clash)} already hold other content")
                continue
            files.update(w.files)
        batch = [w for w in batch if w.error is None]
        if not batch:
            return
        create_only = {p for w in batch if not w.overwrite for p in w.files}
        message = batch[0].message if len(batch) == 1 else f"{batch[0].message} (+{len(batch) - 1} more)"
        description = "\n".join(w.message for w in batch)
        deadline = min(w.deadline for w in batch)
        try:
            landed = self._retrying(lambda: self._commit(repo, files, create_only, message, description), deadline)
        except (RepoNotPrivate, AlreadyExists):
            raise
        except Exception as err:
            self._note_failure(err)
            raise Unavailable(f"the Hub did not take the write: {self.last_error}") from err
        for w in batch:
            if lost := sorted(set(w.files) & landed.lost):
                w.error = AlreadyExists(f"{repo}: {', '.join(lost)} already hold other content on the Hub")
                continue
            with self._write_lock():
                self.local.write(repo, w.files, overwrite=True)
        self._advance_head(repo, landed)

    def _commit(
        self, repo: str, files: dict[str, bytes], create_only: set[str], message: str, description: str = ""
    ) -> _Landed:
        """Commit ``files`` on top of the current head (412 if it moves meanwhile); create-only
        paths holding other bytes on the Hub are left out and reported as lost."""
        repo_id = self.repo_ids[repo]
        self._ensure_repo(repo)
        info = self.api.repo_info(repo_id, repo_type="dataset")
        if _must_be_private(repo) and info.private is not True:
            raise RepoNotPrivate(
                f"{repo_id} is public on the Hub: {repo} files are never written to it; make it private"
            )
        remote = self._paths_info(repo, sorted(create_only)) if create_only else []
        lost = frozenset(f.path for f in remote if not same_content(f, files[f.path]))
        there = {f.path for f in remote}
        ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items() if p not in there]
        if not ops:
            return _Landed(lost, None, info.sha)
        self._preupload(repo_id, ops)
        commit = self.api.create_commit(
            repo_id,
            ops,
            commit_message=message,
            commit_description=description if description != message else None,
            repo_type="dataset",
            parent_commit=info.sha,
        )
        return _Landed(lost, commit.oid, info.sha)

    def _preupload(self, repo_id: str, ops: list[CommitOperationAdd]) -> None:
        """Learn upload modes in one request; files likely to go LFS are uploaded one by one:
        huggingface_hub sends several LFS files from worker threads, where our timeout and
        deadline (a ContextVar) do not reach."""
        if len(ops) < 2:
            return  # create_commit handles one file in this thread
        likely_lfs = [op for op in ops if _likely_lfs(op.path_in_repo, op.upload_info.size, op.upload_info.sample)]
        for op in likely_lfs:
            self.api.preupload_lfs_files(repo_id, [op], repo_type="dataset")
        rest = [op for op in ops if op not in likely_lfs]
        if rest:
            self.api.preupload_lfs_files(repo_id, rest, repo_type="dataset")

    def _paths_info(self, repo: str, paths: list[str]) -> list[RepoFile]:
        repo_id = self.repo_ids[repo]
        infos = self.api.get_paths_info(repo_id, paths, repo_type="dataset")
        return [f for f in infos if isinstance(f, RepoFile)]

    def _advance_head(self, repo: str, landed: _Landed) -> None:
        """After our own commit on top of the head the cache held, the cache holds the new head."""
        if landed.head is None:
            return
        with self._sync_lock():
            if self.manifest.head(repo) == landed.parent:
                self.manifest.set_head(repo, landed.head)

    # -- pushing ---------------------------------------------------------------------------
    def pending(self) -> int:
        return self.outbox.pending_count()

    def push_pending(self, deadline: float | None = None) -> int:
        """Push the outbox, all entries of a repo in one commit (``max_files`` per commit).

        A transient error or an auth/visibility refusal leaves the repo's entries pending; a
        permanent refusal of one entry parks it and the others go on. While the Hub's last
        Retry-After runs, nothing is sent (a restart forgets the wait).
        """
        with self._push_lock():
            for repo in REPOS:
                entries = [e for e in self.outbox.entries() if e.repo == repo]
                for chunk in _chunks(entries, self.retry.max_files):
                    bound = deadline or time.monotonic() + self.retry.deadline  # each commit its own
                    if time.monotonic() < self._hold_until or not self._push_chunk(repo, chunk, bound):
                        break
        return self.pending()

    def _push_chunk(self, repo: str, chunk: list[Entry], deadline: float) -> bool:
        """Push entries as one commit; False if the repo must wait (transient, auth, public)."""
        try:
            self._retrying(lambda: self._push(repo, chunk), deadline)
        except Exception as err:  # noqa: BLE001 - kept or parked, reported in health()
            if _must_wait(err) or len(chunk) == 1:
                return self._refused(chunk, err)
            return all(self._push_chunk(repo, [entry], deadline) for entry in chunk)
        for entry in chunk:
            self.outbox.done(entry)
        return True

    def _refused(self, chunk: list[Entry], err: Exception) -> bool:
        self._note_failure(err)
        if _must_wait(err):
            log.warning("push of %d write(s) deferred: %s", len(chunk), self.last_error)
            return False
        (entry,) = chunk
        log.error("push of %s refused for good, parked: %s", entry.file.name, self.last_error)
        self.outbox.park(entry, self.last_error or "")
        self._forget(entry.repo, entry.paths)  # the next sync restores the Hub's version
        return True

    def _note_failure(self, err: BaseException) -> None:
        """Say why, and hold pushes for as long as the Hub asked."""
        self.last_error = _explain(err)
        wait = _wait_asked(err)
        if wait is not None:
            self._hold_until = time.monotonic() + wait

    def _push(self, repo: str, entries: list[Entry]) -> None:
        """One commit of ``entries`` (the bytes now in the cache: the latest write of a path)."""
        live = [e for e in entries if e.file.exists()]
        paths = list(dict.fromkeys(p for e in live for p in e.paths))
        if not paths:
            return
        overwritten = {p for e in live if e.overwrite for p in e.paths}
        create_only = {p for e in live for p in e.paths if p not in overwritten}
        files = {p: self.local.read(repo, p) for p in paths}
        messages = list(dict.fromkeys(e.message for e in live))
        message = messages[0] if len(messages) == 1 else f"{messages[0]} (+{len(live) - 1} more)"
        landed = self._commit(repo, files, create_only, message, "\n".join(messages))
        if landed.lost:
            log.error("%s: %s exist on the Hub with other bytes; kept theirs", repo, sorted(landed.lost))
            for entry in live:
                if lost := [p for p in entry.paths if p in landed.lost]:
                    self.outbox.reject(entry, lost)
            self._forget(repo, sorted(landed.lost))
        self._advance_head(repo, landed)

    def _ensure_repo(self, repo: str) -> None:
        if repo not in self._created:
            private = _must_be_private(repo)
            self.api.create_repo(self.repo_ids[repo], repo_type="dataset", private=private, exist_ok=True)
            self._created.add(repo)

    def _retrying(self, fn: Callable[[], T], deadline: float) -> T:
        """Run ``fn``: on 409/412 again soon, on transient errors after a backoff or the
        Hub's Retry-After, as long as the next try can start before ``deadline``."""
        failures = conflicts = 0
        while True:
            try:
                return self._call(fn, deadline)
            except Exception as err:
                if is_conflict(err) and conflicts < self.retry.conflicts:
                    conflicts += 1
                    spread = min(self.retry.max_delay, self.retry.base_delay * conflicts) / 2
                    wait = random.uniform(0, spread)  # de-synchronise racing writers
                else:
                    failures += 1
                    if not is_transient(err) or failures >= self.retry.attempts:
                        raise
                    wait = _wait_asked(err) or min(self.retry.max_delay, self.retry.base_delay * 2 ** (failures - 1))
                if time.monotonic() + wait >= deadline:
                    raise
                time.sleep(wait)

    def _call(self, fn: Callable[[], T], deadline: float) -> T:
        """Run ``fn`` with our timeout and ``deadline`` applied to its requests."""
        token = _BUDGET.set(_Budget(self.retry.timeout, deadline))
        try:
            return fn()
        finally:
            _BUDGET.reset(token)

    # -- pulling ---------------------------------------------------------------------------
    def sync(self) -> bool:
        """Push what waits, then pull the three repos in parallel; True if all came complete.

        Hub errors leave the cache as is (a repo is taken whole or not at all)."""
        with self._pull_lock:
            if not self._checked:
                self.check()
            self.push_pending()
            with ThreadPoolExecutor(len(REPOS), thread_name_prefix="hub-sync") as pool:
                done = list(pool.map(self._pull_bounded, REPOS))
            self.consistent = all(done)
            if self.consistent:
                self.ready = True
                now = datetime.now(UTC).isoformat()
                heads = {r: self.manifest.head(r) for r in REPOS}
                atomic_write(self._marker, json.dumps({"at": now, "heads": heads}).encode(), overwrite=True)
            return self.consistent

    def _pull_bounded(self, repo: str) -> bool:
        try:
            self._retrying(lambda: self._pull(repo), time.monotonic() + self.retry.sync_deadline)
        except Exception as err:  # noqa: BLE001 - serve the cache while the Hub is away
            self.last_error = _explain(err)
            log.warning("sync of %s incomplete: %s", repo, self.last_error)
            return False
        return True

    def _pull(self, repo: str) -> None:
        """Bring the cache to the repo's head: nothing if it is the head last pulled."""
        repo_id = self.repo_ids[repo]
        self._ensure_repo(repo)
        head = self.api.repo_info(repo_id, repo_type="dataset").sha
        if head == self.manifest.head(repo):
            return
        tree = self.api.list_repo_tree(repo_id, repo_type="dataset", recursive=True, revision=head)
        remote = {f.path: f for f in tree if isinstance(f, RepoFile) and _storable(f.path)}
        seen = self.manifest.load(repo)
        wanted = [f for p, f in sorted(remote.items()) if seen.get(p) != remote_oid(f) and not self._have(repo, f)]
        staged = self._download_all(repo, wanted, head)
        with self._sync_lock():
            seen = self.manifest.load(repo)
            pending = self.outbox.paths(repo)
            with self._write_lock():
                for path, tmp in staged.items():
                    if path in pending:
                        tmp.unlink(missing_ok=True)
                        continue
                    dst = self.local.file(repo, path)
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(tmp, dst)
                    fsync_dir(dst.parent)
            for path, file in remote.items():
                if path not in pending:
                    seen[path] = remote_oid(file)
            self.manifest.save(repo, seen)
            self.manifest.set_head(repo, head)

    def _have(self, repo: str, file: RepoFile) -> bool:
        """The cache already holds these bytes (e.g. our own write)."""
        try:
            return same_content(file, self.local.read(repo, file.path))
        except Exception:  # noqa: BLE001 - absent or unreadable: download it
            return False

    def _download_all(self, repo: str, files: list[RepoFile], head: str) -> dict[str, Path]:
        """Download ``files`` at ``head`` in parallel to temp files next to their targets
        (each worker runs in a copy of this context, so our timeout and deadline apply)."""
        staged: dict[str, Path] = {}

        def one(file: RepoFile) -> None:
            data = self._download(repo, file.path, head)
            staged[file.path] = write_temp(self.local.file(repo, file.path).parent, data)

        try:
            with ThreadPoolExecutor(self.retry.downloads, thread_name_prefix="hub-get") as pool:
                for future in [pool.submit(contextvars.copy_context().run, one, f) for f in files]:
                    future.result()
        except BaseException:
            for tmp in staged.values():
                tmp.unlink(missing_ok=True)
            raise
        return staged

    def _download(self, repo: str, path: str, revision: str) -> bytes:
        """One GET of the file at ``revision`` (hf_hub_download would add a HEAD per file)."""
        url = hf_hub_url(self.repo_ids[repo], path, repo_type="dataset", revision=revision, endpoint=self.api.endpoint)
        response = get_session().get(url, headers=build_hf_headers(token=self.api.token), follow_redirects=True)
        hf_raise_for_status(response)
        return response.content

    def _forget(self, repo: str, paths: tuple[str, ...] | list[str]) -> None:
        """Drop manifest oids (and the head) so the next sync re-checks these paths on the Hub."""
        with self._sync_lock():
            seen = self.manifest.load(repo)
            self.manifest.save(repo, {p: o for p, o in seen.items() if p not in paths})
            self.manifest.set_head(repo, None)

    # -- health ----------------------------------------------------------------------------
    def check(self) -> tuple[str, ...]:
        """Start-up checks: the token, the three repos (made if missing), gold and submissions
        private, write access. Problems are kept for ``health()``; a Hub that does not answer
        is checked again at the next sync."""
        problems: list[str] = []
        deadline = time.monotonic() + self.retry.deadline
        try:
            me = self._call(lambda: self.api.whoami(), deadline)
            role = (me.get("auth", {}).get("accessToken") or {}).get("role")
            if role == "read":
                problems.append("HF_TOKEN is read-only: the leaderboard cannot store anything on the Hub")
            for repo in REPOS:
                problems += self._check_repo(repo, deadline)
        except Exception as err:  # noqa: BLE001 - reported, not fatal: reads serve from the cache
            if is_transient(err):
                self.last_error = _explain(err)
                return self.problems
            problems.append(f"cannot use the Hub: {_explain(err)} (is HF_TOKEN right?)")
        self.problems, self._checked = tuple(problems), True
        for problem in problems:
            log.error("Hub check: %s", problem)
        return self.problems

    def _check_repo(self, repo: str, deadline: float) -> list[str]:
        repo_id = self.repo_ids[repo]
        self._call(lambda: self._ensure_repo(repo), deadline)
        info = self._call(lambda: self.api.repo_info(repo_id, repo_type="dataset"), deadline)
        if _must_be_private(repo) and info.private is not True:
            return [f"{repo} repo {repo_id} is PUBLIC: nothing will be written to it until it is made private"]
        return []

    def last_sync(self) -> str | None:
        try:
            return json.loads(self._marker.read_bytes())["at"]
        except (FileNotFoundError, ValueError, KeyError):
            return None

    def health(self) -> StoreHealth:
        return StoreHealth(
            where=self.describe(),
            ready=self.ready,
            consistent=self.consistent,
            last_sync=self.last_sync(),
            pending=self.pending(),
            parked=self.outbox.parked(),
            last_error=self.last_error,
            problems=self.problems,
        )

    def describe(self) -> str:
        repos = ", ".join(f"{r}={self.repo_ids[r]}" for r in REPOS)
        state = f"{self.pending()} commit(s) pending" + (
            f", last error: {self.last_error}" if self.pending() and self.last_error else ""
        )
        return f"Hub {self.api.endpoint} datasets {repos}; cache {self.cache_root}; {state}"


def _must_be_private(repo: str) -> bool:
    """Gold and submissions must never be readable by the public; results are the public table."""
    return repo != "results"


def _must_wait(err: BaseException) -> bool:
    """Errors that concern the whole repo, not one write: keep everything pending."""
    return (
        is_transient(err)
        or any(isinstance(e, RepoNotPrivate) for e in _causes(err))
        or _status(err) in (401, 403, 409, 412)
    )


def _likely_lfs(path: str, size: int, sample: bytes) -> bool:
    """Files the Hub will want through LFS: big, binary, or a type its .gitattributes lists."""
    return size > 1_000_000 or b"\0" in sample[:512] or path.endswith((".parquet", ".arrow", ".bin", ".png"))


def _chunks(entries: list[Entry], max_files: int) -> Iterator[list[Entry]]:
    """Consecutive entries grouped so that each group names at most ``max_files`` paths."""
    chunk: list[Entry] = []
    size = 0
    for entry in entries:
        if chunk and size + len(entry.paths) > max_files:
            yield chunk
            chunk, size = [], 0
        chunk.append(entry)
        size += len(entry.paths)
    if chunk:
        yield chunk


def _storable(path: str) -> bool:
    """Hub files the contract can name (skips e.g. ``.gitattributes``)."""
    try:
        check_path(path)
    except ValueError:
        return False
    return True
