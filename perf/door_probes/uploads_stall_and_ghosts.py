"""Real app, local identity (every caller the same account): stalled bodies, disconnect in a hold."""

import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, ".")
from tests.support.app_server import AppServer


def raw_upload(port, size, send_body=b""):
    s = socket.create_connection(("127.0.0.1", port))
    boundary = "xx"
    head = (
        f"POST /gradio_api/upload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {size}\r\n\r\n"
    )
    s.sendall(head.encode() + send_body)
    return s


def small_upload(url, timeout=90):
    t0 = time.monotonic()
    r = httpx.post(url + "/gradio_api/upload", files={"files": ("a.jsonl", b'{"x":1}\n')}, timeout=timeout)
    return r.status_code, round(time.monotonic() - t0, 2), r.text[:120]


tmp = Path(tempfile.mkdtemp())
app = AppServer(tmp / "data").start()
try:
    print("baseline", small_upload(app.url))
    part = b'--xx\r\nContent-Disposition: form-data; name="files"; filename="p.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n'  # noqa: E501
    stalled = [raw_upload(app.port, 5 * 2**20, part) for _ in range(2)]  # let in, body never finished
    time.sleep(1.0)
    # a third upload now waits (in_hand 2); in 3 s we close the stalled sockets
    t = threading.Timer(3.0, lambda: [s.close() for s in stalled])
    t.start()
    print("third, stalled ones closed after 3 s:", small_upload(app.url))
    # stalled forever: does the account stay busy?  keep 2 open 70 s? (shortened: 8 s probe)
    stalled = [raw_upload(app.port, 5 * 2**20, part) for _ in range(2)]
    time.sleep(1.0)
    print("with 2 stalled open, upload (10 s client timeout):", end=" ")
    try:
        print(small_upload(app.url, timeout=10))
    except httpx.TimeoutException:
        print("client timed out after 10 s (held)")
    # ghosts: open 8 held raw uploads (headers only) and close them: do their places linger?
    ghosts = [raw_upload(app.port, 1000) for _ in range(8)]
    time.sleep(0.5)
    for g in ghosts:
        g.close()
    time.sleep(0.5)
    print("after 8 ghosts closed, upload:", small_upload(app.url, timeout=10))
    for s in stalled:
        s.close()
    time.sleep(1)
    print("stalled closed, upload:", small_upload(app.url))
finally:
    app.stop()
