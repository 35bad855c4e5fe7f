"""Sequences of gold changes, not one step (issue 29): a Hypothesis state machine over submit,
publish, hide, gold add (remove, add, re-answer, re-mask questions), the switch and restore.

Invariants, after every step:
- the board after switching back to a version equals the board that version had, when no team
  acted in between (ranks, figures, visibility, publication state);
- a team's publications in a week never exceed the ration, and none the leaderboard granted is
  ever taken back (no refund, no drop);
- no accepted submission is rejected by a gold change;
- every public row traces to a stored upload of its team and model;
- every result on the current gold is what reading its upload again gives (issue 41: the outcome
  was scored from the upload's stored reading, reused or rebased key by key across the change);
- every upload has a reading once the background job ran, an upload stored before readings too;
- the public errata (issue 43), rebuilt after each step as the background job does, list each switch
  once, with the questions whose answer or region it changed (read here from the gold files).

Bounded so that it runs in ``make test``: the small SCB gold (140 questions), a few examples of a
few steps, the switch by the in-process background job (``resume``: no process pool).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from leaderboard.service import Leaderboard
from leaderboard.table import SCORED_SOURCE
from scoring import SCORER_VERSION
from store import layout
from submissions import lifecycle
from submissions.reading import READER_VERSION
from submissions.records import Identity, Status, SubmissionMeta
from submissions.request import SubmitRequest
from tests.support.submissions import board, form, scored, small_gold, write_gold, write_submission

TEAMS = ("Team A", "Team B", "Team C")
RATION = 3
UPLOADS_PER_TEAM = 4  # under the daily quota of 5 scored files


def _remasked(record: dict) -> dict:
    """The record's region moved: its polygons by 30 px, an RLE mask replaced by the middle box."""
    mask = record["segmentation"]
    if isinstance(mask, list):
        return {"segmentation": [[round(v + 30, 1) for v in polygon] for polygon in mask]}
    w, h = float(record["width"]), float(record["height"])
    return {"segmentation": [[w / 4, h / 4, 3 * w / 4, h / 4, 3 * w / 4, 3 * h / 4, w / 4, 3 * h / 4]]}


