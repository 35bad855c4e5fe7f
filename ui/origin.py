"""Where the app lives, from configuration only: the page's root URL and the origins that may act.

Gradio writes a root URL into every page and config; left alone, it derives it from the
request's ``Host``, ``X-Forwarded-Host``, ``X-Gradio-Server`` and ``X-Forwarded-Proto``
headers (``route_utils.get_request_origin``, first copy of a repeated header), so one request
could plant an attacker's host in a cached page, and the browser then loads that host's script
in the leaderboard's origin (attacks.md #1). Gradio takes a ``root_path`` that is a full URL
as it is (``route_utils.get_root_url``, case 1), so :attr:`PublicOrigin.root` pins it:
``settings.public_url`` (``LEADERBOARD_PUBLIC_URL``, else ``https://$SPACE_HOST``), else the
app's own address (``http://127.0.0.1:<port>``, local mode). No header shapes the page.

The same origin decides who may act (attacks.md #4): :class:`OriginGuard` refuses every
state-changing request whose ``Origin`` is foreign (a browser always sends ``Origin`` on a
cross-site POST; gradio_client sends none), and :func:`restrict_gradio_cors` stops Gradio
reflecting a foreign ``Origin`` with credentials.
"""

from __future__ import annotations

import json
import logging
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import gradio
from gradio import route_utils

from leaderboard.config import WILDCARD_HOSTS, UiSettings
from ui.gradio_pin import PINNED_GRADIO, internals_allowed

log = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
GRADIO_PORTS = range(7860, 7960)  # where Gradio looks for a free port when none is set
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CORS_PATCH = "Gradio's CORS layer limited to our origins (ui.origin)"
FOREIGN_ORIGIN = "Cross-site request refused: this action must come from the leaderboard's own page."


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, default ports dropped (as browsers send it)."""
    parts = urlsplit(url.strip())
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port and port != default else "")


@dataclass(frozen=True)
class PublicOrigin:
    """The page's root URL and the origins whose requests may change anything."""

    root: str
    allowed: frozenset[str]

    @classmethod
    def of(cls, settings: UiSettings, port: int) -> PublicOrigin:
        root = settings.served_root(port)
        if settings.public_url:
            return cls(root, frozenset({origin_of(root)}))
        hosts = {urlsplit(root).netloc.rsplit(":", 1)[0], *LOOPBACK_HOSTS}
        return cls(root, frozenset(f"http://{h}:{port}".lower() for h in hosts))

    def root_for(self, scheme: str, host: str | None) -> str:
        """The root a request reached us at (its scheme and ``Host``) when that is one of
        :attr:`allowed` (and the root has no path); else :attr:`root`. A Host header can only choose
        among our own addresses (``localhost`` or ``127.0.0.1`` at our port), never name another."""
        if not host or urlsplit(self.root).path not in ("", "/"):
            return self.root
        try:
            asked = origin_of(f"{scheme}://{host}")
        except ValueError:  # a port that is no number
            return self.root
        return asked if asked in self.allowed else self.root

    def allows(self, origin: str | None) -> bool:
        """True for no ``Origin`` (not a browser's cross-site request) or exactly one of ours
        (browsers send ``scheme://host[:port]``, nothing more)."""
        return origin is None or origin.lower() in self.allowed


def serving_port(settings: UiSettings) -> int:
    """The configured port, else the first free one of Gradio's range (as Gradio would pick),
    so that the root URL is known before the server starts."""
    if settings.server_port:
        return settings.server_port
    bind_host = "0.0.0.0" if settings.server_name in WILDCARD_HOSTS else settings.server_name
    for port in GRADIO_PORTS:
        with socket.socket(socket.AF_INET6 if ":" in bind_host else socket.AF_INET) as probe:
            try:
                probe.bind((bind_host, port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port in {GRADIO_PORTS.start}-{GRADIO_PORTS.stop - 1}: set GRADIO_SERVER_PORT")


class OriginGuard:
    """ASGI middleware: a request with a foreign ``Origin`` gets 403 unless its method is safe
    (GET, HEAD; OPTIONS is answered by Gradio's CORS layer before this), and a WebSocket with a
    foreign ``Origin`` is closed. Covers every route: ``queue/join``, ``run/predict``,
    ``upload``, the ``/submit`` API, sign-out, whatever a later Gradio adds."""

    def __init__(self, app, origin: PublicOrigin) -> None:
        self.app = app
        self.origin = origin

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket") or self.origin.allows(request_origin(scope)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        log.warning("refused a %s %s from foreign origin %r", scope["method"], scope["path"], request_origin(scope))
        body = json.dumps({"error": FOREIGN_ORIGIN}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def request_origin(scope) -> str | None:
    """The request's ``Origin`` header; several copies are joined, which no allowed origin
    matches, so a repeated header cannot slip one past."""
    values = [value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"origin"]
    return ", ".join(values) if values else None


def restrict_gradio_cors(origin: PublicOrigin, version: str | None = None) -> bool:
    """Make Gradio's CORS layer allow only our origins (process-wide), on the pinned Gradio only.

    ``CustomCORSMiddleware`` answers any ``Origin`` with ``Access-Control-Allow-Origin: <it>``
    and ``Allow-Credentials: true`` unless the Host is localhost; it has no public switch (its
    ``strict_cors`` only concerns ``null``). Its ``is_valid_origin`` decides; we replace it on
    Gradio 6.31.0 (``tests/ui/test_origin.py`` pins its shape). On any other version this logs
    and leaves it: :class:`OriginGuard` still refuses every foreign write. True if replaced."""
    pinned = internals_allowed(CORS_PATCH) if version is None else version == PINNED_GRADIO
    cors = getattr(route_utils, "CustomCORSMiddleware", None)
    if not pinned or not callable(getattr(cors, "is_valid_origin", None)):
        log.warning(
            "Gradio %s is not %s: its CORS layer is left as it is (foreign writes are still refused)",
            gradio.__version__ if version is None else version,
            PINNED_GRADIO,
        )
        return False

    def is_valid_origin(self, request_headers) -> bool:
        return origin.allows(request_headers.get("origin"))

    cors.is_valid_origin = is_valid_origin
    return True
