"""One writer and two readers on one local results store, as three real apps
(docs/topology.md): a submission scored on the writer shows on both readers within their
refresh interval; the readers mount no write endpoint (nor tab, in a browser) and never touch
the gold or the submissions (an audit hook in each reader process records any access)."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request

import pytest

from leaderboard.reader import FolderSource, PublishedLeaderboard
from tests.support import demo
from tests.support.app_server import ROOT, AppServer
from ui.jobs import REFRESH_AT_LEAST_EVERY

gradio_client = pytest.importorskip("gradio_client")

AUDIT = ROOT / "tests" / "support" / "audit"
WRITE_ENDPOINTS = {"/submit", "/my_submissions", "/my_result", "/publish", "/unpublish"}
SLACK = 20  # seconds on top of the refresh interval: two cores shared with other test processes


def audited(forbidden: list, log) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(AUDIT), os.environ.get("PYTHONPATH", "")]))
    return {"PYTHONPATH": path, "AUDIT_FORBIDDEN": os.pathsep.join(map(str, forbidden)), "AUDIT_LOG": str(log)}


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    root = tmp_path_factory.mktemp("topology")
    data = root / "writer" / "data"
    private = [data / "gold", data / "submissions"]
    writer = AppServer(data, log=root / "writer.log", LEADERBOARD_PUBLISH_SECONDS="0",
                       LEADERBOARD_MAX_SCORED_PER_DAY="20", **audited(private, root / "writer-audit.log"))  # fmt: skip
    readers = [
        AppServer(
            root / f"reader{i}" / "data",
            log=root / f"reader{i}.log",
            LEADERBOARD_ROLE="reader",
            LEADERBOARD_RESULTS_DIR=str(data / "results"),
            LEADERBOARD_REFRESH_SECONDS="1",
            LEADERBOARD_WRITER_URL="https://example.org/the-writer",
            **audited(private, root / f"reader{i}-audit.log"),
        )  # fmt: skip
        for i in (1, 2)
    ]
    started = []
    try:
        for app in (writer, *readers):
            started.append(app.start())
        yield root, writer, readers
    finally:
        for app in started:
            app.stop()


def fetch_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def board_text(url: str, bench: str) -> str:
    """The board page as a visitor's browser gets it: its data, every board's rows (``ui/board_page.py``)."""
    with urllib.request.urlopen(url + "/", timeout=60) as r:
        page = r.read().decode()
    found = re.search(r'<script type="application/json" id="board-data">(.*?)</script>', page, re.S)
    assert found, "the board page carries its data"
    boards = {b["id"]: b for b in json.loads(found.group(1))["benchmarks"]}
    return json.dumps(boards[bench]["rows"])


def test_readers_mount_no_write_path(topology):
    _, writer, readers = topology
    assert set(fetch_json(writer.url + "/gradio_api/info")["named_endpoints"]) >= WRITE_ENDPOINTS
    for reader in readers:
        assert not WRITE_ENDPOINTS & set(fetch_json(reader.url + "/gradio_api/info")["named_endpoints"])
        config = json.dumps(fetch_json(reader.url + "/config"))
        assert not any(f'"tab-{tab}"' in config for tab in ("submit", "mine", "admin", "compare"))
        assert '"reader-note"' in config and "https://example.org/the-writer" in config
        with pytest.raises(Exception):  # noqa: B017 - any refusal: there is no such endpoint
            gradio_client.Client(reader.url, verbose=False).predict(api_name="/submit")


def test_a_submission_on_the_writer_shows_on_both_readers(topology):
    root, writer, readers = topology
    path = demo.write_jsonl(root / "new.jsonl", demo.kviscuit_submission(demo.kviscuit_gold(0), 0.9, seed=21))
    assert all("Reader-Probe" not in board_text(r.url, "kviscuit") for r in readers)
    answer = gradio_client.Client(writer.url, verbose=False).predict(
        "kviscuit", gradio_client.handle_file(str(path)), "Reader-Probe", "Probe team", "open", "xyxy", "", "", "",
        visibility="public", api_name="/submit",
    )  # fmt: skip
    assert answer["status"] == "scored", answer
    scored_at, seen = time.monotonic(), {}
    while len(seen) < len(readers) and time.monotonic() - scored_at < REFRESH_AT_LEAST_EVERY + SLACK:
        for reader in readers:
            if reader.url not in seen and "Reader-Probe" in board_text(reader.url, "kviscuit"):
                seen[reader.url] = time.monotonic() - scored_at
        time.sleep(0.5)
    assert len(seen) == len(readers), f"seen on {len(seen)} of {len(readers)} readers"
    print(f"lag after the writer's answer: {', '.join(f'{s:.1f} s' for s in seen.values())}")


def test_a_readers_page_in_a_browser(topology, browser):
    """The note, the boards and a model page from its link; a ?compare= link opens the board."""
    root, _, readers = topology
    published = PublishedLeaderboard(FolderSource(root / "writer" / "data" / "results"))
    published.refresh()
    row = next(r for r in published.board("scb").rows if r.model == "Demo-Gemini-2.5-Pro (synthetic)")
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{readers[0].url}/?bench=scb&model={row.row_id}")
        page.wait_for_selector("#model-page:not([hidden]) >> text=Demo-Gemini-2.5-Pro (synthetic)")
        submit = page.get_by_role("link", name="Submit", exact=True)  # submissions go to the writer
        assert submit.get_attribute("href") == "https://example.org/the-writer"
        assert not page.get_by_role("link", name="My submissions").count()
        page.goto(f"{readers[0].url}/?bench=scb&compare={row.row_id},{row.row_id}")  # no Compare: the board
        page.wait_for_selector("#board-table .tabulator-row >> text=Demo-Gemini-2.5-Pro (synthetic)")
        page.goto(f"{readers[0].url}/?tab=about")
        assert "read-only copy" in page.locator("#reader-note").inner_text()
        assert page.locator("#reader-note a").get_attribute("href") == "https://example.org/the-writer"
        page.get_by_role("tab", name="About", selected=True).wait_for()  # the tab bar may come after the note
        tabs = page.locator("#main-tabs [role=tab]").all_inner_texts()
        assert tabs == ["About"]
    finally:
        context.close()


def test_readers_never_touch_the_private_folders(topology):
    root, writer, readers = topology
    board_text(readers[0].url, "scb")  # a read, to have something to audit
    assert (root / "writer-audit.log").read_text().strip()  # the hook does see the writer read its gold
    for i in (1, 2):
        assert not (root / f"reader{i}-audit.log").read_text().strip()
        assert not (root / f"reader{i}" / "data").exists()  # no catalog, cache or lock of its own
