"""My submissions' "Correct this row's details" and the ``/correct`` endpoint (issue 44).

A team corrects a submission's descriptive fields (its Hub repo, links, description; a licence and
a size where no Hub repo is named) without a new scored file: ``leaderboard.descriptions`` checks
and stores each correction as an event of the row's history. The panel shows the chosen
submission's values to edit; ``/correct`` takes the fields to change (a parameter left out, or
None, is kept; "" empties it), with the identity of ``/submit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from leaderboard.descriptions import CORRECTABLE
from leaderboard.entries import history
from leaderboard.service import Leaderboard
from submissions import fields
from ui.auth import Auth
from ui.display import escape_markdown

SIGN_IN = "Sign in to correct your submissions."
LABELS = {
    "model_repo": "Hub model id",
    "paper_url": "Paper URL",
    "code_url": "Code URL",
    "description": "Description",
    "model_license": "Licence (only without a Hub model id)",
    "model_params": "Parameters (only without a Hub model id)",
}


def history_markdown(state) -> str:
    """The row's corrections for its team: who, when, what changed (empty when none)."""
    events = history(state)
    if not events:
        return ""
    lines = ["**Corrections** (descriptive fields, no new scoring):"]
    for event in events:
        who = escape_markdown(event["by"]) + (" (maintainer)" if event["maintainer"] else "")
        said = "; ".join(
            f"{c['field']}: {escape_markdown(c['before'] or '(empty)')} → {escape_markdown(c['after'] or '(empty)')}"
            for c in event["changes"]
        )
        lines.append(f"- {event['at'][:19].replace('T', ' ')} UTC by {who}: {said}")
    return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class Corrections:
    """The callbacks of the panel and the endpoint."""

    leaderboard: Leaderboard
    auth: Auth

    def values(self, submission_id: str | None, request: gr.Request, profile: gr.OAuthProfile | None) -> list[str]:
        """The chosen submission's current values, to edit (empty when none is chosen or it is not yours)."""
        identity = self.auth.identity(profile, request)
        entry = self.leaderboard.visibility.entry(identity, submission_id or "") if identity else None
        if entry is None:
            return [""] * len(CORRECTABLE)
        return [fields.value_of(entry.state.meta, name) for name in CORRECTABLE]

    def save(
        self,
        submission_id: str | None,
        model_repo: str,
        paper_url: str,
        code_url: str,
        description: str,
        model_license: str,
        model_params: str,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ) -> str:
        """The panel's Save: every field as shown (an unchanged one changes nothing). Gradio hands the
        request and profile by their annotations, so the fields are named (CORRECTABLE's order)."""
        values = (model_repo, paper_url, code_url, description, model_license, model_params)
        identity = self.auth.identity(profile, request)
        if identity is None:
            return SIGN_IN
        if not submission_id:
            return "Choose one of your submissions first."
        try:
            changes = {name: str(v or "") for name, v in zip(CORRECTABLE, values, strict=True)}
            return self.leaderboard.descriptions.correct(identity, submission_id, changes)
        except (PermissionError, ValueError) as e:
            return str(e)

    def api_correct(
        self,
        submission_id: str,
        model_repo: str | None = None,
        paper_url: str | None = None,
        code_url: str | None = None,
        description: str | None = None,
        model_license: str | None = None,
        model_params: str | None = None,
        request: gr.Request = None,
    ) -> dict:
        """Correct a submission's descriptive fields without a new scored file (None keeps a field,
        "" empties it); answers ``message`` and the submission as ``/my_result`` does."""
        identity = self.auth.identity(None, request)
        if identity is None:
            raise gr.Error(SIGN_IN)
        given = dict(zip(CORRECTABLE, (model_repo, paper_url, code_url, description, model_license, model_params)))
        try:
            message = self.leaderboard.descriptions.correct(
                identity, submission_id, {k: v for k, v in given.items() if v is not None}
            )
        except (PermissionError, ValueError) as e:
            raise gr.Error(str(e)) from None
        return {"message": message, **self.leaderboard.visibility.entry(identity, submission_id).to_api()}


@dataclass(frozen=True, eq=False)
class CorrectionPanel:
    """The panel's components, under the submission picker of My submissions."""

    boxes: tuple[gr.Textbox, ...]
    save: gr.Button
    message: gr.Markdown

    @classmethod
    def mount(cls) -> CorrectionPanel:
        with gr.Accordion("Correct this row's details (no new scoring)", open=False, elem_id="mine-correct"):
            boxes = tuple(
                gr.Textbox(label=LABELS[name], elem_id=f"mine-correct-{name}", lines=2 if name == "description" else 1)
                for name in CORRECTABLE
            )
            save = gr.Button("Save the corrections", elem_id="mine-correct-save", size="sm")
            message = gr.Markdown(elem_id="mine-correct-msg")
        return cls(boxes, save, message)

    def wire(self, corrections: Corrections, pick: gr.Dropdown) -> None:
        private = {"api_visibility": "private"}
        pick.change(corrections.values, pick, list(self.boxes), **private)
        self.save.click(corrections.save, [pick, *self.boxes], self.message, **private).then(
            corrections.values, pick, list(self.boxes), **private
        )
