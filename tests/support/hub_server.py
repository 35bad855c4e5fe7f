"""A small in-memory Hugging Face Hub API server for offline tests.

It speaks just enough of the Hub API for ``huggingface_hub`` (2.4, LFS without Xet) to create
repos, commit (regular and LFS files, with ``parentCommit`` checks), list trees and download:
see ``/work/shared/notes/hub-api-for-tests.md``. State lives in memory and survives
``stop()``/``start()``, so a test can take "the Hub" down and bring it back.

Where the client's behaviour depends on it, it answers as the real Hub does:

- LFS or regular is the repo's ``.gitattributes`` (``filter=lfs`` rules; new repos get the Hub's
  default, which lists ``*.parquet``), plus files above 10 MiB or whose sample is binary. The
  commit endpoint refuses regular files above 10 MiB, as the Hub does.
- Tree listings are cursor-paginated with ``Link: <...>; rel="next"`` headers, ``page_size``
  entries a page (the Hub: 1000), so a client that reads one page misses files.
- Tokens name users (``users={token: User(name, orgs)}``): ``whoami-v2`` answers name and orgs
  (each with its ``roleInOrg``: ``write`` for ``orgs``, ``read`` for ``read_orgs``),
  an unknown token is a 401 everywhere, writes need the namespace to be the user or one of
  their orgs (403 otherwise), ``repo_info`` reports ``private``, and ``create_repo`` without a
  visibility makes a public repo.
- Model repos (``add_model``) answer ``model_info``'s ``expand=`` properties (``safetensors``,
  ``cardData``, ``config``, ``gated``, ``sha``, ...) with only those keys; a gated repo's files
  answer 401 ``GatedRepo`` to anyone but its owners; a private one is a 404 ``RepoNotFound``.
- Pull requests (``create_commit(..., create_pr=True)``: ``?create_pr=1`` on preupload and commit)
  need only read access, as on the Hub: any signed-in user may open one on a public repo, its
  commit lands on ``refs/pr/N`` (``main`` unchanged) and the answer's ``pullRequestUrl`` ends in
  ``/discussions/N``. Refused with 403 when the repo's discussions are closed
  (``discussions=False``) or the token's scopes (``User.scopes``; None: a full access token) lack
  ``write-discussions``. ``GET .../discussions`` and ``.../discussions/N`` answer
  ``get_repo_discussions`` and ``get_discussion_details``; ``server.pull_requests(repo)`` lists them.
- ``commit_quota=N`` allows N commits per user per ``quota_window`` seconds; over it, commits
  get the Hub's 429 "You have exceeded our hourly quotas for action: commit" with Retry-After.
  ``clock`` (``time.monotonic`` unless given) is what the window is measured on: a test moves a
  fake one instead of sleeping out the window and racing it.

Faults: ``server.inject(route, kind, times=1)`` makes the next ``times`` requests whose
"METHOD /path" matches the regex ``route`` fail:

- ``"error"``:     answer 500 (``status=`` picks another code)
- ``"hang"``:      read the request, wait ``delay`` seconds, close the connection unanswered
- ``"slow"``:      wait ``delay`` seconds, then answer normally
- ``"lost"``:      process the request normally but sleep ``delay`` s and drop the answer
- ``"conflict"``:  answer 412 as if another writer had moved the branch head
- ``"ratelimit"``: answer 429 with ``Retry-After: retry_after`` and the ``RateLimit`` headers
  of the Hub's API bucket

``delay=None`` waits until ``server.release()`` (or ``stop()``), so a test can hold a request
for as long as it likes and check that the client gives up on its own.
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import json
import math
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

TOKEN = "hf_test_dummy_token"
USER = "tester"
ORG = "leaderboard"  # the org of the test repos (tests.support.hub_fixture.hub_repo_ids); USER belongs to it
REGULAR_MAX = 10 * 1024 * 1024  # the Hub stores bigger files only through LFS/Xet
QUOTA_MESSAGE = "You have exceeded our hourly quotas for action: commit. We invite you to retry later."
HANG_CAP = 120.0  # a held request gives up after this long even if the test never releases it

# The .gitattributes the Hub puts in the initial commit of a new model or dataset repo.
_LFS_PATTERNS = (
    "*.7z *.arrow *.avro *.bin *.bz2 *.ckpt *.ftz *.gz *.h5 *.joblib *.lfs.* *.lz4 *.mds *.mlmodel *.model"
    " *.msgpack *.npy *.npz *.onnx *.ot *.parquet *.pb *.pickle *.pkl *.pt *.pth *.rar *.safetensors"
    " saved_model/**/* *.tar.* *.tar *.tflite *.tgz *.wasm *.xz *.zip *.zst *tfevents*"
    " *.pcm *.sam *.raw *.aac *.flac *.mp3 *.ogg *.wav *.bmp *.gif *.png *.tiff *.jpg *.jpeg *.webp *.mp4 *.webm"
)
DEFAULT_GITATTRIBUTES = "".join(f"{p} filter=lfs diff=lfs merge=lfs -text\n" for p in _LFS_PATTERNS.split()).encode()
TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_RID = r"(?P<rid>[\w.-]+/[\w.-]+)"
_API = rf"/api/(?P<t>models|datasets|spaces)/{_RID}"
_GIT = rf"(?:/(?P<t>datasets|spaces))?/{_RID}"


def git_oid(data: bytes) -> str:
    """The git blob sha1, as the Hub reports it for regular files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Blob:
    data: bytes
    lfs: bool

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def pointer(self) -> bytes:
        return (
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{self.sha256}\nsize {len(self.data)}\n"
        ).encode()

    @property
    def oid(self) -> str:
        return git_oid(self.pointer if self.lfs else self.data)

    def entry(self, path: str) -> dict[str, Any]:
        """Tree / paths-info JSON of this file."""
        out: dict[str, Any] = {
            "type": "file",
            "oid": self.oid,
            "size": len(self.data),
            "path": path,
        }
        if self.lfs:
            out["lfs"] = {
                "oid": self.sha256,
                "size": len(self.data),
                "pointerSize": len(self.pointer),
            }
        return out


