"""Two uploads whose bodies stop coming: answered 408 after BODY_IDLE (30 s); the waiting upload goes in."""

import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, ".")
from tests.support.app_server import AppServer

app = AppServer(Path(tempfile.mkdtemp()) / "data").start()
try:
    busy = []
    for _ in range(2):
        s = socket.create_connection(("127.0.0.1", app.port))
        s.settimeout(60)
        s.sendall(
            b'POST /gradio_api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xx\r\nContent-Length: 5000000\r\n\r\n--xx\r\nContent-Disposition: form-data; name="files"; filename="p.jsonl"\r\n\r\n'  # noqa: E501
        )
        busy.append(s)
    time.sleep(0.5)
    t0 = time.monotonic()
    r = httpx.post(app.url + "/gradio_api/upload", files={"files": ("a.jsonl", b"{}\n")}, timeout=60)
    print("honest upload:", r.status_code, round(time.monotonic() - t0, 1), "s")
    for s in busy:
        print("stalled got:", s.recv(300).split(b"\r\n")[0], s.recv(300)[-90:])
finally:
    app.stop()
