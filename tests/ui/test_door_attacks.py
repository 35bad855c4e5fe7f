"""Attacks on the doors (ui.compare_door, ui.uploads): an honest client that sends a few requests at
once, and a hostile one that holds places without paying for them."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest

from tests.ui.test_compare_door import Clock, compare_join, served
from ui.compare_door import MAX_HOLD, CompareDoor, TokenBucket
from ui.door_holds import Holds
from ui.throttle import NO_PROXIES


async def _compare_joins(door: CompareDoor, n: int) -> list[tuple[int, float]]:
    """``n`` Compare joins of one visitor sent at once: (status, seconds until answered) each."""
    t0 = time.monotonic()
    return await asyncio.gather(*(compare_join(door, "10.0.0.7", t0) for _ in range(n)))


def test_joins_held_at_once_each_get_their_own_token_not_one_for_all():
    """Two joins past the burst, sent together: the next token is due in 0.25 s and the one after in
    0.5 s, both within the hold, so both are served. Held joins used to sleep until the *same* next
    token and race for it: one served, the other refused though its token came within the hold."""

    bucket = TokenBucket(burst=1, per_second=4.0, clock=Clock())  # a token every 0.25 s, far inside MAX_HOLD
    door = CompareDoor(served, frozenset({5}), NO_PROXIES, bucket, Holds(per_caller=8, in_all=8))
    answers = asyncio.run(_compare_joins(door, 3))
    assert [status for status, _ in answers] == [200, 200, 200], answers
    assert sorted(took for _, took in answers)[-1] >= 0.4  # the third waited for the second refill
    assert MAX_HOLD > 0.5  # the premise: both tokens are due within the hold


def test_joins_beyond_the_tokens_due_within_the_hold_are_refused_after_it():
    """Served: the burst and every token due within MAX_HOLD, each join its own; the rest are
    held MAX_HOLD s (a flood's refusal is not answered at once) and then refused."""

    rate = 2.0
    bucket = TokenBucket(burst=1, per_second=rate, clock=Clock())  # frozen: a stalled host books no extra token
    door = CompareDoor(served, frozenset({5}), NO_PROXIES, bucket, Holds(per_caller=64, in_all=64))
    answers = asyncio.run(_compare_joins(door, 14))
    statuses = [status for status, _ in answers]
    assert statuses.count(200) == 1 + int(MAX_HOLD * rate), statuses
    answered = sorted(took for status, took in answers if status == 200)
    assert all(took >= i / rate - 0.05 for i, took in enumerate(answered)), answered  # one per token
    refused = [took for status, took in answers if status == 429]
    assert len(refused) == 3 and min(refused) >= MAX_HOLD - 0.05


def test_uploads_whose_senders_left_while_held_spend_none_of_the_budget():
    """A held upload's sender may give up (gradio_client's default 5 s timeout) and send again; the
    door cannot see it leave while the body is unread, and let it in when a check ended, charging
    its Content-Length though nothing was read or stored. Three such retries used up a budget of
    three files, and the account's next real upload was refused for the rest of the window."""
    from starlette.requests import ClientDisconnect

    from submissions.fair_queue import PER_IDENTITY
    from tests.ui.test_upload_door import FAST, SIZE, Behind, door_of, upload
    from ui.uploads import UploadBudget

    class Gradio(Behind):  # its upload route: a sender gone is starlette's ClientDisconnect
        async def __call__(self, scope, receive, send) -> None:
            if (await receive())["type"] == "http.disconnect":
                raise ClientDisconnect()
            await super().__call__(scope, receive, send)

    async def left(door) -> None:
        async def receive():
            return {"type": "http.disconnect"}

        async def send(message):
            raise OSError("the sender is gone")

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload",
                 "headers": [(b"content-length", str(SIZE).encode())], "client": ("10.0.0.1", 1)}  # fmt: skip
        with contextlib.suppress(ClientDisconnect):  # as Gradio's route raises it
            await door(scope, receive, send)

    async def run():
        held = [PER_IDENTITY]
        door = door_of(Gradio(), held, UploadBudget(3 * SIZE, uploads=3))
        ghosts = [asyncio.ensure_future(left(door)) for _ in range(3)]
        await asyncio.sleep(0.1)
        held[0] = 0  # the checks ended: the ghosts go in, one after another
        await asyncio.gather(*ghosts)
        await asyncio.sleep(FAST.landing)
        return await upload(door)

    got = asyncio.run(run())
    assert got.status == 200, got.detail


