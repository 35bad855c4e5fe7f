"""The Submit tab and the ``/submit`` API: one function serves the button and scripts.

Its parameter names (``benchmark, file, model, team, model_type, bbox_format, paper_url,
code_url, description``, then ``validate_only, confirm_box_format`` (docs/submitting.md),
``visibility, anonymous, reveal_date`` (docs/teams.md), then every descriptive field declared
since (``model_repo``: submissions.fields), added at the end with defaults) and the answer's
keys are a contract people script against (README). The form's widgets come from the same
declarations.
Every answer, the early refusals included, is a :class:`SubmitAnswer` turned into its API dict.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import gradio as gr
from gradio.components import Component
from gradio.events import Dependency

from leaderboard.joined import BundleError, one_upload
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS
from scoring.benchmarks import get_benchmark
from scoring.errors import suggested_settings
from scoring.geometry import BOX_FORMATS
from scoring.grounding_formats import DEFAULT_QWEN_PRESET, FAMILIES, QWEN_PIXEL_PRESETS
from submissions import fields
from submissions.answer import SubmitAnswer
from submissions.quotas import QuotaStatus
from submissions.records import VISIBILITIES, Identity, SubmissionForm
from submissions.request import SubmitRequest
from ui import display
from ui.auth import Auth
from ui.contact import contact_markdown
from ui.failures import failures_markdown
from ui.public_files import question_links
from ui.unparsed import unparsed_markdown

NARROWEST_FIELD = 280
"""px: below this a field of the form goes to its own line (a phone), not squeezed beside another."""
ERROR_COLUMN_WIDTHS = ["11%", "16%", "21%", "52%"]
"""line, field, code, message: shares of the table's width, so a long message wraps inside
it (an "auto" column took the message's unwrapped width and ran past the window)."""


def refusal(message: str, quota: QuotaStatus | None = None) -> dict:
    """The ``/submit`` answer for a request refused before anything was stored."""
    return SubmitAnswer.refused(message, quota=quota).to_api()


def submission_form(added: Mapping[str, object], **given: object) -> SubmissionForm:
    """The form as ``/submit`` got it: empty values as the form's defaults (an empty box format is
    ``xyxy``, an empty visibility ``private``)."""
    text = {name: given[name] or "" for name in ("model_type", "paper_url", "code_url", "description")}
    return SubmissionForm.of(
        model=given["model"],
        team=given["team"],
        **text,
        **{name: value or "" for name, value in added.items()},
        bbox_format=given["bbox_format"] or "xyxy",
        visibility=given["visibility"] or "private",
        anonymous=bool(given["anonymous"]),
        reveal_date=given["reveal_date"] or "",
        grounding_format=given["grounding_format"] or "",
    )


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
        grounding_format: str | None = "",
        oauth_token: gr.OAuthToken | None = None,
        more_files: list[str] | None = None,
        added: Mapping[str, object] | None = None,
    ) -> dict:
        """Validate and score one predictions file; returns the aggregate result, the new rank
        or the line-numbered errors, and the quota left. Same identity and quota as the web form.
        ``validate_only``: check only (nothing scored, stored or counted); ``confirm_box_format``:
        the box format is right even if the boxes do not seem to fit it. A new submission is
        private unless ``visibility="public"`` (docs/teams.md). ``grounding_format``: the model
        family ``grounding_response`` lines are read in (SPEC "Raw model outputs"; "" for none).
        ``more_files``: further lmms-eval samples files read with ``file`` as one submission (SCB's
        scb_stage1 and scb_stage2; leaderboard.joined). ``added``: the fields declared after the first
        API (``model_repo``, ...), which :meth:`endpoint` takes as parameters."""
        caller = self.auth.caller(profile, request, oauth_token)
        identity = caller.identity
        if identity is None:
            return refusal(caller.refusal)
        if not file:
            return refusal("Choose a predictions file.", self._quota(identity, benchmark))
        form = submission_form(
            added or {},
            model=model,
            team=team,
            model_type=model_type,
            paper_url=paper_url,
            code_url=code_url,
            description=description,
            bbox_format=bbox_format,
            visibility=visibility,
            anonymous=anonymous,
            reveal_date=reveal_date,
            grounding_format=grounding_format,
        )
        progress(0.0, desc="Uploading")
        report = lambda fraction, message: progress(fraction, desc=message)  # noqa: E731
        ask = SubmitRequest(
            benchmark, Path(), form, identity, "", report, bool(validate_only), bool(confirm_box_format)
        )
        return self._upload(ask, [file, *(more_files or [])])

    def _upload(self, request: SubmitRequest, files: list[str]) -> dict:
        """``request`` with its files as one upload (leaderboard.joined), answered as ``/submit`` answers."""
        room = self.leaderboard.submissions
        try:
            with one_upload(files, self.leaderboard.settings.max_upload_bytes) as (path, name):
                answer = room.submit(replace(request, path=path, filename=name))
        except BundleError as e:
            return refusal(f"Not read: {e}", room.quota(request.identity, request.benchmark))
        return answer.to_api()

    def _quota(self, identity: Identity, benchmark: str) -> QuotaStatus | None:
        return self.leaderboard.submissions.quota(identity, benchmark) if benchmark in BENCHMARKS else None

    def endpoint(self) -> Callable[..., dict]:
        """:meth:`submit` as ``/submit`` serves it: every field declared after the first API
        (submissions.fields.added_api_fields) is a parameter after ``reveal_date``, in declaration
        order, defaulting to empty, so scripts that omit it keep working and the form's widgets
        map onto it by position (:attr:`FormFields.inputs`)."""
        return with_added_fields(self.submit)

    def quota_left(self, identity: Identity, benchmark: str) -> str:
        return quota.message() if (quota := self._quota(identity, benchmark)) is not None else ""

    def quota(self, benchmark: str, request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        identity = self.auth.identity(profile, request)
        if identity is None:
            return "**Quota**: sign in to see your daily quota."
        return quota_markdown(self.quota_left(identity, benchmark))

    def show_answer(self, answer: dict, benchmark: str) -> tuple:
        """The answer as the form shows it: result or errors, where it fails, and the quota."""
        bench = get_benchmark(benchmark) if benchmark in BENCHMARKS else None
        errors = display.errors_frame(answer)
        fails = ""
        if bench is not None and answer.get("result"):  # figures the Ladder shows the team (none when withheld)
            board = [r.figures for r in self.leaderboard.board(bench.id).rows]
            fails = "\n\n" + failures_markdown(bench, answer["result"], board)
        return (
            display.result_markdown(answer, bench) + fails + checks_markdown(answer) + suggested_markdown(answer),
            gr.Dataframe(value=errors, visible=not errors.empty),
            quota_markdown(answer.get("quota") or ""),
        )


PREFILLED = {"grounding_format": "grounding format", "bbox_format": "box format"}
"""The settings an error may suggest (scoring.errors.SETTINGS), in the form's words and widget order."""


def answer_suggests(answer: dict) -> dict[str, str]:
    """The settings the first error that suggests any names: the declaration that reads the file."""
    return next((s for e in answer.get("errors") or [] if (s := suggested_settings(e))), {})


def suggested_markdown(answer: dict) -> str:
    """What the form did with a suggestion (:func:`prefilled`): it holds it now, ready to send again."""
    settings = answer_suggests(answer)
    if not settings:
        return ""
    named = " and ".join(f"{PREFILLED[k]} {display.escape_markdown(v)}" for k, v in settings.items())
    return (
        f"\n\n**Suggested**: the form now holds {named}, the declaration that reads this file; press the "
        "button again to send it so (or set it back and tick *The box format is right*)."
    )


def prefilled(answer: dict) -> tuple:
    """The form's grounding and box formats set to what the answer suggests; unchanged otherwise."""
    settings = answer_suggests(answer)
    return tuple(gr.update(value=settings[k]) if k in settings else gr.update() for k in PREFILLED)


def checks_markdown(answer: dict) -> str:
    """Warnings and unparsed lines of an answer, in full (they are the submitter's own lines)."""
    parts = []
    if answer.get("warnings"):
        parts.append("**Warnings** (they do not stop a validate-only check):")
        parts += [f"- {display.escape_markdown(w['message'])}" for w in answer["warnings"]]
    if answer.get("notes"):
        parts.append("**How the file was read**:")
        parts += [f"- {display.escape_markdown(n['message'])} (`{n['code']}`)" for n in answer["notes"]]
    if answer.get("unparsed_lines"):
        listed = answer["unparsed_lines"]
        parts.append(
            unparsed_markdown(
                [(u["line"], u["text"], u.get("file", "")) for u in listed if u.get("kind", "answer") == "answer"]
            )
        )
        parts.append(
            unparsed_markdown(
                [(u["line"], u["text"], u.get("file", "")) for u in listed if u.get("kind") == "grounding"], "grounding"
            )
        )
        parts = [p for p in parts if p]
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
        f"Run your model on the inputs: {question_links(bench.id)}"
        + (f" (`python -m scoring.harness.runner {bench.id}` reads them; docs/harnesses.md)" if bench.family else "")
        + ". Check a file offline with "
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
    return (
        gr.Dropdown(visible=grounding),
        gr.Checkbox(visible=grounding),
        guide_markdown(benchmark),
        gr.Dropdown(visible=grounding),
    )


def with_added_fields(submit: Callable[..., dict]) -> Callable[..., dict]:
    """``submit`` with a parameter for each added field before ``oauth_token`` (Gradio reads the
    parameters, and which of them it fills in itself, from the signature and annotations)."""
    signature = inspect.signature(submit)
    params = [p for p in signature.parameters.values() if p.name != "added"]
    at = next(i for i, p in enumerate(params) if p.name == "oauth_token")
    names = [f.name for f in fields.added_api_fields()]
    params[at:at] = [
        inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation="str | None")
        for n in names
    ]
    served = signature.replace(parameters=params)

    def endpoint(*args: object, **kwargs: object) -> dict:
        values = dict(served.bind(*args, **kwargs).arguments)
        added = {n: values.pop(n) for n in names if n in values}
        return submit(**values, added=added)

    endpoint.__signature__ = served  # type: ignore[attr-defined]
    endpoint.__annotations__ = {p.name: p.annotation for p in params if p.annotation is not p.empty}
    endpoint.__annotations__["return"] = "dict"
    endpoint.__name__, endpoint.__doc__ = "submit", submit.__doc__
    return endpoint


