"""Attacks on the doors (ui.compare_door, ui.uploads): an honest client that sends a few requests at
once, and a hostile one that holds places without paying for them."""

from __future__ import annotations

import asyncio
import json
import time

from ui.compare_door import MAX_HOLD, CompareDoor, TokenBucket
from ui.door_holds import Holds


async def _compare_joins(door: CompareDoor, n: int) -> list[tuple[int, float]]:
    """``n`` Compare joins of one visitor sent at once: (status, seconds until answered) each."""
    t0 = time.monotonic()

    async def one() -> tuple[int, float]:
        status: list[int] = []

        async def receive():
            return {"type": "http.request", "body": json.dumps({"fn_index": 5}).encode(), "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/queue/join", "headers": [],
                 "client": ("10.0.0.7", 1)}  # fmt: skip
        await door(scope, receive, send)
        return status[0], time.monotonic() - t0

    return await asyncio.gather(*(one() for _ in range(n)))


def test_joins_held_at_once_each_get_their_own_token_not_one_for_all():
    """Two joins past the burst, sent together: the next token is due in 0.25 s and the one after in
    0.5 s, both within the hold, so both are served. Held joins used to sleep until the *same* next
    token and race for it: one served, the other refused though its token came within the hold."""

    async def behind(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    bucket = TokenBucket(burst=1, per_second=4.0)  # a token every 0.25 s, far inside MAX_HOLD
    door = CompareDoor(behind, frozenset({5}), False, bucket, Holds(per_caller=8, in_all=8))
    answers = asyncio.run(_compare_joins(door, 3))
    assert [status for status, _ in answers] == [200, 200, 200], answers
    assert sorted(took for _, took in answers)[-1] >= 0.4  # the third waited for the second refill
    assert MAX_HOLD > 0.5  # the premise: both tokens are due within the hold


def test_joins_beyond_the_tokens_due_within_the_hold_are_refused_after_it():
    """Served: the burst and every token due within MAX_HOLD, each join its own; the rest are
    held MAX_HOLD s (a flood's refusal is not answered at once) and then refused."""

    async def behind(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    rate = 2.0
    bucket = TokenBucket(burst=1, per_second=rate)
    door = CompareDoor(behind, frozenset({5}), False, bucket, Holds(per_caller=64, in_all=64))
    answers = asyncio.run(_compare_joins(door, 14))
    statuses = [status for status, _ in answers]
    assert statuses.count(200) == 1 + int(MAX_HOLD * rate), statuses
    served = sorted(took for status, took in answers if status == 200)
    assert all(took >= i / rate - 0.05 for i, took in enumerate(served)), served  # one per token
    refused = [took for status, took in answers if status == 429]
    assert len(refused) == 3 and min(refused) >= MAX_HOLD - 0.05