def lfs_rules(gitattributes: bytes) -> list[str]:
    """The path patterns a .gitattributes file sends to LFS (``filter=lfs``)."""
    rules = []
    for line in gitattributes.decode(errors="replace").splitlines():
        parts = line.split()
        if parts and not parts[0].startswith("#") and "filter=lfs" in parts[1:]:
            rules.append(parts[0])
    return rules


def matches(pattern: str, path: str) -> bool:
    """Git's pattern match: no "/" matches the file name at any depth, else the whole path."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    regex = re.escape(pattern.lstrip("/")).replace(r"\*\*/", "(?:.*/)?").replace(r"/\*\*", "/.*")
    regex = regex.replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return re.fullmatch(regex, path) is not None


def is_lfs(rules: list[str], path: str, size: int, sample: bytes) -> bool:
    """The Hub's choice for a new file: a .gitattributes rule, a big file, or binary bytes."""
    return size > REGULAR_MAX or b"\0" in sample[:512] or any(matches(r, path) for r in rules)


PR_SCOPE = "write-discussions"  # the OAuth scope that lets a token open discussions and pull requests


@dataclass(frozen=True)
class User:
    name: str
    orgs: tuple[str, ...] = ()  # organisations where the user's role is write (may write their repos)
    scopes: tuple[str, ...] | None = None  # an OAuth token's scopes; None: a user access token (all rights)
    read_orgs: tuple[str, ...] = ()  # organisations where the user's role is read (reads them, writes none)

    def can_write(self, repo_id: str) -> bool:
        namespace = repo_id.split("/")[0]
        return namespace == self.name or namespace in self.orgs

    @property
    def may_discuss(self) -> bool:
        return self.scopes is None or PR_SCOPE in self.scopes


@dataclass
class PullRequest:
    """A pull request on a repo: its number, author, title, the commit it proposes and its description
    (the commit header's ``description``, which the Hub shows as the pull request's opening text)."""

    num: int
    author: str
    title: str
    commit: Commit
    created_at: str = "2026-01-01T00:00:00.000Z"
    description: str = ""


