"""A stand-in OpenAI-compatible chat endpoint on 127.0.0.1 (the "toy endpoint" of the docs): try the
runner and the other harnesses end to end on one machine with no model
(``python -m scoring.harness.runner.fake_endpoint --port 8000``), and their tests.

It answers ``POST /v1/chat/completions`` with whatever ``reply(messages)`` returns (by default
:func:`stand_in_reply`: a letter drawn from a hash of what the request asks, whichever harness
sends it, and a box in the format the
grounding prompt asks for), records every request, and can fail on purpose: ``faults`` is a list
of HTTP statuses returned, in order, before real answers (429 carries ``Retry-After: 0``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRANSPORT_KEYS = frozenset({"detail"})
"""Keys of an ``image_url`` that say how to send the image, not what it is: Inspect adds ``"detail": "auto"``
to each (inspect_ai/model/_openai.py), the runner and lmms-eval send none."""


def _what_is_asked(messages: list[dict]) -> list[dict]:
    """The messages without the transport's details (:data:`TRANSPORT_KEYS`): the same question sent by
    any harness is the same request to the stand-in model, so its answer is the same."""
    return [
        {**m, "content": [_without_transport(p) for p in m["content"]]} if isinstance(m.get("content"), list) else m
        for m in messages
    ]


def _without_transport(part: object) -> object:
    if isinstance(part, dict) and isinstance(part.get("image_url"), dict):
        return {**part, "image_url": {k: v for k, v in part["image_url"].items() if k not in TRANSPORT_KEYS}}
    return part


def _digest(messages: list[dict]) -> bytes:
    return hashlib.sha256(json.dumps(_what_is_asked(messages), sort_keys=True).encode("utf-8")).digest()


def stand_in_reply(messages: list[dict]) -> str:
    """A stand-in model: a stable letter per request; in stage 2, a box as the prompt asks for it."""
    content = messages[-1]["content"]
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    prompt = " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
    images = sum(p.get("type") == "image_url" for p in parts)
    digest = _digest(messages)
    letter = "ABCD"[digest[0] % 4]
    if images != 1 or "A. " in prompt:  # a choice: a two-stage stage 1, or lettered text options
        return f"The answer is {letter}."
    if "box_2d" in prompt:
        return json.dumps([{"box_2d": [200, 150, 800, 700], "label": "artifact"}])
    if "bbox" in prompt and "JSON" in prompt:
        return json.dumps([{"bbox_2d": [40, 30, 200, 160], "label": "artifact"}])
    return "[0.15, 0.2, 0.7, 0.8]"


class FakeOpenAI:
    def __init__(
        self,
        reply: Callable[[list[dict]], str] = stand_in_reply,
        faults: list[int] | None = None,
        delay: float = 0.0,
        port: int = 0,
    ) -> None:
        self.reply = reply
        self.faults = list(faults or [])
        self.delay = delay
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next_fault(self) -> int | None:
        with self._lock:
            return self.faults.pop(0) if self.faults else None

    def _answer(self, body: dict) -> tuple[int, dict, dict]:
        """The status, body and extra headers of one chat request's reply."""
        if (status := self._next_fault()) is not None:
            extra = {"Retry-After": "0"} if status == 429 else {}
            return status, {"error": {"message": f"fault {status}"}}, extra
        reply = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.reply(body["messages"])},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return 200, reply, {}

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def _send(self, status: int, body: dict, headers: dict | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                with fake._lock:
                    fake.statuses.append(status)

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found"}})
                with fake._lock:
                    fake.requests.append({"body": body, "authorization": self.headers.get("Authorization")})
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if fake.delay:
                        time.sleep(fake.delay)
                    answer = fake._answer(body)
                finally:  # answered before the reply goes out: the client's next request may come at once
                    with fake._lock:
                        fake.in_flight -= 1
                return self._send(*answer)

        return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.harness.runner.fake_endpoint", description="a stand-in OpenAI-compatible endpoint"
    )
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    with FakeOpenAI(port=args.port) as fake:
        print(f"serving a stand-in model at {fake.base_url} (Ctrl-C to stop)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
