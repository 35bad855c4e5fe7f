"""Team names are owned: the account that first uses a name owns it, and only its members submit
under it (docs/teams.md).

Names are compared by :func:`name_key`: NFKC, casefold, combining marks dropped, whitespace
collapsed, dashes unified, then the Unicode TR39 skeleton (``disarm.skeleton_key`` with the
``tr39`` digit policy, folded from Unicode's own confusables.txt) so that ``AIice``, ``A1ice`` and
Cherokee ``Ꭺlice`` all compare as ``alice``. :func:`name_issue` refuses, rather than strips, names
with invisible or blank-looking characters (format characters, fillers, the Braille blank, any
space but U+0020), letters of the phonetic blocks, script mixes outside TR39's "highly restrictive"
sets (one script, or Latin with Han and Japanese kana, Bopomofo or Hangul), and the board's own
labels (``(paper)``, anonymous entries) in any brackets.

Ownership is state derived from immutable files (store/layout.py ``TeamFile``): a claim (event 0)
and maintainers' transfers after it; the newest event names the owner. Claims are found by the key
of the name they wrote (recomputed, so a better key function frees no claimed name). A name used
before owners existed belongs to the account that submitted under it first (from the stored
metas), and that account's claim is written down the next time the name is used.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

import disarm

from scoring.errors import Issue
from store.base import AlreadyExists, Store
from store.layout import TeamFile
from store.records import TeamEvent
from submissions.catalog import Catalog, SubmissionState
from submissions.records import Identity

ORG_PREFIX = "org:"

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")
# Blank-looking characters that are not format characters (category Cf, refused as a class):
# Hangul fillers, the Braille blank, the combining grapheme joiner, Mongolian and other variation
# selectors, Khmer's invisible inherent vowels.
_BLANK = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
_INVISIBLE_CATEGORIES = ("Cf", "Cc", "Co", "Cn", "Cs", "Zl", "Zp")
# Latin letters of the phonetic blocks (IPA and phonetic extensions, small capitals): no language
# writes names in them, and TR39 does not map them all (``ᴌ`` renders as ``L``).
_PHONETIC = ((0x0250, 0x02AF), (0x1D00, 0x1DBF))
# TR39 section 5.2, "highly restrictive": one script, or Latin with one of these CJK sets.
_SCRIPT_SETS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_OPENING = "([{<（［｛〈《「【"
_BRACKETS = _OPENING + ")]}>）］｝〉》」】"
RESERVED = ("paper", "anonymous", "anonymous submission", "maintainer", "maintainers", "admin", "leaderboard")
"""Names the board uses for its own rows or roles (compared by key, in brackets or not)."""


def _visible(text: str, fold_case: bool = True) -> str:
    """NFKC, casefolded, without format or combining characters, with single spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = text.casefold() if fold_case else text
    kept = []
    for ch in unicodedata.normalize("NFD", text):
        category = unicodedata.category(ch)
        if category in ("Cf", "Cc", "Mn", "Me") or ch in _BLANK:
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
    return _skeleton(_visible(name))


def _skeleton(visible: str) -> str:
    skeleton = disarm.skeleton_key(visible, digit_policy="tr39")
    return re.sub(r" +", " ", unicodedata.normalize("NFKC", skeleton)).strip().translate(_DASHES)


def name_keys(name: str) -> frozenset[str]:
    """The skeletons of ``name`` as written, in lower and in upper case: two names look alike if
    they share one (``AIice Lab`` and ``Alice Lab`` as written, ``ALICE LAB`` and ``AIice Lab`` in
    upper case), which one case-folded key cannot tell.

    >>> sorted(name_keys("AIice"))
    ['aiice', 'alice', 'allce']
    """
    visible = _visible(name, fold_case=False)
    return frozenset({name_key(name), *(_skeleton(v) for v in (visible, visible.lower(), visible.upper()))})


