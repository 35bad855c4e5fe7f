"""A local OpenAI-compatible chat endpoint for the runner's tests (127.0.0.1, a free port).

It answers ``POST /v1/chat/completions`` with whatever ``reply(messages)`` returns, records every
request, and can fail on purpose: ``faults`` is a list of HTTP statuses returned, in order, before
real answers (429 carries ``Retry-After: 0``), so the client's retries are exercised.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self, reply: Callable[[list[dict]], str], faults: list[int] | None = None, delay: float = 0.0) -> None:
        self.reply = reply
        self.faults = list(faults or [])
        self.delay = delay
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
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
                    if (status := fake._next_fault()) is not None:
                        extra = {"Retry-After": "0"} if status == 429 else {}
                        return self._send(status, {"error": {"message": f"fault {status}"}}, extra)
                    text = fake.reply(body["messages"])
                    return self._send(
                        200,
                        {
                            "id": f"chatcmpl-{len(fake.requests)}",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body["model"],
                            "choices": [
                                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                            ],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                        },
                    )
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

        return Handler
