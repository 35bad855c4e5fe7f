"""Team names are owned (docs/teams.md): the first account keeps its name against look-alike
variants, reserved names are refused, members of an organisation share a name, maintainers
transfer it, and a team's quota binds all its members together."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from leaderboard.service import Leaderboard
from store import layout
from store.layout import TeamFile
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from submissions.teams import name_issue, name_key
from tests.support.submissions import board, form, scored, write_gold, write_submission

ALICE = Identity("alice")
MALLORY = Identity("mallory")

# At least ten ways of writing "Vision Lab" that a reader could take for it.
VARIANTS = [
    "Vision Lab",  # the very name
    "vision lab",  # case
    "VISION LAB",
    "  Vision   Lab ",  # spaces
    "Vision\u00a0Lab",  # a no-break space
    "Vi\u200bsion Lab",  # a zero-width space
    "Vision\u200d Lab\ufeff",  # zero-width joiner, byte-order mark
    "Visi\u043en Lab",  # Cyrillic о
    "\uff36ision \uff2cab",  # full-width letters
    "V\u0456sion Lab",  # Cyrillic і
    "Vision La\u0432",  # Cyrillic в (looks like B in capitals... and b)
    "Visi\u03bfn Lab",  # Greek ο
    "Vision Lab\u0301",  # a combining accent
    "Vision \u217cab",  # Roman numeral fifty (NFKC: l)
]


@pytest.fixture
def lb(tmp_path: Path) -> Leaderboard:
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))


def test_variants_share_one_key_and_other_names_do_not():
    keys = {name_key(v) for v in VARIANTS}
    assert keys == {"vision lab"}
    assert name_key("Vision Labs") != name_key("Vision Lab")
    assert name_key("Team 0") == name_key("team o") and name_key("Team 1") == name_key("team l")
    assert name_key("비전 랩") == "비전 랩"  # other scripts are kept as they are


def test_reserved_and_mixed_script_names_are_refused():
    for name in ("(paper)", "( Paper )", "paper", "Anonymous submission", "(anything in brackets)", "ＰＡＰＥＲ"):
        assert name_issue(name).code == "reserved_team", name
    assert name_issue("d\u0435mo").code == "mixed_script_team"  # Latin with a Cyrillic е
    assert name_issue("Команда") is None and name_issue("KAIST 비전랩") is None  # one script, or Latin with Hangul


def test_no_variant_of_a_taken_name_replaces_its_row(lb: Leaderboard, tmp_path: Path):
    own = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.8), form("M", "Vision Lab"), ALICE)
    )
    before = scored(lb)
    attack = write_submission(tmp_path / "m.jsonl", accuracy=0.1, seed=3)
    refused = []
    for variant in VARIANTS:
        answer = lb.submissions.submit(SubmitRequest("scb", attack, form("M", variant), MALLORY))
        refused.append((variant, answer.status, answer.issues[0].code if answer.issues else ""))
    assert all(
        status is Status.REJECTED and answer_code in ("team_taken", "mixed_script_team", "invisible_team")
        for _, status, answer_code in refused
    ), refused
    pd.testing.assert_frame_equal(scored(lb), before)
    assert [s.meta.submitter for s in lb.catalog.all()] == ["alice"]  # nothing of mallory's was stored
    assert lb.submissions.rank_of("scb", own.submission_id) is not None
    message = lb.submissions.submit(SubmitRequest("scb", attack, form("M", "VISION LAB"), MALLORY)).issues[0].message
    assert "belongs to another account" in message and "alice" not in message  # the owner is not named


def test_the_first_user_owns_the_name_in_a_stored_claim(lb: Leaderboard, tmp_path: Path):
    lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "a.jsonl"), form("M", "Vision Lab"), ALICE))
    (claim,) = [p for p in lb.store.list("submissions", "teams") if TeamFile.parse(p)]
    assert TeamFile.parse(claim).seq == 0
    team = lb.moderation.team("vision  LAB")
    assert (team.name, team.owner, team.claimed) == ("Vision Lab", "alice", True)
    # a second upload of the owner under a variant is the same team and writes no new claim
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "b.jsonl", seed=4), form("M2", "VISION LAB"), ALICE)
    )
    assert len(lb.store.list("submissions", "teams")) == 1


def test_an_organisation_shares_its_name_and_a_maintainer_transfers_it(lb: Leaderboard, tmp_path: Path):
    carol = Identity("carol", orgs=("vlab",))
    dave = Identity("dave", orgs=("vlab",))
    # a name that is one of the user's organisations belongs to the organisation
    assert (
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / "c.jsonl"), form("M", "VLab"), carol)
        ).status
        is Status.SCORED
    )
    assert lb.moderation.team("vlab").owner == "org:vlab"
    assert (
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / "d.jsonl", seed=5), form("N", "vlab"), dave)
        ).status
        is Status.SCORED
    )
    assert (
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / "m.jsonl", seed=6), form("N", "VLab"), MALLORY)
        ).status
        is Status.REJECTED
    )
    # alice's personal name goes to the organisation: its members may use it, alice no longer
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", seed=7), form("A", "Alice Lab"), ALICE)
    )
    team = lb.moderation.transfer_team("alice lab", "org:vlab", "maintainer")
    assert team.owner == "org:vlab" and [e.action for e in team.events] == ["claim", "transfer"]
    assert (
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / "e.jsonl", seed=8), form("B", "Alice Lab"), dave)
        ).status
        is Status.SCORED
    )
    assert (
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / "f.jsonl", seed=9), form("C", "Alice Lab"), ALICE)
        ).status
        is Status.REJECTED
    )
    with pytest.raises(ValueError):
        lb.moderation.transfer_team("(paper)", "mallory", "maintainer")


def test_names_used_before_ownership_belong_to_their_first_user(tmp_path: Path):
    """A store written before owners existed: the later hijack of the reviews stays off the board."""
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))
    first = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.8), form("M", "Old Lab"), ALICE)
    )
    hijack = lb.submissions.submit(
        SubmitRequest(
            "scb",
            write_submission(tmp_path / "m.jsonl", accuracy=0.1, seed=3),
            form("M", "OLD LAB", visibility="public"),
            Identity("m2", is_maintainer=True),
        )
    )
    assert hijack.status is Status.SCORED  # a maintainer may submit under any name
    # rewrite both metas as records older than ownership (no owner) and re-open the store
    for sid, submitter in ((first.submission_id, "alice"), (hijack.submission_id, "mallory")):
        path = layout.meta("scb", sid)
        old = replace(lb.catalog.get(sid).meta, owner="", submitter=submitter)
        lb.store.put("submissions", {path: old.to_bytes()}, "as stored before owners", overwrite=True)
    for path in lb.store.list("submissions", "teams"):
        (lb.store.root / "submissions" / path).unlink()
    again = Leaderboard(lb.settings)
    assert again.moderation.team("old lab").owner == "alice" and not again.moderation.team("old lab").claimed
    assert again.submissions.rank_of("scb", first.submission_id) is not None
    assert again.submissions.rank_of("scb", hijack.submission_id) is None
    refused = again.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "n.jsonl", seed=11), form("M", "Old Lab"), MALLORY)
    )
    assert refused.status is Status.REJECTED


def test_a_team_quota_binds_all_its_members(tmp_path: Path):
    lb = board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), max_scored_per_day=2)
    members = [Identity(f"member{i}", orgs=("bigteam",)) for i in range(3)]
    answers = [
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / f"{i}.jsonl", seed=20 + i), form(f"M{i}", "BigTeam"), m)
        )
        for i, m in enumerate(members)
    ]
    assert [a.status for a in answers] == [Status.SCORED, Status.SCORED, Status.REJECTED]
    assert answers[2].message.startswith("Daily limit reached.") and "for team BigTeam" in answers[2].message
    # the third account's own quota is untouched: under a team of its own it may submit
    assert lb.submissions.quota(members[2], "scb").scored_left == 2
    assert lb.submissions.quota(members[2], "scb", team="bigteam").scored_left == 0
    own = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "own.jsonl", seed=30), form("X", "Solo"), members[2])
    )
    assert own.status is Status.SCORED
