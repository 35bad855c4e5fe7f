"""scoring.harness.runner.images: an image fetched to be sent inline is fetched once, however many questions show it.

SCB's decoy options are other questions' answer images, so each image is an option about four times
(the demo: 12,712 option images, 3,178 distinct). At 1584e05 the runner fetched every one of them
again from the team's image host; a fetched image is now kept, within a bound in bytes."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from scoring.harness.runner.images import FetchedImages, Images

PNG = b"\x89PNG\r\n\x1a\n" + b"x" * 1000


class _Host(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.asked: Counter[str] = Counter()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the http.server hook
        self.server.asked[self.path] += 1
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(PNG)))
        self.end_headers()
        self.wfile.write(PNG)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def host() -> Iterator[_Host]:
    server = _Host()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def test_an_image_shown_by_four_questions_is_fetched_once(host):
    images = Images(f"http://127.0.0.1:{host.server_address[1]}/images/", inline=True)
    parts = [images.part(f"{name}.png") for name in ["a", "b", "a", "c", "a", "b", "a"]]
    assert host.asked == {"/images/a.png": 1, "/images/b.png": 1, "/images/c.png": 1}
    assert parts[0] == parts[2] == parts[6] and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")


def test_the_kept_images_stay_within_their_bound_least_recently_used_going_first():
    kept = FetchedImages(max_bytes=25)
    fetched: list[str] = []

    def fetch(url: str) -> str:
        fetched.append(url)
        return url * 10  # 10 bytes a url of one letter

    for url in ["a", "b", "a", "c", "b"]:  # c pushes out the least recently used (b), then b comes again
        kept.get(url, fetch)
    assert fetched == ["a", "b", "c", "b"]
    assert kept.size <= 25


def test_an_image_larger_than_the_bound_is_sent_and_not_kept():
    kept = FetchedImages(max_bytes=5)
    assert kept.get("a", lambda url: "x" * 10) == "x" * 10
    assert kept.size == 0
