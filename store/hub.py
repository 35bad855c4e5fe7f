"""Hub dataset repos as a store, with a local working copy so the app outlives Hub outages.

- Reads are served from a :class:`LocalStore` under ``cache_root`` (never from the network).
- ``put`` writes the cache first (durable), records the commit in an outbox (one JSON file per
  pending commit under ``cache_root/.outbox``), then pushes the outbox in order. A push commits
  with ``parent_commit=<head>``, so a concurrent writer makes it fail (412) instead of being
  overwritten; it then refetches the head and retries. 5xx, timeouts and network errors are
  retried with a short bounded backoff; if the Hub still fails, the entry waits for
  ``push_pending()``. An entry is removed only after its commit landed, and re-pushing an
  already landed entry is a no-op (the client skips files whose remote oid is unchanged).
- Time is bounded: every request has a timeout and every push or pull a deadline, retries and
  waits included (``RetryPolicy``). A 429's ``Retry-After`` is honoured when it fits the
  deadline; a longer one (the Hub's hourly commit quota) leaves the write pending and holds
  further pushes until then instead of spending more commits. huggingface_hub's own retries
  (which sleep out any ``Retry-After``, an hour for the commit quota) never run under HubStore:
  its requests fail fast to this module's single retry loop.
- Uploads go through the Hub's LFS API, never Xet (see ``_install_client_settings``), and
  gold and submissions are pushed only to repos the Hub reports as private.
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
import re
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
from huggingface_hub import CommitOperationAdd, HfApi, RepoFile, constants
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

    attempts: int = 4  # tries on 5xx / 429 / timeout / network errors
    base_delay: float = 0.5  # first backoff, doubled each time up to max_delay
    max_delay: float = 4.0
    conflicts: int = 50  # re-tries after 409/412 (another writer moved the head)
    timeout: float = 10.0  # seconds per HTTP operation (connect, read, write) without progress
    deadline: float = 30.0  # seconds a put (remote check + push) may take in all, waits included
    sync_deadline: float = 300.0  # seconds the pull of one repo may take (a cold cache downloads all)

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


class RepoNotPrivate(Exception):
    """A repo that must be private (gold, submissions) is public on the Hub: nothing is pushed."""


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
    return f"{type(cause).__name__}: {cause}"


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
        self._hold_until = 0.0  # time.monotonic() before which pushes wait (the Hub said Retry-After)
        self.last_error: str | None = None
        _install_client_settings()

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
        deadline = time.monotonic() + self.retry.deadline  # the whole put, check and push
        on_hub: set[str] = set()
        if not overwrite:
            self.local.check_create_only(repo, files)
            on_hub = self._check_remote(repo, files, deadline)
        with self._write_lock():
            changed = self.local.write(repo, files, overwrite=overwrite)
            to_push = [p for p in changed if p not in on_hub]
            if to_push:
                self.outbox.add(repo, to_push, message, overwrite)
        if to_push:
            self.push_pending(deadline)

    def _check_remote(self, repo: str, files: Mapping[str, bytes], deadline: float) -> set[str]:
        """Raise AlreadyExists if the Hub holds other bytes; return paths it holds as is.

        Best effort (one try, no backoff): offline, the push re-checks before committing.
        """
        new = [p for p in files if not self.local.exists(repo, p)]
        if not new or time.monotonic() < self._hold_until:
            return set()
        try:
            remote = self._call(lambda: self._paths_info(repo, new), deadline)
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

    def push_pending(self, deadline: float | None = None) -> int:
        """Push outbox entries in order, stopping at the first that still fails or at the deadline.

        While the Hub's last Retry-After runs, nothing is sent (a restart forgets the wait).
        """
        deadline = deadline or time.monotonic() + self.retry.deadline
        with self._push_lock():
            for entry in self.outbox.entries():
                if time.monotonic() < self._hold_until:
                    break
                if not entry.file.exists():
                    continue
                try:
                    self._retrying(lambda e=entry: self._push(e), deadline)
                except Exception as err:  # noqa: BLE001 - kept for later, reported in describe()
                    self._defer(entry, err)
                    break
                self.outbox.done(entry)
                self._forget(entry.repo, entry.paths)
        return self.pending()

    def _defer(self, entry: Entry, err: Exception) -> None:
        """Leave ``entry`` pending, say why, and hold pushes for as long as the Hub asked."""
        self.last_error = _explain(err)
        wait = _wait_asked(err)
        if wait is not None:
            self._hold_until = time.monotonic() + wait
        log.warning("push of %s deferred: %s", entry.file.name, self.last_error)

    def _push(self, entry: Entry) -> None:
        """One commit of ``entry`` on top of the current head (412 if the head moves)."""
        repo_id = self.repo_ids[entry.repo]
        self._ensure_repo(entry.repo)
        info = self.api.repo_info(repo_id, repo_type="dataset")
        if _must_be_private(entry.repo) and info.private is not True:
            raise RepoNotPrivate(f"{repo_id} is public on the Hub: {entry.repo} files are not pushed to it")
        head = info.sha
        files = {p: self.local.read(entry.repo, p) for p in entry.paths}
        if not entry.overwrite:
            files = self._drop_rejected(entry, files)
        if not files:
            return
        ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()]
        if len(ops) > 1:  # one by one: huggingface_hub sends several LFS files from worker threads,
            for op in ops:  # where our timeout and deadline (a ContextVar) do not reach
                self.api.preupload_lfs_files(repo_id, [op], repo_type="dataset")
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
    def sync(self) -> None:
        """Push what waits, then pull what others committed; Hub errors leave the cache as is."""
        self.push_pending()
        for repo in REPOS:
            try:
                self._retrying(lambda r=repo: self._pull(r), time.monotonic() + self.retry.sync_deadline)
            except Exception as err:  # noqa: BLE001 - serve the cache while the Hub is away
                self.last_error = _explain(err)
                log.warning("sync of %s skipped: %s", repo, self.last_error)

    def _pull(self, repo: str) -> None:
        repo_id = self.repo_ids[repo]
        self._ensure_repo(repo)
        head = self.api.repo_info(repo_id, repo_type="dataset").sha
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


def _must_be_private(repo: str) -> bool:
    """Gold and submissions must never be readable by the public; results are the public table."""
    return repo != "results"


def _storable(path: str) -> bool:
    """Hub files the contract can name (skips e.g. ``.gitattributes``)."""
    try:
        check_path(path)
    except ValueError:
        return False
    return True
