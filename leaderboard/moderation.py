"""Moderation, for maintainers: holds and hides, the probe detector's report, team names.

A room of the leaderboard (leaderboard.service): what ``python -m leaderboard hold|hide|team``
and the Maintainers tab call."""

from __future__ import annotations

import logging

from leaderboard.config import Settings
from leaderboard.publishing import Publisher
from scoring import BENCHMARKS
from store.base import NotFound, Store
from store.golds import GoldRegistry
from store.layout import ModerationFile
from store.records import HOLD_REASON, CorruptRecord, Moderation
from submissions import lifecycle
from submissions.answer import SubmitAnswer
from submissions.catalog import Catalog
from submissions.feedback import Feedback
from submissions.probes import ProbeDetector, ProbeFlag
from submissions.teams import Team, Teams

log = logging.getLogger(__name__)


class Moderating:
    """Holds, hides, probe reports and team names (docs/integrity.md, docs/teams.md)."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        catalog: Catalog,
        golds: GoldRegistry,
        teams: Teams,
        feedback: Feedback,
        probes: ProbeDetector,
        publisher: Publisher,
    ) -> None:
        self.settings, self.store, self.catalog, self.golds = settings, store, catalog, golds
        self.teams, self.feedback, self.probes, self.publisher = teams, feedback, probes, publisher

    def probe_report(self, benchmark: str) -> list[ProbeFlag]:
        """Flagged submitters and their evidence (maintainers only: never shown to a team), from
        the uploads' stored readings (submissions.probes: no upload is read here)."""
        gold = self.golds.get(benchmark)
        if gold is None:
            return []
        return self.probes.report(self.catalog.all(benchmark), gold, self.is_held)

    def unread(self, benchmark: str) -> int:
        """Uploads the probe report leaves out: no reading yet (stored before readings: the app's
        background job reads them in its pool), stopped at a job bound, or answering nothing."""
        gold = self.golds.get(benchmark)
        return 0 if gold is None else self.probes.unread(self.catalog.all(benchmark), gold)

    def is_held(self, submission_id: str) -> bool:
        path = ModerationFile(submission_id).path
        try:
            return Moderation.from_bytes(self.store.read("submissions", path), path).held
        except (NotFound, CorruptRecord):
            return False

    def hold(self, submission_ids: list[str], by: str, why: str = "suspected probing", now: bool = False) -> list[str]:
        """Hold results off the board and out of the feedback (a moderation record each); returns
        the ids held (unknown ids are skipped). ``unhide`` releases a hold. ``now``: republish the
        public table at once (a public submission may just have been published on it)."""
        catalog = self.catalog
        held = [sid for sid in submission_ids if catalog.get(sid) is not None]
        if not held:
            return []
        at = lifecycle.now_iso()
        files = {ModerationFile(sid).path: Moderation(True, by, at, f"{HOLD_REASON} {why}").to_bytes() for sid in held}
        self.store.put("submissions", files, f"Hold {len(held)} submission(s): {why}", overwrite=True)
        for path, body in files.items():
            catalog.note(path, body)
        for benchmark in sorted({catalog.get(sid).meta.benchmark for sid in held}):
            self.publisher.publish(benchmark, now=now)
        return held

    def hold_if_flagged(self, benchmark: str, answer: SubmitAnswer) -> None:
        """Hold a new scored submission for review when its probe series is flagged
        (``LEADERBOARD_AUTO_HOLD``; submissions.probes.to_hold)."""
        state = self.catalog.get(answer.submission_id) if answer.submission_id else None
        if not self.settings.auto_hold or answer.result is None or answer.duplicate_of or state is None:
            return
        gold = self.golds.get(benchmark)
        if state.hidden or self.feedback.is_exempt(state) or gold is None:
            return
        try:
            flagged = self.probes.should_hold(self.catalog.all(benchmark), gold, state.meta.id)
        except Exception:  # the detector must never cost a scored submission its answer
            log.exception("probe detector failed on %s; not held", state.meta.id)
            return
        if flagged:
            signals = ", ".join(self.probes.signals(self.catalog.all(benchmark), gold, state.meta.id))
            why = "its probe series is flagged" + (f" (signals: {signals})" if signals else "")
            self.hold([state.meta.id], "automatic", why, now=state.public)

    def set_hidden(self, submission_id: str, hidden: bool, by: str, reason: str = "") -> bool:
        """Hide (with the maintainer's ``reason``, which the team is shown) or release a submission."""
        if self.catalog.get(submission_id) is None:
            return False
        body = Moderation(hidden, by, lifecycle.now_iso(), reason.strip() if hidden else "").to_bytes()
        path = ModerationFile(submission_id).path
        verb = "Hide" if hidden else "Unhide"
        self.store.put("submissions", {path: body}, f"{verb} {submission_id}", overwrite=True, durable=True)
        self.catalog.note(path, body)
        self.publisher.publish(self.catalog.get(submission_id).meta.benchmark, now=True)
        return True

    def team(self, name: str) -> Team | None:
        """The team ``name`` (or a name that looks like it) and its owner, if anyone used it."""
        return self.teams.get(name)

    def transfer_team(self, name: str, to: str, by: str) -> Team:
        """A maintainer gives a team name to another account (``user`` or ``org:NAME``)."""
        self.catalog.refresh()
        team = self.teams.transfer(name, to, by, lifecycle.now_iso())
        for benchmark in BENCHMARKS:
            self.publisher.publish(benchmark, now=True)
        return team
