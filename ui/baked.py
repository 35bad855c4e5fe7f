"""The page a plain visitor gets, with its data already in it: zero events per page view.

Each board's default view (and its context line) is rendered once per data change and written
into the components' initial values and the page config (:mod:`ui.initial_values`), so
``GET /`` carries the boards and the page fires no load event. A :class:`BakedPart` says what
it shows first and the key that changes whenever that could change (a board's fingerprint,
from the ``Leaderboard`` facade's read methods, so any facade with ``fingerprint`` and
``table`` can serve a baked page).

A background thread polls the keys (cheap) every ``POLL_SECONDS`` and re-bakes when one moved,
at most every ``BAKE_AT_MOST_EVERY`` seconds: a change after a quiet spell shows on the next
page load within a poll; under a stream of submissions the page lags by at most that bound.
``version`` counts the bakes; :mod:`ui.page_cache` keys the cached page on it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import gradio as gr
from gradio.components import Component

from ui.initial_values import publish_config, set_initial_value

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
BAKE_AT_MOST_EVERY = 2.0


@dataclass(frozen=True)
class Shown:
    """What one component shows on a new page: its value and any constructor properties."""

    component: Component
    value: Any
    props: tuple[tuple[str, Any], ...] = ()


class BakedPart(Protocol):
    """Something on the page whose first look is baked in (a board tab)."""

    def bake_key(self) -> str:
        """Changes whenever what :meth:`baked` returns could."""

    def baked(self) -> list[Shown]:
        """What the part shows to a new visitor."""


class PageBaker:
    """Keeps the page's initial values current (see module doc)."""

    def __init__(
        self,
        page: gr.Blocks,
        parts: Sequence[BakedPart],
        at_most_every: float = BAKE_AT_MOST_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.page = page
        self.parts = tuple(parts)
        self.at_most_every = at_most_every
        self.clock = clock
        self.version = 0  # read by the page cache on the event loop: a plain int, swapped whole
        self._keys: tuple[str, ...] | None = None
        self._baked_at = float("-inf")
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last_error: str | None = None

    def keys(self) -> tuple[str, ...]:
        return tuple(part.bake_key() for part in self.parts)

    def refresh(self) -> bool:
        """Re-bake if a part's key moved and the last bake is old enough; True if it baked."""
        if self.keys() == self._keys:
            return False
        with self._lock:  # one bake at a time; the keys are read again under the lock
            keys = self.keys()
            if keys == self._keys or self.clock() - self._baked_at < self.at_most_every:
                return False
            for part in self.parts:
                for shown in part.baked():
                    set_initial_value(shown.component, shown.value, **dict(shown.props))
            publish_config(self.page)
            self._keys, self._baked_at = keys, self.clock()
            self.version += 1
        return True

    def start(self, poll_seconds: float = POLL_SECONDS) -> threading.Thread:
        """Poll and re-bake in a daemon thread (once per process; later calls return it)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, args=(poll_seconds,), name="page-baker", daemon=True)
            self._thread.start()
        return self._thread

    def refresh_or_keep(self) -> bool:
        """:meth:`refresh`, but a failed bake keeps serving the last page (the next call retries,
        since the keys are remembered only after a bake). At start-up on the Hub the gold's pointer
        can arrive before its file (the first sync is still running); that must not stop the app."""
        try:
            return self.refresh()
        except Exception as err:
            if repr(err) != self._last_error:  # once per distinct failure, not once per poll
                log.exception("baking the page's default views failed; retrying")
            self._last_error = repr(err)
            return False

    def _run(self, poll_seconds: float) -> None:
        while True:
            if self.refresh_or_keep():
                self._last_error = None
            time.sleep(poll_seconds)


def attach(page: gr.Blocks, baker: PageBaker) -> None:
    """Remember the page's baker, for :func:`ui.launch` (which starts it and serves its cache)."""
    page.baked_page = baker  # type: ignore[attr-defined]


def baker_of(page: gr.Blocks) -> PageBaker | None:
    return getattr(page, "baked_page", None)
