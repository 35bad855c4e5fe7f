"""The load test's browsing visitors: asyncio tasks over aiohttp, spread over a few processes.

Why not a thread per visitor: 500 threads of a synchronous client, each decoding every page it
fetched, spent the 2 cores they were measuring (page p95 501 ms while the app used 1 ms of CPU
a page). Here a visitor is a task with its own connections (a ``ClientSession`` of at most 6, as
a browser keeps per host, alive between its pages); a page's body is decoded and checked for
its data once per distinct ``ETag`` (``PageCheck``), later copies only by status, ETag and
length. aiohttp over ``httpx.AsyncClient``: 0.16-0.22 against 0.72-0.92 ms of client CPU per
page fetched (``perf/client_cost.py`` at 3860df9, the board page on this host, httpx spared its CA bundle).

The Gradio protocol a page's events use (``sse_v3``, as the page's JavaScript does it):
``POST /gradio_api/queue/join`` per event, results read from the ``/gradio_api/queue/data`` SSE
stream of the session; ``queue=False`` events are posted to ``/gradio_api/run/predict``.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import secrets
import threading
import time
import zlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp

BOARD_IN_PAGE = b"Showing "  # a Gradio board's summary line ("Showing n of m rows")
DATA_IN_PAGE = b'<script type="application/json" id="board-data">'  # the board page's data
ACCEPT_ENCODING = "gzip, deflate"  # what the client can decode; the app answers gzip
CONNECTIONS_PER_VISITOR = 6  # a browser's connections per host
SSE_LINE_LIMIT = 2**26  # one SSE line carries a whole event's output (a 1,000-row board's HTML)
LAG_TICK = 0.05  # seconds between the event-loop lag probe's wake-ups


class Recorder:
    """Latencies by kind and error texts, shared by the threads or tasks of one process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: list[str] = []

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latency[kind].append(seconds)

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text[:500])

    def merge(self, latency: Mapping[str, list[float]], errors: list[str]) -> None:
        with self.lock:
            for kind, values in latency.items():
                self.latency[kind] += values
            self.errors += errors


# --------------------------------------------------------------------------- the page's body


class PageError(RuntimeError):
    pass


class RefusedAtTheDoor(RuntimeError):
    """A queue join answered 429 before Gradio's queue (ui/compare_door.py: a visitor's excess Compare)."""


def page_markers(has_load_events: bool) -> tuple[tuple[bytes, ...], ...]:
    """What a page's decoded body must hold, each group any of its markers: a Gradio page or the
    board page, and when no load event fetches the data, the data itself."""
    page = (b"gradio", DATA_IN_PAGE)
    return (page,) if has_load_events else (page, (BOARD_IN_PAGE, DATA_IN_PAGE))


