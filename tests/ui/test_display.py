"""Unit tests of ui.display: rounding, intervals, safe HTML, filters, table value."""

from __future__ import annotations

import json
import math

import gradio as gr
import pandas as pd
import pytest

from leaderboard.columns import LENIENT_KEY, shown_columns
from leaderboard.table import BoardRow, frame
from scoring import ResultRecord
from scoring.benchmarks import get_benchmark
from scoring.errors import Issue
from submissions.answer import SubmitAnswer
from submissions.records import Status
from ui import display

SCB = get_benchmark("scb")
KV = get_benchmark("kviscuit")


def scb_row(model, acc, miou=None, source="scored here", team="t", model_type="open", at="2026-01-01", **urls):
    stats = {"acc": acc, "acc_ci": [acc - 1.25, acc + 1.25], "miou": miou}
    if miou is not None:
        stats["miou_ci"] = [miou - 0.5, miou + 0.5]
    figures = {"overall": stats, "type": {t: dict(stats) for t in "123"}}
    figures["country"] = {"Vietnam": {"acc": acc, "miou": miou}}
    return BoardRow(model, team, model_type, source, figures, submitted_at=at, **urls)


@pytest.fixture
def board():
    rows = [
        scb_row("Alpha", 80.0, 40.0, paper_url="https://arxiv.org/abs/1"),
        scb_row("<script>alert(1)</script>", 70.0, None, code_url="javascript:alert(1)", model_type="api"),
        scb_row("Paper-Model", 75.123, 20.0, source="reported in paper", team="(paper)", model_type="closed", at=""),
    ]
    return frame("scb", rows, "all")


def test_numbers_round_to_two_decimals_and_missing_is_a_dash():
    assert display.fmt_number(85.14999) == "85.15"
    assert display.fmt_number(float("nan")) == "-"
    assert display.fmt_number(None) == "-"
    assert display.fmt_number(0) == "0.00"  # zero stays zero, missing is never 0
    assert display.fmt_with_ci(84.99056, 1.2433) == "84.99 ± 1.24"
    assert display.fmt_with_ci(math.nan, 1.0) == "-"


def test_only_http_urls_become_links_and_names_are_escaped():
    assert display.safe_url("https://a.org/x") == "https://a.org/x"
    for bad in ("javascript:alert(1)", "data:text/html,x", "ftp://a", 'https://a.org/"onmouseover=x', ""):
        assert display.safe_url(bad) == ""
    links = display.row_links({"paper_url": "javascript:x", "code_url": "https://code.org", "model_repo": "a/b"})
    assert [url for url, _ in links] == ["https://huggingface.co/a/b", "https://code.org"]
    assert display.row_links({"paper_url": "", "code_url": None}) == []


def test_escape_markdown_neutralises_links_and_html():
    text = display.escape_markdown("[x](javascript:alert(1)) <b>*bold*</b> a@b.c")
    assert "<b>" not in text and "\\[" in text and "\\*" in text and "\\@" in text


def test_escape_markdown_keeps_apostrophes_and_quotes_readable():
    """The withheld answer's "your team's best" rendered as "team&#x27;s": an entity whose # was backslashed."""
    rendered = gr.Markdown().postprocess(display.escape_markdown('your team\'s "best"'))
    assert "&#x27;" not in display.escape_markdown("team's") and "team's" in str(rendered)


def test_shown_columns_fold_intervals_and_keep_groups():
    cols = shown_columns(SCB)
    headers = [c.header for c in cols]
    assert headers[:5] == ["Rank", "Model", "Team", "Model type", "Source"]
    assert "±" not in headers and len(headers) == len(set(headers))
    acc = next(c for c in cols if c.key == "overall.acc")
    assert acc.ci == "overall.acc_ci" and acc.group == "Accuracy"
    assert {c.group for c in cols} >= {"Accuracy", "mIoU", "Model", "About"}
    kv = [c.header for c in shown_columns(KV)]
    assert "Acc T1" in kv and "Acc T2" in kv and "Architecture" in kv and "Game" in kv
    for bench in (SCB, KV):
        for view in ("overall", *(g.name for g in bench.groupings)):
            shown = [c.header for c in shown_columns(bench, view)]
            assert len(shown) == len(set(shown)), (bench.id, view)


def test_an_empty_frame_gives_empty_plots():
    empty = frame("scb", [])
    assert display.scatter_frame(empty).empty
    assert "No rows" in display.heatmap_html(empty, SCB, "country")


