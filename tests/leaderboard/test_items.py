"""The item analysis wired to the store (leaderboard.items, issue 43): computed from every scored
submission's stored reading (each team's model once), where jobs run, in the background once quiet;
stored per gold version; suspects dismissed or accepted through the correction path; question
reports rate-limited per account; the errata rebuilt once per gold change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from leaderboard import items as items_room
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import demo
from store import layout
from store.records import CorruptRecord, Dismissal, Errata, ItemAnalysisRecord, QuestionReport
from submissions.items.grounding import mask_extents
from submissions.items.job import counted, timed_job
from submissions.job_bounds import JobBounds
from submissions.records import Identity, Status, SubmissionForm
from submissions.request import SubmitRequest

MAINTAINER = Identity("maint", is_maintainer=True)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    """A demo store, seeded once; each test works on its own copy."""
    data = tmp_path_factory.mktemp("items-demo") / "data"
    Leaderboard(Settings(data_dir=data)).seed_demo()
    return data


@pytest.fixture()
def lb(seeded, tmp_path) -> Leaderboard:
    data = tmp_path / "data"
    shutil.copytree(seeded, data)
    return Leaderboard(Settings(data_dir=data, demo=False))


def resubmit(lb: Leaderboard, benchmark: str, team: str, model: str, tmp_path: Path, wrong: int = 0):
    """Another upload of a demo team's model: its first demo file with ``wrong`` answers changed."""
    files = demo.write_files(benchmark, tmp_path / "files")
    (who, path), *_ = [(t, p) for t, p in files.submissions.items() if (t.team, t.name) == (team, model)]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines[:wrong]:
        line["answer"] = "ABCD"[("ABCD".index(line["answer"]) + 1) % 4] if line.get("answer") in list("ABCD") else "A"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    form = SubmissionForm(model=model, team=team, model_type=who.model_type, bbox_format=who.box_format)
    return lb.submissions.submit(SubmitRequest(benchmark, path, form, MAINTAINER, who.filename))


def test_every_scored_submission_counts_once_per_team_model(lb, tmp_path):
    gold = lb.golds.get("scb")
    first = lb.items.compute("scb")
    models = {(s.meta.team, s.meta.model) for s in lb.catalog.all("scb")}
    assert first.submissions == len(models) == len(lb.catalog.all("scb"))
    assert len(first.questions) == gold.size and first.gold_version == gold.version
    team, model = sorted(models)[0]
    answer = resubmit(lb, "scb", team, model, tmp_path, wrong=40)
    assert answer.status is Status.SCORED
    assert lb.items.stale("scb")
    again = lb.items.compute("scb")
    assert again.submissions == first.submissions  # the model's latest upload replaced its first
    ids = [s.meta.id for s in counted(lb.catalog.all("scb"), gold.version)]
    assert answer.submission_id in ids and len(ids) == len(models)
    n_first = {q["question_id"]: q["letters"] for q in first.questions}
    changed = [q for q in again.questions if q["letters"] != n_first[q["question_id"]]]
    assert changed  # the new upload's answers are the ones counted