def field_widget(f: fields.Field, **extra: object) -> Component:
    """A declared field's input on the form (``sub-<elem>``)."""
    elem_id = f"sub-{f.elem or f.name}"
    label = f"{f.label} ({f.hint})" if f.hint else f.label
    if f.widget is fields.Widget.CHOICE:
        choices = [(c.shown, c.key) for c in f.choices]
        return gr.Radio(choices, value=f.default, label=f.label, elem_id=elem_id, min_width=NARROWEST_FIELD, **extra)
    lines = 2 if f.widget is fields.Widget.LONG_TEXT else 1
    return gr.Textbox(label=label, max_length=f.limit, lines=lines, elem_id=elem_id, **extra)


def described_widgets(bbox_format: Callable[[], Component]) -> dict[str, Component]:
    """The declared fields' widgets in declaration order: short texts two to a row, a choice in
    its own row (the first beside the box format, which ``bbox_format`` creates), long texts alone."""
    widgets: dict[str, Component] = {}
    pending: list[fields.Field] = []

    def flush() -> None:
        if pending:
            with gr.Row():
                widgets.update({p.name: field_widget(p) for p in pending})
            pending.clear()

    placed_format = False
    for f in fields.submitted_fields():
        if f.widget is fields.Widget.TEXT:
            pending.append(f)
            if len(pending) == 2:
                flush()
            continue
        flush()
        if f.widget is fields.Widget.CHOICE:
            with gr.Row():
                widgets[f.name] = field_widget(f)
                if not placed_format:
                    widgets["bbox_format"], placed_format = bbox_format(), True
        else:
            widgets[f.name] = field_widget(f)
    flush()
    if not placed_format:
        widgets["bbox_format"] = bbox_format()
    return widgets


