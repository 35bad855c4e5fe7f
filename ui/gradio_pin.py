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

- :func:`skip_type_stubs` replaces ``gradio.component_meta.create_or_modify_pyi`` (off: Gradio writes its
  stubs at each start, as before).

The upload gate (:mod:`ui.uploads`) stands in front of a path, Gradio's upload route: it runs on
any version, and :func:`serves` checks at start that Gradio serves uploads there, saying loudly
when it does not (a gate at a moved route would gate nothing).

This module imports Gradio only when asked for its version: :func:`skip_type_stubs` runs before it is loaded.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.metadata
import logging
import sys
from types import ModuleType

PINNED_GRADIO = "6.31.0"  # requirements.txt pins gradio[oauth]==6.31.0, README's sdk_version too

log = logging.getLogger(__name__)
_warned: set[str] = set()


def internals_allowed(what: str) -> bool:
    """True on the pinned Gradio; otherwise False, logging once per ``what`` that it is off."""
    import gradio as gr

    return _allowed(gr.__version__, what)


def _allowed(version: str, what: str) -> bool:
    if version == PINNED_GRADIO:
        return True
    if what not in _warned:
        _warned.add(what)
        log.warning("gradio %s is not the pinned %s: %s is switched off", version, PINNED_GRADIO, what)
    return False


STUB_WRITER = "skipping Gradio's type stubs (ui.gradio_pin.skip_type_stubs)"
STUBS_MODULE = "gradio.component_meta"


def skip_type_stubs() -> bool:
    """Stop Gradio from writing type stubs as it loads: each component class it defines is parsed
    again from its source file to write a ``.pyi`` beside it (for editors' type hints), about 1 s of
    CPU at every start of the app (``perf/app_start.py``) for files a Space never reads. Call it
    before Gradio is imported (``app.py`` does); whether it took is returned. The version is read
    from Gradio's installed metadata, since Gradio itself is not loaded yet."""
    loaded = sys.modules.get(STUBS_MODULE)
    if loaded is not None:  # too late to stop it, unless it was stopped already
        return getattr(loaded, "create_or_modify_pyi", None) is _no_stub
    if any(isinstance(finder, _NoStubs) for finder in sys.meta_path):
        return True
    if not _allowed(importlib.metadata.version("gradio"), STUB_WRITER):
        return False
    sys.meta_path.insert(0, _NoStubs())
    return True


def _no_stub(component_class: type, class_name: str, events: list) -> None:
    """What ``create_or_modify_pyi`` becomes: nothing parsed, nothing written."""


class _NoStubs(importlib.abc.MetaPathFinder):
    """Finds ``gradio.component_meta`` as Python would, and loads it with :class:`_StubsOffLoader`."""

    def find_spec(self, fullname: str, path, target=None):  # noqa: ANN001 (importlib's signature)
        if fullname != STUBS_MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _StubsOffLoader(spec.loader)
        return spec


class _StubsOffLoader(importlib.abc.Loader):
    """Runs the module with its own loader, then swaps the stub writer for :func:`_no_stub` before any
    component class is defined (they are, by the modules that import this one)."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec):  # noqa: ANN001, ANN201 (importlib's signature)
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.loader.exec_module(module)
        if callable(getattr(module, "create_or_modify_pyi", None)):
            module.create_or_modify_pyi = _no_stub

    def __getattr__(self, name: str):  # noqa: ANN204 (get_source, get_filename...: tracebacks read them)
        return getattr(self.loader, name)


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
