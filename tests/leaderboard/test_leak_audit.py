"""The gold leak audit at ``gold add`` (issue 18, "Gold leak audit"): before a gold is accepted,
the maintainer sees how many answers its public question list decides by each channel a cheater
would try, as points above chance, with the leaking channel named; withholding fields a model
does not need republishes the list without them, and the audit is shown again for what is left.

The leaky gold is generated here (answer ids ``img-N``, decoys ``scb-N-L``, as the first
synthetic gold was); the realistic one is the shared synthetic gold (decoys are other questions'
gold images with their real sizes)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from scoring import leakaudit
from store import layout
from tests.leaderboard.test_cli import cli
from tests.support.scoring import SHARED_DATA, option
from tests.support.submissions import MAINTAINER, board, small_gold, write_gold

FORBIDDEN = ("answer", "width", "height", "image_id", "segmentation", "scores", "correct_answer")
REALISTIC = SHARED_DATA / "scb-synthetic" / "gold.jsonl"


def leaky_records(seed: int = 0) -> list[dict]:
    """The small gold, its answer option ``img-…`` and three decoys ``scb-…-L`` of other sizes."""
    rng = random.Random(seed)
    out = []
    for k, r in enumerate(small_gold()):
        r = dict(r, scores=[0.1, 0.2], correct_answer=r["answer"])  # fields a release may carry
        r["image_id"] = f"img-{k:05d}"
        options = []
        for letter in "ABCD":
            if letter == r["answer"]:
                options.append(option(r["image_id"], r["width"], r["height"]))
            else:
                options.append(option(f"scb-{k:05d}-{letter}", rng.randint(300, 900), rng.randint(300, 900)))
        r["options"] = options
        out.append(r)
    return out


def realistic_records() -> list[dict]:
    """The small gold with realistic decoys: each one another question's gold image and size."""
    gold = small_gold()
    rng = random.Random(1)
    out = []
    for k, r in enumerate(gold):
        others = rng.sample([g for j, g in enumerate(gold) if j != k], 3)
        images = iter(others)
        r = dict(r, image_id=f"img-{k:05d}")
        r["options"] = [
            option(r["image_id"], r["width"], r["height"])
            if letter == r["answer"]
            else (lambda o: option(f"img-{gold.index(o):05d}", o["width"], o["height"]))(next(images))
            for letter in "ABCD"
        ]
        out.append(r)
    return out


def channel(leaks, name: str) -> leakaudit.Channel:
    return next(c for c in leaks if c.name == name)


def test_a_leaky_gold_is_reported_with_its_channel_named(tmp_path: Path):
    lb = board(tmp_path / "data")
    update = lb.corrections.update_gold("scb", write_gold(tmp_path / "gold.jsonl", leaky_records()), "maintainer")
    ids = channel(update.leaks, "id pattern of the options")
    assert (ids.decided, ids.right, ids.questions) == (140, 140, 140) and ids.leaky
    assert ids.above_chance == pytest.approx(75.0)
    urls = channel(update.leaks, "url pattern of the options")
    assert urls.leaky and urls.right == 140
    assert leakaudit.report(update.leaks)[0].startswith("leak audit: ")
    assert "id pattern of the options" in leakaudit.report(update.leaks)[0]


def test_realistic_decoys_leave_no_id_url_or_size_channel_but_cooccurrence(tmp_path: Path):
    lb = board(tmp_path / "data")
    update = lb.corrections.update_gold("scb", write_gold(tmp_path / "gold.jsonl", realistic_records()), "maintainer")
    for name in ("id pattern of the options", "url pattern of the options", "size of the answer option"):
        assert channel(update.leaks, name).decided == 0, name
    # with concept published, the gold image of a concept is found by its concept
    assert "co-occurrence with concept" in [c.name for c in update.leaks]


def test_withholding_fields_republishes_the_list_and_audits_what_is_left(tmp_path: Path):
    data = tmp_path / "data"
    gold = write_gold(tmp_path / "gold.jsonl", leaky_records())
    lb: Leaderboard = board(data)
    lb.corrections.update_gold("scb", gold, "maintainer")
    published = [json.loads(x) for x in lb.store.read("results", layout.public_questions("scb")).splitlines()]
    assert {"concept", "country", "type", "category"} <= set(published[0])
    update = lb.corrections.update_gold("scb", gold, "maintainer", withheld=("concept", "country"))
    assert update.info.withheld == ("concept", "country") and not update.staged
    published = [json.loads(x) for x in lb.store.read("results", layout.public_questions("scb")).splitlines()]
    assert len(published) == 140 and not {"concept", "country"} & set().union(*published)
    assert not [c for c in update.leaks if "concept" in c.name or "country" in c.name]
    with pytest.raises(ValueError, match="cannot withhold"):
        lb.corrections.update_gold("scb", gold, "maintainer", withheld=("options",))  # a model needs them


@pytest.mark.parametrize("records", [leaky_records, realistic_records])
def test_the_public_list_never_carries_gold_fields(tmp_path: Path, records):
    lb = board(tmp_path / "data")
    lb.corrections.update_gold("scb", write_gold(tmp_path / "gold.jsonl", records()), "maintainer")
    for line in lb.store.read("results", layout.public_questions("scb")).splitlines():
        question = json.loads(line)
        assert not set(FORBIDDEN) & set(question), question
        assert all(set(o) == {"letter", "image_id", "width", "height", "url"} for o in question["options"])


def test_gold_add_and_gold_audit_print_the_audit(tmp_path: Path):
    data = tmp_path / "data"
    gold = write_gold(tmp_path / "gold.jsonl", leaky_records())
    added = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(gold))
    assert "leak audit: " in added.stdout and "LEAK id pattern of the options: decides 140 of 140" in added.stdout
    assert "+75.0 points above chance (25%)" in added.stdout
    audited = cli(data, "gold", "audit", "--benchmark", "scb", "--file", str(gold), "--withhold", "concept,country")
    assert "public question list withholds: concept, country" in audited.stdout
    assert "co-occurrence with concept" not in audited.stdout and "LEAK id pattern" in audited.stdout
    assert MAINTAINER.is_maintainer  # the audit reads answers: a maintainer's command line only


@pytest.mark.skipif(not REALISTIC.is_file(), reason="the shared synthetic SCB gold is not beside the repo")
def test_the_shared_synthetic_gold_leaks_only_through_cooccurrence(tmp_path: Path):
    audited = cli(tmp_path / "data", "gold", "audit", "--benchmark", "scb", "--file", str(REALISTIC))
    lines = audited.stdout.splitlines()
    assert any(line.strip().startswith("ok   id pattern of the options: decides 0 of 3,178") for line in lines)
    assert any(line.strip().startswith("ok   size of the answer option: decides 0 of 3,178") for line in lines)
    assert any(line.strip().startswith("LEAK co-occurrence with concept") for line in lines), audited.stdout
    withheld = cli(
        tmp_path / "data", "gold", "audit", "--benchmark", "scb", "--file", str(REALISTIC),
        "--withhold", "type,country,category,concept",
    )  # fmt: skip
    assert "co-occurrence with concept" not in withheld.stdout and "co-occurrence with country" not in withheld.stdout