@dataclass
class Commit:
    oid: str
    parent: str | None
    message: str
    files: dict[str, Blob]


@dataclass
class Repo:
    type: str
    id: str
    private: bool
    commits: list[Commit] = field(default_factory=list)
    card: dict[str, Any] = field(default_factory=dict)  # model repos: what model_info's ``expand`` may ask
    gated: str | bool = False  # "auto" / "manual": files need accepted access (model_info stays public)
    discussions: bool = True  # False: the owner closed discussions, so no pull request can be opened
    pull_requests: list[PullRequest] = field(default_factory=list)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def at(self, rev: str) -> Commit | None:
        if rev in ("main", "refs/heads/main"):
            return self.head
        if m := re.fullmatch(r"refs/pr/(\d+)", rev):
            n = int(m[1])
            return self.pull_requests[n - 1].commit if 1 <= n <= len(self.pull_requests) else None
        return next((c for c in self.commits if len(rev) >= 7 and c.oid.startswith(rev)), None)

    def lfs_rules(self) -> list[str]:
        attributes = self.head.files.get(".gitattributes") if self.commits else None
        return lfs_rules(attributes.data) if attributes else []


@dataclass
class Fault:
    route: re.Pattern[str]
    kind: str
    times: int
    status: int = 500
    delay: float | None = 3.0  # None: until released
    retry_after: int = 1
    released: threading.Event = field(default_factory=threading.Event)

    def wait(self) -> None:
        """Sleep ``delay`` seconds, or until the test releases the fault."""
        self.released.wait(HANG_CAP if self.delay is None else self.delay)


