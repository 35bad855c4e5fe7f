"""The baked page's parts without a server: re-baking once per change (throttled), the page
cache middleware, and single-flight board renderings."""

from __future__ import annotations

import asyncio
import gzip
import threading
import time

import gradio as gr

from tests.support.submissions import ALICE, form, write_submission
from ui import display
from ui.baked import PageBaker, Shown
from ui.board import BoardPages, Filters
from ui.downloads import Downloads
from ui.page_cache import PageCache


class Part:
    """A baked part whose key and value the test sets."""

    def __init__(self, box: gr.Markdown) -> None:
        self.box, self.key, self.text, self.bakes = box, "a", "first", 0

    def bake_key(self) -> str:
        return self.key

    def baked(self) -> list[Shown]:
        self.bakes += 1
        return [Shown(self.box, self.text)]


def markdown_value(page: gr.Blocks, elem_id: str) -> str:
    return next(c["props"]["value"] for c in page.config["components"] if c["props"].get("elem_id") == elem_id)


def test_the_baker_writes_values_into_the_config_once_per_key_and_at_most_so_often():
    with gr.Blocks() as page:
        box = gr.Markdown("built", elem_id="box")
    part, now = Part(box), [100.0]
    baker = PageBaker(page, [part], at_most_every=2.0, clock=lambda: now[0])
    assert baker.refresh() and baker.version == 1 and markdown_value(page, "box") == "first"
    assert not baker.refresh() and part.bakes == 1  # same key: nothing to do
    part.key, part.text = "b", "second"
    now[0] += 1.0
    assert not baker.refresh() and markdown_value(page, "box") == "first"  # too soon after the last bake
    now[0] += 1.0
    assert baker.refresh() and baker.version == 2 and markdown_value(page, "box") == "second"
    assert box.value == "second"  # new sessions read the component too


class FakeGradio:
    """An ASGI app that answers like Gradio's ``GET /`` and counts the renders."""

    def __init__(self, status: int = 200, cookie: bool = False) -> None:
        self.status, self.cookie, self.calls = status, cookie, 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        await asyncio.sleep(0.01)  # concurrent requests overlap this render
        headers = [(b"content-type", b"text/html"), (b"content-length", b"9")]
        if self.cookie:
            headers.append((b"set-cookie", b"x=1"))
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": f"page {self.calls}".encode()})


def get(cache: PageCache, path: str = "/", query: bytes = b"", **headers: str):
    scope = {
        "type": "http", "method": "GET", "path": path, "query_string": query, "scheme": "http", "root_path": "",
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in {"host": "h", **headers}.items()],
    }  # fmt: skip
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request"}

    return scope, receive, send, sent


def answer(sent: list[dict]) -> tuple[int, dict, bytes]:
    start = sent[0]
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, sent[-1]["body"]


def run(cache: PageCache, *requests) -> list[tuple[int, dict, bytes]]:
    async def all_of():
        calls = [get(cache, *r[:2], **(r[2] if len(r) > 2 else {})) for r in requests]
        await asyncio.gather(*(cache(s, rc, sd) for s, rc, sd, _ in calls))
        return [answer(sent) for *_, sent in calls]

    return asyncio.run(all_of())


def test_the_page_cache_renders_once_per_version_and_gzips_for_clients_that_accept_it():
    gradio, version = FakeGradio(), [1]
    cache = PageCache(gradio, version=lambda: version[0])
    zipped = {"accept_encoding": "gzip, deflate"}
    answers = run(cache, ("/", b"", zipped), ("/", b"bench=scb", zipped), ("/", b""))
    assert gradio.calls == 1  # three concurrent requests (a deep link among them), one render
    (status, headers, body), _, (_, plain_headers, plain) = answers
    assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "accept-encoding"
    assert gzip.decompress(body) == plain == b"page 1" and headers["content-length"] == str(len(body))
    assert "content-encoding" not in plain_headers and plain_headers["content-length"] == "6"
    version[0] = 2  # a re-bake
    assert run(cache, ("/",))[0][2] == b"page 2"
    run(cache, ("/", b"", {"host": "other", "x_forwarded_host": "evil"}))  # headers do not key it (root pinned)
    assert gradio.calls == 2
    run(cache, ("/config",))  # the path does
    assert gradio.calls == 3


def test_the_page_cache_key_is_the_version_and_path_whatever_the_headers_say():
    """attacks.md #1: a key read from one copy of a repeated header while Gradio read another
    let one request store an attacker's page; now no header is in the key at all (the root is
    pinned by ui.origin), and a login cookie in any copy of ``Cookie`` still bypasses it."""
    cache = PageCache(FakeGradio(), version=lambda: 7)
    scope, *_ = get(cache)
    repeated = [(b"x-forwarded-host", b"evil.example"), (b"x-forwarded-host", b""), (b"forwarded", b"host=evil")]
    assert cache.key({**scope, "headers": [*scope["headers"], *repeated]}) == cache.key(scope) == (7, "/")
    two_cookies = [(b"cookie", b"a=1"), (b"cookie", b"access-token-x=1")]
    assert cache.key({**scope, "headers": [*scope["headers"], *two_cookies]}) is None


def test_the_page_cache_leaves_other_pages_logins_and_odd_answers_to_gradio():
    gradio = FakeGradio()
    cache = PageCache(gradio, version=lambda: 1)
    run(cache, ("/", b"page=other"), ("/", b"deep_link=abc"), ("/", b"", {"cookie": "access-token-x=1"}))
    run(cache, ("/gradio_api/info",))
    assert gradio.calls == 4
    for odd in (FakeGradio(status=404), FakeGradio(cookie=True)):
        cache = PageCache(odd, version=lambda: 1)
        first, second = run(cache, ("/",)), run(cache, ("/",))
        assert odd.calls == 2 and first[0][2] == b"page 1" and first[0][0] == odd.status
        assert second[0][2] == b"page 2"


def test_concurrent_misses_for_one_view_render_once_and_share_the_downloads(lb, tmp_path):
    lb.submit("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.8), form("M", "T"), ALICE)
    pages = BoardPages(lb, Downloads(tmp_path / "files"))
    slow = pages.render

    def render(*args):
        time.sleep(0.2)  # long enough for every thread to miss
        return slow(*args)

    pages.render = render
    default = Filters.of("overall", list(display.TYPE_FILTERS), list(display.SOURCES), "")
    got: list = []
    threads = [threading.Thread(target=lambda: got.append(pages.page("scb", default))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert pages.renders == 1 and len(got) == 8 and all(p is got[0] for p in got)
    hidden = pages.page("scb", Filters.of("overall", list(display.TYPE_FILTERS), list(display.SOURCES), "", ["mIoU"]))
    assert pages.renders == 2 and (hidden.csv, hidden.parquet) == (got[0].csv, got[0].parquet)


def test_a_failed_first_bake_keeps_the_app_up_and_the_next_poll_bakes():
    """At start-up on the Hub the gold pointer can be synced before the gold file: the first bake
    (in build_app) raised NotFound and the app exited. It must wait for the next poll instead."""
    with gr.Blocks() as page:
        box = gr.Markdown("built", elem_id="box")
    part = Part(box)
    failures = [FileNotFoundError("gold/scb/v.jsonl")]
    baked = part.baked
    part.baked = lambda: (_ for _ in ()).throw(failures.pop()) if failures else baked()
    baker = PageBaker(page, [part], at_most_every=0.0)
    assert not baker.refresh_or_keep() and baker.version == 0 and markdown_value(page, "box") == "built"
    assert baker.refresh_or_keep() and baker.version == 1 and markdown_value(page, "box") == "first"