def team_id(key: str) -> str:
    """The file-name form of a key (any script in, hex out)."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _invisible(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category in _INVISIBLE_CATEGORIES or ch in _BLANK or (category == "Zs" and ch != " ") or ch in "\t\n\r"


def _scripts(text: str) -> set[str]:
    return {script.name for script in disarm.detect_scripts(text)} - {"COMMON", "INHERITED", "UNKNOWN"}


def _unlabelled(visible: str) -> str:
    """The name without the brackets around it."""
    return visible.strip(_BRACKETS + " ")


def name_issue(name: str, field: str = "team") -> Issue | None:
    """Why ``name`` cannot be a team name (invisible characters, reserved, phonetic letters,
    mixed scripts), or None."""
    shown = unicodedata.normalize("NFC", name)
    if (bad := next((ch for ch in shown if _invisible(ch)), None)) is not None:
        what = unicodedata.name(bad, "an unassigned or control character")
        return Issue(
            "invisible_team",
            0,
            field,
            f"{name!r} contains U+{ord(bad):04X} {what}, which is invisible or blank on the board; "
            "write the name with visible characters and plain spaces",
        )
    visible = _visible(shown)
    unlabelled = _unlabelled(visible)
    reserved = name_key(unlabelled) in RESERVED or name_key(unlabelled).startswith("anonymous until")
    if visible[:1] in _OPENING or reserved:  # the board's labels are bracketed: "(paper)", "(anonymous)"
        return Issue("reserved_team", 0, field, f"{name!r} is reserved for the board's own rows; choose another name")
    if any(lo <= ord(ch) <= hi for ch in shown for lo, hi in _PHONETIC):
        message = f"{name!r} uses phonetic letters that look like others; write it plainly"
        return Issue("phonetic_team", 0, field, message)
    scripts = _scripts(shown)
    if len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_SETS):
        mixed = " and ".join(s.title() for s in sorted(scripts))
        return Issue("mixed_script_team", 0, field, f"{name!r} mixes {mixed} letters; write it in one script")
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
        self._teams: tuple[int, dict[str, Team]] = (-1, {})

    def get(self, name: str) -> Team | None:
        """The team ``name`` looks like (its own key first), or None if nobody has used such a name."""
        index = self._index()
        if (team := index.get(name_key(name))) is not None:
            return team
        return next(iter(self.matches(name)), None)

    def matches(self, name: str) -> list[Team]:
        """Every team whose name looks like ``name`` in some case (oldest claim first)."""
        index, found = self._index(), {}
        for key in sorted(name_keys(name)):
            if (team := index.get(key)) is not None:
                found.setdefault(team.key, team)
        return list(found.values())

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

    def _index(self) -> dict[str, Team]:
        """Every key of every team's name -> the team: claims by the key of the name they wrote
        (not the key of their day, in their file name), oldest claim first, then the first users
        of unclaimed names (cached per catalog generation)."""
        generation = self.catalog.generation
        if self._teams[0] != generation:
            teams: dict[str, Team] = {}
            for events in sorted(self.catalog.all_team_events(), key=lambda chain: chain[0].at):
                key = name_key(events[0].name)
                teams.setdefault(key, Team(events[0].name, key, events[-1].owner, tuple(events)))
            for key, (submitter, written) in self.first_users().items():
                teams.setdefault(key, Team(written, key, submitter))
            index: dict[str, Team] = dict(teams)
            for team in teams.values():
                for key in sorted(name_keys(team.name)):
                    index.setdefault(key, team)
            self._teams = (generation, index)
        return self._teams[1]

    def owners(self) -> dict[str, frozenset[str]]:
        """Team key -> every account that has owned the name (casefolded): the claim's and each
        transfer's owner, or the first user of a name never claimed."""
        unique = {team.key: team for team in self._index().values()}
        return {
            key: frozenset(o.casefold() for o in ([e.owner for e in team.events] or [team.owner]))
            for key, team in unique.items()
        }

    def all(self) -> list[Team]:
        unique = {team.key: team for team in self._index().values()}
        return sorted(unique.values(), key=lambda t: t.key)

    def get_by_key(self, key: str) -> Team | None:
        return self._index().get(key)

    def check(self, name: str, identity: Identity) -> Issue | None:
        """Why ``identity`` may not submit under ``name`` now (also when it looks like another
        account's name in some case only, as ``AIice`` does ``Alice``), or None."""
        if (issue := name_issue(name)) is not None:
            return issue
        if identity.is_maintainer or all(is_member(identity, team.owner) for team in self.matches(name)):
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
        file_id = team_id(events[0].key if events else event.key)  # the chain's file, named by its first key
        for _ in range(3):  # another maintainer may take the same event number: try the next
            try:
                self._write(TeamFile(file_id, len(events)), event, create_only=True)
                break
            except AlreadyExists:
                self.catalog.refresh()
                events = self.catalog.team_events(file_id)
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


def rightful(
    state: SubmissionState, first_users: dict[str, tuple[str, str]], owners: Mapping[str, frozenset[str]] | None = None
) -> bool:
    """Whether a submission may stand for its team: intake checked every one that records an
    owner, and that owner held the name at some time (``owners``, Teams.owners: a look-alike
    stored before it was refused, under a key of its own then, is not its team's); of the older
    ones, only the first user's count (the hijacks of the reviews do not)."""
    if state.meta.owner:
        held = owners.get(state_key(state)) if owners is not None else None
        return held is None or state.meta.owner.casefold() in held
    first = first_users.get(state_key(state))
    return first is not None and first[0] == state.meta.submitter