def test_the_readme_client_gets_an_answer_while_its_account_is_busy(tmp_path_factory, tmp_path):
    """README's script (``Client(url)``, no timeout given: httpx's 5 s) while its account's bound
    is full for longer than 5 s (two uploads in flight here stand in for two slow checks): held up to
    60 s, it got httpx.ReadTimeout; held at most 4 s, it goes in and gets its answer."""
    import socket

    gradio_client = pytest.importorskip("gradio_client")
    import httpx

    from tests.ui.conftest import start_app

    app = start_app(tmp_path_factory, "door-attack-client")
    busy: list[socket.socket] = []
    try:
        preds = tmp_path / "preds.jsonl"
        preds.write_text('{"question_id": "q1", "answer": "A"}\n')
        client = gradio_client.Client(app.url, verbose=False)
        for _ in range(2):  # headers and the part's start, then nothing: let in, arriving for as long as they stay
            s = socket.create_connection(("127.0.0.1", app.port))
            s.sendall(
                b"POST /gradio_api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xx\r\n"
                b'Content-Length: 5000000\r\n\r\n--xx\r\nContent-Disposition: form-data; name="files"; '
                b'filename="p.jsonl"\r\n\r\n'
            )
            busy.append(s)
        time.sleep(1.0)
        try:
            client.predict(
                "scb", gradio_client.handle_file(str(preds)), "m", "t", "open", "xyxy", "", "", "",
                validate_only=True, api_name="/submit",
            )  # fmt: skip
        except httpx.HTTPStatusError as refused:  # an answer: the script can tell busy from broken
            assert refused.response.status_code == 429
        client.close()
    finally:
        for s in busy:
            s.close()
        app.stop()


def test_an_upload_whose_body_stops_coming_stops_counting_for_its_account():
    """Headers and a first chunk, then nothing (a phone that lost its network, or a caller who
    means it): uvicorn sets no read timeout, so Gradio's route waited on the body for as long as the
    socket stayed open, the upload counted as arriving all that while, and with two of them every
    later upload of the account waited at the door and was refused. Zero bytes a second also
    bought the caller all of its held places (8 per account; 64 in all, for every account)."""
    from starlette.requests import ClientDisconnect

    from submissions.fair_queue import PER_IDENTITY
    from tests.ui.test_upload_door import SIZE, Behind, door_of, upload
    from ui.uploads import DoorTimes

    class Gradio(Behind):  # its upload route: a body that ends in a disconnect is ClientDisconnect
        async def __call__(self, scope, receive, send) -> None:
            while (message := await receive()).get("more_body"):
                pass
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            await super().__call__(scope, receive, send)

    async def stalled(door) -> int | None:
        sent, status = [], []

        async def receive():
            if not sent:
                sent.append(1)
                return {"type": "http.request", "body": b"x" * 1024, "more_body": True}
            await asyncio.Event().wait()  # the rest never comes; the socket stays open

        async def send(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload",
                 "headers": [(b"content-length", str(SIZE).encode())], "client": ("10.0.0.1", 1)}  # fmt: skip
        await door(scope, receive, send)
        return status[0] if status else None

    async def run():
        door = door_of(Gradio(), [0])
        door.times = DoorTimes(upload=4.0, refusal=0.4, poll=0.02, landing=0.3, body_idle=0.5)
        stuck = [asyncio.ensure_future(stalled(door)) for _ in range(PER_IDENTITY)]
        await asyncio.sleep(0.1)
        got = await upload(door)
        return got, await asyncio.gather(*stuck)

    got, stopped = asyncio.run(run())
    assert got.status == 200 and got.answered_after < 2.0, (got.status, got.answered_after)
    assert stopped == [408] * PER_IDENTITY  # told why, not a 500 from Gradio's unhandled disconnect


def test_places_of_senders_who_left_while_held_are_given_back():
    """A script that times out while held and sends again leaves its held upload behind (the door
    cannot see a sender leave while its body is unread); eight of them took all of the account's
    places, and its next upload was refused at once though no one was waiting any more (seen on
    the real app). Now an upload with no place to wait in goes in at once, and a hold ends within
    gradio_client's 5 s timeout, so a client does not leave in the first place."""
    from submissions.fair_queue import PER_IDENTITY
    from tests.ui.test_upload_door import SIZE, Behind, door_of, upload
    from ui.uploads import HELD_PER_CALLER, DoorTimes

    async def left(door) -> None:
        async def receive():
            return {"type": "http.disconnect"}

        async def send(message):
            pass

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload",
                 "headers": [(b"content-length", str(SIZE).encode())], "client": ("10.0.0.1", 1)}  # fmt: skip
        await door(scope, receive, send)

    async def run():
        held = [PER_IDENTITY]
        door = door_of(Behind(), held)
        door.times = DoorTimes(upload=3.0, refusal=0.4, poll=0.02, landing=0.3)
        ghosts = [asyncio.ensure_future(left(door)) for _ in range(HELD_PER_CALLER)]
        await asyncio.sleep(0.3)  # all of them gone by now
        live = asyncio.ensure_future(upload(door))
        await asyncio.sleep(0.3)
        held[0] = 0  # the checks end
        got = await live
        await asyncio.gather(*ghosts)
        return got

    got = asyncio.run(run())
    assert got.status == 200, got.detail


def test_the_line_forgets_accounts_whose_uploads_stopped_counting():
    """Every account that once had an upload stored stayed in the line for good (its landed upload
    was dropped only when that account uploaded again): memory grew with every account seen."""
    from submissions.fair_queue import Checks
    from ui.upload_line import UploadLine

    clock = [0.0]
    line = UploadLine(lambda who: Checks(0, 0), landing=2.0, clock=lambda: clock[0])
    for n in range(5000):
        who = f"team-{n}"
        ticket = line.join(who)
        assert line.may_enter(who, ticket)
        line.leave(who, ticket)
        line.arrived(who, stored=True)
        clock[0] += 1.0  # one upload a second, each of another account, none checked
    assert len(line._accounts) < 1100, len(line._accounts)
    assert line.in_hand("team-4999") == 1  # a young upload still counts