@dataclass(frozen=True, eq=False)
class FormFields:
    """The form's inputs and its button; :attr:`inputs` is in the ``/submit`` parameter order."""

    benchmark: gr.Dropdown
    file: gr.File
    described: Mapping[str, Component]  # every submitted field (submissions.fields), and bbox_format
    validate_only: gr.Checkbox
    confirm_box_format: gr.Checkbox
    guide: gr.Markdown
    button: gr.Button
    visibility: gr.Radio
    anonymous: gr.Checkbox
    reveal_date: gr.Textbox
    grounding_format: gr.Dropdown
    more_files: gr.File

    @property
    def bbox_format(self) -> Component:
        return self.described["bbox_format"]

    @property
    def inputs(self) -> list:
        first = [self.described[name] for name in (*fields.CLASSIC_API[:3], "bbox_format", *fields.CLASSIC_API[3:])]
        added = [self.described[f.name] for f in fields.added_api_fields()]
        return [
            self.benchmark,
            self.file,
            *first,
            self.validate_only,
            self.confirm_box_format,
            self.visibility,
            self.anonymous,
            self.reveal_date,
            self.grounding_format,
            *added,
            self.more_files,
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
        file = gr.File(
            label="Predictions (JSONL, lmms-eval samples or a .zip of their folder, or VLMEvalKit predictions)",
            type="filepath",
            elem_id="sub-file",
        )
        more_files = gr.File(
            label="With it (SCB by lmms-eval): the other stage's samples file; both are read as one submission",
            type="filepath",
            file_count="multiple",
            elem_id="sub-more-files",
        )
        described = described_widgets(box_format_dropdown)
        grounding_format = gr.Dropdown(
            grounding_format_choices(),
            value="",
            allow_custom_value=True,  # qwen2_5_vl:MIN_PIXELS,MAX_PIXELS
            label="Grounding format of grounding_response lines (raw model text; lines may override)",
            info="The model family that printed the text; Qwen2.5-VL: the stack whose min/max_pixels it ran with.",
            elem_id="sub-grounding-fmt",
            visible=next(iter(BENCHMARKS.values())).grounding,
        )
        with gr.Row():
            validate_only = gr.Checkbox(
                label="Validate only: check the file; nothing is scored, stored or counted", elem_id="sub-validate"
            )
            confirm = gr.Checkbox(
                label="The box format is right (submit even if the boxes do not seem to fit it)",
                elem_id="sub-confirm-fmt",
            )
        visibility, anonymous, reveal_date = visibility_fields()
        button = gr.Button(SUBMIT_LABEL, variant="primary", elem_id="sub-btn")
        return cls(
            benchmark,
            file,
            described,
            validate_only,
            confirm,
            guide,
            button,
            visibility,
            anonymous,
            reveal_date,
            grounding_format,
            more_files,
        )


SUBMIT_LABEL, VALIDATE_LABEL = "Validate and score", "Validate only"
BUTTON_LABEL_JS = f"(validateOnly) => validateOnly ? {VALIDATE_LABEL!r} : {SUBMIT_LABEL!r}"


def box_format_dropdown() -> gr.Dropdown:
    return gr.Dropdown(
        [(f"{k}: {v}", k) for k, v in BOX_FORMATS.items()],
        value="xyxy",
        label="Box format (grounding; lines may override with bbox_format)",
        info="Gemini box_2d is yxyx_1000; Qwen2-VL and InternVL are xyxy_1000. See About.",
        elem_id="sub-fmt",
        min_width=NARROWEST_FIELD,
        visible=next(iter(BENCHMARKS.values())).grounding,
    )


def grounding_format_choices() -> list[tuple[str, str]]:
    """The form's grounding formats: none, each family, and Qwen2.5-VL under each named preset."""
    choices = [("none: groundings are bbox / polygon / mask", "")]
    for name, family in FAMILIES.items():
        if name == "qwen2_5_vl":
            for preset, (low, high) in QWEN_PIXEL_PRESETS.items():
                value = name if preset == DEFAULT_QWEN_PRESET else f"{name}:{preset}"
                choices.append((f"{value}: pixels of the resized input, {preset} min/max_pixels {low}/{high}", value))
        else:
            choices.append((f"{name}: {family.grid}", name))
    return choices


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
            label="Errors (line numbers refer to your file, or to the file the message names)",
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
            gr.Markdown(contact_markdown(submitter.leaderboard.settings), elem_id="sub-contact")
        submitted = (
            form.button.click(
                submitter.endpoint(),
                form.inputs,
                shown.answer,
                api_name="submit",
                show_progress_on=[shown.result],
                concurrency_limit=4,
            )
            .then(
                submitter.show_answer,
                [shown.answer, form.benchmark],
                [shown.result, shown.errors, shown.quota],
                api_visibility="private",
            )
            .then(  # a suggested declaration goes into the form (issue 42): one press sends the file so
                prefilled,
                shown.answer,
                [form.grounding_format, form.bbox_format],
                api_visibility="private",
                show_progress="hidden",
            )
        )
        finished = submitted
        # the quota line is refreshed in place: no 0.2-opacity "pending" fade (1.5:1 contrast while it waits)
        quiet = {"api_visibility": "private", "show_progress": "hidden"}
        form.benchmark.change(submitter.quota, form.benchmark, shown.quota, **quiet)
        form.benchmark.change(
            grounding_fields,
            form.benchmark,
            [form.bbox_format, form.confirm_box_format, form.guide, form.grounding_format],
            api_visibility="private",
        )
        tab.select(submitter.quota, form.benchmark, shown.quota, **quiet)  # not a page load
        form.validate_only.change(  # the button says what it does, in the browser (no round trip)
            None, form.validate_only, form.button, js=BUTTON_LABEL_JS, api_visibility="private"
        )
        return cls(form, shown, finished)
