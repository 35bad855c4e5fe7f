"""The one disclosure rule: what of a submission a viewer may be shown, given the entry's state.

Every surface that lets something about a submission leave the server (the board and its
downloads, the model page and its history, Compare, My submissions and its API, the public
results dataset and the readers built from it) asks :func:`disclose` and shows only the fields
it allows. The rule is pure: a function of (viewer, entry state), and the state a function of
the stored records and the feedback policy (:func:`entry_state`), so every replica agrees.

Anonymity is an allow-list (:func:`anonymous_fields`), not a deny-list: a field added to a
submission later stays out of an anonymous row until someone names it there.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from submissions import fields
from submissions.catalog import SubmissionState
from submissions.feedback import Feedback
from submissions.records import Identity


class Viewer(StrEnum):
    OWNER = "owner"  # a member of the entry's team (or who uploaded it)
    OTHER_TEAM = "other team"  # signed in, not of the team
    VISITOR = "visitor"  # no account
    MAINTAINER = "maintainer"


class EntryState(StrEnum):
    """What an entry is to the public, most restrictive first (:func:`entry_state`)."""

    HELD = "held"  # a probe hold (submissions.probes): figures kept from everyone but maintainers
    HIDDEN = "hidden"  # hidden by a maintainer
    ANONYMOUS = "anonymous"  # public, without its names until its reveal date
    PUBLIC = "public"  # a public row, or a public entry whose figures are out
    WITHDRAWN = "withdrawn"  # public once, private now
    WITHHELD = "withheld"  # private, and the Ladder keeps its figures from its team
    PRIVATE = "private"  # private, its figures shown to its team


ENTRY_FIELDS = frozenset(
    {"description", "bbox_format", "submission_id", "submitted_at", "status", "figures", "reveal_date"}
)
"""What anyone may see of a public entry besides its declared public fields (submissions.fields):
its page's description and box format, its line in the row's history, its figures."""

TEAM_ONLY = frozenset(
    {
        "submitter",
        "filename",
        "visibility",
        "anonymous",
        "hidden",
        "errors",
        "rank",
        "board_row",
        "unparsed",
    }
)
"""What its team sees of its own entry in My submissions and ``/my_result`` beyond the public."""


def public_fields() -> frozenset[str]:
    """What anyone may see of a public entry: its row, its page and its line in the row's history."""
    return frozenset(f.name for f in fields.public_fields()) | ENTRY_FIELDS


def team_fields() -> frozenset[str]:
    return public_fields() | TEAM_ONLY


def anonymous_fields() -> frozenset[str]:
    """The fields of an anonymous entry anyone may see before its reveal date: the allow-list,
    derived from the field declarations (every public field declared not identifying, e.g. the
    model type), plus its figures and its reveal date. Nothing that names or tells the team apart
    (names, links, Hub repo, description, box format, submission id or time) is on it."""
    return fields.anonymous_allowed_fields() | {"figures", "reveal_date"}


@dataclass(frozen=True)
class Disclosure:
    """The fields of one entry one viewer may see; none means the entry does not exist for them."""

    fields: frozenset[str]

    def shows(self, field: str) -> bool:
        return field in self.fields

    @property
    def listed(self) -> bool:
        return bool(self.fields)


NOTHING = Disclosure(frozenset())


def disclose(viewer: Viewer, state: EntryState) -> Disclosure:
    """THE rule (module doc)."""
    if viewer is Viewer.MAINTAINER:
        return Disclosure(team_fields())
    if viewer is Viewer.OWNER:
        keep_figures = state not in (EntryState.WITHHELD, EntryState.HELD, EntryState.HIDDEN)
        return Disclosure(team_fields() if keep_figures else team_fields() - {"figures"})
    if state is EntryState.PUBLIC:
        return Disclosure(public_fields())
    if state is EntryState.ANONYMOUS:
        return Disclosure(anonymous_fields())
    return NOTHING


def viewer_of(identity: Identity | None, of_team: bool) -> Viewer:
    """The viewer ``identity`` is to an entry; ``of_team``: it uploaded it or is of its team now."""
    if identity is None:
        return Viewer.VISITOR
    if identity.is_maintainer:
        return Viewer.MAINTAINER
    return Viewer.OWNER if of_team else Viewer.OTHER_TEAM


def entry_state(state: SubmissionState, today: str, *, granted: bool = True, shown_to_team: bool = True) -> EntryState:
    """The entry's state on ``today`` (YYYY-MM-DD). ``granted``: its publication is within the
    ration (a public entry over it is not out); ``shown_to_team``: the Ladder shows its figures
    to its team (submissions.feedback)."""
    if state.hidden:
        return EntryState.HELD if state.held else EntryState.HIDDEN
    if state.public and granted:
        if state.anonymous and not (state.reveal_date and state.reveal_date <= today):
            return EntryState.ANONYMOUS
        return EntryState.PUBLIC
    if not shown_to_team:  # before "withdrawn": a public entry over the ration was never out
        return EntryState.WITHHELD
    return EntryState.WITHDRAWN if was_public(state) else EntryState.PRIVATE


def was_public(state: SubmissionState) -> bool:
    return state.meta.visibility == "public" or any(p.public for p in state.publications.values())


def classify(state: SubmissionState, feedback: Feedback, gold_version: str | None, today: str) -> EntryState:
    """:func:`entry_state` with the feedback policy's answers (the ration and the Ladder)."""
    granted = bool(feedback.visible([state], gold_version or ""))
    shown = gold_version is None or feedback.shown(state, gold_version)
    return entry_state(state, today, granted=granted, shown_to_team=shown)
