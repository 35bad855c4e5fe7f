"""Gradio's save-this-session endpoint, closed.

Gradio 6 answers ``GET /gradio_api/deep_link`` (what a ``gr.DeepLinkButton`` calls) by writing the
whole state of the caller's session (every component's config and value) into a file under its
upload folder, one per distinct state, which nothing deletes: a visitor varying a search box between
calls could fill the disk. The app has no deep-link button (its links are addresses: the board page's
query string, :mod:`ui.links`), so :class:`NoSavedStates`, plain ASGI middleware on the app's own
server, answers 404 there.
"""

from __future__ import annotations

SAVED_STATE_PATH = "/gradio_api/deep_link"


class NoSavedStates:
    """ASGI middleware answering 404 to Gradio's save-this-session endpoint (module doc)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["path"].rstrip("/").endswith(SAVED_STATE_PATH):
            body = b'{"detail":"Not Found"}'
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 404, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
