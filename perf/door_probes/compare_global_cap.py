"""16 addresses x 64 held joins fill Compare's door in all (1024): an honest visitor's 5th click?"""

import asyncio
import json
import sys
import time

sys.path.insert(0, ".")
from ui.compare_door import HELD_IN_ALL, HELD_PER_VISITOR, CompareDoor, TokenBucket
from ui.door_holds import Holds


async def behind(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def join(door, addr):
    st = []

    async def receive():
        return {"type": "http.request", "body": json.dumps({"fn_index": 5}).encode(), "more_body": False}

    async def send(m):
        if m["type"] == "http.response.start":
            st.append(m["status"])

    t0 = time.monotonic()
    await door(
        {"type": "http", "method": "POST", "path": "/gradio_api/queue/join", "headers": [], "client": (addr, 1)},
        receive,
        send,
    )
    return st[0], round(time.monotonic() - t0, 2)


async def main():
    door = CompareDoor(behind, frozenset({5}), False, TokenBucket(), Holds(HELD_PER_VISITOR, HELD_IN_ALL))
    flood = [
        asyncio.ensure_future(join(door, f"2001:db8::{a}")) for a in range(16) for _ in range(4 + HELD_PER_VISITOR)
    ]
    await asyncio.sleep(0.2)
    honest = [await join(door, "198.51.100.7") for _ in range(6)]
    print("held in all:", door.holds.total(), "honest clicks (status, s):", honest)
    await asyncio.gather(*flood)


asyncio.run(main())
