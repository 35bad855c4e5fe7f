"""Changing what a running page shows first, without a load event: one of the two places that
lean on Gradio internals (gradio 6.31.0; the other is :mod:`ui.sessions`).

Gradio has no public API to change a component's initial value after the ``Blocks`` is built:
a callable ``value=`` *is* a per-visitor load event (``blocks.py:1275-1297``,
``components/base.py:207-224``). What it does at construction, and what we repeat at runtime:

- ``Component.__init__`` (``components/base.py:207-221``): ``postprocess`` the value,
  ``model_dump`` a pydantic model, then ``move_files_to_cache(value, self, postprocess=True,
  keep_in_cache=True)`` and keep a file's cached path (``keep_in_cache``) so the cache cleaner
  never deletes it. :func:`set_initial_value` mirrors these lines.
- ``Blocks.__exit__`` (``blocks.py:2923``), ``Blocks.launch`` (``blocks.py:3279``) and
  ``mount_gradio_app`` (``routes.py:2883``) all rebuild ``blocks.config = blocks.get_config_file()``;
  ``GET /`` and ``GET /config`` copy ``blocks.config`` (``routes.py:648-683``, ``:1178-1215``) and
  a new session reads each block's config from the blocks themselves
  (``state_holder.py:65-74``). :func:`publish_config` rebuilds it the same way, once per change,
  and swaps it in with one assignment, so a request reads either the old config or the new.

``tests/ui/test_baked_page.py`` pins this: a submission through the API, then ``GET /`` shows
the new row, and Chromium shows the board with no load event.
"""

from __future__ import annotations

import threading
from typing import Any

import gradio as gr
import gradio_client.utils as client_utils
from gradio.components import Component
from gradio.processing_utils import move_files_to_cache
from pydantic import BaseModel

_config_lock = threading.Lock()


def set_initial_value(component: Component, value: Any, **props: Any) -> None:
    """What ``component`` shows on a new page: ``value`` (as its callbacks would return it), and
    any constructor properties in ``props`` (e.g. a table's ``datatype``)."""
    for name, prop in props.items():
        if not hasattr(component, name):
            raise AttributeError(f"{type(component).__name__} has no property {name!r} to set")
        setattr(component, name, prop)
    shown = component.postprocess(value)
    if isinstance(shown, BaseModel):
        shown = shown.model_dump()
    shown = move_files_to_cache(shown, component, postprocess=True, keep_in_cache=True)
    if client_utils.is_file_obj(shown):
        component.keep_in_cache.add(shown["path"])
    component.value = shown


def publish_config(page: gr.Blocks) -> None:
    """Rebuild the page config from its components' current values and swap it in."""
    with _config_lock:  # two refreshes never interleave their rebuilds
        page.config = page.get_config_file()
