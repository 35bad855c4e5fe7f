"""attacks.md #1 and #1b: no request header sets the page's root, so no request can poison the
cached page for later visitors.

The red team sent ``X-Forwarded-Host: <attacker>`` and then an empty copy of the header: the
page cache keyed on the last copy, Gradio built the page from the first, and every later
visitor's browser ran the attacker's script in the leaderboard's origin. Here the app is
served with ``LEADERBOARD_PUBLIC_URL`` = ``http://localhost:<port>`` (not the address the
requests use, so the test can tell configured from derived), the attacks are sent raw over a
socket (duplicated and conflicting ``Host``, ``X-Forwarded-Host``, ``X-Forwarded-Proto``,
``Forwarded``, ``X-Gradio-Server``), and then an ordinary client and Chromium, as the victim,
must get the configured root and send nothing to the attacker's server.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.app_server import AppServer, free_port
from tests.ui.conftest import shot

TIMEOUT = 30_000


class Attacker(BaseHTTPRequestHandler):
    """The attacker's host: serves a script for any path and remembers every request."""

    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.seen.append(self.path)
        body = b"window.__pwned = location.origin;"
        self.send_response(200)
        self.send_header("Content-Type", "application/javascript")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def attacker():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    app = AppServer(
        tmp_path_factory.mktemp("root-poisoning") / "data", LEADERBOARD_PUBLIC_URL=f"http://localhost:{port}"
    )
    app.start(port=port)
    app.public_url = f"http://localhost:{port}"
    yield app
    app.stop()


def raw_get(port: int, path: str, headers: list[tuple[str, str]]) -> tuple[int, bytes]:
    """One GET written byte by byte, so repeated headers reach the server as sent; with the
    ``Host`` a victim's browser sends (the configured address) unless the attack sets its own."""
    if not any(name.lower() == "host" for name, _ in headers):
        headers = [("Host", f"localhost:{port}"), *headers]
    request = f"GET {path} HTTP/1.1\r\n" + "".join(f"{n}: {v}\r\n" for n, v in headers)
    request += "Connection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(request.encode("latin-1"))
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        body = dechunk(body)
    return status, body


def dechunk(body: bytes) -> bytes:
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2 :]
    return b"".join(out)


def root_in(path: str, body: bytes) -> str:
    """The root URL Gradio wrote into a page (``/``) or a config (``/config``)."""
    if path.startswith("/config"):
        return json.loads(body)["root"]
    found = re.search(rb'"root":\s*"([^"]*)"', body)
    assert found, body[:300]
    return found.group(1).decode()


def attacks(evil: str) -> list[list[tuple[str, str]]]:
    """The red team's exact request (a first copy with the attacker's host, then an empty copy)
    and its relatives: every header Gradio derives the root from, repeated, conflicting, alone."""
    return [
        [("X-Forwarded-Host", evil), ("X-Forwarded-Host", "")],
        [("X-Forwarded-Host", ""), ("X-Forwarded-Host", evil)],
        [("X-Forwarded-Host", f"{evil}, 127.0.0.1")],
        [("X-Forwarded-Host", evil)],
        [("X-Forwarded-Proto", "https"), ("X-Forwarded-Proto", "")],
        [("X-Forwarded-Proto", "https")],
        [("X-Gradio-Server", f"http://{evil}"), ("X-Gradio-Server", "")],
        [("X-Gradio-Server", f"http://{evil}")],
        [("Forwarded", f"host={evil};proto=https"), ("Forwarded", "")],
        [("Host", evil)],
        [("Host", evil), ("Host", "")],
        [("X-Forwarded-Host", evil), ("X-Forwarded-Proto", "https"), ("X-Gradio-Server", f"https://{evil}")],
    ]


def test_no_header_shapes_the_root_of_any_page_served_then_or_later(server, attacker):
    evil = attacker.split(":")[1].encode()
    for headers in attacks(attacker):  # the board page: the same bytes whatever the headers say
        status, body = raw_get(server.port, "/", headers)
        assert status in (200, 400) and evil not in body, headers
    for path in ("/app", "/config", "/config/"):  # Gradio's page and config carry the configured root
        for headers in attacks(attacker):
            status, body = raw_get(server.port, path, headers)
            if status == 200:  # the attacker's own answer carries the configured root too
                assert root_in(path, body) == server.public_url, (path, headers)
            else:  # h11 refuses some (two Host headers): then nothing was rendered
                assert status == 400, (path, headers, status)
        with urllib.request.urlopen(server.public_url + path, timeout=30) as later:  # an ordinary later visitor
            assert root_in(path, later.read()) == server.public_url, path
    assert evil not in raw_get(server.port, "/", [])[1] and evil not in raw_get(server.port, "/app", [])[1]


def test_chromium_as_the_victim_loads_nothing_from_the_attacker(server, attacker, browser):
    Attacker.seen.clear()
    for path in ("/", "/app", "/config"):
        for headers in attacks(attacker):
            raw_get(server.port, path, headers)
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.goto(server.public_url + "/")  # the board page, then the Gradio page it links
        page.wait_for_selector(".tabulator-row >> text=reported in paper")
        page.goto(server.public_url + "/app?tab=submit")  # Compare left Gradio for the board page
        page.wait_for_selector("#tab-submit")  # an event-driven page: its API calls follow the root
        assert page.evaluate("window.gradio_config.root") == server.public_url
        assert page.evaluate("window.__pwned === undefined")
        shot(page, "root-poisoning-victim")
    finally:
        context.close()
    assert not [url for url in requested if attacker in url]
    assert Attacker.seen == []
    assert any(url.startswith(server.public_url + "/") for url in requested)
