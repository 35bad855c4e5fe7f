"""ui.board: filters, the render cache keyed by the board's fingerprint, the summary notes and
the timer's redraw-only-on-change, on a local leaderboard (no browser)."""

from __future__ import annotations

import gradio as gr

from leaderboard.config import UiSettings
from scoring.benchmarks import get_benchmark
from tests.support.submissions import write_submission
from tests.ui.fakes import Request
from ui import display
from ui.auth import Auth
from ui.board import BoardPages, BoardTab, Filters, summary_markdown
from ui.downloads import Downloads
from ui.submit import Submitter

ALL = Filters.of("overall", ["open", "closed", "api"], ["scored here", "reported in paper"], "")
SCB = get_benchmark("scb")


def submit(lb, path, model: str) -> dict:
    return Submitter(lb, Auth(UiSettings())).submit(
        "scb",
        str(path),
        model,
        "Team",
        "open",
        "xyxy",
        "",
        "",
        "",
        Request(),
        None,
        lambda *a, **k: None,
        visibility="public",
    )


def test_filters_ignore_the_order_of_choices():
    assert Filters.of("overall", ["api", "open"], None, None) == Filters.of("overall", ["open", "api"], [], "")


def test_pages_are_kept_until_the_board_changes(lb, tmp_path):
    pages = BoardPages(lb, Downloads(tmp_path / "files"))
    first = pages.page("scb", ALL)
    assert pages.page("scb", ALL) is first  # served from the cache
    assert submit(lb, write_submission(tmp_path / "s.jsonl", accuracy=0.9), "New-Model")["status"] == "scored"
    second = pages.page("scb", ALL)
    assert second is not first
    assert "New-Model" in str(second.table) and "New-Model" not in str(first.table)
    # the scatter and its note, then a heatmap per declared grouping heatmap and view metric
    assert len(second.plots) == 2 + len(display.drawn_plots(SCB)) - 1


def test_the_summary_says_why_a_board_is_empty(lb):
    gold = lb.gold_info("scb")
    assert summary_markdown(SCB, 3, 3, gold) == "Showing 3 of 3 rows · gold: 140 questions."
    assert "No rows match these filters" in summary_markdown(SCB, 3, 0, gold)
    assert "be the first to submit" in summary_markdown(SCB, 0, 0, gold)
    assert "No gold is loaded for K-Viscuit yet" in summary_markdown(get_benchmark("kviscuit"), 2, 2, None)


def test_the_timer_redraws_only_when_the_rows_may_have_changed(lb, tmp_path):
    pages = BoardPages(lb, Downloads(tmp_path / "files"))
    with gr.Blocks(), gr.Tabs():
        board = BoardTab.mount(pages, SCB, gr.Timer(60))
    choice = ("overall", list(ALL.types), list(ALL.sources), "")
    drawn_at, *outputs = board.draw(*choice)
    assert drawn_at == lb.fingerprint("scb") and len(outputs) == len(board.outputs)
    assert all(isinstance(u, type(gr.skip())) for u in board.tick(drawn_at, *choice))
    submit(lb, write_submission(tmp_path / "s.jsonl", accuracy=0.7), "Tick-Model")
    redrawn = board.tick(drawn_at, *choice)
    assert redrawn[0] == lb.fingerprint("scb") != drawn_at


def test_an_empty_board_on_a_reader_sends_submitters_to_the_main_page(lb):
    """A reader has no Submit tab: its empty board links the writer (LEADERBOARD_WRITER_URL)."""
    from leaderboard.config import UiSettings
    from ui import reader_empty_board

    environ = {"LEADERBOARD_ROLE": "reader", "LEADERBOARD_WRITER_URL": "https://example.org/leaderboard"}
    text = summary_markdown(SCB, 0, 0, lb.gold_info("scb"), reader_empty_board(UiSettings.from_env(environ)))
    assert "Submit tab" not in text
    assert "submissions are made on [the leaderboard's main page](https://example.org/leaderboard)" in text
    plain = reader_empty_board(UiSettings.from_env({"LEADERBOARD_ROLE": "reader"}))
    assert plain == "No rows yet: submissions are made on the leaderboard's main page."
