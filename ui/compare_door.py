"""Compare's door: a visitor's excess Compare events are refused before Gradio's queue takes them.

Compare is bounded per visitor inside its handler (:mod:`ui.compare`, "Busy ..."), but by then
Gradio has already spent 16-27 ms of the web process's CPU on the event (queue join, session,
SSE), and a flood of refused events is still a flood: an honest visitor's Compare waited p50
0.5-0.9 s under 20 loops from another address (docs/benchmarks.md). :class:`CompareDoor` (ASGI
middleware, installed by :func:`ui.mount_options`) reads the body of ``POST
/gradio_api/queue/join``; when its ``fn_index`` is the Compare button's event (found from the
page's config when the server is built, :func:`compare_events_of`; the deep link's comparison
too), the visitor spends a token of
its :class:`TokenBucket`. With the bucket empty the join books the visitor's next free token if it
is due within :data:`MAX_HOLD` s and is held (:mod:`ui.door_holds`) until then and served; else it
is held :data:`MAX_HOLD` s and answered 429, without Gradio. Booking matters: joins held at once
used to sleep until the same next token and race for it, one served and the rest refused though
their own tokens came within the hold. A visitor clicking too fast is served a moment later, and
a flood goes at the pace of its loops: answered at once, 20 loops drew 42,835 refusals in 20 s.
Beyond the holds' places (per visitor and in all) the answer is 429 at once. The visitor is who
Compare's bound counts (:func:`ui.throttle.visitor_of`): the signed-in account, else the address.
Every other request passes untouched, its body re-fed to Gradio.

It reads Gradio's route and body shape, so it runs on the pinned Gradio only
(:func:`ui.gradio_pin.internals_allowed`); elsewhere the handler's own bound still holds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from types import SimpleNamespace

from starlette.requests import Request

from ui.door_holds import Holds
from ui.gradio_pin import internals_allowed
from ui.throttle import NO_PROXIES, Proxies, visitor_of
from ui.uploads import refuse, signed_in_user

log = logging.getLogger(__name__)

JOIN_PATH = "/gradio_api/queue/join"
COMPARE_RESULT = "cmp-result"  # ui.compare.CompareTab's result: what a comparison's events write
BURST = 4
"""Compare events a visitor may send at once: a person clicks Compare, changes a model and clicks
again; 4 leaves room for that and for the tab's bound of 2 running or waiting (ui.compare)."""
REFILL_PER_SECOND = 1.0
"""Compare events a visitor may send per second once its burst is spent: faster than a person
reads a comparison, and a flood's refused events cost the web process nearly nothing."""
MAX_HOLD = 5.0
"""Seconds a join is held at most: a join whose booked token is due later is refused after it."""
HELD_PER_VISITOR = 64
"""Joins of one visitor held at once (a join's body is read: a few hundred bytes each); beyond, a
flood with more loops than this is refused at once again."""
HELD_IN_ALL = 1024
MAX_JOIN_BYTES = 64 * 1024  # a queue/join body is a few hundred bytes; a larger one is not read further
MAX_VISITORS = 10_000
TOO_MANY = "Too many Compare clicks from you in a short time; nothing was compared. Please try again in {wait} s."