class GoldMigrations(RuleBasedStateMachine):
    """See module doc. ``self.boards`` holds each gold version's board as last seen while no team
    event happened since; a team event forgets every version's but the current one's."""

    @initialize()
    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="gold-machine-"))
        self.records = small_gold()
        first = write_gold(self.tmp / "gold-0.jsonl", self.records)
        self.lb: Leaderboard = board(self.tmp / "data", first)
        self.files: dict[str, Path] = {self._version(): first}  # gold version -> its file
        self.accepted: set[str] = set()  # submissions scored when they were uploaded
        self.published: dict[str, set[str]] = {team: set() for team in TEAMS}  # acknowledged publications
        self.uploads = {team: 0 for team in TEAMS}
        self.legacy: set[str] = set()  # uploads stored before readings
        self.boards: dict[str, pd.DataFrame] = {}
        self.switches: list[tuple[str, str]] = []  # (from, to): every switch of the board's gold
        for i, team in enumerate(TEAMS):  # every team starts with a public row: each sequence moves real rows
            self.submit(team, 0.8 - 0.1 * i, True, i + 1)
        self._remember()

    def _version(self) -> str:
        return self.lb.gold_info("scb").version

    def _remember(self, forget_others: bool = False) -> None:
        if forget_others:
            self.boards.clear()
        self.boards[self._version()] = self.lb.table("scb").reset_index(drop=True)

    # ---- team events ----
    @precondition(lambda self: min(self.uploads.values()) < UPLOADS_PER_TEAM)
    @rule(team=st.sampled_from(TEAMS), accuracy=st.floats(0.3, 0.9), public=st.booleans(), seed=st.integers(1, 50))
    def submit(self, team: str, accuracy: float, public: bool, seed: int) -> None:
        if self.uploads[team] >= UPLOADS_PER_TEAM:
            return
        self.uploads[team] += 1
        n = sum(self.uploads.values())
        path = write_submission(self.tmp / f"s{n}.jsonl", self.records, accuracy, "bbox_good", seed)
        visibility = "public" if public else "private"
        answer = self.lb.submissions.submit(
            SubmitRequest("scb", path, form(f"m{n}", team, visibility=visibility), Identity(team.lower()))
        )
        if answer.submission_id and answer.status is Status.SCORED:
            self.accepted.add(answer.submission_id)
            if public:
                self.published[team].add(answer.submission_id)
        self._remember(forget_others=True)

    @precondition(lambda self: len(self.legacy) < 2)
    @rule(team=st.sampled_from(TEAMS), accuracy=st.floats(0.3, 0.9), seed=st.integers(1, 50))
    def store_before_readings(self, team: str, accuracy: float, seed: int) -> None:
        """An upload stored before readings existed (its raw file and record only, private): the
        next background job reads it once, keeps its reading and scores it."""
        n = len(self.legacy)
        body = write_submission(self.tmp / f"legacy{n}.jsonl", self.records, accuracy, "polygon", seed).read_bytes()
        when = datetime.now(UTC) - timedelta(days=2, minutes=n)
        sid = f"{when:%Y%m%d-%H%M%S}-legacy{n:04d}"
        meta = SubmissionMeta(
            id=sid, benchmark="scb", model=f"legacy{n}", team=team, model_type="open", paper_url="", code_url="",
            description="", submitter=team.lower(), sha256=hashlib.sha256(body).hexdigest(), bbox_format="xyxy",
            submitted_at=when.isoformat(), size_bytes=len(body), visibility="private",
        )  # fmt: skip
        files = {layout.raw("scb", sid): body, layout.meta("scb", sid): meta.to_bytes()}
        self.lb.store.put("submissions", files, f"Receive {sid}", durable=True)
        self.lb.catalog.refresh()
        self.lb.corrections.resume()
        self.legacy.add(sid)
        self._remember(forget_others=True)

    @rule(data=st.data())
    def publish(self, data: st.DataObject) -> None:
        mine = sorted(s.meta.model for s in self.lb.catalog.all("scb") if s.meta.id in self.accepted and not s.public)
        if not mine:
            return
        model = data.draw(st.sampled_from(mine))  # by name: ids carry a random part, a replay must pick the same
        state = next(s for s in self.lb.catalog.all("scb") if s.meta.model == model)
        try:
            self.lb.visibility.set_visibility(Identity(state.meta.submitter), state.meta.id, True)
        except ValueError:  # over the ration, or held
            return
        self.published[state.meta.team].add(state.meta.id)
        self._remember(forget_others=True)

    @precondition(lambda self: sum(not s.hidden for s in self.lb.catalog.all("scb")) > 2)
    @rule(data=st.data())
    def hide(self, data: st.DataObject) -> None:
        shown = {s.meta.model: s.meta.id for s in self.lb.catalog.all("scb") if not s.hidden}
        if not shown:
            return
        self.lb.moderation.set_hidden(shown[data.draw(st.sampled_from(sorted(shown)))], True, "maintainer", "a test")
        self._remember(forget_others=True)

    # ---- gold changes ----
    @rule(
        removed=st.integers(0, 2), added=st.integers(0, 2), reanswered=st.integers(0, 3), remasked=st.integers(0, 3),
        at=st.integers(0, 60),
    )  # fmt: skip
    def correct_gold(self, removed: int, added: int, reanswered: int, remasked: int, at: int) -> None:
        """A corrected gold, as real ones come: some questions from ``at`` removed, some added
        (copies under new ids), some re-answered, some re-masked (polygons moved by 30 px)."""
        records = self._changed(at, reanswered, lambda r: {"answer": "ABCD"[("ABCD".index(r["answer"]) + 1) % 4]})
        records = self._changed(at + 20, remasked, _remasked, records)
        n = len(self.files)
        records += [dict(r, question_id=f"scb-9{n:02d}{i:02d}") for i, r in enumerate(records[at : at + added])]
        self._switch(records[:at] + records[at + removed :])

    def _changed(self, at: int, k: int, change, records: list[dict] | None = None) -> list[dict]:
        records = self.records if records is None else records
        return [dict(r, **change(r)) if at <= i < at + k else dict(r) for i, r in enumerate(records)]

    @precondition(lambda self: len(self.files) > 1)
    @rule(data=st.data())
    def restore(self, data: st.DataObject) -> None:
        version = data.draw(st.sampled_from(sorted(v for v in self.files if v != self._version())))
        remembered = self.boards.get(version)
        path = self.files[version]
        self._switch([json.loads(line) for line in path.read_text().splitlines()], path)
        assert self._version() == version
        if remembered is not None:  # no team acted since that gold's board was seen
            pd.testing.assert_frame_equal(self.lb.table("scb").reset_index(drop=True), remembered)

    def _switch(self, records: list[dict], path: Path | None = None) -> None:
        before = self._version()
        path = path or write_gold(self.tmp / f"gold-{len(self.files)}.jsonl", records)
        update = self.lb.corrections.update_gold("scb", path, "maintainer", confirm=True)
        self.files.setdefault(update.info.version, path)
        self.lb.corrections.resume()  # the background job: scores what is owed on the staged gold, then switches
        assert self._version() == update.info.version
        if update.info.version != before:
            self.switches.append((before, update.info.version))
        self.records = records
        self.boards.setdefault(self._version(), self.lb.table("scb").reset_index(drop=True))

    # ---- invariants ----
    @invariant()
    def the_errata_list_every_switch_once(self) -> None:
        errata = self.lb.items.errata
        errata.update("scb")
        assert not errata.update("scb")  # built once per gold change
        entries = errata.read("scb").entries
        assert [e.version for e in entries] == [layout.gold_key(new) for _, new in self.switches]
        for entry, (old, new) in zip(entries, self.switches, strict=True):
            a, b = (self._records_of(v) for v in (old, new))
            kept = a.keys() & b.keys()
            assert set(entry.answers_changed) == {k for k in kept if a[k]["answer"] != b[k]["answer"]}
            assert set(entry.masks_changed) <= {k for k in kept if a[k]["segmentation"] != b[k]["segmentation"]}
            assert (entry.added, entry.removed) == (len(b.keys() - kept), len(a.keys() - kept))

    def _records_of(self, version: str) -> dict[str, dict]:
        lines = self.files[version].read_text().splitlines()
        return {str(r["question_id"]): r for r in map(json.loads, lines)}

    @invariant()
    def no_accepted_submission_is_rejected(self) -> None:
        version = self._version()
        for sid in self.accepted:
            status = self.lb.catalog.get(sid).status(version, lifecycle.SCORER_VERSION)
            assert status is not Status.REJECTED, (sid, self.lb.catalog.get(sid).rejection(version))

    @invariant()
    def publications_stay_within_the_ration_and_are_never_taken_back(self) -> None:
        granted = self.lb.feedback.reveals("scb")
        for team, sids in self.published.items():
            assert sids <= set(granted), (team, sids - set(granted))  # no refund, no drop
            assert sum(granted[s].counted for s in sids) <= RATION
            counted = [
                r for r in granted.values() if r.counted and self.lb.catalog.get(r.submission_id).meta.team == team
            ]
            assert len(counted) <= RATION

    @invariant()
    def every_result_is_what_reading_the_upload_again_gives(self) -> None:
        gold, version = self.lb.golds.get("scb"), self._version()
        for state in self.lb.catalog.all("scb"):
            result = state.result(version, SCORER_VERSION)
            if result is None:
                continue
            raw = lifecycle.read_raw(self.lb.store, "scb", state.meta.id)
            again = lifecycle.evaluate(state.meta, gold, raw, self.lb.limits, self.lb.seeds)
            assert again.status is Status.SCORED and again.result.to_dict() == result.to_dict(), state.meta.id

    @invariant()
    def every_upload_has_a_reading(self) -> None:
        for state in self.lb.catalog.all("scb"):
            assert any(reader == READER_VERSION for _, reader in state.readings), state.meta.id

    @invariant()
    def every_public_row_traces_to_a_stored_upload(self) -> None:
        rows = [r for r in self.lb.board("scb").rows if r.source == SCORED_SOURCE]
        assert len(rows) == len(scored(self.lb))
        for row in rows:
            state = self.lb.catalog.get(row.submission_id)
            assert state is not None and lifecycle.read_raw(self.lb.store, "scb", state.meta.id)
            assert (state.meta.team, state.meta.model) == (row.team, row.model) and state.public and not state.hidden


TestGoldMigrations = GoldMigrations.TestCase
TestGoldMigrations.settings = settings(
    max_examples=4,
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the same sequences on every run: a failure reproduces
)