def test_a_rejected_or_unreadable_upload_is_not_counted(lb, tmp_path):
    gold = lb.golds.get("kviscuit")
    path = tmp_path / "bad.jsonl"
    lines = [{"question_id": k, "answer": "A"} for k in gold.keys] + [{"question_id": 0, "answer": "B"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    form = SubmissionForm(model="bad", team="bad-team", model_type="open")
    answer = lb.submissions.submit(SubmitRequest("kviscuit", path, form, MAINTAINER, "bad.jsonl"))
    assert answer.status is Status.REJECTED and lb.catalog.get(answer.submission_id) is not None
    assert all(s.meta.model != "bad" for s in counted(lb.catalog.all("kviscuit"), gold.version))
    assert lb.items.compute("kviscuit").submissions == len({s.meta.model for s in lb.catalog.all("kviscuit")}) - 1


def test_the_job_runs_where_jobs_run_and_its_result_is_kept_per_gold(lb):
    calls = []

    def runner(check, gold, *args):
        calls.append((check, gold.version))
        return check(gold, *args)

    lb.intake.run_check = runner
    record = lb.items.compute("kviscuit")
    assert calls == [(timed_job, lb.golds.info("kviscuit").version)]
    path = layout.items_analysis("kviscuit", record.gold_version)
    assert path.startswith("items/") and lb.store.exists("gold", path)  # the private repo
    assert ItemAnalysisRecord.from_bytes(lb.store.read("gold", path), path) == record
    assert lb.items.analysis("kviscuit") == record and record.cpu_seconds >= 0


def test_the_background_job_waits_until_quiet_and_runs_once(lb, monkeypatch):
    runs = []
    monkeypatch.setattr(lb.items, "compute", lambda b: runs.append(b))
    lb.items.changed("scb")
    lb.items.catch_up()
    assert runs == ["kviscuit"]  # scb had a submission just now: it waits
    monkeypatch.setattr(items_room, "QUIET_SECONDS", 0.0)
    lb.items.catch_up()
    assert sorted(runs) == ["kviscuit", "kviscuit", "scb"]  # the stub stored nothing: still stale


def test_a_scored_upload_marks_its_benchmark_and_the_request_computes_nothing(lb, tmp_path, monkeypatch):
    computed = []
    monkeypatch.setattr(lb.items, "compute", lambda b: computed.append(b))
    resubmit(lb, "kviscuit", *sorted((s.meta.team, s.meta.model) for s in lb.catalog.all("kviscuit"))[0], tmp_path)
    assert computed == [] and "kviscuit" in lb.items._noted


def test_in_the_bounded_pool_the_same_analysis_and_a_job_over_its_bound_is_stopped(lb):
    here = lb.items.compute("kviscuit")
    pool = lb.use_scoring_pool(1, JobBounds(seconds=60))
    try:
        pooled = lb.items.compute("kviscuit")
        assert (pooled.questions, pooled.suspects) == (here.questions, here.suspects)
    finally:
        pool.close()
    pool = lb.use_scoring_pool(1, JobBounds(seconds=0.01))
    try:
        lb.store.put("gold", {layout.items_analysis("scb", lb.golds.info("scb").version): b"{}"}, "x", overwrite=True)
        lb.items.catch_up()
        assert lb.items.analysis("scb") is None  # stopped at the bound: nothing stored, tried again later
    finally:
        pool.close()


def test_dismissed_stays_dismissed_for_that_gold(lb):
    record = lb.items.compute("kviscuit")
    assert record.suspects
    first = record.suspects[0]
    with pytest.raises(ValueError, match="why"):
        lb.items.dismiss("kviscuit", first["question_id"], first["kind"], "maint", "  ")
    with pytest.raises(ValueError, match="kind"):
        lb.items.dismiss("kviscuit", first["question_id"], "typed", "maint", "a value typed in the picker")
    d = lb.items.dismiss("kviscuit", first["question_id"], first["kind"], "maint", "the key is right: checked")
    assert (d.by, d.why, d.gold_version) == ("maint", "the key is right: checked", record.gold_version) and d.at
    assert first not in lb.items.suspects("kviscuit")
    lb.items.compute("kviscuit")
    assert first not in lb.items.suspects("kviscuit")  # recomputed: still dismissed on this gold


def test_question_reports_are_rate_limited_per_account(lb):
    key = str(lb.golds.get("scb").keys[3])
    assert "Sign in" in lb.items.report("scb", key, "wrong", "")
    assert "no question" in lb.items.report("scb", "nope", "wrong", "ann")
    assert "few words" in lb.items.report("scb", key, "   ", "ann")
    for i in range(items_room.REPORTS_PER_DAY):
        assert lb.items.report("scb", key, f"the mask misses the dish {i}" + "x" * 900, "ann") == ""
    assert "24 hours" in lb.items.report("scb", key, "one more", "ann")
    assert lb.items.report("kviscuit", "3", "option C is also right", "bob") == ""
    shown = lb.items.reports("scb")
    assert len(shown) == items_room.REPORTS_PER_DAY and {r.by for r in shown} == {"ann"}
    assert all(len(r.text) == items_room.REPORT_CHARS and r.question_id == key for r in shown)
    assert [r.question_id for r in lb.items.reports("kviscuit")] == ["3"]
    assert len(lb.store.list("gold", "items/reports")) == items_room.REPORTS_PER_DAY + 1


def test_accepting_an_answer_suspect_stages_the_corrected_gold_with_its_preview(lb):
    record = lb.items.compute("kviscuit")
    suspect = record.suspects[0]
    update = lb.items.accept("kviscuit", suspect["question_id"], "answer", "maint", confirm=True)
    assert update.staged and update.changes.answers_changed == 1
    staged = lb.golds.compiled(update.info)
    current = lb.golds.get("kviscuit")
    row = staged.index[suspect["question_id"]]
    assert "ABCD"[staged.answers[row]] == suspect["suggestion"]["answer"]
    assert (staged.answers != current.answers).sum() == 1
    assert lb.corrections.staged_preview("kviscuit") is not None
    with pytest.raises(items_room.CannotCorrect):
        lb.items.accept("kviscuit", "not-a-suspect", "answer", "maint")


def test_accepting_a_mask_suspect_stages_the_consensus_box_as_the_region(lb, monkeypatch):
    record = lb.items.compute("scb")
    gold = lb.golds.get("scb")
    masks = gold.extra["masks"]
    row = 5
    box = [10.0, 20.0, 110.0, 220.0]
    fake = {"question_id": gold.keys[row], "kind": "mask", "score": 0.5, "suggestion": {"box": box}, "evidence": {}}
    monkeypatch.setattr(lb.items, "suspects", lambda b: [fake])
    update = lb.items.accept("scb", gold.keys[row], "mask", "maint", confirm=True)
    staged = lb.golds.compiled(update.info)
    new = staged.extra["masks"]
    assert update.changes.masks_changed == 1 and update.changes.answers_changed == 0
    extents, _ = mask_extents(new)
    assert np.abs(extents[staged.index[gold.keys[row]]] - box).max() <= 1  # the box, rasterised
    assert masks.row_key(row) != new.row_key(staged.index[gold.keys[row]])
    assert record.gold_version == gold.version


def test_the_errata_list_a_correction_once_the_board_switched(lb):
    suspect = lb.items.compute("kviscuit").suspects[0]
    lb.items.catch_up()
    assert lb.items.errata.read("kviscuit").entries == ()
    lb.items.accept("kviscuit", suspect["question_id"], "answer", "maint", confirm=True)
    lb.items.catch_up()
    assert lb.items.errata.read("kviscuit").entries == ()  # staged, not made: nothing pending is listed
    lb.corrections.rescore("kviscuit")
    lb.items.catch_up()
    errata = lb.items.errata.read("kviscuit")
    (entry,) = errata.entries
    assert entry.answers_changed == (str(suspect["question_id"]),) and entry.masks_changed == ()
    assert errata.current == layout.gold_key(lb.golds.info("kviscuit").version)
    page = lb.items.errata.html("kviscuit").decode()
    assert str(suspect["question_id"]) in page and "1 answer(s)" in page
    written = lb.store.read("results", layout.errata("kviscuit", "json"))
    assert (
        not lb.items.errata.update("kviscuit")
        and lb.store.read("results", layout.errata("kviscuit", "json")) == written
    )


@pytest.mark.parametrize(
    "record",
    [
        Dismissal("scb", "v" * 64, "scb-1", "mask", "m", "why", "2026-01-01T00:00:00+00:00"),
        QuestionReport("kviscuit", "3", "text", "ann", "2026-01-01T00:00:00+00:00"),
    ],
)
def test_the_flat_records_round_trip(record):
    assert type(record).from_bytes(record.to_bytes(), "p") == record
    with pytest.raises(CorruptRecord):
        type(record).from_bytes(b'{"benchmark": 3}', "p")


def test_the_analysis_and_errata_codecs_round_trip_and_refuse_wrong_shapes():
    suspect = {"question_id": 3, "kind": "answer", "score": 6.0, "suggestion": {"answer": "C"}, "evidence": {}}
    record = ItemAnalysisRecord(
        "kviscuit", "v", "b", "t", 4, ({"question_id": 3, "n": 4, "difficulty": 0.1},), (suspect,), 0.5
    )
    assert ItemAnalysisRecord.from_bytes(record.to_bytes(), "p") == record
    for broken in (b"[]", b'{"questions": [], "suspects": [{"kind": "answer"}]}'):
        with pytest.raises(CorruptRecord):
            ItemAnalysisRecord.from_bytes(broken, "p")
    bad = json.loads(record.to_bytes()) | {"suspects": [suspect | {"kind": "other"}]}
    with pytest.raises(CorruptRecord):
        ItemAnalysisRecord.from_bytes(json.dumps(bad).encode(), "p")
    from store.records import Erratum

    errata = Errata("scb", "k", (Erratum("k", "t", 10, ("a",), ("b", "c"), 1, 0),))
    assert Errata.from_bytes(errata.to_bytes(), "p") == errata
    with pytest.raises(CorruptRecord):
        Errata.from_bytes(b'{"benchmark": "scb", "current": "k", "entries": [{"answers_changed": [1]}]}', "p")


def test_two_reports_of_one_account_at_once_both_kept(lb, monkeypatch):
    """The second of two reports sent together finds its number taken: it takes the next (it raised
    AlreadyExists before: the account saw an error and its report was lost)."""
    key = str(lb.golds.get("kviscuit").keys[0])
    assert lb.items.report("kviscuit", key, "first", "ann") == ""
    listing = lb.store.list
    monkeypatch.setattr(lb.store, "list", lambda repo, prefix="": [] if "reports/" in prefix else listing(repo, prefix))
    assert lb.items.report("kviscuit", key, "second, sent at once", "ann") == ""
    monkeypatch.undo()
    assert sorted(r.text for r in lb.items.reports("kviscuit")) == ["first", "second, sent at once"]