class HubError(Exception):
    """An error answer: status, JSON message and optional X-Error-Code."""

    def __init__(
        self, status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.extra = status, code, extra
        self.headers = ({"X-Error-Code": code} if code else {}) | (headers or {})


class HubServer:
    """In-memory Hub on 127.0.0.1; see the module docstring for faults."""

    def __init__(
        self,
        token: str = TOKEN,
        *,
        users: dict[str, User] | None = None,
        page_size: int = 1000,
        commit_quota: int | None = None,
        quota_window: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        self.users = users if users is not None else {token: User(USER, (ORG,))}
        self.page_size = page_size
        self.commit_quota, self.quota_window, self.clock = commit_quota, quota_window, clock
        self.commit_times: dict[str, list[float]] = {}  # user -> the clock's times of their commits
        self.repos: dict[tuple[str, str], Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.faults: list[Fault] = []
        self.log: list[str] = []  # "METHOD /path" of every request received
        self.lock = threading.RLock()
        self.port = 0
        self._httpd: ThreadingHTTPServer | None = None

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HubServer:
        """Listen (again, on the same port once chosen) and serve in a daemon thread."""
        handler = type("Handler", (_Handler,), {"hub": self})
        httpd = _Server(("127.0.0.1", self.port), handler)
        self.port = httpd.server_address[1]
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening: clients now get connection errors (the Hub is down)."""
        self.release()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def restart(self) -> None:
        self.stop()
        self.start()

    # -- faults and inspection ------------------------------------------------------------
    def inject(
        self,
        route: str,
        kind: str = "error",
        times: int = 1,
        *,
        status: int = 500,
        delay: float | None = 3.0,
        retry_after: int = 1,
    ) -> None:
        """Make the next ``times`` requests matching ``route`` ("METHOD /path" regex) fail."""
        assert kind in ("error", "hang", "slow", "lost", "conflict", "ratelimit"), kind
        with self.lock:
            self.faults.append(Fault(re.compile(route), kind, times, status, delay, retry_after))

    def release(self) -> None:
        """Let every request held by a fault with ``delay=None`` go on."""
        with self.lock:
            for fault in self.faults:
                fault.released.set()

    def take_fault(self, line: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.times > 0 and fault.route.search(line):
                    fault.times -= 1
                    return fault
        return None

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        return self.repos[(repo_type, repo_id)]

    def commits(self, repo_id: str, repo_type: str = "dataset") -> list[Commit]:
        """Commits of ``main``, oldest first (the first is the repo's initial commit)."""
        return list(self.repo(repo_id, repo_type).commits)

    def files(self, repo_id: str, repo_type: str = "dataset") -> dict[str, Blob]:
        return dict(self.repo(repo_id, repo_type).head.files)

    def pull_requests(self, repo_id: str, repo_type: str = "model") -> list[PullRequest]:
        return list(self.repo(repo_id, repo_type).pull_requests)

    def set_private(self, repo_id: str, private: bool, repo_type: str = "dataset") -> None:
        """Change a repo's visibility, as its owner could in the Hub's settings page."""
        with self.lock:
            self.repo(repo_id, repo_type).private = private

    def add_model(
        self,
        repo_id: str,
        files: dict[str, bytes] | None = None,
        *,
        safetensors: dict[str, Any] | None = None,
        card_data: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
        gated: str | bool = False,
        private: bool = False,
    ) -> str:
        """A model repo as its owner would publish it; returns its head sha. ``safetensors``
        (``{"parameters": {...}, "total": n}``) is what the Hub indexed of its weights: None for a
        repo it has not (model_info then has none, and only the files' headers tell)."""
        oid = self.commit_files(repo_id, files or {"README.md": b"# model\n"}, "upload model", repo_type="model")
        with self.lock:
            repo = self.repo(repo_id, "model")
            repo.private, repo.gated = private, gated
            repo.card = {"cardData": card_data, "config": config, "safetensors": safetensors, "gated": gated}
            repo.card = {k: v for k, v in repo.card.items() if v is not None}
        return oid

    def count_commit(self, user: str) -> None:
        """Count a commit against ``user``'s quota, or refuse it with the Hub's 429."""
        if self.commit_quota is None:
            return
        now = self.clock()
        recent = [t for t in self.commit_times.get(user, []) if t > now - self.quota_window]
        if len(recent) >= self.commit_quota:
            wait = math.ceil(recent[0] + self.quota_window - now)
            raise HubError(429, QUOTA_MESSAGE, headers={"Retry-After": str(max(wait, 1))})
        self.commit_times[user] = [*recent, now]

    def commit_files(
        self,
        repo_id: str,
        files: dict[str, bytes],
        message: str = "direct",
        repo_type: str = "dataset",
    ) -> str:
        """Commit as another writer would (bypassing HTTP, creating the repo); return the oid."""
        with self.lock:
            if (repo_type, repo_id) not in self.repos:
                ns, name = repo_id.split("/")
                self.create_repo({"organization": ns, "name": name, "type": repo_type})
            repo = self.repo(repo_id, repo_type)
            rules = lfs_rules(files[".gitattributes"]) if ".gitattributes" in files else repo.lfs_rules()
            blobs = {p: Blob(d, is_lfs(rules, p, len(d), d)) for p, d in files.items()}
            return self._commit(repo, message, blobs, []).oid

    # -- state changes (under self.lock) --------------------------------------------------
    def _commit(self, repo: Repo, message: str, adds: dict[str, Blob], dels: list[str]) -> Commit:
        files = dict(repo.head.files) if repo.commits else {}
        files.update(adds)
        for path in dels:
            files.pop(path, None)
        oid = hashlib.sha1(uuid.uuid4().bytes).hexdigest()
        parent = repo.head.oid if repo.commits else None
        repo.commits.append(Commit(oid, parent, message, files))
        return repo.commits[-1]

    def create_repo(self, body: dict[str, Any], user: str = USER) -> tuple[int, Any]:
        ns = body.get("organization") or user
        rtype = body.get("type") or "model"
        key = (rtype, f"{ns}/{body['name']}")
        prefix = "" if rtype == "model" else f"{rtype}s/"
        url = f"{self.url}/{prefix}{key[1]}"
        with self.lock:
            if key in self.repos:
                raise HubError(409, "You already created this repo", url=url)
            private = body.get("visibility") == "private" or body.get("private") is True
            repo = self.repos[key] = Repo(rtype, key[1], private)
            initial = {} if rtype == "space" else {".gitattributes": Blob(DEFAULT_GITATTRIBUTES, lfs=False)}
            self._commit(repo, "initial commit", initial, [])
        return 200, {"url": url, "name": key[1]}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 20 writers connect at once: the default backlog of 5 drops SYNs


def _read_chunked(rfile: Any) -> bytes:
    out = bytearray()
    while size := int(rfile.readline().split(b";")[0].strip() or b"0", 16):
        out += rfile.read(size)
        rfile.readline()
    while rfile.readline().strip():
        pass
    return bytes(out)


def _fault_answer(fault: Fault) -> tuple[int, Any, dict[str, str]]:
    """The answer of an "error", "conflict" or "ratelimit" fault."""
    if fault.kind == "conflict":
        return 412, {"error": "injected conflict"}, {}
    if fault.kind == "ratelimit":
        wait = str(fault.retry_after)
        headers = {
            "Retry-After": wait,
            "RateLimit": f'"api";r=0;t={wait}',
            "RateLimit-Policy": '"fixed window";"api";q=1000;w=300',
        }
        return 429, {"error": "Too Many Requests: you have reached your 'api' rate limit."}, headers
    return fault.status, {"error": "injected error"}, {}


class _Handler(BaseHTTPRequestHandler):
    """One request: auth, fault injection, routing, JSON answers."""

    hub: HubServer
    protocol_version = "HTTP/1.0"  # one request per connection: stop() really cuts clients off

    def log_message(self, *args: Any) -> None:
        pass

    # -- plumbing -------------------------------------------------------------------------
    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return _read_chunked(self.rfile)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _send(self, status: int, body: Any = b"", headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        kind = "application/octet-stream" if isinstance(body, bytes) else "application/json"
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _user(self) -> User | None:
        """The caller (None: anonymous); an unknown token is refused everywhere, as on the Hub."""
        auth = self.headers.get("Authorization")
        if auth is None:
            return None
        user = self.hub.users.get(auth.removeprefix("Bearer "))
        if user is None:
            raise HubError(401, "Invalid credentials in Authorization header")
        return user

    def _signed_in(self) -> User:
        user = self._user()
        if user is None:
            raise HubError(401, "You must be authenticated to do this")
        return user

    def _repo(self, match: re.Match[str], write: bool = False) -> Repo:
        rtype = TYPES[match["t"]] if match["t"] else "model"
        repo = self.hub.repos.get((rtype, match["rid"]))
        user = self._user()
        if repo is None or (repo.private and not (user and user.can_write(repo.id))):
            raise HubError(404, "Repository not found", "RepoNotFound")
        if write and not (user and user.can_write(repo.id)):
            raise HubError(403 if user else 401, f"You don't have the rights to write to {repo.id}")
        return repo

    def _rev(self, repo: Repo, rev: str) -> Commit:
        commit = repo.at(unquote(rev))
        if commit is None:
            raise HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound")
        return commit

    def _handle(self) -> None:
        path = urlsplit(self.path).path
        line = f"{self.command} {path}"
        body = self._body() if self.command in ("POST", "PUT") else b""
        with self.hub.lock:
            self.hub.log.append(line)
        fault = self.hub.take_fault(line)
        if fault and fault.kind in ("hang", "slow"):
            fault.wait()
            if fault.kind == "hang":
                self.close_connection = True
                return
        if fault and fault.kind in ("error", "conflict", "ratelimit"):
            self._send(*_fault_answer(fault))
            return
        try:
            status, answer, headers = self._route(path, body)
        except HubError as err:
            status, answer, headers = err.status, {"error": str(err), **err.extra}, err.headers
        if fault and fault.kind == "lost":
            fault.wait()
            self.close_connection = True
            return
        self._send(status, answer, headers)

    do_GET = do_POST = do_PUT = do_HEAD = _handle

    # -- routes ---------------------------------------------------------------------------
    def _route(self, path: str, body: bytes) -> tuple[int, Any, dict[str, str]]:
        cmd, hub = self.command, self.hub
        query = parse_qs(urlsplit(self.path).query)
        if cmd == "POST" and path == "/api/repos/create":
            return (*self._create_repo(json.loads(body)), {})
        if path == "/api/whoami-v2":
            return 200, _whoami(self._signed_in()), {}
        if path == "/api/validate-yaml":
            return 200, {"errors": [], "warnings": []}, {}
        if cmd == "PUT" and (m := re.fullmatch(r"/lfs-upload/(?P<oid>[0-9a-f]{64})", path)):
            if hashlib.sha256(body).hexdigest() != m["oid"]:
                raise HubError(400, "sha256 mismatch")
            with hub.lock:
                hub.lfs[m["oid"]] = body
            return 200, {}, {}
        if cmd == "POST" and (m := re.fullmatch(rf"{_GIT}\.git/info/lfs/objects/batch", path)):
            self._repo(m, write=True)
            return 200, self._lfs_batch(json.loads(body)), {}
        if m := re.fullmatch(rf"{_API}(?:/revision/(?P<rev>.+))?", path):
            return 200, self._info(self._repo(m), m["rev"] or "main", parse_qs(urlsplit(self.path).query)), {}
        if cmd == "PUT" and (m := re.fullmatch(rf"{_API}/settings", path)):
            repo = self._repo(m, write=True)
            settings = json.loads(body)  # huggingface_hub sends "visibility"; older clients "private"
            if "visibility" in settings or "private" in settings:
                private = settings.get("visibility", "private" if settings.get("private") else "public")
                hub.set_private(repo.id, private == "private", repo.type)
            return 200, {}, {}
        pr = query.get("create_pr", ["0"])[0] == "1"
        if cmd == "POST" and (m := re.fullmatch(rf"{_API}/preupload/(?P<rev>[^/]+)", path)):
            repo = self._pr_repo(m) if pr else self._repo(m, write=True)
            return 200, self._preupload(self._rev(repo, m["rev"]), json.loads(body)), {}
        if cmd == "POST" and (m := re.fullmatch(rf"{_API}/commit/(?P<rev>[^/]+)", path)):
            if pr:
                return 200, self._pull_request(self._pr_repo(m), m["rev"], body), {}
            return 200, self._commit(self._repo(m, write=True), m["rev"], body), {}
        if cmd == "GET" and (m := re.fullmatch(rf"{_API}/discussions(?:/(?P<num>\d+))?", path)):
            return 200, self._discussions(self._repo(m), int(m["num"]) if m["num"] else None), {}
        if cmd == "GET" and (m := re.fullmatch(rf"{_API}/tree/(?P<rev>[^/]+)(?:/(?P<p>.*))?", path)):
            commit = self._rev(self._repo(m), m["rev"])
            recursive = query.get("recursive", ["false"])[0].lower() == "true"
            return self._page(_tree(commit, unquote(m["p"] or ""), recursive), path, query)
        if cmd == "POST" and (m := re.fullmatch(rf"{_API}/paths-info/(?P<rev>[^/]+)", path)):
            commit = self._rev(self._repo(m), m["rev"])
            paths = parse_qs(body.decode()).get("paths", [])
            return 200, [commit.files[p].entry(p) for p in paths if p in commit.files], {}
        if m := re.fullmatch(rf"{_GIT}/resolve/(?P<rev>[^/]+)/(?P<p>.+)", path):
            return self._resolve(self._repo(m), m["rev"], unquote(m["p"]))
        raise HubError(404, f"no route for {cmd} {path}")

    def _create_repo(self, body: dict[str, Any]) -> tuple[int, Any]:
        user = self._signed_in()
        namespace = body.get("organization") or user.name
        if not user.can_write(f"{namespace}/x"):
            raise HubError(403, f"You don't have the rights to create a repo under the namespace {namespace}")
        return self.hub.create_repo(body, user.name)

    def _page(self, entries: list[dict[str, Any]], path: str, query: dict[str, list[str]]) -> tuple[int, Any, dict]:
        """One page of a listing, with a ``Link: <...>; rel="next"`` header if more follow."""
        start = int(base64.urlsafe_b64decode(query["cursor"][0]).decode()) if "cursor" in query else 0
        end = start + self.hub.page_size
        if end >= len(entries):
            return 200, entries[start:], {}
        params = {k: v[0] for k, v in query.items() if k != "cursor"}
        params["cursor"] = base64.urlsafe_b64encode(str(end).encode()).decode()
        link = f'<{self.hub.url}{path}?{urlencode(params)}>; rel="next"'
        return 200, entries[start:end], {"Link": link}

    def _info(self, repo: Repo, rev: str, query: dict[str, list[str]] | None = None) -> dict[str, Any]:
        """Repo info; with ``expand=`` (repeated), only the id and those properties, as the Hub answers."""
        commit = self._rev(repo, rev)
        siblings = [{"rfilename": p} for p in sorted(commit.files)]
        full = {"id": repo.id, "sha": commit.oid, "private": repo.private, "siblings": siblings, **repo.card}
        if repo.type == "model":
            full.setdefault("gated", repo.gated)
        expand = (query or {}).get("expand")
        return full if not expand else {"id": repo.id, **{k: full[k] for k in expand if k in full}}

    def _preupload(self, commit: Commit, body: dict[str, Any]) -> dict[str, Any]:
        files = []
        attributes = commit.files.get(".gitattributes")
        rules = lfs_rules(attributes.data) if attributes else []
        for f in body["files"]:
            lfs = is_lfs(rules, f["path"], f["size"], base64.b64decode(f.get("sample", "")))
            old = commit.files.get(f["path"])
            oid = None if old is None else (old.sha256 if old.lfs else old.oid)
            mode = "lfs" if lfs else "regular"
            files.append({"path": f["path"], "uploadMode": mode, "shouldIgnore": False, "oid": oid})
        return {"files": files, "commitOid": commit.oid}

    def _lfs_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        objects = []
        for obj in body["objects"]:
            out = {"oid": obj["oid"], "size": obj["size"]}
            if obj["oid"] not in self.hub.lfs:
                out["actions"] = {"upload": {"href": f"{self.hub.url}/lfs-upload/{obj['oid']}"}}
            objects.append(out)
        return {"transfer": "basic", "objects": objects}

    def _commit(self, repo: Repo, rev: str, body: bytes) -> dict[str, Any]:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next(x["value"] for x in lines if x["key"] == "header")
        adds: dict[str, Blob] = {}
        dels: list[str] = []
        for item in lines:
            key, value = item["key"], item["value"]
            if key == "file":
                adds[value["path"]] = Blob(base64.b64decode(value["content"]), lfs=False)
                if len(adds[value["path"]].data) > REGULAR_MAX:
                    raise HubError(400, "Your push was rejected because it contains files larger than 10 MiB.")
            elif key == "lfsFile":
                data = self.hub.lfs.get(value["oid"])
                if data is None:
                    raise HubError(400, f"LFS object {value['oid']} was never uploaded")
                adds[value["path"]] = Blob(data, lfs=True)
            elif key in ("deletedFile", "deletedFolder"):
                dels.append(value["path"])
        with self.hub.lock:
            parent = header.get("parentCommit")
            if self._rev(repo, rev) is not repo.head:
                raise HubError(400, "can only commit to main")
            if parent and not repo.head.oid.startswith(parent):
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            self.hub.count_commit(self._signed_in().name)
            commit = self.hub._commit(repo, header["summary"], adds, dels)
        prefix = "" if repo.type == "model" else f"{repo.type}s/"
        url = f"{self.hub.url}/{prefix}{repo.id}/commit/{commit.oid}"
        return {"success": True, "commitOid": commit.oid, "commitUrl": url, "pullRequestUrl": None}

    def _pr_repo(self, match: re.Match[str]) -> Repo:
        """A repo the caller may open a pull request on: readable, discussions open, the token's scope."""
        repo = self._repo(match)
        user = self._signed_in()
        if not repo.discussions:
            raise HubError(403, "Discussions are disabled for this repo", "DiscussionsDisabled")
        if not user.may_discuss:
            raise HubError(403, f"This token lacks the {PR_SCOPE} scope needed to open a pull request")
        return repo

    def _pull_request(self, repo: Repo, rev: str, body: bytes) -> dict[str, Any]:
        """The commit proposed on ``refs/pr/N`` from ``main``; ``main`` stays as it was."""
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next(x["value"] for x in lines if x["key"] == "header")
        adds = {
            x["value"]["path"]: Blob(base64.b64decode(x["value"]["content"]), lfs=False)
            for x in lines
            if x["key"] == "file"
        }
        with self.hub.lock:
            base = self._rev(repo, rev)
            self.hub.count_commit(self._signed_in().name)
            oid = hashlib.sha1(uuid.uuid4().bytes).hexdigest()
            commit = Commit(oid, base.oid, header["summary"], {**base.files, **adds})
            num = len(repo.pull_requests) + 1
            opened = PullRequest(num, self._signed_in().name, header["summary"], commit)
            repo.pull_requests.append(replace(opened, description=str(header.get("description") or "")))
        prefix = "" if repo.type == "model" else f"{repo.type}s/"
        url = f"{self.hub.url}/{prefix}{repo.id}"
        return {"success": True, "commitOid": oid, "commitUrl": f"{url}/commit/{oid}",
                "pullRequestUrl": f"{url}/discussions/{num}"}  # fmt: skip

    def _discussions(self, repo: Repo, num: int | None) -> dict[str, Any]:
        """``get_repo_discussions`` (one page of all) or ``get_discussion_details`` of one."""
        items = [
            {"num": p.num, "title": p.title, "author": {"name": p.author}, "createdAt": p.created_at,
             "status": "open", "isPullRequest": True, "repo": {"name": repo.id, "type": repo.type}}
            for p in repo.pull_requests
        ]  # fmt: skip
        if num is None:
            return {"discussions": items, "count": len(items), "start": 0, "numItemsPerPage": 50}
        if not 1 <= num <= len(items):
            raise HubError(404, "Discussion not found")
        files = sorted(repo.pull_requests[num - 1].commit.files)
        return items[num - 1] | {"events": [], "changes": {"base": "refs/heads/main"}, "filesWithConflicts": [],
                                 "diff": "\n".join(files)}  # fmt: skip

    def _resolve(self, repo: Repo, rev: str, path: str) -> tuple[int, Any, dict[str, str]]:
        if repo.gated and not ((user := self._user()) and user.can_write(repo.id)):
            raise HubError(401, f"Access to model {repo.id} is restricted.", "GatedRepo")
        commit = self._rev(repo, rev)
        blob = commit.files.get(path)
        if blob is None:
            raise HubError(404, "Entry not found", "EntryNotFound")
        headers = {"X-Repo-Commit": commit.oid, "ETag": f'"{blob.oid}"'}
        if blob.lfs:
            headers.update({"X-Linked-Etag": f'"{blob.sha256}"', "X-Linked-Size": str(len(blob.data))})
        return 200, blob.data, headers


def _whoami(user: User) -> dict[str, Any]:
    orgs = [{"type": "org", "name": org, "roleInOrg": "write"} for org in user.orgs]
    orgs += [{"type": "org", "name": org, "roleInOrg": "read"} for org in user.read_orgs]
    token = {"displayName": "tests", "role": "write"}
    return {"type": "user", "name": user.name, "orgs": orgs, "auth": {"type": "access_token", "accessToken": token}}


def _tree(commit: Commit, prefix: str, recursive: bool) -> list[dict[str, Any]]:
    """Entries below ``prefix``: files, plus folders (all levels if recursive)."""
    base = f"{prefix.rstrip('/')}/" if prefix else ""
    if prefix and prefix not in commit.files and not any(p.startswith(base) for p in commit.files):
        raise HubError(404, f"{prefix} does not exist", "EntryNotFound")
    if prefix in commit.files:
        return [commit.files[prefix].entry(prefix)]
    out: dict[str, dict[str, Any]] = {}
    for path, blob in sorted(commit.files.items()):
        if not path.startswith(base):
            continue
        parts = path[len(base) :].split("/")
        for depth in range(1, len(parts)):
            folder = base + "/".join(parts[:depth])
            out.setdefault(folder, {"type": "directory", "oid": git_oid(folder.encode()), "path": folder})
            if not recursive:
                break
        if recursive or len(parts) == 1:
            out[path] = blob.entry(path)
    return list(out.values())
