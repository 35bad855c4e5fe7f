"""Who may upload, how much, and for how long the files stay (attacks.md #7).

Gradio's ``POST /gradio_api/upload`` stores any file under the size limit for anyone, and keeps
it: 20 anonymous 5 MB uploads in half a second grew the temp folder by 95 MB. :class:`UploadGate`
(ASGI middleware, installed by :func:`ui.app.mount_options`) answers it first:

- only an identified caller may upload: the signed-in session (the OAuth session cookie), a
  valid HF token in ``Authorization`` or ``X-HF-Authorization`` (gradio_client's ``token=``),
  or, in local mode, the local identity (:class:`ui.auth.Auth` decides, as for every action);
  anyone else gets 401 with how to sign in;
- each caller gets ``UPLOADS_PER_WINDOW`` uploads and ``UPLOAD_BYTES_FACTOR`` times the upload
  limit in bytes per ``UPLOAD_WINDOW`` seconds (both scaled up when the daily attempts quota is
  larger: a deployment that allows more submissions allows their uploads), charged by
  ``Content-Length`` (browsers and gradio_client send it; without one, 411) before a byte of the
  body is read; beyond, 429, held ``REFUSAL_HOLD`` s before it is answered, its body unread. The
  budgets are fixed windows of the ``limits`` library (:class:`UploadBudget`), kept in memory. A
  request may carry several files (Gradio takes up to 1,000 in one): each file after the first is
  charged as its part begins in the body (:class:`FileCounter`), and a request with more than
  :data:`FILES_PER_UPLOAD` files, or past the budget, is answered 429 and read no further (two
  requests of 1,000 files each were "2 uploads": red.md N5);
- an upload within the budget waits, unread, while its account's uploads streaming in and checks
  running or waiting fill its bound of checks (:data:`submissions.fair_queue.PER_IDENTITY`), at
  most ``UPLOAD_HOLD`` s; then it goes in (its check answers ``retry`` if the account is still busy).
  A held upload or refusal takes a place: ``HELD_PER_CALLER`` per caller, ``HELD_IN_ALL`` in all;
  beyond, it is answered (or let in) at once;
- every upload is deleted ``UPLOAD_MAX_AGE`` seconds after it arrived, by Gradio's own
  ``delete_cache`` sweep (:data:`DELETE_CACHE`, a ``gr.Blocks`` argument), which also removes the
  copies of per-search downloads Gradio serves. A stored submission has its own copy in the store.

What an upload costs once in is bounded where it runs: its size by Gradio while it streams in
(``max_file_size``), its check by the scoring worker's deadline and memory cap and the account's
bound of checks (:mod:`submissions.fair_queue`). Of the hand-made doors (``ui/upload_line.py``,
``ui/door_holds.py``, ``ui/compare_door.py``, gone in issue 30) only what a measured flood still
needs is left (``perf/flood_doors.py`` at 3860df9, docs/benchmarks.md): with refusals answered at once and no
wait, six validate-only loops of one account drew 302 refusals in 15 s and took the board page's
p95 under the flood to 115 ms, against 41 ms with the old door in the same run.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from limits import RateLimitItemPerSecond
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter
from starlette.requests import Request

from leaderboard.config import Settings
from submissions.fair_queue import PER_IDENTITY, Checks
from ui.auth import HUB_UNAVAILABLE, Auth

UPLOAD_PATH = "/gradio_api/upload"
UPLOAD_WINDOW = 600  # seconds
UPLOADS_PER_WINDOW = 20
UPLOAD_BYTES_FACTOR = 4  # times LEADERBOARD_MAX_UPLOAD_MB per caller and window
UPLOAD_MAX_AGE = 900  # seconds an uploaded file is kept
DELETE_CACHE = (300, UPLOAD_MAX_AGE)  # gr.Blocks(delete_cache=(every, older than)) in seconds

UPLOAD_REFUSED = "Upload refused. "  # then what ui.auth says (e.g. ui.auth.NO_TOKEN: how to send a token)
NO_UPLOADS = "This copy of the leaderboard takes no uploads."
TOO_MANY_UPLOADS = "Too many uploads from your account: {why}. Try again in {wait} s."
LENGTH_REQUIRED = "An upload must say its size (Content-Length)."
REFUSAL_HOLD = 3.0  # seconds a refused upload waits before its answer, its body unread (a flood's pace)
FILES_PER_UPLOAD = 16  # files in one request: the most one submission takes (scoring.readers.bundle.MAX_FILES)
TOO_MANY_FILES = "Too many files in one upload: at most {n}."
UPLOAD_HOLD = 4.0
"""Seconds an upload waits at most, unread, for its account's uploads and checks to leave room: under
the 5 s read timeout gradio_client gives httpx unless told otherwise (README's ``Client(url)``)."""
POLL = 0.1  # seconds between looks at a waiting upload's account (its checks run on threads)
HELD_PER_CALLER = 8  # an unread upload holds its sender's socket buffers (MBs): few places
HELD_IN_ALL = 64


class UploadBudget:
    """Per caller: at most ``uploads`` uploads and ``max_bytes`` bytes per ``window`` seconds, two
    fixed windows of ``limits`` (each from the caller's first upload in it; memory is freed as
    windows expire). An upload is counted in both or in neither."""

    def __init__(
        self,
        max_bytes: int,
        uploads: int = UPLOADS_PER_WINDOW,
        window: int = UPLOAD_WINDOW,
        clock: Callable[[], float] = time.time,  # the clock the limits library's windows are on
    ) -> None:
        self.max_bytes, self.uploads, self.window, self.clock = max_bytes, uploads, window, clock
        self.files = RateLimitItemPerSecond(uploads, window, namespace="upload-files")
        self.bytes = RateLimitItemPerSecond(max_bytes, window, namespace="upload-bytes")
        self.limiter = FixedWindowRateLimiter(MemoryStorage())
        self._lock = threading.Lock()  # test-then-hit of the two windows as one step

    def charge(self, caller: str, size: int) -> str:
        """Count one upload of ``size`` bytes: "" if within the budget, else why not (nothing counted)."""
        with self._lock:
            if not self.limiter.test(self.files, caller):
                return self._refusal(self.files, caller, f"{self.uploads} files")
            if size > self.max_bytes or not self.limiter.test(self.bytes, caller, cost=max(size, 1)):
                return self._refusal(self.bytes, caller, f"{self.max_bytes // 2**20} MB")
            self.limiter.hit(self.files, caller)
            self.limiter.hit(self.bytes, caller, cost=max(size, 1))
            return ""

    def charge_file(self, caller: str) -> str:
        """Count one more file of an upload whose bytes are counted already: "" or why not."""
        with self._lock:
            if not self.limiter.hit(self.files, caller):
                return self._refusal(self.files, caller, f"{self.uploads} files")
            return ""

    def _refusal(self, item, caller: str, what: str) -> str:
        reset = self.limiter.get_window_stats(item, caller).reset_time
        wait = max(1, round(reset - self.clock()))
        return TOO_MANY_UPLOADS.format(why=f"{what} in {self.window / 60:.0f} minutes", wait=wait)


def upload_budget(settings: Settings) -> UploadBudget:
    """The per-caller budget of a deployment (module doc)."""
    uploads = max(UPLOADS_PER_WINDOW, settings.max_attempts_per_day)
    scale = uploads / UPLOADS_PER_WINDOW  # a larger allowance of files brings their bytes along
    return UploadBudget(round(UPLOAD_BYTES_FACTOR * settings.max_upload_bytes * scale), uploads)


def no_checks(who: str) -> Checks:
    return Checks(0, 0)


@dataclass(frozen=True)
class UploadPolicy:
    """Who may upload (``auth`` None: no one), how much, and each account's checks (``checks``:
    account name -> :class:`Checks`, :meth:`leaderboard.submitting.Submissions.checks_of`)."""

    auth: Auth | None
    budget: UploadBudget
    checks: Callable[[str], Checks] = no_checks


class UploadGate:
    """ASGI middleware for ``POST /gradio_api/upload`` (see module doc); all else passes. Without
    an ``auth`` (a reader, which has no write path) every upload is refused."""

    def __init__(
        self,
        app,
        auth: Auth | None,
        budget: UploadBudget,
        checks: Callable[[str], Checks] = no_checks,
        refusal_hold: float = REFUSAL_HOLD,
    ) -> None:
        self.app, self.auth, self.budget, self.checks, self.refusal_hold = app, auth, budget, checks, refusal_hold
        self.held: Counter[str] = Counter()  # uploads held now, per caller (one event loop: no lock)
        self.streaming: Counter[str] = Counter()  # uploads let in and not yet answered, per caller

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != UPLOAD_PATH:
            await self.app(scope, receive, send)
            return
        caller, refusal = await asyncio.to_thread(self.caller, scope)  # a token may need the Hub's whoami
        if caller is None:
            await refuse(send, 503 if HUB_UNAVAILABLE.split("{")[0] in refusal else 401, refusal)
            return
        size = content_length(scope)
        if size is None:
            await refuse(send, 411, LENGTH_REQUIRED)
            return
        refusal = self.budget.charge(caller, size)
        if refusal:
            async with self.place(caller) as held:
                await asyncio.sleep(self.refusal_hold if held else 0)
            await refuse(send, 429, refusal)
            return
        async with self.place(caller) as held:
            until = time.monotonic() + UPLOAD_HOLD
            while held and self.busy(caller) and time.monotonic() < until:
                await asyncio.sleep(POLL)
        self.streaming[caller] += 1
        counter = FileCounter.of(scope, lambda: self.budget.charge_file(caller))
        try:
            if counter is None:
                await self.app(scope, receive, send)
            else:
                await counter.run(self.app, scope, receive, send)
        finally:
            self.streaming[caller] -= 1
            if not self.streaming[caller]:
                del self.streaming[caller]

    def busy(self, caller: str) -> bool:
        """Whether the caller's uploads streaming in and checks held fill its bound of checks."""
        return self.streaming[caller] + self.checks(caller).held >= PER_IDENTITY

    @asynccontextmanager
    async def place(self, caller: str) -> AsyncIterator[bool]:
        """A place to hold an upload in (True), or none (False: answer at once), per caller and in all."""
        if self.held[caller] >= HELD_PER_CALLER or self.held.total() >= HELD_IN_ALL:
            yield False
            return
        self.held[caller] += 1
        try:
            yield True
        finally:
            self.held[caller] -= 1
            if not self.held[caller]:
                del self.held[caller]

    def caller(self, scope) -> tuple[str | None, str]:
        """The caller's account name and "", or None and why no one (what :class:`ui.auth.Auth`
        says: no token, a token the Hub refuses, the Hub unavailable, too many unknown tokens)."""
        if self.auth is None:
            return None, NO_UPLOADS
        user = signed_in_user(scope) if self.auth.oauth else None
        if user:
            return user, ""
        caller = self.auth.caller(None, Request(scope))  # locally: the local identity
        if caller.identity is None:
            return None, UPLOAD_REFUSED + caller.refusal
        return caller.identity.username, ""


def signed_in_user(scope) -> str | None:
    """The account in the OAuth session cookie (``SessionMiddleware`` runs before this gate and
    checked the signature), while its sign-in has not expired."""
    info = (scope.get("session") or {}).get("oauth_info") if "session" in scope else None
    if not isinstance(info, dict) or float(info.get("expires_at") or 0) < time.time():
        return None
    name = (info.get("userinfo") or {}).get("preferred_username")
    return str(name) if name else None


def content_length(scope) -> int | None:
    values = [value for name, value in scope["headers"] if name == b"content-length"]
    if len(values) != 1 or not values[0].strip().isdigit():
        return None
    return int(values[0])


async def refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message, "detail": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class FileCounter:
    """Counts the files of one multipart upload as its body streams in: each part after the first
    is charged (``charge``: "" or why not); past :data:`FILES_PER_UPLOAD` or the budget, the app
    reads no more of the body (it sees the client gone, and what it would answer is dropped) and
    the caller is answered 429 once its body has arrived."""

    def __init__(self, boundary: bytes, charge: Callable[[], str]) -> None:
        self.delimiter, self.charge = b"--" + boundary, charge
        self.parts, self.tail, self.refusal = 0, b"", ""
        self.answered = False

    @classmethod
    def of(cls, scope, charge: Callable[[], str]) -> FileCounter | None:
        """A counter for a multipart request (None for any other body: one file, as charged)."""
        values = [v for name, v in scope["headers"] if name == b"content-type"]
        kind, _, params = (values[0] if values else b"").partition(b";")
        if kind.strip().lower() != b"multipart/form-data":
            return None
        for param in params.split(b";"):
            key, _, value = param.strip().partition(b"=")
            if key.lower() == b"boundary" and value:
                return cls(value.strip(b'"'), charge)
        return None

    def count(self, chunk: bytes) -> str:
        """Note a chunk of the body; why the upload is refused ("" while it is not). A delimiter
        followed by ``--`` closes the body; any other opens a part (a file)."""
        text, d, pos = self.tail + chunk, self.delimiter, 0
        while (at := text.find(d, pos)) >= 0:
            end = at + len(d)
            if len(text) - end < 2:  # what follows it has not arrived: look again with the next chunk
                self.tail = text[at:]
                return self.refusal
            if text[end : end + 2] != b"--":
                self._opened()
            pos = end
        self.tail = text[max(pos, len(text) - len(d) + 1) :]
        return self.refusal

    def _opened(self) -> None:
        self.parts += 1
        if self.parts >= 2 and not self.refusal:
            self.refusal = TOO_MANY_FILES.format(n=FILES_PER_UPLOAD) if self.parts > FILES_PER_UPLOAD else self.charge()

    async def run(self, app, scope, receive, send) -> None:
        """The app on this request; refused, the app sees the client gone and its answer is dropped,
        the rest of the body is read and thrown away (a client still sending would not see an early
        answer), then the refusal is sent."""
        ended = False

        async def counted_receive():
            nonlocal ended
            if self.answered:
                return {"type": "http.disconnect"}
            message = await receive()
            ended = message["type"] != "http.request" or not message.get("more_body", False)
            if message["type"] == "http.request" and self.count(message.get("body", b"")):
                self.answered = True
                return {"type": "http.disconnect"}
            return message

        async def guarded_send(message) -> None:
            if not self.answered:
                await send(message)

        try:
            await app(scope, counted_receive, guarded_send)
        except Exception:
            if not self.answered:
                raise
        if self.answered:
            while not ended:
                message = await receive()
                ended = message["type"] != "http.request" or not message.get("more_body", False)
            await refuse(send, 429, self.refusal)
