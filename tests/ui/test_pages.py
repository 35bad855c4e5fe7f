"""The model page, the compare tab and deep links, as callbacks on a local board (no browser)."""

from __future__ import annotations

import gradio as gr

from leaderboard.table import SCORED_SOURCE
from scoring.benchmarks import get_benchmark
from submissions import fields
from tests.support.submissions import ALICE, form, write_submission
from ui import display
from ui.board import BoardPages, Filters
from ui.compare import Comparisons
from ui.downloads import Downloads
from ui.links import board_choices
from ui.model import EMPTY, ModelPages


def two_models(lb, tmp_path) -> list[str]:
    for model, accuracy in (("Strong<b>", 0.9), ("Weak", 0.4)):
        lb.submit("scb", write_submission(tmp_path / f"{accuracy}.jsonl", accuracy=accuracy), form(model, "T"), ALICE)
    table = lb.table("scb")
    return list(table.loc[table["source"] == SCORED_SOURCE, "row_id"])


def test_the_model_page_shows_figures_groups_history_and_escapes(lb, tmp_path):
    strong, _ = two_models(lb, tmp_path)
    page = ModelPages(lb).show("scb", strong)
    assert "Strong&lt;b&gt;" in page and "<b>Strong" not in page
    for text in ("Accuracy", "By country", "n</th>", "Submission history", "shown on the board", "Scored on gold"):
        assert text in page
    assert ModelPages(lb).show("scb", "") == EMPTY and "No row" in ModelPages(lb).show("scb", "nope")
    paper = lb.table("scb").query("source != @SCORED_SOURCE")["row_id"].iloc[0]
    assert "aclanthology.org" in ModelPages(lb).show("scb", paper)  # paper rows link to their paper


def test_compare_renders_aggregates_or_says_what_is_wrong(lb, tmp_path):
    strong, weak = two_models(lb, tmp_path)
    compare = Comparisons(lb)
    assert [r for _, r in compare.options("scb").choices] == [strong, weak]
    html = compare.show("scb", [strong, weak])
    assert "from the published intervals" in html and "95% interval" in html and "Overall" in html
    assert "pick 2 to 4" in compare.show("scb", [strong])


def test_ranks_are_within_the_shown_rows_and_search_takes_several_terms(lb, tmp_path):
    two_models(lb, tmp_path)
    pages = BoardPages(lb, Downloads(tmp_path / "files"))
    scored_only = Filters.of("overall", list(display.TYPE_FILTERS), [SCORED_SOURCE], "")
    shown = lb.table("scb", "overall", scored_only.keep())
    assert shown["rank"].iloc[0] == 1 and set(shown["source"]) == {SCORED_SOURCE}
    both = lb.table(
        "scb",
        "overall",
        Filters.of("overall", list(display.TYPE_FILTERS), list(display.SOURCES), "weak; gpt-o3").keep(),
    )
    assert set(both["model"]) == {"Weak", "GPT-o3"}
    page = pages.page("scb", Filters.of("overall", list(display.TYPE_FILTERS), list(display.SOURCES), "", ["mIoU"]))
    assert "mIoU" not in page.table["headers"] and page.table["headers"][:2] == ["Rank", "Model"]


def test_a_row_click_finds_its_row_id(lb, tmp_path):
    strong, _ = two_models(lb, tmp_path)
    pages = BoardPages(lb, Downloads(tmp_path / "files"))
    filters = Filters.of("overall", list(display.TYPE_FILTERS), list(display.SOURCES), "")
    value = pages.page("scb", filters).table
    row = next(r for r in value["data"] if r[1] == "Strong&lt;b&gt;")
    assert pages.row_id_at("scb", filters, row) == strong


def test_deep_link_choices_are_read_and_unknown_values_dropped():
    bench = get_benchmark("scb")
    every_size = list(fields.SIZE_CHOICES)
    assert board_choices(bench.id, {}) == [
        "overall", list(display.TYPE_FILTERS), list(display.SOURCES), "", [], every_size
    ]  # fmt: skip
    view, types, sources, query, hidden, sizes = board_choices(
        bench.id,
        {"view": "country", "types": "open,evil", "sources": "scored here", "q": "qwen; gpt", "hide": "cIoU,x",
         "sizes": "~7B,<b>,>70B"},
    )  # fmt: skip
    assert (view, types, sources, query, hidden) == ("country", ["open"], ["scored here"], "qwen; gpt", ["cIoU"])
    assert sizes == ["~7B", ">70B"]
    assert board_choices(bench.id, {"view": "<script>"})[0] == "overall"
    assert isinstance(gr.Tabs(selected="tab-scb"), gr.Tabs)
