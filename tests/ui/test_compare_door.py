"""Compare's door (:mod:`ui.compare_door`): a visitor's excess Compare events wait at the door for
their token (served then, else refused with 429) before Gradio's queue takes them; another
visitor's, and every other event, go through."""

from __future__ import annotations

import json
import secrets
import time

import httpx
import pytest

from tests.ui.conftest import start_app
from ui.compare_door import BURST, REFILL_PER_SECOND, TokenBucket, compare_events_of
from ui.door_holds import Holds
from ui.throttle import NO_PROXIES


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_gives_a_burst_then_one_per_refill_per_visitor():
    clock = Clock()
    bucket = TokenBucket(burst=4, per_second=1.0, clock=clock)
    assert [bucket.take("a") for _ in range(4)] == [0.0] * 4
    assert bucket.take("a") == pytest.approx(1.0)  # empty: the next token in 1 s
    assert bucket.take("b") == 0.0  # another visitor has its own
    clock.now += 0.5
    assert bucket.take("a") == pytest.approx(0.5)  # refused: nothing taken
    clock.now += 0.5
    assert bucket.take("a") == 0.0 and bucket.take("a") == pytest.approx(1.0)
    clock.now += 60
    assert [bucket.take("a") for _ in range(5)][-1] > 0  # refills up to the burst, no more


def test_a_bucket_forgets_the_oldest_visitors_beyond_its_bound():
    clock = Clock()
    bucket = TokenBucket(burst=1, per_second=1.0, clock=clock, max_visitors=2)
    assert bucket.take("a") == 0.0 and bucket.take("b") == 0.0 and bucket.take("c") == 0.0
    assert len(bucket) == 2
    assert bucket.take("a") == 0.0  # forgotten: a full bucket again (a bound on memory, not on a visitor)


def event_of(config: dict, elem_id: str, trigger: str) -> int:
    ids = {c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id}
    deps = enumerate(config["dependencies"])
    return next(d.get("id", i) for i, d in deps if any(t[0] in ids and t[1] == trigger for t in d["targets"]))


def test_the_compare_events_are_found_from_the_config():
    config = {
        "components": [{"id": 3, "props": {"elem_id": "cmp-bench"}}, {"id": 7, "props": {"elem_id": "cmp-btn"}},
                       {"id": 8, "props": {"elem_id": "cmp-result"}}, {"id": 9, "props": {}}],
        "dependencies": [{"id": 0, "targets": [[3, "input"]], "outputs": [9]},
                         {"id": 1, "targets": [[7, "click"]], "outputs": [8]},
                         {"id": 2, "targets": [[1, "then"]], "outputs": [], "backend_fn": False},
                         {"id": 4, "targets": [[5, "then"]], "outputs": [8]}],  # the deep link's comparison
    }  # fmt: skip
    assert compare_events_of(config) == {1, 4}
    assert compare_events_of({"components": [], "dependencies": []}) == set()  # a reader: no Compare tab


def deep_link_compare(config: dict) -> int:
    """The event a ``?compare=`` link runs on load (ui/links.py): writes the result, not the button's click."""
    (result,) = [c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "cmp-result"]
    click = event_of(config, "cmp-btn", "click")
    return next(
        d.get("id", i)
        for i, d in enumerate(config["dependencies"])
        if result in d["outputs"] and d.get("id", i) != click
    )


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    started = start_app(tmp_path_factory, "compare-door-app")
    yield started
    started.stop()


def join(http: httpx.Client, fn: int, data: list) -> httpx.Response:
    body = {"data": data, "event_data": None, "fn_index": fn, "trigger_id": None, "session_hash": secrets.token_hex(6)}
    return http.post("/gradio_api/queue/join", json=body)


def client(url: str, address: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=address))


def test_one_address_is_served_its_burst_then_one_join_per_token_another_at_once(app):
    config = httpx.get(app.url + "/config", timeout=30).json()
    compare, bench = event_of(config, "cmp-btn", "click"), event_of(config, "cmp-bench", "input")
    extra = 3
    with client(app.url, "127.0.0.1") as flooder:
        t0 = time.monotonic()
        answers = [join(flooder, compare, ["scb", []]) for _ in range(BURST + extra)]
        elapsed = time.monotonic() - t0
        assert [a.status_code for a in answers] == [200] * (BURST + extra)  # each waited for its token
        assert elapsed >= (extra - 0.5) / REFILL_PER_SECOND  # not faster than the bucket refills
        others = [join(flooder, bench, ["scb"]).status_code for _ in range(BURST + 4)]
        assert others == [200] * (BURST + 4)  # the benchmark radio's event is never held
        assert deep_link_compare(config) in compare_events_of(config)  # the app's door counts it too
        assert join(flooder, deep_link_compare(config), ["scb", []]).status_code == 200
    with client(app.url, "127.0.0.2") as honest:
        assert join(honest, compare, ["scb", []]).status_code == 200
    # That the deep link spends the same bucket and another address is not held: on a fake clock in
    # test_every_compare_event_spends_one_bucket_per_visitor (timed here, both failed under load).