class TokenBucket:
    """Per visitor: ``burst`` tokens, refilled at ``per_second``; a call takes one. Thread-safe,
    bounded in visitors (the longest unseen is forgotten first)."""

    def __init__(
        self,
        burst: int = BURST,
        per_second: float = REFILL_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        max_visitors: int = MAX_VISITORS,
    ) -> None:
        self.burst, self.per_second, self.clock, self.max_visitors = burst, per_second, clock, max_visitors
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # visitor -> (tokens, when)
        self._lock = threading.Lock()

    def take(self, visitor: str) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there is (nothing taken)."""
        booked, wait = self.book(visitor, 0.0)
        return 0.0 if booked else wait

    def book(self, visitor: str, within: float) -> tuple[bool, float]:
        """Book the visitor's next token if it is due within ``within`` s: (True, seconds until it
        is due; the caller waits them and is served), else (False, seconds until the next free
        token; nothing booked). A booked token is spent, so joins held at once each wait for their
        own token instead of racing for the same one."""
        with self._lock:
            now = self.clock()
            tokens, when = self._buckets.pop(visitor, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - when) * self.per_second)
            wait = max(0.0, (1 - tokens) / self.per_second)
            booked = self.burst >= 1 and wait <= within  # a bucket of no burst never holds a token
            self._buckets[visitor] = (tokens - 1 if booked else tokens, now)
            while len(self._buckets) > self.max_visitors:
                self._buckets.popitem(last=False)
            return booked, wait

    def __len__(self) -> int:
        return len(self._buckets)


def compare_events_of(config: dict) -> frozenset[int]:
    """The ``fn_index`` of every event that runs a comparison, from a Blocks' config: those whose
    outputs hold the Compare tab's result (the button's click and the deep link's
    ``?compare=`` on load, :mod:`ui.links`); empty without a Compare tab (a reader)."""
    results = {c["id"] for c in config.get("components", []) if c.get("props", {}).get("elem_id") == COMPARE_RESULT}
    return frozenset(
        dep.get("id", i)
        for i, dep in enumerate(config.get("dependencies", []))
        if dep.get("backend_fn", True) and results & set(dep.get("outputs", []))
    )


def compare_door(
    app,
    events: frozenset[int] = frozenset(),
    proxies: Proxies = NO_PROXIES,
    bucket: TokenBucket | None = None,
    holds: Holds | None = None,
):
    """``app`` behind the door, or ``app`` itself when there is no Compare event or the Gradio
    version is not the pinned one (logged once)."""
    if not events or not internals_allowed("Compare's door (ui.compare_door)"):
        return app
    holds = holds or Holds(HELD_PER_VISITOR, HELD_IN_ALL)
    return CompareDoor(app, events, proxies, bucket or TokenBucket(), holds)


class CompareDoor:
    """ASGI middleware (module doc)."""

    def __init__(self, app, events: frozenset[int], proxies: Proxies, bucket: TokenBucket, holds: Holds) -> None:
        self.app, self.events, self.proxies, self.bucket, self.holds = app, events, proxies, bucket, holds

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"].rstrip("/") != JOIN_PATH:
            await self.app(scope, receive, send)
            return
        read, complete = await read_body(receive)
        if complete and fn_index_of(b"".join(m.get("body", b"") for m in read)) in self.events:
            wait = await self.token_or_wait(self.visitor(scope))
            if wait:
                await refuse(send, 429, TOO_MANY.format(wait=math.ceil(wait)))
                return
        await self.app(scope, replay(read, receive), send)

    async def token_or_wait(self, visitor: str) -> float:
        """0.0 once ``visitor`` has a token, taken now or booked and waited for; else the seconds
        still to wait (after holding the refusal :data:`MAX_HOLD` s when a place is free)."""
        wait = self.bucket.take(visitor)
        if not wait:
            return 0.0
        with self.holds.place(visitor) as held:
            if not held:
                return wait
            booked, wait = self.bucket.book(visitor, MAX_HOLD)
            await asyncio.sleep(min(wait, MAX_HOLD))
            return 0.0 if booked else max(wait - MAX_HOLD, 1 / self.bucket.per_second)

    def visitor(self, scope) -> str:
        user = signed_in_user(scope)
        profile = SimpleNamespace(username=user) if user else None
        return visitor_of(profile, Request(scope), self.proxies)


async def read_body(receive) -> tuple[list[dict], bool]:
    """The request's messages up to :data:`MAX_JOIN_BYTES`, and whether that was the whole body."""
    read, size = [], 0
    while size <= MAX_JOIN_BYTES:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":
            return read, False
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            return read, size <= MAX_JOIN_BYTES
    return read, False


def replay(read: list[dict], receive):
    """A ``receive`` giving the messages already read, then the rest of the request's."""
    pending = list(read)

    async def again() -> dict:
        return pending.pop(0) if pending else await receive()

    return again


def fn_index_of(body: bytes) -> object:
    """The body's ``fn_index`` as Gradio reads it (the last copy of a repeated key; a numeric
    string counts as its number, as Gradio's validation takes it), else None."""
    try:
        value = json.loads(body).get("fn_index")
    except (ValueError, AttributeError):
        return None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return value if isinstance(value, int | float) else None  # not a dict or list: the set needs hashables