def decode(raw: bytes, encoding: str) -> bytes:
    if encoding in ("", "identity"):
        return raw
    if encoding == "gzip":
        return zlib.decompress(raw, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(raw)
    raise PageError(f"content-encoding {encoding!r} was not asked for")


@dataclass(frozen=True)
class Verified:
    length: int
    digest: int


class PageCheck:
    """Checks a page's response without decoding every copy: the first body of each ETag (and
    encoding) is decoded and must hold ``markers``; a later response with that ETag must have
    the same length. A response without an ETag is keyed by its length and CRC-32, so each
    distinct body is decoded once. ``decoded`` counts the bodies decoded."""

    def __init__(self, markers: tuple[tuple[bytes, ...], ...], limit: int = 256) -> None:
        self.markers, self.limit = markers, limit
        self.seen: dict[tuple, Verified] = {}
        self.decoded = 0

    def check(self, status: int, headers: Mapping[str, str], raw: bytes) -> None:
        if status != 200:
            raise PageError(f"HTTP {status}")
        declared = headers.get("content-length")
        if declared is not None and int(declared) != len(raw):
            raise PageError(f"{len(raw)} bytes for a content-length of {declared}")
        encoding = headers.get("content-encoding", "").strip().lower()
        etag = headers.get("etag")
        digest = 0 if etag else zlib.crc32(raw)
        key = (etag, encoding) if etag else (None, encoding, len(raw), digest)
        known = self.seen.get(key)
        if known is not None:
            if known.length != len(raw):
                raise PageError(f"ETag {etag} came with {len(raw)} bytes, {known.length} before")
            return
        body = decode(raw, encoding)
        self.decoded += 1
        missing = [group for group in self.markers if not any(marker in body for marker in group)]
        if missing:
            raise PageError(f"the page holds none of {missing[0]!r}")
        if len(self.seen) >= self.limit:  # a server that never repeats a body: stay bounded
            self.seen.clear()
        self.seen[key] = Verified(len(raw), digest)


# --------------------------------------------------------------------------- one visitor


def open_session(url: str) -> aiohttp.ClientSession:
    """A visitor's own connections, kept alive between its pages; bodies left as sent."""
    return aiohttp.ClientSession(
        url,
        connector=aiohttp.TCPConnector(limit=CONNECTIONS_PER_VISITOR),
        timeout=aiohttp.ClientTimeout(total=120),
        auto_decompress=False,
        headers={"Accept-Encoding": ACCEPT_ENCODING},
    )


class Tab:
    """One browser tab of the Gradio protocol: its events share a session hash."""

    def __init__(self, http: aiohttp.ClientSession, rec: Recorder, direct: set[int], session: str = "") -> None:
        self.http, self.rec, self.direct = http, rec, direct
        self.session = session or secrets.token_hex(6)

    def body(self, fn_index: int, data: list) -> dict:
        session = self.session
        return {"data": data, "event_data": None, "fn_index": fn_index, "trigger_id": None, "session_hash": session}

    async def run_events(self, events: list[tuple[int, list]], kind: str) -> list[dict]:
        """Run events: ``queue=False`` ones as direct POSTs, the others through the queue and its
        SSE stream. Returns the completed messages of the queued ones."""
        for fn_index, data in [e for e in events if e[0] in self.direct]:
            t0 = time.perf_counter()
            async with self.http.post("/gradio_api/run/predict", json=self.body(fn_index, data)) as r:
                text = await r.read()
                if r.status != 200:
                    raise RuntimeError(f"run {fn_index}: HTTP {r.status} {text[:200]!r}")
            self.rec.add(kind, time.perf_counter() - t0)
        queued = [e for e in events if e[0] not in self.direct]
        return await self._run_queued(queued, kind) if queued else []

    async def _run_queued(self, events: list[tuple[int, list]], kind: str) -> list[dict]:
        started: dict[str, float] = {}
        for fn_index, data in events:
            t0 = time.perf_counter()
            async with self.http.post("/gradio_api/queue/join", json=self.body(fn_index, data)) as r:
                text = await r.read()
                if r.status == 429:
                    raise RefusedAtTheDoor(f"join {fn_index}: HTTP 429 {text[:200]!r}")
                if r.status != 200:
                    raise RuntimeError(f"join {fn_index}: HTTP {r.status} {text[:200]!r}")
            started[json.loads(text)["event_id"]] = t0
        pending, completed = set(started), []
        async with self.http.get("/gradio_api/queue/data", params={"session_hash": self.session}) as stream:
            if stream.status != 200:
                raise RuntimeError(f"queue/data: HTTP {stream.status}")
            while pending:
                line = await stream.content.readuntil(b"\n", max_size=SSE_LINE_LIMIT)
                if not line:
                    break
                if not line.startswith(b"data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "process_completed":
                    event = msg.get("event_id")
                    if not msg.get("success"):
                        raise RuntimeError(f"event failed: {json.dumps(msg)[:300]}")
                    if event in pending:
                        self.rec.add(kind, time.perf_counter() - started[event])
                        pending.discard(event)
                        completed.append(msg)
                if msg.get("msg") == "close_stream":
                    break
        if pending:
            raise RuntimeError(f"{len(pending)} event(s) never completed")
        return completed


async def visit(http: aiohttp.ClientSession, check: PageCheck, rec: Recorder, loads, renders, direct) -> None:
    """What a browser does when it opens the page: ``GET /``, then the page's load events, then
    one view change on a board (the old Gradio board; the board page sends nothing for it)."""
    t0 = time.perf_counter()
    async with http.get("/") as r:
        rec.add("browse: GET / first byte", time.perf_counter() - t0)
        raw = await r.read()
        try:
            check.check(r.status, r.headers, raw)
        except PageError as e:
            raise PageError(f"GET /: {e}") from None
    rec.add("browse: GET /", time.perf_counter() - t0)
    tab = Tab(http, rec, direct)  # one tab: its load events and its view change share a session
    await tab.run_events(loads, "browse: load event")
    rec.add("browse: page with data", time.perf_counter() - t0)
    if not renders:  # the board page: a view change is computed in the browser, nothing is sent
        return
    bench = "scb" if secrets.randbelow(2) else "kviscuit"
    t1 = time.perf_counter()
    await tab.run_events([renders[bench]], "browse: view change")
    rec.add("browse: view change (total)", time.perf_counter() - t1)


async def browse(url, loads, renders, direct, check, rec, stop_at, max_pages, think) -> int:
    """A visitor's loop: a page, ``think`` seconds, the next; it arrives within the first
    ``think`` seconds (a crowd does not open the page in one instant)."""
    pages = 0
    async with open_session(url) as http:
        await asyncio.sleep(random.uniform(0, think))
        while time.time() < stop_at and pages < max_pages:
            try:
                await visit(http, check, rec, loads, renders, direct)
            except Exception as e:
                rec.error(f"browse: {type(e).__name__}: {e}")
            pages += 1
            await asyncio.sleep(think)
    return pages


async def loop_lag(rec: Recorder, stop_at: float) -> None:
    """How late this process's event loop wakes a task: the share of every latency above that
    the load generator itself added."""
    while time.time() < stop_at:
        t0 = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        rec.add("generator: event-loop lag", max(0.0, time.perf_counter() - t0 - LAG_TICK))


async def run_browsers(n, url, loads, renders, direct, rec, stop_at, max_pages, think) -> int:
    """``n`` visitors and the lag probe until ``stop_at``; returns how many bodies were decoded."""
    check = PageCheck(page_markers(bool(loads)))
    lag = asyncio.create_task(loop_lag(rec, stop_at))
    visitors = [browse(url, loads, renders, direct, check, rec, stop_at, max_pages, think) for _ in range(n)]
    await asyncio.gather(*visitors)
    await lag
    return check.decoded


class Browser:
    """One visitor for synchronous callers (the warm-up, ``perf/page_cost.py``,
    ``perf/session_memory.py`` at 3860df9): the async visitor on an event loop of its own."""

    def __init__(self, url: str, rec: Recorder, direct: set[int]) -> None:
        self.rec, self.direct = rec, set(direct)
        self.loop = asyncio.new_event_loop()
        self.http = self.loop.run_until_complete(self._open(url))  # a session belongs to a running loop
        self.checks: dict[bool, PageCheck] = {}

    @staticmethod
    async def _open(url: str) -> aiohttp.ClientSession:
        return open_session(url)

    def visit(self, loads, renders) -> None:
        check = self.checks.setdefault(bool(loads), PageCheck(page_markers(bool(loads))))
        self.loop.run_until_complete(visit(self.http, check, self.rec, loads, renders, self.direct))

    def run_events(self, events: list[tuple[int, list]], kind: str, session: str = "") -> list[dict]:
        """``events`` in one tab (``session``: its hash, a new one if empty)."""
        return self.loop.run_until_complete(Tab(self.http, self.rec, self.direct, session).run_events(events, kind))

    def close(self) -> None:
        self.loop.run_until_complete(self.http.close())
        self.loop.close()


# --------------------------------------------------------------------------- worker processes


def cpu_seconds() -> float:
    """User + system CPU of this process, all its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def browser_worker(conn, n: int, url: str, loads, renders, direct, max_pages: int, think: float) -> None:
    """A worker process: says it is ready, then per phase receives ``stop_at`` and runs ``n``
    visitors until then, and sends back their latencies, errors and its CPU seconds; ``None``
    ends it."""
    conn.send("ready")
    while (stop_at := conn.recv()) is not None:
        rec, cpu0, decoded = Recorder(), cpu_seconds(), 0
        try:
            decoded = asyncio.run(run_browsers(n, url, loads, renders, set(direct), rec, stop_at, max_pages, think))
        except Exception as e:
            rec.error(f"browser worker: {type(e).__name__}: {e}")
        report = {"latency": dict(rec.latency), "errors": rec.errors, "cpu": cpu_seconds() - cpu0, "decoded": decoded}
        conn.send(report)
    conn.close()