def test_scatter_and_heatmap(board):
    points = display.scatter_frame(board)
    assert list(points["Model"]) == ["Alpha", "Paper-Model"]  # rows without mIoU are left out
    assert list(points.columns) == ["Model", "Team", "Source", "Accuracy", "mIoU"]
    html = display.heatmap_html(board, SCB, "country", title="Accuracy by country")
    assert "Vietnam" in html and "&lt;script&gt;" in html and "<script>" not in html
    assert "80.0" in html and 'class="missing"' in html


def test_plots_are_the_declared_ones(board):
    assert [display.plot_title(SCB, p) for p in SCB.plots] == [
        "Reasoning vs grounding: accuracy against mIoU (one point per model)",
        "Accuracy by country",
        "Accuracy by category",
    ]
    # a heatmap that names no metric is drawn for every metric of the grouping views (acc, mIoU)
    drawn = display.drawn_plots(SCB)
    assert [display.plot_title(SCB, p) for p in drawn[1:]] == [
        "Accuracy by country", "mIoU by country", "Accuracy by category", "mIoU by category",
    ]  # fmt: skip
    scatter, country, country_miou, *_ = display.plot_values(board, SCB, {"country": {"Thailand": 7}})
    # the scatter is SVG (ui/scatter.py): both plotted rows are labelled with their model
    assert scatter == display.scatter_svg(board, SCB, SCB.plots[0])
    assert scatter.count('class="label"') == 4 and ">Alpha</text>" in scatter and ">Paper-Model</text>" in scatter
    assert "Accuracy 80, mIoU 40" in scatter  # a point's hover text (its <title>)
    assert country == display.heatmap_html(
        board, SCB, "country", "acc", title="Accuracy by country", sizes={"Thailand": 7}
    )
    assert "7 questions" in country and "mIoU by country" in country_miou
    # a column's header links the board's focus on that group and the question browser filtered to it (issue 44)
    assert '<a href="?bench=scb&amp;focus=country%3AThailand&amp;metric=acc"' in country
    assert 'href="questions?bench=scb&amp;f.country=Thailand">7 questions</a>' in country
    assert 'focus=country%3AThailand&amp;metric=miou"' in country_miou
    assert [display.plot_title(KV, p) for p in KV.plots] == ["Accuracy by type", "Accuracy by category"]
    kv_board = frame("kviscuit", [])
    assert display.scatter_frame(kv_board).empty  # K-Viscuit declares no scatter


def test_an_answer_renders_as_markdown_and_an_errors_table():
    result = ResultRecord("scb", "g", "s", {"questions": 3}, {"acc": 50.0}, {"type": {"1": {"acc": 50.0}}})
    issue = Issue("bad_answer", 3, "answer", "bad")
    answer = SubmitAnswer(Status.SCORED, "Scored.", "id", result, rank=4, issues=(issue,), total_issues=1).to_api()
    json.dumps(answer)
    md = display.result_markdown(answer, SCB)
    assert "Rank 4" in md and "50.00" in md
    assert list(display.errors_frame(answer)["line"]) == [3]


def test_a_rejected_answer_quotes_its_first_error_at_the_top():
    """The errors table sits far below the form (2,186 px on a desktop), so the result's second line
    quotes the first error with where it is (issue 33)."""
    issues = (Issue("unknown_id", 7, "question_id", "unknown question_id 'q1'"), Issue("bad_answer", 9, "answer", "x"))
    answer = SubmitAnswer(Status.REJECTED, "Rejected.", "", None, issues=issues, total_issues=1589).to_api()
    md = display.result_markdown(answer, SCB).split("\n\n")
    assert md[1] == "First error, line 7 \\[question\\_id\\]: unknown question\\_id 'q1'"
    assert "1589 error(s)" in md[-1]


def test_example_submission_from_public_questions():
    questions = b'{"question_id": "scb-00001", "type": 1}\n{"question_id": "scb-00002", "type": 2}\n'
    lines = [json.loads(x) for x in display.example_submission(SCB, questions).decode().splitlines()]
    assert [x["question_id"] for x in lines] == ["scb-00001", "scb-00002"]
    assert all(x["answer"] == "A" and len(x["bbox"]) == 4 for x in lines)
    assert display.example_submission(KV, b"").decode().splitlines() == list(KV.example_lines)


