"""The one Gradio version the app's few uses of Gradio internals were checked against.

Everything else in :mod:`ui` uses Gradio's public API. Each use of an internal asks
:func:`internals_allowed` first: on any other version it is switched off, with one log line, and
the app works without it (``tests/ui/test_gradio_pin.py`` starts the app under another version):

- :data:`ui.links.TAB_SWITCH_JS` reads the tab bar's DOM to put the open tab in the address;
- :func:`ui.origin.restrict_gradio_cors` replaces ``CustomCORSMiddleware.is_valid_origin``
  (off: :class:`ui.origin.OriginGuard` still refuses every foreign write);
- :func:`ui.oauth.use_real_oauth` replaces ``gradio.routes.attach_oauth`` (off, on a Space:
  Gradio's own real OAuth routes; off a Space sign-in refuses to start, since Gradio's own would
  sign every visitor in as the machine's account).

The upload gate (:mod:`ui.uploads`) stands in front of a path, Gradio's upload route: it runs on
any version, and :func:`serves` checks at start that Gradio serves uploads there, saying loudly
when it does not (a gate at a moved route would gate nothing).
"""

from __future__ import annotations

import logging

import gradio as gr

PINNED_GRADIO = "6.31.0"  # requirements.txt pins gradio[oauth]==6.31.0, README's sdk_version too

log = logging.getLogger(__name__)
_warned: set[str] = set()


def internals_allowed(what: str) -> bool:
    """True on the pinned Gradio; otherwise False, logging once per ``what`` that it is off."""
    if gr.__version__ == PINNED_GRADIO:
        return True
    if what not in _warned:
        _warned.add(what)
        log.warning("gradio %s is not the pinned %s: %s is switched off", gr.__version__, PINNED_GRADIO, what)
    return False


def serves(app, path: str, prefix: str = "") -> bool:
    """Whether ``app`` (the server with Gradio mounted) has a route at ``path``: in its mounts and
    included routers too (FastAPI keeps an included router's routes behind ``original_router``)."""
    for route in getattr(app, "routes", ()):
        here = prefix + str(getattr(route, "path", None) or "")
        if here == path:
            return True
        router = getattr(route, "original_router", None)
        included = prefix + str(getattr(getattr(route, "include_context", None), "prefix", ""))
        if router is not None and serves(router, path, included):
            return True
        inner = getattr(route, "app", None)
        if inner is not None and inner is not app and serves(inner, path, here):
            return True
    return False
