"""README's gradio_client snippet (default Client) while the account's bound is full (two uploads
in flight, standing in for two checks that take > 5 s): what does the script see?"""

import socket
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, ".")
import gradio_client

from tests.support.app_server import AppServer

tmp = Path(tempfile.mkdtemp())
app = AppServer(tmp / "data").start()
part = b'--xx\r\nContent-Disposition: form-data; name="files"; filename="p.jsonl"\r\n\r\n'
try:
    f = tmp / "preds.jsonl"
    f.write_text('{"question_id": "q1", "answer": "A"}\n' * 2000)
    client = gradio_client.Client(app.url, verbose=False)
    busy = []
    for _ in range(2):
        s = socket.create_connection(("127.0.0.1", app.port))
        s.sendall(
            f"POST /gradio_api/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=xx\r\nContent-Length: {5 * 2**20}\r\n\r\n".encode()  # noqa: E501
            + part
        )
        busy.append(s)
    time.sleep(1)
    t0 = time.monotonic()
    try:
        answer = client.predict(
            "scb",
            gradio_client.handle_file(str(f)),
            "m",
            "t",
            "open",
            "xyxy",
            "",
            "",
            "",
            validate_only=True,
            api_name="/submit",
        )
        print("answered", round(time.monotonic() - t0, 1), "s:", str(answer)[:150])
    except Exception as e:
        print("raised after", round(time.monotonic() - t0, 1), "s:", type(e).__module__, type(e).__name__, str(e)[:100])
    for s in busy:
        s.close()
finally:
    app.stop()
