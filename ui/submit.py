"""The Submit tab and the ``/submit`` API: one function serves the button and scripts.

Its parameter names (``benchmark, file, model, team, model_type, bbox_format, paper_url,
code_url, description``, then ``validate_only, confirm_box_format`` (docs/submitting.md) and
``visibility, anonymous, reveal_date`` (docs/teams.md), added at the end with defaults) and the
answer's keys are a contract people script against (README).
Every answer, the early refusals included, is a :class:`SubmitAnswer` turned into its API dict.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import gradio as gr
from gradio.events import Dependency

from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.benchmarks import get_benchmark
from scoring.geometry import BOX_FORMATS
from submissions.answer import SubmitAnswer
from submissions.quotas import QuotaStatus
from submissions.records import MODEL_TYPES, VISIBILITIES, Identity, SubmissionForm
from ui import display
from ui.auth import Auth
from ui.unparsed import unparsed_markdown

NARROWEST_FIELD = 280
"""px: below this a field of the form goes to its own line (a phone), not squeezed beside another."""
ERROR_COLUMN_WIDTHS = ["11%", "16%", "21%", "52%"]
"""line, field, code, message: shares of the table's width, so a long message wraps inside
it (an "auto" column took the message's unwrapped width and ran past the window)."""


def refusal(message: str, quota: QuotaStatus | None = None) -> dict:
    """The ``/submit`` answer for a request refused before anything was stored."""
    return SubmitAnswer.refused(message, quota=quota).to_api()


def quota_markdown(text: str) -> str:
    return f"**Quota**: {display.escape_markdown(text)}" if text else ""


@dataclass(frozen=True, eq=False)
class Submitter:
    """The Submit tab's callbacks."""

    leaderboard: Leaderboard
    auth: Auth

    def submit(
        self,
        benchmark: str,
        file: str | None,
        model: str,
        team: str,
        model_type: str,
        bbox_format: str,
        paper_url: str,
        code_url: str,
        description: str,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
        progress=gr.Progress(),
        validate_only: bool = False,
        confirm_box_format: bool = False,
        visibility: str = "private",
        anonymous: bool = False,
        reveal_date: str | None = None,  # None: optional for gradio_client too (an empty Textbox has no default)
        oauth_token: gr.OAuthToken | None = None,
    ) -> dict:
        """Validate and score one predictions file; returns the aggregate result, the new rank
        or the line-numbered errors, and the quota left. Same identity and quota as the web form.
        ``validate_only``: check only (nothing scored, stored or counted); ``confirm_box_format``:
        the box format is right even if the boxes do not seem to fit it. A new submission is
        private unless ``visibility="public"`` (docs/teams.md)."""
        caller = self.auth.caller(profile, request, oauth_token)
        identity = caller.identity
        if identity is None:
            return refusal(caller.refusal)
        if not file:
            quota = self.leaderboard.quota(identity, benchmark) if benchmark in BENCHMARKS else None
            return refusal("Choose a predictions file.", quota)
        form = SubmissionForm(
            model=model,
            team=team,
            model_type=model_type or "",
            paper_url=paper_url or "",
            code_url=code_url or "",
            description=description or "",
            bbox_format=bbox_format or "xyxy",
            visibility=visibility or "private",
            anonymous=bool(anonymous),
            reveal_date=reveal_date or "",
        )
        progress(0.0, desc="Uploading")
        report = lambda fraction, message: progress(fraction, desc=message)  # noqa: E731
        answer = self.leaderboard.submit(
            benchmark,
            Path(file),
            form,
            identity,
            Path(file).name,
            report,
            bool(validate_only),
            bool(confirm_box_format),
        )
        return answer.to_api()

    def quota_left(self, identity: Identity, benchmark: str) -> str:
        return self.leaderboard.quota(identity, benchmark).message() if benchmark in BENCHMARKS else ""

    def quota(self, benchmark: str, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        identity = self.auth.identity(profile, request)
        if identity is None:
            return "**Quota**: sign in to see your daily quota."
        return quota_markdown(self.quota_left(identity, benchmark))

    @staticmethod
    def show_answer(answer: dict, benchmark: str) -> tuple:
        """The answer as the form shows it: result or errors, and the quota."""
        bench = get_benchmark(benchmark) if benchmark in BENCHMARKS else None
        errors = display.errors_frame(answer)
        return (
            display.result_markdown(answer, bench) + checks_markdown(answer),
            gr.Dataframe(value=errors, visible=not errors.empty),
            quota_markdown(answer.get("quota") or ""),
        )


def checks_markdown(answer: dict) -> str:
    """Warnings and unparsed lines of an answer, in full (they are the submitter's own lines)."""
    parts = []
    if answer.get("warnings"):
        parts.append("**Warnings** (they do not stop a validate-only check):")
        parts += [f"- {display.escape_markdown(w['message'])}" for w in answer["warnings"]]
    if answer.get("unparsed_lines"):
        parts.append(unparsed_markdown([(u["line"], u["text"]) for u in answer["unparsed_lines"]]))
    return "\n\n" + "\n".join(parts) if parts else ""


def guide_markdown(benchmark: str) -> str:
    """What the Submit tab says about a benchmark: the format, an example, what becomes public."""
    bench = get_benchmark(benchmark) if benchmark in BENCHMARKS else None
    if bench is None:
        return ""
    fields = ", ".join(f"`{k}`" for k in bench.prediction_fields)
    example = "\n".join(bench.example_lines)
    return (
        f"**Format ({display.escape_markdown(bench.name)})**: JSONL, one object per line, fields {fields}. "
        "The public question list (About tab) has every question id; check a file offline with "
        f"`python -m scoring validate --benchmark {bench.id} --questions QUESTIONS.jsonl --predictions FILE`, "
        "or tick *Validate only* here (nothing is scored, stored or counted).\n\n"
        f"```json\n{example}\n```\n\n"
        + (f"**Question list**: {bench.questions_note}\n\n" if bench.questions_note else "")
        + "**What becomes public**: a submission is private (scored, seen by your team only) until you "
        "publish it, here or from *My submissions*; then its model name, team, model type, links and "
        "aggregate figures appear on the board and in the public results dataset; your file and its "
        "per-question results never do. Field tables, box formats and the question lists: "
        "[About](?tab=about); full guide: docs/submitting.md."
    )


def grounding_fields(benchmark: str) -> tuple:
    """The box-format controls show only for benchmarks that ground (declaration-driven)."""
    grounding = benchmark in BENCHMARKS and get_benchmark(benchmark).grounding
    return gr.Dropdown(visible=grounding), gr.Checkbox(visible=grounding), guide_markdown(benchmark)


@dataclass(frozen=True, eq=False)
class FormFields:
    """The form's inputs, in the ``/submit`` API's parameter order, and its button."""

    benchmark: gr.Dropdown
    file: gr.File
    model: gr.Textbox
    team: gr.Textbox
    model_type: gr.Radio
    bbox_format: gr.Dropdown
    paper_url: gr.Textbox
    code_url: gr.Textbox
    description: gr.Textbox
    validate_only: gr.Checkbox
    confirm_box_format: gr.Checkbox
    guide: gr.Markdown
    button: gr.Button
    visibility: gr.Radio
    anonymous: gr.Checkbox
    reveal_date: gr.Textbox

    @property
    def inputs(self) -> list:
        return [
            self.benchmark,
            self.file,
            self.model,
            self.team,
            self.model_type,
            self.bbox_format,
            self.paper_url,
            self.code_url,
            self.description,
            self.validate_only,
            self.confirm_box_format,
            self.visibility,
            self.anonymous,
            self.reveal_date,
        ]

    @classmethod
    def create(cls) -> FormFields:
        benchmark = gr.Dropdown(
            [(b.name, b.id) for b in BENCHMARKS.values()],
            value=next(iter(BENCHMARKS)),
            label="Benchmark",
            elem_id="sub-bench",
        )
        guide = gr.Markdown(guide_markdown(next(iter(BENCHMARKS))), elem_id="sub-guide")
        file = gr.File(label="Predictions (JSONL)", type="filepath", elem_id="sub-file")
        with gr.Row():
            model = gr.Textbox(label="Model name", max_length=100, elem_id="sub-model")
            team = gr.Textbox(label="Team", max_length=100, elem_id="sub-team")
        with gr.Row():
            model_type = gr.Radio(
                [(label, key) for key, label in MODEL_TYPES.items()],
                value="open",
                label="Model type",
                elem_id="sub-type",
                min_width=NARROWEST_FIELD,
            )
            bbox_format = gr.Dropdown(
                [(f"{k}: {v}", k) for k, v in BOX_FORMATS.items()],
                value="xyxy",
                label="Box format (grounding; lines may override with bbox_format)",
                info="Gemini box_2d is yxyx_1000; Qwen2-VL and InternVL are xyxy_1000. See About.",
                elem_id="sub-fmt",
                min_width=NARROWEST_FIELD,
                visible=next(iter(BENCHMARKS.values())).grounding,
            )
        with gr.Row():
            paper_url = gr.Textbox(label="Paper URL (optional, http/https)", elem_id="sub-paper")
            code_url = gr.Textbox(label="Code URL (optional, http/https)", elem_id="sub-code")
        description = gr.Textbox(label="Description (optional)", lines=2, max_length=1000)
        with gr.Row():
            validate_only = gr.Checkbox(
                label="Validate only: check the file; nothing is scored, stored or counted", elem_id="sub-validate"
            )
            confirm = gr.Checkbox(
                label="The box format is right (submit even if the boxes do not seem to fit it)",
                elem_id="sub-confirm-fmt",
            )
        visibility, anonymous, reveal_date = visibility_fields()
        button = gr.Button("Validate and score", variant="primary", elem_id="sub-btn")
        return cls(
            benchmark, file, model, team, model_type, bbox_format, paper_url, code_url, description,
            validate_only, confirm, guide, button, visibility, anonymous, reveal_date,
        )  # fmt: skip


def visibility_fields() -> tuple[gr.Radio, gr.Checkbox, gr.Textbox]:
    """Private by default: only a choice makes an upload a board row (docs/teams.md)."""
    with gr.Row():
        visibility = gr.Radio(
            [(label, key) for key, label in VISIBILITIES.items()],
            value="private",
            label="Visibility (the team name becomes your account's; others cannot submit under it)",
            elem_id="sub-visibility",
            min_width=NARROWEST_FIELD,
        )
        anonymous = gr.Checkbox(label="Anonymous (under double-blind review)", elem_id="sub-anonymous")
        reveal_date = gr.Textbox(label="Reveal names on (YYYY-MM-DD, optional)", elem_id="sub-reveal")
    return visibility, anonymous, reveal_date


@dataclass(frozen=True, eq=False)
class AnswerFields:
    """Where an answer shows: the quota, the result or errors, and the API's JSON (hidden)."""

    quota: gr.Markdown
    result: gr.Markdown
    errors: gr.Dataframe
    answer: gr.JSON

    @classmethod
    def create(cls) -> AnswerFields:
        quota = gr.Markdown(elem_id="quota")
        result = gr.Markdown("Upload a file to see its aggregate result and rank here.", elem_id="sub-result")
        errors = gr.Dataframe(
            label="Errors (line numbers refer to your file)",
            visible=False,
            interactive=False,
            wrap=True,
            column_widths=ERROR_COLUMN_WIDTHS,
            elem_id="sub-errors",
            render=False,  # rendered below the form at full width, so messages are not cut off
        )
        return cls(quota, result, errors, gr.JSON(visible=False))


@dataclass(frozen=True, eq=False)
class SubmitTab:
    """The Submit tab; ``finished`` ends a submission's events (the board page re-bakes itself)."""

    form: FormFields
    shown: AnswerFields
    finished: Dependency

    @classmethod
    def mount(cls, submitter: Submitter) -> SubmitTab:
        with gr.Tab("Submit", id="tab-submit", elem_id="tab-submit") as tab:
            with gr.Row():
                with gr.Column(scale=3):
                    form = FormFields.create()
                with gr.Column(scale=2):
                    shown = AnswerFields.create()
            shown.errors.render()
        submitted = form.button.click(
            submitter.submit,
            form.inputs,
            shown.answer,
            api_name="submit",
            show_progress_on=[shown.result],
            concurrency_limit=4,
        ).then(
            submitter.show_answer,
            [shown.answer, form.benchmark],
            [shown.result, shown.errors, shown.quota],
            api_visibility="private",
        )
        finished = submitted
        form.benchmark.change(submitter.quota, form.benchmark, shown.quota, api_visibility="private")
        form.benchmark.change(
            grounding_fields, form.benchmark, [form.bbox_format, form.confirm_box_format, form.guide],
            api_visibility="private",
        )  # fmt: skip
        tab.select(submitter.quota, form.benchmark, shown.quota, api_visibility="private")  # not a page load
        return cls(form, shown, finished)
