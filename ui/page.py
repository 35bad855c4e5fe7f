"""Gradio's documented knobs for the Gradio app at ``/app`` (Submit, My submissions,
Admin, About), in one place. The public board is not Gradio: it is one baked page
(:mod:`ui.board_page`, its data from :mod:`ui.board_data`), re-baked once per data change.

- The queue's analytics summary (a pandas frame of up to 10,000 events, rebuilt after every
  event, 6-11 ms each; it feeds only ``/monitoring``) is rebuilt every ``ANALYTICS_EVERY`` events
  instead, unless the deployment sets ``GRADIO_ANALYTICS_CACHE_FREQUENCY`` itself.
- Sessions kept in memory are bounded (``state_session_capacity``, :data:`SESSION_CAPACITY`;
  ``LEADERBOARD_SESSION_CAPACITY`` overrides it, the eviction test uses 2). Gradio evicts by last
  use (an LRU), so a visitor loses their session only after 50 others acted since their last
  event, and losing it costs nothing: the only state a session holds that the page does not
  resend is the choices of Dropdowns set by events, and those accept any value
  (:data:`SURVIVES_EVICTION`) that their callbacks check again.
- glibc's malloc arenas are capped at two (:func:`cap_malloc_arenas`): with one arena per
  busy thread (up to 16 on 2 cores) the freed memory of 40 concurrent renders stayed resident,
  ~95 MB more at the end of the load test.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import MutableMapping

SESSION_CAPACITY = 50
SURVIVES_EVICTION: dict = {"allow_custom_value": True}
"""Keyword arguments of every Dropdown whose choices an event sets: an evicted session starts
again from the empty choices, and Gradio would refuse the still-displayed pick ("not in the list
of choices"). The callbacks check every value again (owner, maintainer, row on the board)."""
ANALYTICS_EVERY = 100_000
MALLOC_ARENAS = 2
M_ARENA_MAX = -8  # mallopt's parameter number (glibc malloc.h)


def quiet_analytics(environ: MutableMapping[str, str] | None = None) -> None:
    """Rebuild the queue's analytics summary rarely; call before the queue is created."""
    environ = os.environ if environ is None else environ
    environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", str(ANALYTICS_EVERY))


def cap_malloc_arenas(environ: MutableMapping[str, str] | None = None) -> bool:
    """At most :data:`MALLOC_ARENAS` glibc malloc arenas from now on, unless the deployment sets
    ``MALLOC_ARENA_MAX`` itself; call before the server's threads start. False off glibc."""
    environ = os.environ if environ is None else environ
    if "MALLOC_ARENA_MAX" in environ:
        return False
    try:
        return ctypes.CDLL("libc.so.6").mallopt(M_ARENA_MAX, MALLOC_ARENAS) == 1
    except (OSError, AttributeError):  # not glibc
        return False


def launch_extras(session_capacity: int | None = None) -> dict:
    """Keyword arguments of ``Blocks.launch`` that bound per-visitor memory (``session_capacity``:
    ``LEADERBOARD_SESSION_CAPACITY``, else :data:`SESSION_CAPACITY`)."""
    return {"state_session_capacity": session_capacity or SESSION_CAPACITY}
