"""The upload gate (ui/uploads.py) as ASGI middleware in front of a stand-in for Gradio's route:
an upload over its account's budget is refused before a byte of it is read, the refusal held (a
flood goes at its own pace) in bounded places, and an upload within the budget reaches Gradio.
The app-level refusals (401 without a token, 429 past the budget, 411) are tests/hardening/test_uploads.py."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import pytest

from submissions.fair_queue import PER_IDENTITY, Checks
from tests.support import own_loop
from ui.uploads import HELD_PER_CALLER, UPLOAD_PATH, UploadBudget, UploadGate

SIZE = 1000


class Gradio:
    """Gradio's upload route, standing in: reads the body, answers 200."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"[]"})


def local_auth(name: str = "alice"):
    """What ui.auth.Auth gives the gate locally: the local identity for every caller."""
    caller = SimpleNamespace(identity=SimpleNamespace(username=name), refusal="")
    return SimpleNamespace(oauth=False, caller=lambda profile, request: caller)


async def upload(gate: UploadGate, size: int = SIZE) -> tuple[int, int]:
    """(status, body messages the gate or Gradio read) of one upload."""
    scope = {
        "type": "http", "method": "POST", "path": UPLOAD_PATH, "headers": [(b"content-length", str(size).encode())],
        "query_string": b"", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "scheme": "http",
    }  # fmt: skip
    read, sent = [0], []

    async def receive() -> dict:
        read[0] += 1
        return {"type": "http.request", "body": b"x" * size, "more_body": False}

    async def send(message) -> None:
        sent.append(message)

    await gate(scope, receive, send)
    return sent[0]["status"], read[0]


def test_an_upload_over_the_budget_is_refused_unread_and_one_within_reaches_gradio():
    gradio = Gradio()
    gate = UploadGate(gradio, local_auth(), UploadBudget(max_bytes=10 * SIZE, uploads=2), refusal_hold=0.0)

    async def three() -> list:
        return await asyncio.wait_for(asyncio.gather(*(upload(gate) for _ in range(3))), 60)

    answers = own_loop.run(three())
    assert sorted(answers) == [(200, 1), (200, 1), (429, 0)]  # the third: not a byte read
    assert gradio.calls == 2


async def _until(condition, seconds: float) -> None:
    """Wait until ``condition()`` holds (each upload reaches the gate through a thread: on a loaded
    host that took longer than the 50 ms once slept here); a hang guard, not a time asserted."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.01)


def test_refusals_are_held_in_bounded_places_per_caller():
    """Past HELD_PER_CALLER held refusals of one caller, the next is answered at once; a hold
    ends with the refusal, its body unread. Order of answers, not time, is asserted."""

    async def run() -> list:
        gate = UploadGate(Gradio(), local_auth(), UploadBudget(max_bytes=10 * SIZE, uploads=1), refusal_hold=60.0)
        assert await upload(gate) == (200, 1)
        held = [asyncio.ensure_future(upload(gate)) for _ in range(HELD_PER_CALLER)]
        await _until(lambda: gate.held.get("alice", 0) == HELD_PER_CALLER, seconds=30)
        assert not any(h.done() for h in held)
        at_once = await asyncio.wait_for(upload(gate), 30)  # no place left: answered without a hold
        assert not any(h.done() for h in held)
        for h in held:
            h.cancel()
        await asyncio.gather(*held, return_exceptions=True)
        return [at_once, dict(gate.held)]

    at_once, left = own_loop.run(run())
    assert at_once == (429, 0)
    assert left == {}  # every place given back when its sender left


def test_an_upload_waits_unread_while_its_accounts_checks_fill_the_bound():
    """Six validate-only loops used to send 27 MB each into the web process only to be told to send
    it again: an upload whose account already holds its bound of checks waits at the gate, unread,
    until one ends (at most UPLOAD_HOLD s), then goes in. Order, not time, is asserted."""

    async def run() -> tuple:
        checks = [PER_IDENTITY]  # the account's checks running or waiting
        gradio = Gradio()
        gate = UploadGate(Gradio(), local_auth(), UploadBudget(max_bytes=10 * SIZE), lambda who: Checks(checks[0], 0))
        gate.app = gradio
        waiting = asyncio.ensure_future(upload(gate))
        await asyncio.sleep(0.3)  # a few of the gate's looks at the account
        was_waiting, read_then = not waiting.done(), gradio.calls
        checks[0] = PER_IDENTITY - 1  # one check ended
        got = await asyncio.wait_for(waiting, 30)
        return was_waiting, read_then, got, gate.held, gate.streaming

    was_waiting, read_then, got, held, streaming = own_loop.run(run())
    assert was_waiting and read_then == 0  # held, its body not read
    assert got == (200, 1)
    assert not held and not streaming  # places given back


def test_the_readme_client_gets_an_answer_while_its_account_is_busy(tmp_path_factory, tmp_path):
    """README's script (``Client(url)``, no timeout given: httpx's 5 s) while its account's bound
    is full for longer than 5 s (two uploads in flight here stand in for two slow checks): held up to
    60 s, it got httpx.ReadTimeout; held at most 4 s, it goes in and gets its answer."""
    import socket

    gradio_client = pytest.importorskip("gradio_client")
    import httpx

    from tests.ui.conftest import start_app

    app = start_app(tmp_path_factory, "upload-gate-client")
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
