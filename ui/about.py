"""The About tab: prose from ``ui/docs/about/*.md``, tables from the benchmark declarations.

The Markdown files are read in name order and joined. A ``{{name}}`` line in them is replaced by
a block generated here (the benchmark list with each folder's ``about.md``, the metrics of every
benchmark, each submission format, the box formats, the papers' row notes, each folder's
``citation.bib``), so adding a benchmark or a metric updates the page without editing prose. The
files live inside the ``ui`` package, so they ship with it (``[tool.setuptools.package-data]``) and
are found the same way from a checkout or an install.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import gradio as gr

from leaderboard.baselines import source_note
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.geometry import BOX_FORMATS
from ui import display
from ui.contact import contact_markdown
from ui.downloads import Downloads
from ui.public_files import question_links

PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def about_pages() -> list[str]:
    """The Markdown files of the page, in name order (``1-benchmarks.md``, ``2-metrics.md``, ...)."""
    folder = resources.files("ui").joinpath("docs", "about")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".md")), key=lambda f: f.name)
    return [f.read_text(encoding="utf-8").strip() for f in files]


def benchmark_list() -> str:
    """Per benchmark, its declared facts and its folder's About text (``about.md``)."""
    return "\n\n".join(
        "\n\n".join(filter(None, (f"### {b.name}", f"{b.description} Paper: *{b.paper}*.", b.about)))
        for b in BENCHMARKS.values()
    )


def citations() -> str:
    """Every benchmark's citation (its folder's ``citation.bib``), one BibTeX block each."""
    return "\n\n".join(f"```bibtex\n{b.citation}\n```" for b in BENCHMARKS.values() if b.citation)


def metric_table() -> str:
    rows = [
        f"| {b.name} | `{m.name}` | {m.label} | {m.description} | {'95% bootstrap' if m.ci else '-'} |"
        for b in BENCHMARKS.values()
        for m in b.metrics
    ]
    return "| benchmark | metric | shown as | what it measures | interval |\n|---|---|---|---|---|\n" + "\n".join(rows)


def submission_formats() -> str:
    parts = []
    for bench in BENCHMARKS.values():
        rows = "\n".join(f"| `{k}` | {v} |" for k, v in bench.prediction_fields.items())
        examples = "\n".join(bench.example_lines)
        parts.append(
            f"### Submission format: {bench.name}\nJSONL, one object per line, UTF-8.\n\n"
            f"| field | meaning |\n|---|---|\n{rows}\n\n```json\n{examples}\n```"
        )
    return "\n\n".join(parts)


def box_formats() -> str:
    return "| format | coordinates |\n|---|---|\n" + "\n".join(f"| `{k}` | {v} |" for k, v in BOX_FORMATS.items())


def paper_rows() -> str:
    notes = [
        f"{b.name}: {display.escape_markdown(source_note(b.id))}" for b in BENCHMARKS.values() if source_note(b.id)
    ]
    return "### Paper rows\n" + "\n\n".join(notes) if notes else ""


def harness_inputs() -> str:
    """Per benchmark, its kind of question and what a model runs on, as its declaration's family gives them."""
    lines = []
    for b in BENCHMARKS.values():
        if b.family is None:
            lines.append(f"- **{b.name}**: {question_links(b.id)} (no harness shapes declared).")
            continue
        commands = f"`python -m scoring.harness.runner {b.id}`, `inspect eval scoring/{b.id}`"
        lines.append(f"- **{b.name}** ({b.family.describe(b.choices)}): {question_links(b.id)}; {commands}.")
    return "### What a model runs on\n" + "\n".join(lines)


GENERATED: dict[str, Callable[[], str]] = {
    "harness_inputs": harness_inputs,
    "benchmark_list": benchmark_list,
    "metric_table": metric_table,
    "submission_formats": submission_formats,
    "box_formats": box_formats,
    "paper_rows": paper_rows,
    "citations": citations,
}


def about_markdown() -> str:
    """The whole About text; an unknown ``{{name}}`` in the files stops the app at start."""

    def generated(match: re.Match) -> str:
        name = match.group(1)
        if name not in GENERATED:
            raise ValueError(f"ui/docs/about: unknown placeholder {{{{{name}}}}}; known: {', '.join(GENERATED)}")
        return GENERATED[name]()

    return "\n\n".join(PLACEHOLDER.sub(generated, page) for page in about_pages())


@dataclass(frozen=True, eq=False)
class AboutFiles:
    """The tab's callback: an example submission and the public question list per benchmark."""

    leaderboard: Leaderboard
    downloads: Downloads

    def files(self) -> list:
        out = []
        for bench in BENCHMARKS.values():
            questions = self.leaderboard.public_questions(bench.id)
            example = display.example_submission(bench, questions)
            out.append(
                gr.DownloadButton(
                    value=self.downloads.write(f"{bench.id}-example-submission.jsonl", example), interactive=True
                )
            )
            out.append(
                gr.DownloadButton(
                    value=self.downloads.write(f"{bench.id}-questions.jsonl", questions), interactive=True
                )
                if questions
                else gr.DownloadButton(value=None, interactive=False, label=f"{bench.id}: no question list yet")
            )
        return out


@dataclass(frozen=True, eq=False)
class AboutTab:
    """The tab's components: the text and two download buttons per benchmark."""

    tab: gr.Tab
    text: gr.Markdown
    buttons: tuple[gr.DownloadButton, ...]

    @classmethod
    def mount(cls, about: AboutFiles) -> AboutTab:
        """The downloads are written when the tab opens (the question lists change with the gold);
        until then their buttons are off, so a click cannot silently download nothing."""
        with gr.Tab("About", id="tab-about", elem_id="tab-about") as tab:
            settings = about.leaderboard.settings  # a reader's too (PublishedLeaderboard.open)
            if settings is not None:
                gr.Markdown(contact_markdown(settings), elem_id="about-contact")
            text = gr.Markdown(about_markdown(), elem_id="about")
            buttons = []
            for bench in BENCHMARKS.values():
                with gr.Row():
                    buttons.append(gr.DownloadButton(f"{bench.id}: example submission", size="sm", interactive=False))
                    buttons.append(gr.DownloadButton(f"{bench.id}: public question list", size="sm", interactive=False))
        tab.select(about.files, None, buttons, api_visibility="private")
        return cls(tab, text, tuple(buttons))
