"""Send one Gradio event the way the page's JavaScript does (queue join, then the event stream),
with any values and session hash: what a tampered-with browser could send, past the page's controls."""

from __future__ import annotations

import json

import httpx


def fn_index(config: dict, elem_id: str) -> int:
    """The event fired by clicking the component with this elem_id."""
    ids = [c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == elem_id]
    for i, dep in enumerate(config["dependencies"]):
        if any(target[0] in ids and target[1] == "click" for target in dep.get("targets", [])):
            return dep.get("id", i)
    raise LookupError(elem_id)


def queue_call(url: str, fn: int, data: list, session: str, headers: dict[str, str] | None = None) -> dict:
    """One event through Gradio's queue, as the page's JavaScript sends it (with ``headers`` on
    every request, e.g. a forged X-Forwarded-For); the final message."""
    with httpx.Client(base_url=url, timeout=60, headers=headers) as http:
        body = {"data": data, "event_data": None, "fn_index": fn, "trigger_id": None, "session_hash": session}
        assert http.post("/gradio_api/queue/join", json=body).status_code == 200
        with http.stream("GET", "/gradio_api/queue/data", params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:") and (msg := json.loads(line[5:])).get("msg") == "process_completed":
                    return msg
    raise AssertionError("no process_completed message")
