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
  ``Content-Length`` (browsers and gradio_client send it; without one, 411); beyond, 429;
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

from starlette.requests import Request

from leaderboard.config import Settings
from ui.auth import HUB_UNAVAILABLE, Auth

UPLOAD_PATH = "/gradio_api/upload"
UPLOAD_WINDOW = 600.0  # seconds
UPLOADS_PER_WINDOW = 20
UPLOAD_BYTES_FACTOR = 4  # times LEADERBOARD_MAX_UPLOAD_MB per caller and window
UPLOAD_MAX_AGE = 900  # seconds an uploaded file is kept
DELETE_CACHE = (300, UPLOAD_MAX_AGE)  # gr.Blocks(delete_cache=(every, older than)) in seconds
MAX_CALLERS = 10_000

UPLOAD_REFUSED = "Upload refused. "  # then what ui.auth says (e.g. ui.auth.NO_TOKEN: how to send a token)
NO_UPLOADS = "This copy of the leaderboard takes no uploads."
TOO_MANY_UPLOADS = "Too many uploads from your account: {why}. Try again in {wait} s."
LENGTH_REQUIRED = "An upload must say its size (Content-Length)."


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
            now = self.clock()
            spent = self._spent.pop(caller, None)
            if spent is None or now - spent.started >= self.window:
                spent = _Spent(now)
            self._spent[caller] = spent
            while len(self._spent) > MAX_CALLERS:
                self._spent.popitem(last=False)
            wait = max(1, round(spent.started + self.window - now))
            if spent.uploads + 1 > self.uploads:
                return TOO_MANY_UPLOADS.format(why=f"{self.uploads} files in {self.window / 60:.0f} minutes", wait=wait)
            if spent.bytes + size > self.max_bytes:
                why = f"{self.max_bytes // 2**20} MB in {self.window / 60:.0f} minutes"
                return TOO_MANY_UPLOADS.format(why=why, wait=wait)
            spent.uploads += 1
            spent.bytes += size
            return ""


def upload_budget(settings: Settings) -> UploadBudget:
    """The per-caller budget of a deployment (module doc)."""
    uploads = max(UPLOADS_PER_WINDOW, settings.max_attempts_per_day)
    scale = uploads / UPLOADS_PER_WINDOW  # a larger allowance of files brings their bytes along
    return UploadBudget(round(UPLOAD_BYTES_FACTOR * settings.max_upload_bytes * scale), uploads)


@dataclass(frozen=True)
class UploadPolicy:
    """Who may upload (``auth`` None: no one) and how much."""

    auth: Auth | None
    budget: UploadBudget


class UploadGate:
    """ASGI middleware for ``POST /gradio_api/upload`` (see module doc); all else passes. Without
    an ``auth`` (a reader, which has no write path) every upload is refused."""

    def __init__(self, app, auth: Auth | None, budget: UploadBudget) -> None:
        self.app, self.auth, self.budget = app, auth, budget

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
            await refuse(send, 429, refusal)
            return
        await self.app(scope, receive, send)

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
