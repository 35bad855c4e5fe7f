"""The load test's browsing visitors (``perf/load_browsers.py``): the page check that decodes a
body once per ETag, and the async Gradio protocol against a small fake of Gradio's queue."""

from __future__ import annotations

import gzip
import json

import pytest
from aiohttp import web

from perf.load_browsers import (
    DATA_IN_PAGE,
    PageCheck,
    PageError,
    Recorder,
    Tab,
    open_session,
    page_markers,
    visit,
)
from tests.support import own_loop

PAGE = b"<html>" + DATA_IN_PAGE + b'{"rows": []}</script></html>'


def gzipped(body: bytes, etag: str | None = '"v1"') -> tuple[dict, bytes]:
    raw = gzip.compress(body, mtime=0)
    headers = {"content-encoding": "gzip", "content-length": str(len(raw))}
    return ({**headers, "etag": etag} if etag else headers), raw


def test_a_page_is_decoded_once_per_etag_then_checked_by_length():
    check = PageCheck(page_markers(has_load_events=False))
    headers, raw = gzipped(PAGE)
    for _ in range(3):
        check.check(200, headers, raw)
    assert check.decoded == 1
    other_headers, other = gzipped(PAGE + b"<p>new data</p>", '"v2"')
    check.check(200, other_headers, other)
    assert check.decoded == 2


def test_a_body_that_changed_under_the_same_etag_is_an_error():
    check = PageCheck(page_markers(has_load_events=False))
    headers, raw = gzipped(PAGE)
    check.check(200, headers, raw)
    changed_headers, changed = gzipped(PAGE + b"<p>another body</p>")
    with pytest.raises(PageError, match="ETag"):
        check.check(200, changed_headers, changed)


def test_a_page_without_its_data_fails_when_no_load_event_would_bring_it():
    headers, raw = gzipped(b"<html>gradio app, no board</html>")
    with pytest.raises(PageError, match="holds none of"):
        PageCheck(page_markers(has_load_events=False)).check(200, headers, raw)
    PageCheck(page_markers(has_load_events=True)).check(200, headers, raw)  # its load events bring the data


def test_status_and_truncated_bodies_are_errors():
    headers, raw = gzipped(PAGE)
    with pytest.raises(PageError, match="HTTP 500"):
        PageCheck(page_markers(False)).check(500, headers, raw)
    with pytest.raises(PageError, match="content-length"):
        PageCheck(page_markers(False)).check(200, headers, raw[:-5])


def test_without_an_etag_each_distinct_body_is_decoded_once():
    check = PageCheck(page_markers(False))
    first, second = gzipped(PAGE, None), gzipped(PAGE + b"<p>2</p>", None)
    for headers, raw in (first, first, second, second, first):
        check.check(200, headers, raw)
    assert check.decoded == 2
    plain = PAGE.replace(b"</html>", b"<p>plain</p></html>")
    check.check(200, {"content-length": str(len(plain))}, plain)  # identity, as sent
    assert check.decoded == 3


# --------------------------------------------------------------------------- the Gradio protocol


def fake_gradio(fail: set[int] = frozenset()) -> web.Application:
    """Gradio's queue as the page's JavaScript sees it: ``join`` queues an event of a session,
    ``data`` streams each queued event's completion (``fail``: fn_indexes that fail), then
    closes; ``run/predict`` answers at once; ``/`` is the board page, gzipped with an ETag."""
    queued: dict[str, list[tuple[str, dict]]] = {}

    async def page(request: web.Request) -> web.Response:
        headers, raw = gzipped(PAGE)
        return web.Response(body=raw, headers=headers)

    async def join(request: web.Request) -> web.Response:
        body = await request.json()
        event_id = f"e{sum(len(v) for v in queued.values())}"
        queued.setdefault(body["session_hash"], []).append((event_id, body))
        return web.json_response({"event_id": event_id})

    async def data(request: web.Request) -> web.StreamResponse:
        stream = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await stream.prepare(request)
        for event_id, body in queued.pop(request.query["session_hash"], []):
            await stream.write(b'data: {"msg": "estimation", "rank": 0}\n\n')
            done = {
                "msg": "process_completed",
                "event_id": event_id,
                "success": body["fn_index"] not in fail,
                "output": {"data": [body["data"][0] * 2]},
            }
            await stream.write(b"data: " + json.dumps(done).encode() + b"\n\n")
        await stream.write(b'data: {"msg": "close_stream"}\n\n')
        return stream

    async def predict(request: web.Request) -> web.Response:
        body = await request.json()
        return web.json_response({"data": [body["data"][0] * 3]})

    app = web.Application()
    app.router.add_get("/", page)
    app.router.add_post("/gradio_api/queue/join", join)
    app.router.add_get("/gradio_api/queue/data", data)
    app.router.add_post("/gradio_api/run/predict", predict)
    return app


async def served(app: web.Application, client) -> object:
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        async with open_session(f"http://127.0.0.1:{port}") as http:
            return await client(http)
    finally:
        await runner.cleanup()


def test_queued_and_direct_events_complete_and_are_timed():
    rec = Recorder()

    async def run(http):
        return await Tab(http, rec, direct={7}).run_events([(1, [2]), (7, [5]), (2, [10])], "event")

    completed = own_loop.run(served(fake_gradio(), run))
    assert [msg["output"]["data"] for msg in completed] == [[4], [20]]  # the queued ones, in order
    assert len(rec.latency["event"]) == 3 and not rec.errors


def test_a_failed_event_raises():
    async def run(http):
        return await Tab(http, Recorder(), direct=set()).run_events([(1, [1]), (3, [1])], "event")

    with pytest.raises(RuntimeError, match="event failed"):
        own_loop.run(served(fake_gradio(fail={3}), run))


def test_a_visit_fetches_the_page_runs_its_events_and_decodes_the_page_once():
    rec, check = Recorder(), PageCheck(page_markers(has_load_events=True))

    async def run(http):
        for _ in range(3):
            await visit(http, check, rec, [(1, [1])], {"scb": (2, ["type"]), "kviscuit": (2, ["type"])}, set())

    own_loop.run(served(fake_gradio(), run))
    assert check.decoded == 1
    kinds = ("browse: GET /", "browse: load event", "browse: page with data", "browse: view change (total)")
    assert all(len(rec.latency[kind]) == 3 for kind in kinds), dict(rec.latency)
