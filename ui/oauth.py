"""Sign in with Hugging Face through the real OAuth routes only, with a session key we choose.

Gradio attaches OAuth itself when the page has a ``LoginButton``. Off a Space it mounts *mocked*
routes that sign every visitor in as the machine's HF account, and it signs the session cookie
with ``sha256(OAUTH_CLIENT_SECRET + "-v4")``, a public constant when that secret is empty. Both
are unfit for a served leaderboard, so :func:`use_real_oauth` swaps Gradio's ``attach_oauth``
for one that always mounts the real routes (which need the ``OAUTH_*`` app variables,
checked by ``leaderboard.config``) and signs cookies with ``LEADERBOARD_SESSION_SECRET`` when set,
else, on a Space only, with Gradio's derivation from the Space's secret OAuth client secret. The
cookie is ``SameSite=Lax``, so no other site's page sends it.
"""

from __future__ import annotations

import hashlib

import gradio.oauth
import gradio.routes
from fastapi import FastAPI
from starlette.middleware.sessions import SessionMiddleware

from leaderboard.config import UiSettings
from ui.gradio_pin import PINNED_GRADIO, internals_allowed

REAL_OAUTH = "the real OAuth routes and our session key (ui.oauth)"


def session_key(settings: UiSettings) -> str:
    """The key that signs session cookies; never derived from an empty or public value."""
    if settings.session_secret:
        return hashlib.sha256(settings.session_secret.encode()).hexdigest()
    client_secret = gradio.oauth.OAUTH_CLIENT_SECRET or ""
    if not settings.on_space or not client_secret:
        raise RuntimeError("LEADERBOARD_SESSION_SECRET is required to sign session cookies outside a Space")
    return hashlib.sha256((client_secret + "-v4").encode()).hexdigest()  # Gradio's own, on a Space


def use_real_oauth(settings: UiSettings) -> None:
    """From now on, an app that shows a LoginButton gets the real OAuth routes and our session key.

    Process-wide (Gradio looks ``attach_oauth`` up in ``gradio.routes`` when it builds the app),
    so it is called once, before ``launch``. Fails loudly if Gradio no longer has the hooks. On
    a Gradio other than the pinned one it is switched off (:mod:`ui.gradio_pin`): on a Space
    Gradio's own real routes sign visitors in; off a Space it refuses to start, since Gradio's
    own would sign every visitor in as the machine's account."""
    if not internals_allowed(REAL_OAUTH):
        if not settings.on_space:
            raise RuntimeError(f"sign-in off a Space needs {REAL_OAUTH}, checked on Gradio {PINNED_GRADIO} only")
        return
    if not callable(getattr(gradio.routes, "attach_oauth", None)) or not callable(
        getattr(gradio.oauth, "_add_oauth_routes", None)
    ):
        raise RuntimeError("this Gradio version has no attach_oauth/_add_oauth_routes to replace: check ui/oauth.py")
    key = session_key(settings)

    def attach_oauth(app: FastAPI) -> None:
        gradio.oauth._add_oauth_routes(app)
        # Lax, not Gradio's None: a page on another site must not send the visitor's session along
        # (attacks.md #4). The cost: inside huggingface.co's iframe the cookie is third-party and
        # not sent, so visitors sign in on the Space's own address (docs/deployment.md).
        app.add_middleware(SessionMiddleware, secret_key=key, same_site="lax", https_only=True)

    gradio.routes.attach_oauth = attach_oauth
