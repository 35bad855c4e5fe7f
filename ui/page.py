"""How the public page is delivered under crowds: Gradio's documented knobs, in one place.

The page itself carries each board's default view (:mod:`ui.baked`, re-baked once per data
change) and is served from a gzipped per-version cache (:mod:`ui.page_cache`): a plain visit is
one ``GET /`` and no event. What follows is for the events a visitor does fire.

- Reads skip the queue (``queue=False``): a view or filter change, a tab's first draw and the
  refresh tick are one ``POST /gradio_api/run/...`` each, with no queue join, no SSE stream, no
  ETA messages and no per-event analytics record (page-performance.md 1.1: -45 % CPU a page).
  Reads are cached renderings (:class:`ui.board.BoardPages`), so they need no concurrency limit.
  Writes (Submit, Maintainers) stay queued: the queue is what bounds their concurrency.
- The queue's analytics summary (a pandas frame of up to 10,000 events, rebuilt after every
  event, 6-11 ms each; it feeds only ``/monitoring``) is rebuilt every ``ANALYTICS_EVERY`` events
  instead, unless the deployment sets ``GRADIO_ANALYTICS_CACHE_FREQUENCY`` itself.
- Sessions kept in memory are bounded (``state_session_capacity``): each one holds a copy of
  every board it was sent, about 0.9 MB with 1,000-row boards, so Gradio's default of 10,000
  sessions could reach 9 GB.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

READS: dict = {"queue": False}
"""Keyword arguments of every read-only board event (view, filters, search, first draw, tick)."""
SESSION_CAPACITY = 1000
ANALYTICS_EVERY = 100_000


def quiet_analytics(environ: MutableMapping[str, str] | None = None) -> None:
    """Rebuild the queue's analytics summary rarely; call before the queue is created."""
    environ = os.environ if environ is None else environ
    environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(ANALYTICS_EVERY))


def launch_extras() -> dict:
    """Keyword arguments of ``Blocks.launch`` that bound per-visitor memory."""
    return {"state_session_capacity": SESSION_CAPACITY}
