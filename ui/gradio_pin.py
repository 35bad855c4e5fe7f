"""The one Gradio version the app's few uses of Gradio internals were checked against.

Everything else in :mod:`ui` uses Gradio's public API. What still leans on Gradio's page structure
(:data:`ui.links.TAB_SWITCH_JS` reads the tab bar's DOM to put the open tab in the address) asks
:func:`internals_allowed` first: on any other version it is switched off, with one log line, and
the app works without it (``tests/ui/test_gradio_pin.py`` starts the app under another version).
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