def test_a_kviscuit_result_read_leniently_says_what_the_official_protocol_gives():
    counts = {"questions": 657, "submitted": 657, "missing": 0, "unparsed": 3, "lenient": 296}
    overall = {"questions": 657, "acc": 76.1, "acc_ci": [73.0, 79.0], "acc_strict": 41.55}
    answer = {"status": "scored", "message": "Scored.", "result": {"counts": counts, "overall": overall}}
    md = display.result_markdown(answer, KV)
    assert "read leniently: 296" in md and "Accuracy, official protocol" in md and "41.55" in md
    strict_only = dict(answer, result={"counts": {**counts, "lenient": 0}, "overall": overall})
    assert "looser" not in display.result_markdown(strict_only, KV)


def test_the_board_knows_a_kviscuit_row_read_leniently():
    figures = {"overall": {"acc": 76.1, "acc_strict": 41.55}, "counts": {"lenient": 296}}
    rows = [
        BoardRow("Lenient", "t", "open", "scored here", figures, submitted_at="2026-01-01"),
        BoardRow(
            "Strict", "t", "open", "scored here", {**figures, "counts": {"lenient": 0}}, submitted_at="2026-01-02"
        ),
    ]
    table = frame("kviscuit", rows, "overall")
    assert dict(zip(table["model"], table[LENIENT_KEY], strict=True)) == {"Lenient": 296, "Strict": 0}
    headers = [c.header for c in shown_columns(KV, "overall")]
    assert "Acc strict" in headers and "Read leniently" in headers
    # the page's script marks the row by that count: tests/ui/test_browser_fields.py


def test_the_scatter_note_names_models_as_they_are_written():
    """The note goes into HTML (ui/board_data.py escapes it), not Markdown: a name with '-' or '('
    reads as written, not 'Demo\\-GPT\\-o3 \\(synthetic\\)' (issue 33)."""
    rows = frame("scb", [scb_row("Demo-GPT-o3 (synthetic)", 80.0), scb_row("Alpha", 70.0, miou=30.0)])
    note = display.scatter_note(rows, SCB, SCB.plots[0])
    assert note == "Not plotted (no mIoU or Accuracy): Demo-GPT-o3 (synthetic)."


def test_the_plots_carry_each_rows_key_for_the_filters():
    """The scatter's points and the heatmap's rows are keyed by their table rows (``data-row``);
    a heatmap holds more rows than it shows so that filtered views still fill it (board.js)."""
    rows = [
        {"model": f"M{i}", "team": "t", "source": "scored here", "row_id": f"id{i}", "overall.acc": 50.0 + i,
         "overall.miou": 20.0 + i, "country.Thailand.acc": 40.0 + i}
        for i in range(30)
    ]  # fmt: skip
    df = pd.DataFrame(rows)
    scatter = display.scatter_svg(df, SCB, SCB.plots[0])
    assert all(f'data-row="id{i}"' in scatter for i in range(30))
    heat = display.heatmap_html(df, SCB, "country", "acc", max_rows=20, held_rows=25)
    assert heat.count("<tr data-row=") == 25 and heat.count(" hidden>") == 5  # the first 20 shown
    assert '<tr data-row="id20" hidden>' in heat and '<tr data-row="id19">' in heat
    assert 'data-shown="20" data-held="25"' in heat


def _luminance(hsl: str) -> float:
    """WCAG relative luminance of ``hsl(h, s%, l%)``, computed here (colorsys), not by the code under test."""
    import colorsys

    h, sat, light = (float(x.strip(" %")) for x in hsl.removeprefix("hsl(").removesuffix(")").split(","))
    channels = colorsys.hls_to_rgb(h / 360, light / 100, sat / 100)
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_the_heatmap_ramp_darkens_steadily_and_its_text_reads_at_aa():
    """Issue 44: the old ramp's luminance was 0.777/0.749/0.739/0.734/0.726 at 40/50/60/70/80 (a 40
    and an 80 looked alike in greyscale). Now it falls at every step, and each cell's text (black, or
    white on the darker cells) reads at 4.5:1 or more."""
    styles = [dict(p.split(":", 1) for p in display._heat_colour(v).split(";")) for v in range(0, 101)]
    lum = [_luminance(s["background-color"]) for s in styles]
    assert all(a >= b for a, b in zip(lum, lum[1:])) and all(a > b for a, b in zip(lum, lum[2:]))
    assert lum[40] - lum[80] > 0.25  # was 0.05
    for value, (style, y) in enumerate(zip(styles, lum, strict=True)):
        text = 0.0 if style["color"] == "#000" else 1.0
        ratio = (max(y, text) + 0.05) / (min(y, text) + 0.05)
        assert ratio >= 4.5, (value, style, ratio)
