"""A row's descriptive fields corrected by its team, without a new scored file (issue 44).

A team corrects what it wrote (the model's Hub repo, the paper and code links, the description)
and, for a model that names no Hub repo (an API-only one), what only it can say: the licence and
the parameter count. A new ``model_repo`` is checked as at submission (``submissions.model_hub``:
a missing or private repo is refused), and the facts the Hub gives then (revision, size, licence,
architecture, gating) replace the old repo's; a Hub that cannot be asked leaves them empty and
says so. Each correction is one immutable event (``store.records.Correction``: who, when, each
changed field's value before and after), the row's history (leaderboard.entries.history), which
the team sees in My submissions and ``/my_result``. No figure changes, and no quota or
publication is spent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from leaderboard.publishing import Publisher
from leaderboard.visibility import Visibility
from store.base import AlreadyExists, Store
from store.layout import CorrectionFile
from store.records import Correction
from submissions import fields, lifecycle
from submissions.catalog import Catalog, SubmissionState
from submissions.fields import HUB_FIELD, REVISION_FIELD, SIZE_FIELD
from submissions.intake import Intake
from submissions.records import Identity

WRITTEN = (HUB_FIELD, "paper_url", "code_url", "description")
"""What the team wrote at submission and may correct."""
STATED = ("model_license", SIZE_FIELD)
"""What the team may state for a model that names no Hub repo (else the Hub says it)."""
HUB_FACTS = (REVISION_FIELD, SIZE_FIELD, "model_license", "model_architecture", "model_gated")
"""What a Hub repo's lookup fills in (submissions.model_hub.ModelFacts.info)."""
CORRECTABLE = WRITTEN + STATED
MAX_PARAMS = 10**13
LICENCE_CHARS = 100


@dataclass(frozen=True)
class Change:
    field: str
    before: str
    after: str


def _stated(name: str, value: str) -> str:
    """A licence or parameter count as the team states it; ValueError says what is wrong."""
    text = fields.clean_text(value, LICENCE_CHARS if name == "model_license" else 20)
    if name == SIZE_FIELD and text and not (re.fullmatch(r"[1-9]\d*", text) and int(text) <= MAX_PARAMS):
        raise ValueError(f"{SIZE_FIELD} must be a whole number of parameters (e.g. 7615616512), not {value!r}")
    return text


def _cleaned(changes: Mapping[str, str]) -> dict[str, str]:
    """The asked values, each cleaned and checked as the submission form checks it."""
    unknown = sorted(set(changes) - set(CORRECTABLE))
    if unknown:
        raise ValueError(f"{', '.join(unknown)} cannot be corrected here; these can: {', '.join(CORRECTABLE)}")
    out = {}
    for name, value in changes.items():
        if name in STATED:
            out[name] = _stated(name, value)
            continue
        cleaned, issues = fields.get(name).clean(value)
        if issues:
            raise ValueError(issues[0].message)
        out[name] = cleaned
    return out


class Descriptions:
    """Corrections of a submission's descriptive fields (module doc); a room of the leaderboard."""

    def __init__(
        self, store: Store, catalog: Catalog, intake: Intake, visibility: Visibility, publisher: Publisher
    ) -> None:
        self.store, self.catalog, self.publisher = store, catalog, publisher
        self.intake = intake  # its model_facts, read at each correction: the app swaps in a pooled one
        self.visibility = visibility  # who may correct a row is who may manage it

    def correct(self, identity: Identity, submission_id: str, changes: Mapping[str, str]) -> str:
        """Correct the fields in ``changes`` (name -> new value; "" empties one); returns what was
        done. PermissionError for anyone but its team's members and maintainers; ValueError for a
        value the form would refuse, a repo the Hub does not know, or nothing to change."""
        self.catalog.refresh()
        state = self.catalog.get(submission_id)
        visibility = self.visibility
        if state is None or not visibility.may_see(identity, state):
            raise PermissionError(f"No submission {submission_id!r} of yours.")
        if not visibility.may_manage(identity, state):
            raise PermissionError(f"Submission {submission_id!r} belongs to a team you are not a member of now.")
        values, note = self._values(state, _cleaned(changes))
        done = [Change(k, fields.value_of(state.meta, k), v) for k, v in values.items()]
        done = [c for c in done if c.before != c.after]
        if not done:
            return "Nothing to change: the fields already hold these values."
        event = Correction(
            identity.username,
            lifecycle.now_iso(),
            {c.field: c.after for c in done},
            {c.field: c.before for c in done},
            identity.is_maintainer,
        )
        self._write(state, event)
        self.publisher.publish(state.meta.benchmark, now=True)
        said = "; ".join(f"{c.field}: {c.before or '(empty)'} -> {c.after or '(empty)'}" for c in done)
        return f"Corrected {submission_id}: {said}. No figure changed.{note}"

    def _values(self, state: SubmissionState, asked: dict[str, str]) -> tuple[dict[str, str], str]:
        """Every field the correction sets: the asked ones, and a new repo's facts from the Hub."""
        repo = asked.get(HUB_FIELD, fields.value_of(state.meta, HUB_FIELD))
        stated = sorted(set(asked) & set(STATED))
        if repo and stated:
            raise ValueError(
                f"{', '.join(stated)} come from the Hub repo {repo!r}: correct model_repo, or empty it to state them"
            )
        if HUB_FIELD not in asked or asked[HUB_FIELD] == fields.value_of(state.meta, HUB_FIELD):
            return asked, ""
        facts = dict.fromkeys(HUB_FACTS, "")  # the old repo's facts go with it
        note = ""
        if repo:
            look_up = self.intake.model_facts
            lookup = look_up(repo) if look_up is not None else None
            if lookup is not None and lookup.refusal is not None:
                raise ValueError(lookup.refusal.message)
            if lookup is not None and lookup.facts is not None:
                facts.update(lookup.facts.info())
            elif lookup is not None and lookup.warning is not None:
                note = f" {lookup.warning.message}"
        return {**facts, **asked}, note

    def _write(self, state: SubmissionState, event: Correction) -> None:
        store, catalog = self.store, self.catalog
        for _ in range(3):  # another writer may take the same event number: take the next
            seq = max(state.corrections, default=-1) + 1
            path, body = CorrectionFile(state.meta.id, seq).path, event.to_bytes()
            try:
                store.put("submissions", {path: body}, f"Fields of {state.meta.id} corrected", durable=True)
            except AlreadyExists:
                catalog.refresh()
                continue
            catalog.note(path, body)
            return
        raise RuntimeError(f"could not record the correction of {state.meta.id}: busy, try again")
