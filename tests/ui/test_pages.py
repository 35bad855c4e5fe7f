"""The board page's data and bake and the Gradio page's deep links, on a local board (no browser;
tests/ui/test_browser_board.py and tests/ui/test_browser_compare.py drive the page in Chromium)."""

from __future__ import annotations

import gzip
import json
import math
import re

import gradio as gr
import pandas as pd
from starlette.applications import Starlette
from starlette.testclient import TestClient

from leaderboard.columns import EVERY_VIEW, Kind, columns
from leaderboard.config import UiSettings
from leaderboard.table import SCORED_SOURCE, as_shown
from scoring.benchmarks import BENCHMARKS, get_benchmark
from submissions.request import SubmitRequest
from tests.support.submissions import ALICE, form, write_submission
from ui.board_data import board_data
from ui.board_page import BoardBaker, old_link_target, routes
from ui.links import DeepLinks


def two_models(lb, tmp_path) -> list[str]:
    for model, accuracy in (("Strong</script><b>", 0.9), ("Weak", 0.4)):
        lb.submissions.submit(
            SubmitRequest(
                "scb", write_submission(tmp_path / f"{accuracy}.jsonl", accuracy=accuracy), form(model, "T"), ALICE
            )
        )
    table = lb.table("scb")
    return list(table.loc[table["source"] == SCORED_SOURCE, "row_id"])


def baked_data(body: bytes) -> dict:
    found = re.search(rb'<script type="application/json" id="board-data">(.*?)</script>', body, re.S)
    assert found, "the page carries its data"
    return json.loads(found.group(1))


def test_the_page_data_is_the_published_table_with_every_declared_column(lb, tmp_path):
    two_models(lb, tmp_path)
    data = board_data(lb, "empty")
    assert [b["id"] for b in data["benchmarks"]] == list(BENCHMARKS)
    scb = next(b for b in data["benchmarks"] if b["id"] == "scb")
    table = as_shown("scb", lb.table("scb", EVERY_VIEW))
    assert [r["row_id"] for r in scb["rows"]] == list(table["row_id"])  # board order
    for row, (_, want) in zip(scb["rows"], table.iterrows(), strict=True):
        for key, value in want.items():  # every column of the public schema, figures as shown; missing is null
            gone = value is pd.NA or (isinstance(value, float) and math.isnan(value))  # NA: an unknown size
            assert row[key] is None if gone else row[key] == value, (key, row[key], value)
    bench = get_benchmark("scb")
    for view in scb["views"]:  # the column model comes from the declaration, whatever it holds
        want = [c.key for c in columns(bench, view["id"]) if c.kind is not Kind.CI]
        assert [c["key"] for c in view["columns"]] == want
    assert scb["headline"][0] == "overall.acc" and scb["primary"]["key"] == "overall.acc"
    scored = next(r for r in scb["rows"] if r["source"] == SCORED_SOURCE)
    # the interval the browser ranks with, as order keys (places among every row's bounds, no digits)
    assert float(scored["lo"]).is_integer() and scored["lo"] <= scored["hi"]


def test_the_baked_page_is_gzipped_has_an_etag_and_escapes_its_data(lb, tmp_path):
    two_models(lb, tmp_path)
    baker = BoardBaker(lb, UiSettings(public_url="https://org-board.hf.space"), at_most_every=0)
    assert baker.refresh() and not baker.refresh()  # once per data change
    client = TestClient(Starlette(routes=routes(baker)))
    first = client.get("/", headers={"accept-encoding": "gzip", "host": "evil.example"})
    assert first.status_code == 200 and first.headers["content-encoding"] == "gzip"
    body = gzip.decompress(first.content) if first.content[:2] == b"\x1f\x8b" else first.content
    assert b"</script><b>" not in body and b"evil.example" not in body  # no request header in the page
    assert b'<link rel="canonical" href="https://org-board.hf.space/">' in body
    assert any(r["model"] == "Strong</script><b>" for b in baked_data(body)["benchmarks"] for r in b["rows"])
    again = client.get("/", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304 and not again.content
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "third.jsonl", accuracy=0.6), form("Third", "T"), ALICE)
    )
    assert baker.refresh()
    fresh = client.get("/", headers={"if-none-match": first.headers["etag"]})
    assert fresh.status_code == 200 and b'"Third"' in fresh.content
    asset = client.get("/board-assets/tabulator.min.js")
    assert asset.status_code == 200 and "immutable" in asset.headers["cache-control"]
    assert client.get("/board-assets/..%2Fboard_page.py").status_code == 404


def test_old_links_to_gradio_tabs_are_redirected_and_board_links_stay(lb):
    baker = BoardBaker(lb, UiSettings())
    client = TestClient(Starlette(routes=routes(baker)), follow_redirects=False)
    assert client.get("/").status_code == 503  # not baked yet: says so, briefly
    baker.refresh()
    moved = client.get("/?tab=submit")
    assert moved.status_code == 307 and moved.headers["location"] == "app?tab=submit"
    assert client.get("/?tab=mine").headers["location"] == "app?tab=mine"
    compare_links = ("/?bench=scb&compare=a,b", "/?tab=compare")  # Compare is the board page's own (compare.js)
    for board_link in ("/?bench=scb&view=country&q=qwen", "/?bench=scb&model=abc", "/?tab=nonsense", *compare_links):
        assert client.get(board_link).status_code == 200
    assert old_link_target({"bench": "scb", "view": "type"}) is None


def test_the_gradio_page_restores_a_tab_from_its_address():
    with gr.Blocks(), gr.Tabs() as tabs:
        with gr.Tab("Submit", id="tab-submit"):
            pass
        with gr.Tab("About", id="tab-about"):
            pass
    links = DeepLinks(tabs)
    opened = links.restore("?tab=about")
    assert opened.get("selected") == "tab-about" if isinstance(opened, dict) else opened.selected == "tab-about"
    # the page opens on its first tab: a late answer selecting it again would undo a visitor's click
    assert links.restore("?tab=submit") == gr.skip()
    assert links.restore("?tab=<script>") == gr.skip()
    assert links.restore("?tab=compare") == gr.skip()  # the board page's now: the page's script goes there
