"""The Maintainers tab's "Suspect questions" block (docs/items.md): the item analysis's suspects,
each with its question, its option images and, for a grounding benchmark, the gold region and the
able models' consensus box drawn over the gold image (SVG); the evidence per ability band; the
users' reports beside them. Accept stages the suggested correction through the usual correction
path and shows its preview; Dismiss records who and why. Every action checks the caller again."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

import gradio as gr

from leaderboard.golds import RowsWouldLeave
from leaderboard.items import CannotCorrect, Review, Reviews
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from ui.display import escape_markdown
from ui.page import SURVIVES_EVICTION

SHOWN = 20
"""Suspects drawn at once (most suspect first)."""


def _image_url(benchmark: str, url: object) -> str:
    """Where the site serves a public option image (the question browser's rule: by its file name)."""
    name = str(url or "").rsplit("/", 1)[-1]
    return f"questions/{benchmark}/images/{name}" if name else ""


def overlay(benchmark: str, review: Review) -> str:
    """The gold image with the gold region (solid) and the consensus box (dashed) drawn over it."""
    if review.size is None:
        return ""
    w, h = review.size
    letters = [o for o in review.question.get("options", []) if isinstance(o, dict)]
    gold = next((o for i, o in enumerate(letters) if "ABCD"[i : i + 1] == review.gold_letter), {})
    stroke = max(w, h) / 150
    parts = "".join(
        f'<polygon points="{" ".join(f"{v:.1f}" for v in part)}" fill="rgba(0,90,200,0.18)" '
        f'stroke="#0050b4" stroke-width="{stroke:.1f}"/>'
        for part in review.region
    )
    box = review.suspect["suggestion"].get("box")
    if box is None:
        box = (review.suspect.get("evidence") or {}).get("consensus")
    rect = ""
    if box:
        x0, y0, x1, y1 = box
        rect = (
            f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" fill="none" '
            f'stroke="#b00020" stroke-width="{stroke:.1f}" stroke-dasharray="{4 * stroke:.1f}"/>'
        )
    label = f"Gold image (option {review.gold_letter}): gold region in blue" + (
        ", the models' consensus box dashed in red" if rect else ""
    )
    href = html.escape(_image_url(benchmark, gold.get("url")))
    image = f'<image href="{href}" width="{w}" height="{h}" preserveAspectRatio="none"/>'
    return (
        f'<svg class="items-overlay" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        f'aria-label="{html.escape(label)}" style="max-width:100%;height:auto;max-height:420px;display:block">'
        f"<title>{html.escape(label)}</title>{image}{parts}{rect}</svg>"
    )


def _evidence(suspect: dict) -> str:
    ev = suspect.get("evidence") or {}
    bands = ev.get("bands") or []
    if suspect["kind"] == "answer" and bands:
        rows = "".join(
            f"<tr><th scope='row'>{html.escape(b['name'])}</th><td>{b['answered']}</td>"
            f"<td>{b['chose_gold']}</td><td>{b['chose_suggestion']}</td></tr>"
            for b in bands
        )
        head = (
            "<tr><th scope='col'>ability third</th><th scope='col'>answered</th>"
            f"<th scope='col'>gold {html.escape(str(ev.get('gold', '')))}</th>"
            f"<th scope='col'>{html.escape(str(suspect['suggestion']['answer']))}</th></tr>"
        )
        return (
            "<div style='overflow-x:auto'><table class='items-evidence' style='font-size:.9em'>"
            "<caption>Who chose what, by ability third</caption>"
            f"<thead>{head}</thead><tbody>{rows}</tbody></table></div>"
        )
    facts = ", ".join(f"{html.escape(str(k))}: {html.escape(str(v))}" for k, v in ev.items() if not isinstance(v, list))
    return f"<p>{facts}</p>"


def card(benchmark: str, review: Review, n: int) -> str:
    s, q = review.suspect, review.question
    if s["kind"] == "answer":
        what = f"gold answer {review.gold_letter}; the able models choose {s['suggestion']['answer']}"
    else:
        what = "the able models' boxes agree with each other and miss the gold region"
    options = "".join(
        f'<li style="margin:0"><figure style="margin:0"><img src="{html.escape(_image_url(benchmark, o.get("url")))}" '
        f'alt="Option {letter}" style="max-width:120px;max-height:120px">'
        f"<figcaption>{letter}{' (gold)' if letter == review.gold_letter else ''}</figcaption></figure></li>"
        for letter, o in zip("ABCD", q.get("options", []), strict=False)
        if isinstance(o, dict)
    )
    text = html.escape(str(q.get("question", "")))
    return (
        f"<article class='items-card' aria-labelledby='items-s{n}' "
        "style='border:1px solid #8884;border-radius:6px;padding:.5rem;margin:.5rem 0'>"
        f"<h4 id='items-s{n}'>{n}. {html.escape(str(s['question_id']))} · {s['kind']} · score {s['score']}</h4>"
        f"<p>{html.escape(what)}</p>{f'<p>{text}</p>' if text else ''}"
        f"{f'<ol class=items-options style={OPTIONS_STYLE}>{options}</ol>' if options else ''}"
        f"{overlay(benchmark, review)}{_evidence(s)}</article>"
    )


OPTIONS_STYLE = '"display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:.5rem 0"'
"""Inline styles: the page's HTML component keeps attributes, not <style> elements."""


def suspects_html(leaderboard: Leaderboard, reviews: Reviews, benchmark: str) -> str:
    kept = leaderboard.items.analysis(benchmark)
    if kept is None:
        return (
            "<p>No item analysis of the current gold yet: the background job computes it once submissions "
            "are scored.</p>"
        )
    shown = reviews.of(benchmark)[:SHOWN]
    head = (
        f"<p>{kept.submissions} submission(s) counted (each team's model once), "
        f"computed {html.escape(kept.computed_at)}; "
        f"{len(shown)} suspect(s) shown, most suspect first.</p>"
    )
    return head + "".join(card(benchmark, r, i) for i, r in enumerate(shown, 1))


def reports_markdown(leaderboard: Leaderboard, benchmark: str) -> str:
    found = leaderboard.items.reports(benchmark)
    if not found:
        return "#### Question reports\nNo report from users."
    lines = ["#### Question reports (newest first)"]
    for r in found[:50]:
        when = r.at[:16].replace("T", " ")
        lines.append(f"- `{_code(r.question_id)}` · {when} · {escape_markdown(r.by)}: {escape_markdown(r.text)}")
    return "\n".join(lines)


def _choices(reviews: Reviews, benchmark: str) -> list[tuple[str, str]]:
    return [
        (f"{r.suspect['question_id']} · {r.suspect['kind']}", f"{r.suspect['kind']}:{r.suspect['question_id']}")
        for r in reviews.of(benchmark)[:SHOWN]
    ]


@dataclass(frozen=True, eq=False)
class ItemSuspects:
    """The block's callbacks; ``check`` is the tab's permission check ("" when allowed)."""

    leaderboard: Leaderboard
    check: Callable[[str, gr.OAuthProfile | None, gr.Request | None], str]
    reviews: Reviews

    @classmethod
    def of(cls, leaderboard: Leaderboard, check) -> ItemSuspects:
        return cls(leaderboard, check, Reviews(leaderboard.items, leaderboard.public_questions))

    def _require(self, token, profile, request) -> None:
        refused = self.check(token, profile, request)
        if refused:
            raise gr.Error(refused)

    def show(self, benchmark: str, token: str, profile: gr.OAuthProfile | None, request: gr.Request | None = None):
        self._require(token, profile, request)
        return (
            suspects_html(self.leaderboard, self.reviews, benchmark),
            reports_markdown(self.leaderboard, benchmark),
            gr.Dropdown(choices=_choices(self.reviews, benchmark), value=None),
        )

    def accept(self, benchmark, picked, token, profile: gr.OAuthProfile | None, request: gr.Request | None = None):
        self._require(token, profile, request)
        if not picked:
            return "Choose a suspect first."
        kind, _, qid = picked.partition(":")
        by = profile.username if profile is not None else "admin-token"
        try:
            update = self.leaderboard.items.accept(benchmark, qid, kind, by)
        except (CannotCorrect, RowsWouldLeave) as e:
            return f"Not staged: {escape_markdown(str(e))}"
        shown = self.leaderboard.corrections.staged_preview(benchmark)
        body = "\n".join(line.replace("`", "'") for line in shown.text()) if shown else ""
        note = (
            " The new answer's image has no region yet: redraw it in the gold file before Rescore all."
            if kind == "answer" and self.leaderboard.golds.get(benchmark).extra.get("masks") is not None
            else ""
        )
        return (
            f"Staged gold `{update.info.version[:12]}` with {kind} of `{_code(qid)}` corrected.{note} "
            f"The board switches to it with Rescore all (or the background resume, once every submission is "
            f"scored on it).\n\n```\n{body}\n```"
        )

    def dismiss(
        self, benchmark, picked, why, token, profile: gr.OAuthProfile | None, request: gr.Request | None = None
    ):
        self._require(token, profile, request)
        if not picked:
            return "Choose a suspect first.", gr.skip(), gr.skip()
        kind, _, qid = picked.partition(":")
        by = profile.username if profile is not None else "admin-token"
        try:
            self.leaderboard.items.dismiss(benchmark, qid, kind, by, why or "")
        except ValueError as e:
            return escape_markdown(str(e)) + ".", gr.skip(), gr.skip()
        return (
            f"Dismissed `{_code(qid)}` ({kind}) on this gold.",
            suspects_html(self.leaderboard, self.reviews, benchmark),
            gr.Dropdown(choices=_choices(self.reviews, benchmark), value=None),
        )

    def mount(self, token: gr.Textbox) -> None:
        """The block inside the (hidden until unlocked) panel; every click sends the token field."""
        gr.Markdown("### Suspect questions (item analysis)")
        with gr.Row():
            bench = gr.Radio(list(BENCHMARKS), value=next(iter(BENCHMARKS)), label="Benchmark", elem_id="items-bench")
            show = gr.Button("Show suspects", size="sm", scale=0, elem_id="items-show")
        listing = gr.HTML(elem_id="items-suspects")
        with gr.Row():
            pick = gr.Dropdown([], label="Suspect", elem_id="items-pick", scale=2, **SURVIVES_EVICTION)
            why = gr.Textbox(label="Why dismissed (kept for maintainers)", elem_id="items-why", scale=2)
            accept = gr.Button("Accept: stage the correction", elem_id="items-accept", scale=0)
            dismiss = gr.Button("Dismiss", elem_id="items-dismiss", scale=0)
        result = gr.Markdown(elem_id="items-result")
        reports = gr.Markdown(elem_id="items-reports")
        show.click(self.show, [bench, token], [listing, reports, pick], api_visibility="private")
        accept.click(self.accept, [bench, pick, token], result, api_visibility="private")
        dismiss.click(self.dismiss, [bench, pick, why, token], [result, listing, pick], api_visibility="private")


def _code(text: str) -> str:
    """Text for a Markdown code span (no backtick can end it early)."""
    return text.replace("`", "'")
