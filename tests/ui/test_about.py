"""ui.about: the prose files are found as package data and every generated table comes from
the benchmark declarations."""

from __future__ import annotations

from importlib import resources

import pytest

from scoring import BENCHMARKS
from scoring.geometry import BOX_FORMATS
from ui import about
from ui.downloads import Downloads


def test_the_prose_ships_inside_the_package():
    folder = resources.files("ui").joinpath("docs", "about")
    assert sorted(f.name for f in folder.iterdir() if f.name.endswith(".md")) == [
        "1-benchmarks.md",
        "2-metrics.md",
        "3-submitting.md",
        "4-api.md",
        "5-citation.md",
        "5-integrity.md",
    ]


def test_every_placeholder_is_filled_from_the_declarations():
    text = about.about_markdown()
    assert "{{" not in text and "}}" not in text
    for bench in BENCHMARKS.values():
        assert f"### {bench.name}\n\n{bench.description} Paper: *{bench.paper}*." in text
        assert bench.about and bench.about in text  # its folder's about.md
        assert bench.citation.startswith("@") and f"```bibtex\n{bench.citation}\n```" in text  # its citation.bib
        assert f"### Submission format: {bench.name}" in text
        for metric in bench.metrics:
            assert f"| {bench.name} | `{metric.name}` | {metric.label} | {metric.description} |" in text
    for box_format, meaning in BOX_FORMATS.items():
        assert f"| `{box_format}` | {meaning} |" in text
    assert "1,000 resamples" in text and 'api_name="/submit"' in text


def test_an_unknown_placeholder_stops_the_app(monkeypatch):
    monkeypatch.setattr(about, "about_pages", lambda: ["## Heading\n{{no_such_table}}"])
    with pytest.raises(ValueError, match="no_such_table"):
        about.about_markdown()


def test_downloads_per_benchmark(lb, tmp_path):
    files = about.AboutFiles(lb, Downloads(tmp_path / "files")).files()
    assert len(files) == 2 * len(BENCHMARKS)
    scb_example, scb_questions, kviscuit_example, kviscuit_questions = files
    assert scb_example.interactive and scb_example.value["path"].endswith("scb-example-submission.jsonl")
    assert scb_questions.interactive and scb_questions.value["path"].endswith("scb-questions.jsonl")
    assert not kviscuit_questions.interactive  # no K-Viscuit gold in this store


def test_the_download_buttons_are_off_until_the_tab_has_written_their_files(lb):
    """Under load the tab's files arrive after its text: a button that looked ready before then
    downloaded nothing when clicked (seen in a full run: tests/ui/test_browser.py waited 30 s)."""
    from leaderboard.config import UiSettings
    from ui.app import build_app

    config = build_app(lb, UiSettings()).get_config_file()
    labels = {f"{b}: {what}" for b in BENCHMARKS for what in ("example submission", "public question list")}
    buttons = [c["props"] for c in config["components"] if c.get("props", {}).get("label") in labels]
    assert len(buttons) == len(labels)
    assert not any(props.get("interactive") for props in buttons)


def test_about_and_the_results_card_show_each_folders_one_citation():
    """One copy of each citation (the folder's ``citation.bib``): About and the dataset card show the same
    text, and no hand-kept copy disagrees with it (they once named different first authors of K-Viscuit)."""
    from leaderboard.publish import citations

    card = citations()
    for bench in BENCHMARKS.values():
        assert bench.citation in card and bench.citation in about.citations()
        path = resources.files("scoring.benchmarks").joinpath(bench.id, "citation.bib")
        assert path.read_text(encoding="utf-8").strip() == bench.citation
    assert "author = {Park, ChaeHun and Baek, Yujin" in card  # arXiv 2406.16469's order
