"""Who is acting: the Hugging Face account on a Space, else the configured local identity.

In the browser the Space's OAuth session says who the visitor is. A scripted client proves it
with its own HF token, sent any of three ways: gradio_client's ``Client(space, token=...)``
(the ``X-HF-Authorization`` header), an ``Authorization: Bearer`` header, or
``Client(space, oauth_token=...)`` (a ``gr.OAuthToken`` parameter). The Hub's ``whoami`` says
whose token it is, never a name typed by the caller. Answers are cached, bounded in size and
age: a flood of made-up tokens cannot grow memory, a revoked token stops working within
``TOKEN_MAX_AGE`` seconds, and a Hub hiccup (429, 5xx, no answer) is remembered only for
``UNAVAILABLE_MAX_AGE`` seconds so that it never locks a real user out for long.

Unknown tokens cost an outbound call each, and a cache by token cannot help when every token is
new (attacks.md #12: 100 random tokens, 100 whoami calls). So each client's unknown tokens are
counted too, for ``UNKNOWN_WINDOW`` seconds, in a cache as bounded as the token cache: after
``UNKNOWN_TOKENS_PER_CLIENT`` of them a client's next new token is refused without asking the
Hub. Tokens already known, and other clients, are unaffected. The client is
:func:`ui.throttle.client_of` (the Space proxy's address, else the socket's peer).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr

from leaderboard.config import UiSettings
from submissions.records import Identity
from ui.display import escape_markdown
from ui.throttle import client_of, trusted

log = logging.getLogger(__name__)

TOKEN_MAX_AGE = 600.0  # seconds a valid token's account is remembered
INVALID_MAX_AGE = 60.0  # a token the Hub refused (401)
UNAVAILABLE_MAX_AGE = 5.0  # the Hub could not answer: ask again soon
TOKEN_CACHE_SIZE = 1024
UNKNOWN_TOKENS_PER_CLIENT = 10  # new tokens the Hub refused, per client and window, before we stop asking
UNKNOWN_WINDOW = 60.0  # seconds
WHOAMI_TIMEOUT = 10.0  # seconds

HOW_TO_SEND_A_TOKEN = (
    "sign in with Hugging Face on the page, or from code pass your HF token: "
    '`Client("<space>", token="hf_...")` (gradio_client), or the header `Authorization: Bearer hf_...`'
)
NO_TOKEN = "Not signed in: " + HOW_TO_SEND_A_TOKEN + "."
INVALID_TOKEN = (
    "The Hub does not accept this Hugging Face token (401): check or create one at "
    "https://huggingface.co/settings/tokens."
)
TOO_MANY_UNKNOWN_TOKENS = (
    "Too many Hugging Face tokens the Hub does not accept came from your address: "
    f"try again in {UNKNOWN_WINDOW:.0f} s with a valid one (https://huggingface.co/settings/tokens)."
)
HUB_UNAVAILABLE = (
    "Could not check your Hugging Face token: the Hub answered {status}. This is not your token's fault; "
    "try again in a minute."
)


class BoundedTtlCache:
    """At most ``max_entries`` answers, each forgotten ``max_age`` seconds (or its own age) after
    it was stored. Thread-safe; the least recently used entry goes first when full."""

    def __init__(self, max_entries: int, max_age: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.max_age = max_age
        self.clock = clock
        self._entries: OrderedDict[str, tuple[float, object]] = OrderedDict()  # key -> (expires at, value)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, key: str) -> tuple[bool, object]:
        """(found, value); a stored None is found too."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or self.clock() >= entry[0]:
                self._entries.pop(key, None)
                return False, None
            self._entries.move_to_end(key)
            return True, entry[1]

    def store(self, key: str, value: object, max_age: float | None = None) -> None:
        with self._lock:
            self._entries[key] = (self.clock() + (self.max_age if max_age is None else max_age), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


@dataclass(frozen=True)
class TokenCheck:
    """The Hub's answer about one token: its account, or why there is none."""

    username: str | None = None
    orgs: tuple[str, ...] = ()
    refusal: str = ""  # "" when the token is valid

    @classmethod
    def invalid(cls) -> TokenCheck:
        return cls(refusal=INVALID_TOKEN)

    @classmethod
    def unavailable(cls, status: str) -> TokenCheck:
        return cls(refusal=HUB_UNAVAILABLE.format(status=status))


def hub_whoami(token: str) -> TokenCheck:
    """Ask the Hub (``HF_ENDPOINT``) whose token this is, with a timeout.

    401/403 mean the token is not valid; 429, 5xx and network errors mean "try again later"."""
    from huggingface_hub import constants
    from huggingface_hub.utils import build_hf_headers, get_session

    try:
        response = get_session().get(
            f"{constants.ENDPOINT}/api/whoami-v2", headers=build_hf_headers(token=token), timeout=WHOAMI_TIMEOUT
        )
    except Exception as error:  # timeout, refused connection, offline mode
        log.warning("whoami failed: %s", type(error).__name__)
        return TokenCheck.unavailable("nothing (no connection)")
    if response.status_code in (401, 403):
        return TokenCheck.invalid()
    if response.status_code != 200:
        log.warning("whoami answered %s", response.status_code)
        return TokenCheck.unavailable(str(response.status_code))
    body = response.json()
    if body.get("type") != "user" or not body.get("name"):
        return TokenCheck.invalid()  # an organisation's or an app's token names no person
    orgs = tuple(str(org["name"]) for org in body.get("orgs") or () if org.get("name"))
    return TokenCheck(username=str(body["name"]), orgs=orgs)


def request_token(request: gr.Request | None, oauth_token: gr.OAuthToken | None = None) -> str:
    """The caller's HF token: a ``gr.OAuthToken``, else ``Authorization``, else ``X-HF-Authorization``.

    gradio_client puts ``token=`` (or, without one, the machine's saved HF login) into
    ``X-HF-Authorization`` and never sets ``Authorization`` itself, so an ``Authorization``
    header is the caller's explicit choice and goes first."""
    if oauth_token is not None and oauth_token.token:
        return oauth_token.token.strip()
    headers = getattr(request, "headers", None) or {}
    for name in ("authorization", "x-hf-authorization"):
        value = (headers.get(name) or "").strip()
        if value[:7].lower() == "bearer ":
            return value[7:].strip()
    return ""


def profile_orgs(profile: gr.OAuthProfile) -> tuple[str, ...]:
    """Organisations in the OAuth userinfo (present when the user granted them to the app)."""
    orgs = profile.get("orgs") if isinstance(profile, dict) else None
    return tuple(str(o.get("preferred_username")) for o in orgs or () if o.get("preferred_username"))


@dataclass(frozen=True)
class Caller:
    """Who is calling, or a message that says why no one and what to do."""

    identity: Identity | None
    refusal: str = ""


class Auth:
    """Identity and maintainer checks for every tab, from the UI settings."""

    def __init__(
        self,
        settings: UiSettings,
        whoami: Callable[[str], TokenCheck] = hub_whoami,
        tokens: BoundedTtlCache | None = None,
    ) -> None:
        self.settings = settings
        self.whoami = whoami
        self.tokens = tokens if tokens is not None else BoundedTtlCache(TOKEN_CACHE_SIZE, TOKEN_MAX_AGE)
        self.unknown = BoundedTtlCache(TOKEN_CACHE_SIZE, UNKNOWN_WINDOW, self.tokens.clock)  # client -> count

    @property
    def oauth(self) -> bool:
        return self.settings.oauth

    def caller(
        self,
        profile: gr.OAuthProfile | None,
        request: gr.Request | None,
        oauth_token: gr.OAuthToken | None = None,
    ) -> Caller:
        """The browser's signed-in account, else the account of the token the request carries."""
        if not self.oauth:
            return Caller(Identity(self.settings.local_user, source="local"))
        if profile is not None:
            return Caller(self._hub_identity(profile.username, profile_orgs(profile)))
        token = request_token(request, oauth_token)
        if not token:
            return Caller(None, NO_TOKEN)
        check = self.check_token(token, client_of(request, trusted(self.settings.trusted_proxies)))
        if check.username is None:
            return Caller(None, check.refusal)
        return Caller(self._hub_identity(check.username, check.orgs))

    def identity(
        self,
        profile: gr.OAuthProfile | None,
        request: gr.Request | None,
        oauth_token: gr.OAuthToken | None = None,
    ) -> Identity | None:
        return self.caller(profile, request, oauth_token).identity

    def check_token(self, token: str, client: str = "") -> TokenCheck:
        """The Hub's answer for a token, cached by the token's hash (never the token itself); a
        ``client`` that sent too many unknown tokens lately gets no new ones checked (module doc)."""
        key = hashlib.sha256(token.encode()).hexdigest()
        found, check = self.tokens.lookup(key)
        if found:
            return check
        _, unknown = self.unknown.lookup(client)
        if client and (unknown or 0) >= UNKNOWN_TOKENS_PER_CLIENT:
            return TokenCheck(refusal=TOO_MANY_UNKNOWN_TOKENS)
        check = self.whoami(token)
        if check.username is not None:
            self.tokens.store(key, check)
        elif check.refusal == INVALID_TOKEN:
            self.tokens.store(key, check, INVALID_MAX_AGE)
            if client:
                self.unknown.store(client, (unknown or 0) + 1)  # the window restarts with each new one
        else:
            self.tokens.store(key, check, UNAVAILABLE_MAX_AGE)
        return check

    def _hub_identity(self, username: str, orgs: tuple[str, ...]) -> Identity:
        return Identity(username, is_maintainer=username in self.settings.maintainers, source="huggingface", orgs=orgs)

    def is_maintainer(self, profile: gr.OAuthProfile | None, request: gr.Request | None = None) -> bool:
        """A signed-in (or token-carrying) maintainer account; only with OAuth."""
        if not self.oauth or (profile is None and not request_token(request)):
            return False
        identity = self.identity(profile, request)
        return identity is not None and identity.is_maintainer

    def admin_token_matches(self, token: str | None) -> bool:
        """Constant-time comparison; no configured token opens nothing."""
        expected = self.settings.admin_token or ""
        given = (token or "").encode()
        return bool(expected) and hmac.compare_digest(
            hashlib.sha256(given).digest(), hashlib.sha256(expected.encode()).digest()
        )

    def greeting(self, profile: gr.OAuthProfile | None = None) -> str:
        if not self.oauth:
            return (
                f"Local mode: **every visitor shares one identity**, **{escape_markdown(self.settings.local_user)}** "
                "(`LEADERBOARD_LOCAL_USER`), with one quota, and sees every upload under *My submissions*. "
                "Do not serve it to the public; on a Space everyone signs in with Hugging Face."
            )
        if profile is None:
            return "Not signed in: sign in with Hugging Face to submit."
        return f"Signed in with Hugging Face as **{escape_markdown(profile.username)}**."
