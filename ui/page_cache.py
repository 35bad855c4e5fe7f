"""``GET /`` and ``GET /config`` from a cache, gzipped once per page version (ASGI middleware).

Gradio rebuilds both on every request: a deep copy of the page config plus a walk that writes
the root URL into it (8-10 ms of CPU for this page, 60 ms with 1,000-row boards baked in), and
sends the page uncompressed (its Brotli middleware only compresses paths with a file extension).
Both answers depend only on the page config, which changes only when :class:`ui.baked.PageBaker`
re-bakes (its ``version``), and on the root URL Gradio writes into them, which :mod:`ui.origin`
pins to the configured one (a full-URL ``root_path``), so no request header shapes them. The
key is therefore (version, path) and nothing a client sends: the first request per key renders
through Gradio; concurrent ones wait for it; the rest get the stored bytes, gzipped when the
client accepts gzip (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``). Install it only
with the root pinned (:func:`ui.launch_options` does both).

Not cached, passed to Gradio untouched: anything but GET, requests with Gradio's login cookie
(``access-token-*``: the page names the user) or a ``page``/``deep_link``/``all_endpoints``
query (another page or a stored state), and any answer that is not a plain 200 or sets a cookie.
Installed through FastAPI's documented ``middleware=`` argument (``launch(app_kwargs=...)``).
"""

from __future__ import annotations

import asyncio
import gzip
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qs

CACHED_PATHS = frozenset({"/", "/config", "/config/"})
UNCACHED_QUERIES = frozenset({"page", "deep_link", "all_endpoints"})
PAGES_KEPT = 32


@dataclass(frozen=True)
class CachedAnswer:
    """One rendered answer: its headers (without length or encoding), its body, gzipped too."""

    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    gzipped: bytes

    async def send(self, send, accepts_gzip: bool) -> None:
        body = self.gzipped if accepts_gzip else self.body
        headers = [*self.headers, (b"content-length", str(len(body)).encode()), (b"vary", b"accept-encoding")]
        if accepts_gzip:
            headers.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class PageCache:
    """The middleware (see module doc); ``version`` says which page config is current."""

    def __init__(self, app, version: Callable[[], int], kept: int = PAGES_KEPT) -> None:
        self.app = app
        self.version = version
        self.kept = kept
        self._answers: OrderedDict[tuple, CachedAnswer] = OrderedDict()
        self._rendering: dict[tuple, asyncio.Future] = {}

    async def __call__(self, scope, receive, send) -> None:
        key = self.key(scope)
        if key is None:
            await self.app(scope, receive, send)
            return
        answer = self._answers.get(key)
        if answer is None:
            answer = await self._render_once(key, scope, receive, send)
            if answer is None:  # not cacheable: already sent as Gradio answered
                return
        else:
            self._answers.move_to_end(key)
        await answer.send(send, accepts_gzip(scope))

    def key(self, scope) -> tuple | None:
        """The cache key of a request, or None when it must go to Gradio."""
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in CACHED_PATHS:
            return None
        if any(name == b"cookie" and b"access-token" in value for name, value in scope["headers"]):
            return None  # every copy of the header is looked at, not only the first or the last
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if UNCACHED_QUERIES & set(query):
            return None
        return (self.version(), scope["path"])

    async def _render_once(self, key: tuple, scope, receive, send) -> CachedAnswer | None:
        """Render through Gradio once per key; concurrent requests for the key wait for it."""
        pending = self._rendering.get(key)
        if pending is not None:
            answer = await asyncio.shield(pending)
            if answer is not None:
                return answer
            await self.app(scope, receive, send)  # the first one was not cacheable: neither is this
            return None
        future = asyncio.get_running_loop().create_future()
        self._rendering[key] = future
        try:
            answer = await self._render(scope, receive, send)
        except BaseException:  # waiters then ask Gradio themselves
            future.set_result(None)
            raise
        else:
            future.set_result(answer)
        finally:
            self._rendering.pop(key, None)
        if answer is not None:
            self._answers[key] = answer
            while len(self._answers) > self.kept:
                self._answers.popitem(last=False)
        return answer

    async def _render(self, scope, receive, send) -> CachedAnswer | None:
        """Gradio's answer, kept if cacheable; otherwise passed on as it came and None returned."""
        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        headers = [(k.lower(), v) for k, v in start.get("headers", [])]
        names = {k for k, _ in headers}
        if start.get("status") != 200 or b"set-cookie" in names or b"content-encoding" in names:
            await send({"type": "http.response.start", "status": start.get("status", 500), "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return None
        kept = tuple((k, v) for k, v in headers if k not in (b"content-length", b"vary"))
        gzipped = await asyncio.to_thread(gzip.compress, body, 6, mtime=0)  # once per version, off the loop
        return CachedAnswer(kept, body, gzipped)


def accepts_gzip(scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"accept-encoding":
            return any(part.split(b";")[0].strip() == b"gzip" for part in value.lower().split(b","))
    return False
