"""Team names are owned: the account that first uses a name owns it, and only its members submit
under it (docs/teams.md).

Names are compared by :func:`name_key`, a skeleton in the spirit of Unicode TR39: NFKC, casefold,
invisible characters and combining marks dropped, whitespace collapsed, dashes unified, then
letters of other scripts that look like Latin ones (Cyrillic ``е``, Greek ``ο``...) and the digits
``0``/``1`` folded onto the Latin letter they imitate (:data:`CONFUSABLES`). A name that mixes Latin
with Cyrillic or Greek letters is refused outright, and so are the board's own labels
(``(paper)``, anonymous entries) and any name written in parentheses.

Ownership is state derived from immutable files (store/layout.py ``TeamFile``): a claim (event 0)
and maintainers' transfers after it; the newest event names the owner. A name used before owners
existed belongs to the account that submitted under it first (from the stored metas), and that
account's claim is written down the next time the name is used.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from scoring.errors import Issue
from store.base import AlreadyExists, Store
from store.layout import TeamFile
from store.records import TeamEvent
from submissions.catalog import Catalog, SubmissionState
from submissions.records import Identity

ORG_PREFIX = "org:"

# Letters that render like a Latin letter, mapped to it (lower case: names are casefolded first,
# so an upper-case lookalike such as Cyrillic "В" arrives as "в" and maps to "b"). From Unicode's
# confusables.txt for Cyrillic, Greek and a few Latin variants; NFKC already folds full-width and
# mathematical letters, ligatures and most compatibility forms.
CONFUSABLES: dict[str, str] = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "ў": "y", "х": "x", "ѕ": "s", "һ": "h",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "ɡ": "g", "ъ": "b", "ь": "b", "п": "n", "г": "r",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "ζ": "z", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v",
    "ο": "o", "ρ": "p", "σ": "o", "ς": "c", "τ": "t", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "ω": "w",
    # Latin variants and digits
    "ı": "i", "ȷ": "j", "ɑ": "a", "ɩ": "i", "ʟ": "l", "ℓ": "l", "0": "o", "1": "l", "|": "l", "5": "s",
}  # fmt: skip
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\u180e"}  # fillers, not category Cf
_LATIN_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK")
RESERVED = ("paper", "anonymous", "anonymous submission", "maintainer", "maintainers", "admin", "leaderboard")
"""Names the board uses for its own rows or roles (compared by key, parentheses or not)."""


def _visible(text: str) -> str:
    """NFKC, casefolded, without format or combining characters, with single spaces."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for ch in unicodedata.normalize("NFD", text):
        category = unicodedata.category(ch)
        if category in ("Cf", "Cc", "Mn", "Me") or ch in _INVISIBLE:
            continue
        kept.append(" " if category.startswith("Z") or ch.isspace() else ch)
    return re.sub(r" +", " ", "".join(kept)).strip().translate(_DASHES)


def name_key(name: str) -> str:
    """The form two names are compared in: equal keys mean the names look alike.

    >>> name_key("DEMO") == name_key(" d\u0435mo ") == name_key("De\u200bmo") == name_key("ＤＥＭＯ")
    True
    >>> name_key("UX   Lab"), name_key("Team 1") == name_key("team l")
    ('ux lab', True)
    """
    folded = "".join(CONFUSABLES.get(ch, ch) for ch in _visible(name))
    return unicodedata.normalize("NFKC", folded)