def test_every_compare_event_spends_one_bucket_per_visitor(monkeypatch):
    """Another Compare event (the deep link's) from the same visitor waits for the same bucket's
    token; another visitor is served at once. A frozen clock and the door's sleeps recorded: no
    wall clock, so a busy machine cannot make tokens come early."""
    import asyncio
    import importlib
    from types import SimpleNamespace

    from ui.compare_door import CompareDoor

    module = importlib.import_module("ui.compare_door")  # ``ui.compare_door`` is also a function of ``ui``

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(module, "asyncio", SimpleNamespace(sleep=sleep))
    button, deep_link = 5, 9
    bucket = TokenBucket(burst=1, per_second=REFILL_PER_SECOND, clock=Clock())
    door = CompareDoor(served, frozenset({button, deep_link}), NO_PROXIES, bucket, Holds(per_caller=4, in_all=4))

    def join_at_door(address: str, fn: int) -> int:
        status = []

        async def receive():
            return {"type": "http.request", "body": json.dumps({"fn_index": fn}).encode(), "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/queue/join", "headers": [],
                 "client": (address, 1)}  # fmt: skip
        asyncio.run(door(scope, receive, send))
        return status[0]

    assert join_at_door("10.0.0.1", button) == 200 and slept == []  # the burst
    assert join_at_door("10.0.0.1", deep_link) == 200  # held for the same bucket's next token
    assert slept == [pytest.approx(1 / REFILL_PER_SECOND)]
    assert join_at_door("10.0.0.2", button) == 200 and len(slept) == 1  # another visitor: at once
    assert join_at_door("10.0.0.1", 6) == 200 and len(slept) == 1  # not a Compare event: never held


def test_a_flood_of_loops_goes_at_the_pace_of_its_tokens_not_of_its_refusals(app):
    """20 loops from one address answered at once drew 42,835 refusals in 20 s; held at the
    door, each loop makes about one join per token's wait."""
    import concurrent.futures

    config = httpx.get(app.url + "/config", timeout=30).json()
    compare, loops, seconds = event_of(config, "cmp-btn", "click"), 8, 3.0

    def loop(_: int) -> list[int]:
        statuses, stop = [], time.monotonic() + seconds
        with client(app.url, "127.0.0.3") as http:
            while time.monotonic() < stop:
                statuses.append(join(http, compare, ["scb", []]).status_code)
        return statuses

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(loops) as pool:
        statuses = [s for got in pool.map(loop, range(loops)) for s in got]
    elapsed = time.monotonic() - t0  # a join begun near the end may be held for its booked token
    assert set(statuses) <= {200, 429}
    assert statuses.count(200) <= BURST + elapsed * REFILL_PER_SECOND + 1
    assert len(statuses) <= loops * (seconds * REFILL_PER_SECOND + 2), len(statuses)  # was thousands


def run_door(body: bytes, chunk: int = 1 << 20) -> tuple[list[int], bytes]:
    """Statuses sent and the body the app behind the door read, for one queue/join (pure ASGI)."""
    import asyncio

    from ui.compare_door import CompareDoor

    got = bytearray()

    async def behind(scope, receive, send):
        while True:
            message = await receive()
            got.extend(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] or [b""]
    messages = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]
    sent: list[int] = []

    async def receive():
        return messages.pop(0)

    async def send(message):
        if message["type"] == "http.response.start":
            sent.append(message["status"])

    path = "/gradio_api/queue/join"
    scope = {"type": "http", "method": "POST", "path": path, "headers": [], "client": ("10.0.0.1", 1)}
    no_tokens = TokenBucket(burst=0, per_second=1.0)  # every Compare refused
    holds = Holds(per_caller=1, in_all=1)
    door = CompareDoor(behind, frozenset({5}), NO_PROXIES, no_tokens, holds)
    with holds.place("address:10.0.0.1"):  # its one place taken: refused at once, not held
        asyncio.run(door(scope, receive, send))
    return sent, bytes(got)


def test_the_door_refeeds_other_bodies_intact_and_passes_an_oversized_one():
    other = json.dumps({"fn_index": 6, "data": ["scb"]}).encode()
    assert run_door(other, chunk=7) == ([200], other)
    assert run_door(json.dumps({"fn_index": 5}).encode())[0] == [429]
    assert run_door(json.dumps({"fn_index": "5"}).encode())[0] == [429]  # as Gradio's validation reads it
    assert run_door(json.dumps({"fn_index": 6, "fn_index ": 1, "x": 5}).encode())[0] == [200]
    assert run_door(b'{"fn_index": 6, "fn_index": 5}')[0] == [429]  # the last copy, as Gradio
    assert run_door(json.dumps({"fn_index": [5]}).encode())[0] == [200]  # Gradio refuses it itself
    big = json.dumps({"fn_index": 5, "data": ["x" * (70 * 1024)]}).encode()
    assert run_door(big, chunk=4096) == ([200], big)  # not read past the cap: untouched, whole


async def served(scope, receive, send) -> None:
    """The app behind the door: answers every request 200."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def compare_join(door, address: str, t0: float | None = None) -> tuple[int, float]:
    """One Compare queue/join (fn_index 5) from ``address`` through ``door``: its status and the
    seconds from ``t0`` (default: now) until it was answered."""
    status, t0 = [], time.monotonic() if t0 is None else t0

    async def receive():
        return {"type": "http.request", "body": json.dumps({"fn_index": 5}).encode(), "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    path = "/gradio_api/queue/join"
    await door({"type": "http", "method": "POST", "path": path, "headers": [], "client": (address, 1)}, receive, send)
    return status[0], time.monotonic() - t0


def test_a_held_join_is_served_when_its_token_comes_else_refused_after_the_hold():
    import asyncio

    from ui.compare_door import CompareDoor

    def run(bucket: TokenBucket) -> tuple[int, float]:
        door = CompareDoor(served, frozenset({5}), NO_PROXIES, bucket, Holds(per_caller=4, in_all=4))
        return asyncio.run(compare_join(door, "10.0.0.9"))

    refilling = TokenBucket(burst=1, per_second=4.0)
    assert refilling.take("address:10.0.0.9") == 0.0  # the burst spent
    status, took = run(refilling)
    assert status == 200 and took >= 0.2  # waited ~0.25 s for its token, then served
    status, took = run(TokenBucket(burst=0, per_second=4.0))  # a token never comes
    assert status == 429 and took >= 0.2
