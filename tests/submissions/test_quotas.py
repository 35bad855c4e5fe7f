"""Daily quotas per submitter and benchmark (UTC days): scored submissions (5) and attempts
including rejected ones (20); maintainers exempt; the submitter is told what is left and when
the count resets."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from leaderboard.service import Leaderboard
from submissions.quotas import QuotaPolicy, day_start, quota_status
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from tests.support import demo
from tests.support.submissions import (
    ALICE,
    MAINTAINER,
    board,
    form,
    small_gold,
    submission_ids,
    write_broken,
    write_gold,
    write_submission,
)


def _next_midnights() -> set[datetime]:
    """Tomorrow 00:00 UTC (and the day after, should the test run across midnight)."""
    start = day_start(datetime.now(UTC))
    return {start + timedelta(days=1), start + timedelta(days=2)}


def _submit_valid(lb: Leaderboard, tmp: Path, n: int, who: Identity = ALICE, start: int = 0) -> list:
    outs = []
    for i in range(start, start + n):
        path = write_submission(tmp / f"valid-{who.username}-{i}.jsonl", seed=100 + i)
        # private: public ones would draw on the team's publication ration (3 a week), not the quota
        outs.append(
            lb.submissions.submit(
                SubmitRequest("scb", path, form(f"M{i}", f"Team {who.username}", visibility="private"), who)
            )
        )
    return outs


def test_five_scored_then_refused_with_what_is_left_and_when_it_resets(lb: Leaderboard, tmp_path: Path) -> None:
    outs = _submit_valid(lb, tmp_path, 5)
    assert [o.status for o in outs] == [Status.SCORED] * 5
    assert [o.quota.scored_left for o in outs] == [4, 3, 2, 1, 0]
    refused = _submit_valid(lb, tmp_path, 1, start=5)[0]
    assert refused.status is Status.REJECTED and refused.submission_id is None
    assert refused.message.startswith("Daily limit reached.")
    assert "0 of 5 scored submissions" in refused.message and "15 of 20 attempts" in refused.message
    assert refused.quota.scored_left == 0 and refused.quota.resets_at in _next_midnights()
    when = re.search(r"resets (\d{4}-\d\d-\d\d 00:00 UTC)", refused.message)
    assert when and when.group(1) in {d.strftime("%Y-%m-%d %H:%M UTC") for d in _next_midnights()}
    assert len(submission_ids(lb.store)) == 5  # the refused upload was not stored


def test_rejected_uploads_count_only_toward_attempts(lb: Leaderboard, tmp_path: Path) -> None:
    for i in range(20):
        out = lb.submissions.submit(
            SubmitRequest("scb", write_broken(tmp_path / f"broken-{i}.jsonl", tag=str(i)), form(), ALICE)
        )
        assert out.status is Status.REJECTED and out.issues, i
        assert (out.quota.scored_left, out.quota.attempts_left) == (5, 19 - i)
    refused = _submit_valid(lb, tmp_path, 1)[0]
    assert refused.status is Status.REJECTED and refused.message.startswith("Daily limit reached.")
    assert "5 of 5 scored submissions and 0 of 20 attempts" in refused.message
    assert len(submission_ids(lb.store)) == 20


def test_limits_are_configurable_and_mix(tmp_path: Path) -> None:
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), max_scored_per_day=2, max_attempts_per_day=3)
    assert (
        lb.submissions.submit(SubmitRequest("scb", write_broken(tmp_path / "b.jsonl"), form(), ALICE)).status
        is Status.REJECTED
    )
    assert [o.status for o in _submit_valid(lb, tmp_path, 2)] == [Status.SCORED] * 2
    quota = lb.submissions.quota(ALICE, "scb")
    assert (quota.scored_left, quota.attempts_left, quota.allows_submission) == (0, 0, False)
    assert "0 of 2 scored submissions and 0 of 3 attempts" in quota.message()
    assert _submit_valid(lb, tmp_path, 1, start=2)[0].status is Status.REJECTED


def test_maintainers_are_exempt(lb: Leaderboard, tmp_path: Path) -> None:
    outs = _submit_valid(lb, tmp_path, 7, who=MAINTAINER)
    assert [o.status for o in outs] == [Status.SCORED] * 7
    quota = lb.submissions.quota(MAINTAINER, "scb")
    assert quota.exempt and quota.allows_submission and quota.message() == "Maintainer: no daily limit."
    # the same username without the maintainer role is bound by the quota
    assert not lb.submissions.quota(Identity(MAINTAINER.username), "scb").allows_submission


def test_counts_are_per_submitter_and_per_benchmark(lb: Leaderboard, tmp_path: Path) -> None:
    _submit_valid(lb, tmp_path, 5)
    assert not lb.submissions.quota(ALICE, "scb").allows_submission
    bob = Identity("bob")
    assert lb.submissions.quota(bob, "scb").scored_left == 5
    assert _submit_valid(lb, tmp_path, 1, who=bob)[0].status is Status.SCORED
    kv_gold = demo.kviscuit_gold()
    lb.corrections.add_gold("kviscuit", demo.write_jsonl(tmp_path / "kv.jsonl", kv_gold), "maintainer")
    assert lb.submissions.quota(ALICE, "kviscuit").scored_left == 5
    kv_sub = demo.write_jsonl(tmp_path / "kv-sub.jsonl", demo.kviscuit_submission(kv_gold, 0.6, 1))
    assert lb.submissions.submit(SubmitRequest("kviscuit", kv_sub, form(), ALICE)).status is Status.SCORED
    assert (
        lb.submissions.quota(ALICE, "kviscuit").scored_left == 4 and lb.submissions.quota(ALICE, "scb").scored_left == 0
    )


def test_rejected_uploads_stay_attempts_after_a_new_gold(lb: Leaderboard, tmp_path: Path) -> None:
    # (Found by this test and fixed since; kept as a regression test.)
    # BUG: Intake.quota classifies an upload as rejected by its status on the *current* gold
    # (submissions/intake.py, Intake.quota: `s.status(self._gold_version(benchmark), ...)`).
    # After a maintainer adds a new gold version (before a rescore), today's rejected uploads
    # have no rejection for it, so they count as *scored* and use up the scored quota
    # (3 rejected -> "2 of 5 scored left"). An upload rejected once should stay an attempt:
    # count it as rejected if it has a rejection on any gold version (`bool(s.rejections)`).
    for i in range(3):
        assert lb.submissions.submit(
            SubmitRequest("scb", write_broken(tmp_path / f"b{i}.jsonl", tag=str(i)), form(), ALICE)
        ).issues
    assert lb.submissions.quota(ALICE, "scb").scored_left == 5
    gold = small_gold()
    gold[0]["answer"] = "ABCD"[("ABCD".index(gold[0]["answer"]) + 1) % 4]
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", gold), "maintainer")
    quota = lb.submissions.quota(ALICE, "scb")
    assert (quota.scored_left, quota.attempts_left) == (5, 17)


# ---- quota_status itself: UTC day boundaries -------------------------------------------------
POLICY = QuotaPolicy(max_scored=5, max_attempts=20)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_only_uploads_of_the_current_utc_day_count() -> None:
    uploads = [
        (at("2026-03-01T23:59:59.999999+00:00"), False),  # yesterday
        (at("2026-03-02T00:00:00+00:00"), False),  # today, at midnight exactly
        (at("2026-03-02T10:00:00+00:00"), True),
        (at("2026-03-02T08:30:00+09:00"), False),  # = 2026-03-01 23:30 UTC: yesterday
        (at("2026-03-02T20:00:00-05:00"), False),  # = 2026-03-03 01:00 UTC: tomorrow's
    ]
    status = quota_status(uploads[:4], at("2026-03-02T12:00:00+00:00"), POLICY)
    assert (status.scored_used, status.attempts_used) == (1, 2)
    assert status.resets_at == at("2026-03-03T00:00:00+00:00")
    assert (
        "4 of 5 scored submissions and 18 of 20 attempts left today; resets 2026-03-03 00:00 UTC." in status.message()
    )
    next_day = quota_status(uploads, at("2026-03-03T00:00:00+00:00"), POLICY)
    assert (next_day.scored_used, next_day.attempts_used) == (1, 1)
    assert next_day.resets_at == at("2026-03-04T00:00:00+00:00")


def test_now_in_another_timezone_uses_the_utc_day() -> None:
    # 08:00 in Seoul on 3 March is 23:00 UTC on 2 March: the UTC day of 2 March is counted.
    now = datetime(2026, 3, 3, 8, 0, tzinfo=timezone(timedelta(hours=9)))
    uploads = [(at("2026-03-02T01:00:00+00:00"), False), (at("2026-03-01T23:00:00+00:00"), False)]
    status = quota_status(uploads, now, POLICY)
    assert status.scored_used == 1
    assert status.resets_at == at("2026-03-03T00:00:00+00:00") and status.resets_at.tzinfo is not None


def test_policy_arithmetic() -> None:
    now = at("2026-03-02T12:00:00+00:00")
    five = [(now - timedelta(minutes=i), False) for i in range(5)]
    assert not quota_status(five, now, POLICY).allows_submission
    assert quota_status(five, now, POLICY, exempt=True).allows_submission
    twenty_rejected = [(now - timedelta(minutes=i), True) for i in range(20)]
    status = quota_status(twenty_rejected, now, POLICY)
    assert (status.scored_left, status.attempts_left, status.allows_submission) == (5, 0, False)
    over = quota_status(five + five, now, POLICY)
    assert over.scored_left == 0 and over.attempts_left == 10  # never negative
    assert quota_status([], now, QuotaPolicy(max_scored=1, max_attempts=1)).allows_submission