def team_id(key: str) -> str:
    """The file-name form of a key (any script in, hex out)."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def name_issue(name: str, field: str = "team") -> Issue | None:
    """Why ``name`` cannot be a team name (reserved, in parentheses, mixed scripts), or None."""
    visible = _visible(name)
    if visible.startswith("(") and visible.endswith(")") or name_key(visible.strip("()")) in RESERVED:
        return Issue("reserved_team", 0, field, f"{name!r} is reserved for the board's own rows; choose another name")
    scripts = {unicodedata.name(ch, "").split(" ")[0] for ch in visible if ch.isalpha()}
    if "LATIN" in scripts and scripts & set(_LATIN_LOOKALIKE_SCRIPTS):
        other = sorted(scripts & set(_LATIN_LOOKALIKE_SCRIPTS))[0].title()
        return Issue("mixed_script_team", 0, field, f"{name!r} mixes Latin and {other} letters; write it in one script")
    if not name_key(name):
        return Issue("field_required", 0, field, "team is required")
    return None


def is_member(identity: Identity, owner: str) -> bool:
    """Whether ``identity`` may act for ``owner`` (a user name, or ``org:NAME`` for its members)."""
    if owner.startswith(ORG_PREFIX):
        org = owner[len(ORG_PREFIX) :].casefold()
        return any(o.casefold() == org for o in identity.orgs)
    return owner.casefold() == identity.username.casefold()


def owner_for(identity: Identity, name: str) -> str:
    """Who a new name belongs to: the organisation it is named after, if the user is a member
    of one, else the user."""
    key = name_key(name)
    org = next((o for o in identity.orgs if name_key(o) == key), None)
    return ORG_PREFIX + org if org else identity.username


@dataclass(frozen=True)
class Team:
    """A team name and its owner now; ``events`` is its stored history (empty for a name used
    only before owners existed)."""

    name: str
    key: str
    owner: str
    events: tuple[TeamEvent, ...] = ()

    @property
    def claimed(self) -> bool:
        return bool(self.events)


class TeamTaken(ValueError):
    """The name belongs to another account (the message names no account)."""


class Teams:
    """Reads and writes team ownership over the catalog's index of the submissions repo."""

    def __init__(self, store: Store, catalog: Catalog) -> None:
        self.store, self.catalog = store, catalog
        self._first_users: tuple[int, dict[str, tuple[str, str]]] = (-1, {})

    def get(self, name: str) -> Team | None:
        """The team ``name`` looks like, or None if nobody has used such a name."""
        return self.get_by_key(name_key(name))

    def first_users(self) -> dict[str, tuple[str, str]]:
        """key -> (submitter, name as written) of the oldest submission under each name: the
        owners of names used before ownership was recorded (cached per catalog generation)."""
        generation = self.catalog.generation
        if self._first_users[0] != generation:
            first: dict[str, tuple[str, str]] = {}
            for state in self.catalog.all():
                first.setdefault(state_key(state), (state.meta.submitter, state.meta.team))
            self._first_users = (generation, first)
        return self._first_users[1]

    def all(self) -> list[Team]:
        keys = set(self.first_users()) | {events[0].key for events in self.catalog.all_team_events()}
        return sorted((t for k in keys if (t := self.get_by_key(k)) is not None), key=lambda t: t.key)

    def get_by_key(self, key: str) -> Team | None:
        events = self.catalog.team_events(team_id(key))
        if events:
            return Team(events[0].name, key, events[-1].owner, tuple(events))
        first = self.first_users().get(key)
        return Team(first[1], key, first[0]) if first else None

    def check(self, name: str, identity: Identity) -> Issue | None:
        """Why ``identity`` may not submit under ``name`` now, or None."""
        if (issue := name_issue(name)) is not None:
            return issue
        team = self.get(name)
        if team is None or identity.is_maintainer or is_member(identity, team.owner):
            return None
        return _taken(name)

    def claim(self, name: str, identity: Identity, at: str) -> Team:
        """Make sure the name's owner is written down (the first user's, or ``identity``'s for
        a new name) and return the team; raises TeamTaken if it belongs to someone else."""
        owner, files = self.claim_files(name, identity, at)
        for path, body in files.items():
            self._write_claim(path, body)
        return self.confirmed(name, identity)

    def claim_files(self, name: str, identity: Identity, at: str) -> tuple[str, dict[str, bytes]]:
        """The name's owner and, for a name whose owner is not written down yet, the claim record
        to store (with the upload, in one durable write: no claim without its upload and no
        upload without its claim); raises TeamTaken if the name belongs to someone else."""
        if (issue := self.check(name, identity)) is not None:
            raise TeamTaken(issue.message)
        team = self.get(name)
        if team is not None and team.claimed:
            return team.owner, {}
        owner = team.owner if team is not None else owner_for(identity, name)
        written = team.name if team is not None else name
        event = TeamEvent(written, name_key(name), owner, identity.username, at, "claim")
        return owner, {TeamFile(team_id(event.key), 0).path: event.to_bytes()}

    def noted(self, files: Mapping[str, bytes]) -> None:
        """Index claim records just stored (by the intake, with an upload)."""
        for path, body in files.items():
            self.catalog.note(path, body)

    def confirmed(self, name: str, identity: Identity) -> Team:
        """The team after a claim; TeamTaken if another account's claim got there first."""
        team = self.get(name)
        if team is None or not (identity.is_maintainer or is_member(identity, team.owner)):
            raise TeamTaken(_taken(name).message)
        return team

    def _write_claim(self, path: str, body: bytes) -> None:
        try:  # ownership is an input nothing rebuilds: durable, like the upload it comes with
            self.store.put("submissions", {path: body}, "Team claim", durable=True)
        except AlreadyExists:
            body = self.store.read("submissions", path)  # the first writer's claim stands
        self.catalog.note(path, body)

    def transfer(self, name: str, to: str, by: str, at: str) -> Team:
        """A maintainer gives the name to ``to`` (a user name or ``org:NAME``)."""
        if (issue := name_issue(name)) is not None:
            raise ValueError(issue.message)
        to = to.strip()
        if not to or to == ORG_PREFIX or any(ch.isspace() for ch in to):
            raise ValueError(f"a new owner is a user name or org:NAME, not {to!r}")
        team = self.get(name)
        events = team.events if team else ()
        written = team.name if team else name
        event = TeamEvent(written, name_key(name), to, by, at, "transfer" if team else "claim")
        for _ in range(3):  # another maintainer may take the same event number: try the next
            try:
                self._write(TeamFile(team_id(event.key), len(events)), event, create_only=True)
                break
            except AlreadyExists:
                self.catalog.refresh()
                events = self.catalog.team_events(team_id(event.key))
        return self.get(name)

    def _write(self, file: TeamFile, event: TeamEvent, create_only: bool = False) -> None:
        body = event.to_bytes()
        try:
            # Ownership is an input nothing rebuilds: on the Hub before anyone relies on it.
            self.store.put("submissions", {file.path: body}, f"Team {event.action}: {file.team}", durable=True)
        except AlreadyExists:
            if create_only:
                raise
            body = self.store.read("submissions", file.path)  # the first writer's claim stands
        self.catalog.note(file.path, body)


def _taken(name: str) -> Issue:
    return Issue(
        "team_taken",
        0,
        "team",
        f"The team name {name!r} (or one that looks like it) belongs to another account. Submit under your "
        "own team name, or ask a maintainer to transfer the name (docs/teams.md).",
    )


def state_key(state: SubmissionState) -> str:
    """A submission's team key, computed once per state."""
    key = state.derived.get("team_key")
    if key is None:
        key = state.derived["team_key"] = name_key(state.meta.team)
    return key


def rightful(state: SubmissionState, first_users: dict[str, tuple[str, str]]) -> bool:
    """Whether a submission may stand for its team: intake checked every one that records an
    owner; of the older ones, only the first user's count (the hijacks of the reviews do not)."""
    if state.meta.owner:
        return True
    first = first_users.get(state_key(state))
    return first is not None and first[0] == state.meta.submitter
