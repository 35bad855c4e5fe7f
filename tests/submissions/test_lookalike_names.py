"""Look-alike and invisible team names (attacks.md #6): every name the turn-3 red team got through
is refused, either as another account's name (TR39 skeleton of a taken name) or on its own
(invisible or blank-looking characters, the board's own labels, mixed scripts); names written in
one script, Latin with diacritics included, stay accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from submissions.records import Identity, Status
from submissions.request import SubmitRequest
from submissions.teams import name_issue, name_key, name_keys
from tests.support.submissions import board, form, write_gold, write_submission

ALICE = Identity("alice")
MALLORY = Identity("mallory")
BLANK = "\u2800"  # BRAILLE PATTERN BLANK: renders as nothing, yet is a letter-like symbol (So)

# Refused on their own, whoever owns what: invisible or blank-looking characters, the board's labels.
REFUSED_ALONE = {
    f"Alice Lab{BLANK}": "invisible_team",
    f"paper{BLANK}": "invisible_team",
    f"Anonymous{BLANK}": "invisible_team",
    BLANK: "invisible_team",
    "Lab\u200bA": "invisible_team",  # refused, not stripped to "LabA"
    "\u3164": "invisible_team",  # HANGUL FILLER
    "Lab\u115f": "invisible_team",  # HANGUL CHOSEONG FILLER
    "Lab\u1160A": "invisible_team",  # HANGUL JUNGSEONG FILLER
    "Lab\uffa0": "invisible_team",  # HALFWIDTH HANGUL FILLER
    "La\u00adb": "invisible_team",  # soft hyphen (Cf)
    "Lab\u2060": "invisible_team",  # word joiner (Cf)
    "Lab\u202e": "invisible_team",  # right-to-left override (Cf)
    "Lab\ufe0f": "invisible_team",  # variation selector
    "Alice\u00a0Lab": "invisible_team",  # a no-break space: names use plain spaces
    "Alice\u3000Lab": "invisible_team",  # ideographic space
    "[paper]": "reserved_team",
    "(anonymous until 2027-01-31": "reserved_team",
    "\u13aalice Lab": "mixed_script_team",  # Cherokee Ꭺ
    "Alice La\u13cf": "mixed_script_team",  # Cherokee Ꮟ
    "Alice \u1d0cab": "phonetic_team",  # LATIN LETTER SMALL CAPITAL L WITH STROKE
}

# Accepted on their own (plain ASCII) but the look-alikes of "Alice Lab" once alice owns it.
LOOK_ALIKES = ["AIice Lab", "Alice Iab", "ALICE LAB", "A1ice Lab", "Alice Lab", "Alice  Lab"]

LEGITIMATE = [
    "서울대 비전 연구실",  # Korean
    "KAIST 비전랩",  # Latin with Hangul (a TR39 highly restrictive combination)
    "ห้องปฏิบัติการวิสัยทัศน์",  # Thai, with its combining vowels and tone marks
    "Phòng thí nghiệm Hà Nội",  # Vietnamese with diacritics
    "Команда",  # Cyrillic alone
    "東京大学 ビジョン研究室",  # Han with Katakana
    "Alice Lab",
    "Vision-Lab 2",
]


@pytest.fixture
def lb(tmp_path: Path) -> Leaderboard:
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"))


@pytest.mark.parametrize("name", sorted(REFUSED_ALONE))
def test_the_red_teams_names_are_refused_on_their_own(name: str):
    issue = name_issue(name)
    assert issue is not None and issue.code == REFUSED_ALONE[name], (name, issue)
    assert repr(name) in issue.message or issue.code != "invisible_team"  # it shows what is wrong


def test_an_invisible_character_is_named_by_its_code_point():
    message = name_issue("Lab\u200bA").message
    assert "U+200B" in message and "ZERO WIDTH SPACE" in message


@pytest.mark.parametrize("name", LEGITIMATE)
def test_names_in_one_script_stay_accepted(name: str):
    assert name_issue(name) is None, name
    assert name_key(name)  # and get a key of their own
    assert len({name_key(n) for n in LEGITIMATE}) == len(LEGITIMATE)


def test_look_alikes_share_a_skeleton_with_the_name_they_imitate():
    assert all(name_keys(n) & name_keys("Alice Lab") for n in LOOK_ALIKES), [name_keys(n) for n in LOOK_ALIKES]
    assert all(name_keys(n) & name_keys("ALICE LAB") for n in LOOK_ALIKES)  # whichever was claimed first
    assert not name_keys("Alice Labs") & name_keys("Alice Lab") and not name_keys("Team rn") & name_keys("Team m")


def test_no_look_alike_of_a_taken_name_is_stored(lb: Leaderboard, tmp_path: Path):
    own = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.8), form("AliceNet", "Alice Lab"), ALICE)
    )
    assert own.status is Status.SCORED
    attack = write_submission(tmp_path / "m.jsonl", accuracy=0.6, seed=3)
    answers = {
        name: lb.submissions.submit(SubmitRequest("scb", attack, form("AliceNet", name), MALLORY))
        for name in [*LOOK_ALIKES, *REFUSED_ALONE]
        if name != "Alice Lab"
    }
    wrong = {n: (a.status, a.issues[:1]) for n, a in answers.items() if a.status is not Status.REJECTED}
    assert not wrong, wrong
    codes = {n: a.issues[0].code for n, a in answers.items()}
    assert all(codes[n] == "team_taken" for n in LOOK_ALIKES if n != "Alice Lab"), codes
    assert [s.meta.submitter for s in lb.catalog.all()] == ["alice"]  # nothing of mallory's was stored


def test_a_claim_stored_under_an_older_key_still_owns_its_name(lb: Leaderboard, tmp_path: Path):
    """Claims are files named after the key of their day: a change of the key function must not
    free a claimed name (the index is rebuilt from the names as written)."""
    from store.layout import TeamFile
    from store.records import TeamEvent
    from submissions.teams import team_id

    old_key = "alice lab (old key)"
    event = TeamEvent("Alice Lab", old_key, "alice", "alice", "2026-01-01T00:00:00Z", "claim")
    lb.store.put("submissions", {TeamFile(team_id(old_key), 0).path: event.to_bytes()}, "old claim", durable=True)
    lb.catalog.refresh()
    answer = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "m.jsonl", seed=3), form("M", "AIice Lab"), MALLORY)
    )
    assert answer.status is Status.REJECTED and answer.issues[0].code == "team_taken"
    assert lb.moderation.team("alice lab").owner == "alice"
    transferred = lb.moderation.transfer_team("Alice Lab", "carol", "maintainer")
    assert transferred.owner == "carol" and [e.action for e in transferred.events] == ["claim", "transfer"]


def test_a_look_alike_stored_before_the_fix_does_not_stand_for_the_team_it_imitates(lb: Leaderboard, tmp_path: Path):
    """mallory's ``Alice Lab⠀`` of the red team's run, stored (with its own claim, under the key
    of its day) before invisible names were refused: under the new key it is Alice Lab's name,
    and it must not take or share Alice Lab's row (its owner never held the name)."""
    import hashlib
    from datetime import UTC, datetime, timedelta

    from store.layout import SubmissionFile, TeamFile
    from store.records import SubmissionMeta, TeamEvent
    from submissions.teams import team_id
    from tests.support.submissions import scored

    own = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.5), form("AliceNet", "Alice Lab"), ALICE)
    )
    squat = f"Alice Lab{BLANK}"
    later = datetime.now(UTC) + timedelta(seconds=5)
    data = write_submission(tmp_path / "m.jsonl", accuracy=0.9, seed=3).read_bytes()
    meta = SubmissionMeta(
        id=f"{later:%Y%m%d-%H%M%S}-0123456789", benchmark="scb", model="AliceNet", team=squat, model_type="open",
        paper_url="", code_url="", description="", submitter="mallory", sha256=hashlib.sha256(data).hexdigest(),
        bbox_format="xyxy", submitted_at=later.isoformat(), size_bytes=len(data), owner="mallory",
    )  # fmt: skip
    claim = TeamEvent(squat, "alice lab\u2800", "mallory", "mallory", later.isoformat(), "claim")
    lb.store.put(
        "submissions",
        {
            SubmissionFile.raw("scb", meta.id).path: data,
            SubmissionFile.meta("scb", meta.id).path: meta.to_bytes(),
            TeamFile(team_id(claim.key), 0).path: claim.to_bytes(),
        },
        "a pre-fix upload",
        durable=True,
    )
    lb.catalog.refresh()
    assert lb.corrections.resume() == 1
    lb.publisher.publish("scb", now=True)
    rows = scored(lb)
    assert list(rows["model"]) == ["AliceNet"] and lb.submissions.rank_of("scb", own.submission_id) is not None, rows
    assert lb.submissions.rank_of("scb", meta.id) is None
    assert lb.moderation.team("Alice Lab").owner == "alice"
