"""Who is acting: the Hugging Face account on a Space, else the configured local identity.

On a Space a scripted client identifies with its HF token (``Authorization: Bearer``) and the
Hub's ``whoami`` says whose it is, never a name typed by the caller. Answers are kept in a cache
bounded in size and in age: a flood of made-up tokens cannot grow memory, and a revoked token
stops working within ``TOKEN_MAX_AGE`` seconds.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import gradio as gr

from leaderboard.config import UiSettings
from submissions.records import Identity
from ui.display import escape_markdown

TOKEN_MAX_AGE = 600.0  # seconds
TOKEN_CACHE_SIZE = 1024


class BoundedTtlCache:
    """At most ``max_entries`` answers, each forgotten ``max_age`` seconds after it was stored.
    Thread-safe; the least recently used entry goes first when full."""

    def __init__(self, max_entries: int, max_age: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.max_age = max_age
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, key: str) -> tuple[bool, str | None]:
        """(found, value); a stored None (an invalid token) is found too."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or self.clock() - entry[0] >= self.max_age:
                self._entries.pop(key, None)
                return False, None
            self._entries.move_to_end(key)
            return True, entry[1]

    def store(self, key: str, value: str | None) -> None:
        with self._lock:
            self._entries[key] = (self.clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


def hub_username(token: str) -> str | None:
    """The Hub account a token belongs to; None for an invalid token or an unreachable Hub."""
    try:
        from huggingface_hub import whoami

        return whoami(token=token).get("name")
    except Exception:  # an invalid token is simply not an identity
        return None


class Auth:
    """Identity and maintainer checks for every tab, from the UI settings."""

    def __init__(
        self,
        settings: UiSettings,
        username_of_token: Callable[[str], str | None] = hub_username,
        tokens: BoundedTtlCache | None = None,
    ) -> None:
        self.settings = settings
        self.username_of_token = username_of_token
        self.tokens = tokens if tokens is not None else BoundedTtlCache(TOKEN_CACHE_SIZE, TOKEN_MAX_AGE)

    @property
    def oauth(self) -> bool:
        return self.settings.oauth

    def identity(self, profile: gr.OAuthProfile | None, request: gr.Request | None) -> Identity | None:
        """Who is acting: the signed-in HF user on a Space, else the configured local identity."""
        if not self.oauth:
            return Identity(self.settings.local_user, source="local")
        name = profile.username if profile is not None else self.bearer_user(request)
        if not name:
            return None
        return Identity(name, is_maintainer=name in self.settings.maintainers, source="huggingface")

    def bearer_user(self, request: gr.Request | None) -> str | None:
        """The Hub account of the request's bearer token (cached by the token's hash)."""
        header = (request.headers.get("authorization", "") if request is not None else "") or ""
        if not header.lower().startswith("bearer "):
            return None
        token = header[7:].strip()
        key = hashlib.sha256(token.encode()).hexdigest()
        found, name = self.tokens.lookup(key)
        if not found:
            name = self.username_of_token(token)
            self.tokens.store(key, name)
        return name

    def is_maintainer(self, profile: gr.OAuthProfile | None) -> bool:
        """A signed-in maintainer account (only with OAuth; locally the admin token opens the tab)."""
        return self.oauth and profile is not None and profile.username in self.settings.maintainers

    def admin_token_matches(self, token: str | None) -> bool:
        expected = self.settings.admin_token or ""
        return bool(expected) and hmac.compare_digest((token or "").encode(), expected.encode())

    def greeting(self, profile: gr.OAuthProfile | None = None) -> str:
        if not self.oauth:
            return (
                f"Signed in locally as **{escape_markdown(self.settings.local_user)}** "
                "(local identity, `LEADERBOARD_LOCAL_USER`)."
            )
        if profile is None:
            return "Not signed in: sign in with Hugging Face to submit."
        return f"Signed in with Hugging Face as **{escape_markdown(profile.username)}**."
