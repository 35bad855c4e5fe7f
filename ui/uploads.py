"""Who may upload, how much, and for how long the files stay (attacks.md #7).

Gradio's ``POST /gradio_api/upload`` stores any file under the size limit for anyone, and keeps
it: 20 anonymous 5 MB uploads in half a second grew the temp folder by 95 MB. :class:`UploadGate`
(ASGI middleware, installed by :func:`ui.mount_options`) answers it first:

- only an identified caller may upload: the signed-in session (the OAuth session cookie), a
  valid HF token in ``Authorization`` or ``X-HF-Authorization`` (gradio_client's ``token=``),
  or, in local mode, the local identity (:class:`ui.auth.Auth` decides, as for every action);
  anyone else gets 401 with how to sign in;
- each caller gets ``UPLOADS_PER_WINDOW`` uploads and ``UPLOAD_BYTES_FACTOR`` times the upload
  limit in bytes per ``UPLOAD_WINDOW`` seconds (both scaled up when the daily attempts quota is
  larger: a deployment that allows more submissions allows their uploads), charged by
  ``Content-Length`` (browsers and gradio_client send it; without one, 411); beyond, 429; an
  upload of which not a byte was read and nothing stored (its sender left while it was held) is
  given back;
- an account whose uploads and checks fill its bound of checks (:mod:`ui.upload_line`) has its
  next upload wait at the door, its body not read, first come first in, until a check ends, at
  most ``UPLOAD_HOLD`` s: under gradio_client's default read timeout (httpx's 5 s), so README's
  script still gets an answer; then it goes in, and its check answers ``retry`` if the account still
  holds two (as before the door held anything). Six validate-only loops used to send 27 MB each
  into the web process only to be told to send it again; a refusal is held ``REFUSAL_HOLD`` s
  before it is answered, so a loop cannot make the web process read and throw away 27 MB forty
  times a second (:mod:`ui.door_holds`; beyond its places, at once); an upload let in that sends
  nothing for ``BODY_IDLE`` s is answered 408 and stops counting for its account;
- every upload is deleted ``UPLOAD_MAX_AGE`` seconds after it arrived, by Gradio's own
  ``delete_cache`` sweep (:data:`DELETE_CACHE`, a ``gr.Blocks`` argument), which also removes the
  copies of per-search downloads Gradio serves; the files baked into the page are kept
  (Gradio's ``keep_in_cache``). A stored submission has its own copy in the store.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request

from leaderboard.config import Settings
from submissions.fair_queue import Checks
from ui.auth import HUB_UNAVAILABLE, Auth
from ui.door_holds import Holds
from ui.upload_line import UploadLine, no_checks

UPLOAD_PATH = "/gradio_api/upload"
UPLOAD_WINDOW = 600.0  # seconds
UPLOADS_PER_WINDOW = 20
UPLOAD_BYTES_FACTOR = 4  # times LEADERBOARD_MAX_UPLOAD_MB per caller and window
UPLOAD_MAX_AGE = 900  # seconds an uploaded file is kept
DELETE_CACHE = (300, UPLOAD_MAX_AGE)  # gr.Blocks(delete_cache=(every, older than)) in seconds
MAX_CALLERS = 10_000
UPLOAD_HOLD = 4.0
"""Seconds an upload waits at most for its account's checks (a 27 MB check takes ~2 s): under the
5 s read timeout gradio_client gives httpx unless told otherwise (README's ``Client(url)``)."""
REFUSAL_HOLD = 3.0  # seconds a refused upload waits before it is answered (its body unread meanwhile)
HELD_PER_CALLER = 8  # an unread upload holds its sender's socket buffers (MBs): few places
HELD_IN_ALL = 64
BODY_IDLE = 30.0
"""Seconds an upload let in may send nothing before it is answered 408: uvicorn has no read
timeout, and a body that stopped coming kept its upload counted (its account busy) for as long as
the socket stayed open, which also bought a caller its held places for no bytes at all."""
POLL = 0.1  # seconds between looks at a held upload's account (the checks run on threads)
LANDING = 2.0
"""Seconds an arrived upload counts for its account at most while no check has matched it (the
client's submit call comes after the upload's answer; :mod:`ui.upload_line`)."""

UPLOAD_REFUSED = "Upload refused. "  # then what ui.auth says (e.g. ui.auth.NO_TOKEN: how to send a token)
NO_UPLOADS = "This copy of the leaderboard takes no uploads."
TOO_MANY_UPLOADS = "Too many uploads from your account: {why}. Try again in {wait} s."
LENGTH_REQUIRED = "An upload must say its size (Content-Length)."
BODY_STOPPED = "Upload stopped: nothing of the file came for {idle:g} s. Please send it again."


@dataclass
class _Spent:
    started: float
    uploads: int = 0
    bytes: int = 0


class UploadBudget:
    """Per caller: at most ``uploads`` uploads and ``max_bytes`` bytes per ``window`` seconds
    (a fixed window from the caller's first upload in it). Thread-safe, bounded in callers."""

    def __init__(
        self,
        max_bytes: int,
        uploads: int = UPLOADS_PER_WINDOW,
        window: float = UPLOAD_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_bytes, self.uploads, self.window, self.clock = max_bytes, uploads, window, clock
        self._spent: OrderedDict[str, _Spent] = OrderedDict()
        self._lock = threading.Lock()

    def charge(self, caller: str, size: int) -> str:
        """Count one upload of ``size`` bytes: "" if within the budget, else why not (nothing counted)."""
        with self._lock:
            spent = self._spent_of(caller)
            refusal = self._refusal(spent, size)
            if not refusal:
                spent.uploads += 1
                spent.bytes += size
            return refusal

    def refund(self, caller: str, size: int, charged_at: float) -> None:
        """Give back an upload of ``size`` bytes charged at ``charged_at`` (its sender left before
        a byte was read), unless the caller's window has started anew since."""
        with self._lock:
            spent = self._spent.get(caller)
            if spent is not None and spent.started <= charged_at:
                spent.uploads, spent.bytes = max(0, spent.uploads - 1), max(0, spent.bytes - size)

    def refusal(self, caller: str, size: int) -> str:
        """Why an upload of ``size`` bytes would be refused now ("" if it would not); nothing counted."""
        with self._lock:
            return self._refusal(self._spent_of(caller), size)

    def _spent_of(self, caller: str) -> _Spent:
        now = self.clock()
        spent = self._spent.pop(caller, None)
        if spent is None or now - spent.started >= self.window:
            spent = _Spent(now)
        self._spent[caller] = spent
        while len(self._spent) > MAX_CALLERS:
            self._spent.popitem(last=False)
        return spent

    def _refusal(self, spent: _Spent, size: int) -> str:
        wait = max(1, round(spent.started + self.window - self.clock()))
        if spent.uploads + 1 > self.uploads:
            return TOO_MANY_UPLOADS.format(why=f"{self.uploads} files in {self.window / 60:.0f} minutes", wait=wait)
        if spent.bytes + size > self.max_bytes:
            why = f"{self.max_bytes // 2**20} MB in {self.window / 60:.0f} minutes"
            return TOO_MANY_UPLOADS.format(why=why, wait=wait)
        return ""


def upload_budget(settings: Settings) -> UploadBudget:
    """The per-caller budget of a deployment (module doc)."""
    uploads = max(UPLOADS_PER_WINDOW, settings.max_attempts_per_day)
    scale = uploads / UPLOADS_PER_WINDOW  # a larger allowance of files brings their bytes along
    return UploadBudget(round(UPLOAD_BYTES_FACTOR * settings.max_upload_bytes * scale), uploads)


@dataclass(frozen=True)
class UploadPolicy:
    """Who may upload (``auth`` None: no one), how much, and each account's checks (``checks``:
    account name -> :class:`Checks`, :meth:`leaderboard.submitting.Submissions.checks_of`)."""

    auth: Auth | None
    budget: UploadBudget
    checks: Callable[[str], Checks] = no_checks


@dataclass(frozen=True)
class DoorTimes:
    """How long the door holds an upload for its account's checks, and a refusal (module doc)."""

    upload: float = UPLOAD_HOLD
    refusal: float = REFUSAL_HOLD
    poll: float = POLL
    landing: float = LANDING
    body_idle: float = BODY_IDLE


class UploadGate:
    """ASGI middleware for ``POST /gradio_api/upload`` (see module doc); all else passes. Without
    an ``auth`` (a reader, which has no write path) every upload is refused."""

    def __init__(
        self,
        app,
        auth: Auth | None,
        budget: UploadBudget,
        checks: Callable[[str], Checks] = no_checks,
        times: DoorTimes = DoorTimes(),
    ) -> None:
        self.app, self.auth, self.budget, self.times = app, auth, budget, times
        self.line = UploadLine(checks, times.landing)
        self.holds = Holds(HELD_PER_CALLER, HELD_IN_ALL)

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
        refusal = self.budget.refusal(caller, size)
        if refusal:  # over its budget: no use waiting for a turn
            await self.held_refusal(caller, refusal, send)
            return
        await self.let_in(caller)
        stored, read, charged_at = False, [0], self.budget.clock()
        try:
            refusal = self.budget.charge(caller, size)
            if refusal:
                await self.held_refusal(caller, refusal, send)
                return
            stored = await self.pass_on(scope, counted(receive, read), send)
        finally:
            self.line.arrived(caller, stored)
            if not refusal and not stored and not read[0]:  # e.g. its sender left while it was held
                self.budget.refund(caller, size, charged_at)

    async def let_in(self, caller: str) -> None:
        """Let ``caller``'s upload in when its turn comes, or after :attr:`DoorTimes.upload` s, or
        at once when the holds have no place for it to wait in."""
        with self.holds.place(caller) as held:
            ticket = self.line.join(caller)
            try:
                until = time.monotonic() + self.times.upload
                while not self.line.may_enter(caller, ticket):
                    if not held or time.monotonic() >= until:
                        self.line.enter(caller, ticket)
                        return
                    await asyncio.sleep(self.times.poll)
            finally:
                self.line.leave(caller, ticket)

    async def pass_on(self, scope, receive, send) -> bool:
        """Gradio's upload route; True when it answered 200 (a file is stored to be checked)."""
        status, idle = [], []

        async def body() -> dict:
            try:
                return await asyncio.wait_for(receive(), self.times.body_idle)
            except TimeoutError:
                idle.append(True)
                return {"type": "http.disconnect"}  # Gradio's route stops reading (ClientDisconnect)

        async def watched(message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        try:
            await self.app(scope, body, watched)
        except ClientDisconnect:
            if not idle or status:
                raise
            await refuse(send, 408, BODY_STOPPED.format(idle=self.times.body_idle))
        return status == [200]

    async def held_refusal(self, caller: str, refusal: str, send) -> None:
        """429 with ``refusal``, after :attr:`DoorTimes.refusal` s when a place is free."""
        with self.holds.place(caller) as held:
            if held:
                await asyncio.sleep(self.times.refusal)
        await refuse(send, 429, refusal)

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


def counted(receive, read: list[int]):
    """``receive`` adding the body bytes it gives to ``read[0]``."""

    async def counting() -> dict:
        message = await receive()
        read[0] += len(message.get("body", b""))
        return message

    return counting


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
