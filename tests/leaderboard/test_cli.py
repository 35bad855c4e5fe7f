"""The maintainer command line on a data folder given by LEADERBOARD_DATA_DIR: gold add, submit,
table, rescore, hide/unhide. The first test runs ``python -m leaderboard`` in child processes, as
typed; the rest call the same ``main`` in this process."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import pytest

from leaderboard.cli import main
from leaderboard.config import REFRESH_AT_LEAST_EVERY
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.support.submissions import (
    MAINTAINER,
    board,
    flipped_gold,
    form,
    small_gold,
    write_broken,
    write_gold,
    write_submission,
)

ROOT = Path(__file__).resolve().parents[2]


HUB_VARIABLES = ("LEADERBOARD_GOLD_REPO", "LEADERBOARD_SUBMISSIONS_REPO", "LEADERBOARD_RESULTS_REPO")


def cli_environment(data_dir: Path) -> dict[str, str]:
    env = os.environ | {"LEADERBOARD_DATA_DIR": str(data_dir), "LEADERBOARD_DEMO": "0", "PYTHONPATH": str(ROOT)}
    return {name: value for name, value in env.items() if name not in HUB_VARIABLES}


def cli_process(data_dir: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """``python -m leaderboard ...`` in a child process, as a maintainer types it."""
    done = subprocess.run(
        [sys.executable, "-m", "leaderboard", *args],
        cwd=ROOT, env=cli_environment(data_dir), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def cli(data_dir: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """The same command through ``leaderboard.cli.main`` in this process: what ``python -m
    leaderboard`` runs (``leaderboard/__main__.py``), without a second of interpreter start a call
    (46 calls in this module alone). Its exit code is main's return value or argparse's exit."""
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, cli_environment(data_dir), clear=True), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as stop:  # argparse: --help, an unknown choice
            code = stop.code if isinstance(stop.code, int) else 1
    done = subprocess.CompletedProcess(["python", "-m", "leaderboard", *args], code, out.getvalue(), err.getvalue())
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def table_json(data_dir: Path) -> list[dict]:
    return json.loads(cli(data_dir, "table", "--benchmark", "scb", "--format", "json").stdout)


def scored_models(data_dir: Path) -> list[str]:
    return [r["model"] for r in table_json(data_dir) if r["source"] == "scored here"]


def test_gold_add_submit_and_table(tmp_path: Path) -> None:
    data = tmp_path / "data"
    gold = write_gold(tmp_path / "gold.jsonl")
    added = cli_process(data, "gold", "add", "--benchmark", "scb", "--file", str(gold))
    assert re.search(r"scb: gold [0-9a-f]{64} is current \(140 questions\)", added.stdout)
    broken_gold = tmp_path / "broken-gold.jsonl"
    broken_gold.write_text('{"question_id": "x"}\n')
    refused = cli_process(data, "gold", "add", "--benchmark", "scb", "--file", str(broken_gold), ok=False)
    assert refused.returncode == 1 and refused.stderr.startswith("error:")

    sub = write_submission(tmp_path / "sub.jsonl", accuracy=0.5, grounding="bbox_good")
    form = ("--model", "=HYPERLINK(1)", "--team", "T", "--user", "u", "--model-type", "closed")
    out = cli_process(
        data, "submit", "--benchmark", "scb", "--file", str(sub), *form, "--paper-url", "https://example.org/p"
    )
    match = re.match(r"scored: Scored\. \(id (\S+)\)", out.stdout)
    assert match, out.stdout
    assert json.loads(out.stdout.splitlines()[1])["acc"] == pytest.approx(50.0)
    broken = str(write_broken(tmp_path / "b.jsonl"))
    bad = cli_process(
        data, "submit", "--benchmark", "scb", "--file", broken, "--model", "M2", "--team", "T", "--user", "u", ok=False
    )
    assert bad.returncode == 2 and bad.stdout.startswith("rejected:")
    assert "line 2: not valid JSON" in bad.stdout and "line 3 [question_id]" in bad.stdout

    rows = list(csv.DictReader(io.StringIO(cli_process(data, "table", "--benchmark", "scb", "--format", "csv").stdout)))
    mine = [r for r in rows if r["source"] == "scored here"]
    assert [(r["model"], r["team"], r["model_type"]) for r in mine] == [("'=HYPERLINK(1)", "T", "closed")]
    assert float(mine[0]["overall.acc"]) == pytest.approx(50.0) and mine[0]["overall.miou"]
    assert sum(r["source"] == "reported in paper" for r in rows) > 3
    records = table_json(data)
    ranks = [r["rank"] for r in records]  # honest ranks: shared where intervals overlap, so ascending, not strict
    assert len(records) == len(rows) and ranks[0] == 1 and ranks == sorted(ranks)
    assert [r["model"] for r in records if r["source"] == "scored here"] == ["=HYPERLINK(1)"]  # JSON: as is
    text = cli_process(data, "table", "--benchmark", "scb").stdout
    assert "=HYPERLINK(1)" in text and "reported in paper" in text
    shown = cli_process(data, "gold", "show").stdout
    assert "scb: " in shown and "kviscuit: no gold" in shown


def test_rescore_prints_rank_changes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    gold = small_gold()
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    paths = {
        "first": write_submission(tmp_path / "first.jsonl", gold, accuracy=0.62, seed=1),
        "second": write_submission(tmp_path / "second.jsonl", gold, accuracy=0.55, seed=2),
    }
    for model, path in paths.items():
        lb.submissions.submit(SubmitRequest("scb", path, form(model, "team"), MAINTAINER))
    unchanged = cli(data, "rescore", "--benchmark", "scb", "--workers", "2").stdout
    assert "scb: nothing needed rescoring" in unchanged and "no rank changed" in unchanged
    assert "{" not in unchanged  # a report in words, not a raw dict (review turn 3, #22)
    lines = {m: [json.loads(x) for x in p.read_text().splitlines()] for m, p in paths.items()}
    new = write_gold(tmp_path / "gold-v2.jsonl", flipped_gold(gold, lines["second"], lines["first"], k=10))
    before = public_ranks(data)
    staged = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(new)).stdout
    assert "is staged (140 questions)" in staged and "answers changed on kept questions: 10" in staged
    assert public_ranks(data) == before  # the board keeps the current gold until the rescore
    out = cli(data, "rescore", "--workers", "2").stdout
    # `gold add` scored each on the new gold once (its preview) and kept it: the rescore scores none again
    assert "scb: no submission needed scoring" in out and "the board now shows gold" in out
    assert "rank changes on the public board" in out and "{" not in out
    scripted = json.loads(cli(data, "rescore", "--benchmark", "scb", "--json").stdout)  # for scripts
    assert set(scripted["scb"]) >= {"counts", "rank_changes"} and sum(scripted["scb"]["counts"].values()) == 0
    after = public_ranks(data)
    assert (after["first"], after["second"]) == (before["second"], before["first"])  # they swapped places
    assert f"team / first: rank {before['first']} -> {after['first']}" in out
    assert f"team / second: rank {before['second']} -> {after['second']}" in out
    assert "kviscuit" not in out
    assert scored_models(data) == ["second", "first"]


def public_ranks(data_dir: Path) -> dict[str, int]:
    """Place of every row in the public SCB table's order (paper rows included) by model: what the
    rescore report compares (rows whose intervals overlap share an honest rank yet keep an order)."""
    return {r["model"]: place for place, r in enumerate(table_json(data_dir), 1)}


def test_hide_and_unhide(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl"))
    ids = [
        lb.submissions.submit(
            SubmitRequest("scb", write_submission(tmp_path / f"{m}.jsonl", seed=i), form(m, "t"), MAINTAINER)
        ).submission_id
        for i, m in enumerate(["keep", "hide-me"])
    ]
    assert sorted(scored_models(data)) == ["hide-me", "keep"]
    hidden = cli(data, "hide", ids[1], "--reason", "the paper was withdrawn").stdout
    assert hidden.startswith(f"hide: {ids[1]} (the paper was withdrawn)")
    assert "A running app shows this within 60 s" in hidden  # its refresh poll (review turn 3, #22)
    assert scored_models(data) == ["keep"]
    reason = board(data).visibility.entry(MAINTAINER, ids[1]).reason
    assert reason.code == "hidden_by_maintainer" and "the paper was withdrawn" in reason.message
    assert "hide-me" not in (data / "results/data/scb.csv").read_text()
    cli(data, "unhide", ids[1], "--by", "someone")
    assert sorted(scored_models(data)) == ["hide-me", "keep"]
    missing = cli(data, "hide", "20990101-000000-nope", ok=False)
    assert missing.returncode == 1 and "no submission" in missing.stderr


def test_team_show_list_and_transfer(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl"))
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "a.jsonl"), form("M", "Vision Lab"), Identity("alice"))
    )
    assert "Vision Lab\talice" in cli(data, "team", "list").stdout
    moved = cli(data, "team", "transfer", "VISION lab", "--to", "org:vlab", "--by", "root").stdout
    assert moved.splitlines()[0] == "Vision Lab: owned by org:vlab now" and "A running app shows this" in moved
    shown = cli(data, "team", "show", "vision lab").stdout
    assert "owned by org:vlab" in shown and "transfer -> org:vlab (by root)" in shown
    assert cli(data, "team", "transfer", "(paper)", "--to", "bob", ok=False).returncode == 1
    typo = cli(data, "team", "transfer", "Vision Labs X", "--to", "mallory", ok=False)  # review turn 3, #11
    assert typo.returncode == 1 and "no team is named like 'Vision Labs X'" in typo.stderr
    assert "Did you mean 'Vision Lab'" in typo.stderr and "--create" in typo.stderr
    assert "Vision Labs X" not in cli(data, "team", "list").stdout
    created = cli(data, "team", "transfer", "New Lab", "--to", "bob", "--create").stdout
    assert created.startswith("New Lab: owned by bob now (a new name)")
    same = cli(data, "team", "transfer", "New Lab", "--to", "bob").stdout
    assert "already owned by bob; nothing was changed" in same
    assert len(board(data).moderation.team("New Lab").events) == 1  # not recorded again
    again = board(data)
    member, former = Identity("carol", orgs=("vlab",)), Identity("alice")
    assert again.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "b.jsonl", seed=3), form("N", "Vision Lab"), member)
    ).result
    assert again.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "c.jsonl", seed=4), form("O", "Vision Lab"), former)
    ).issues
    # the maintainer's submit command takes the new options; private stays off the table
    private = cli(
        data,
        "submit",
        "--benchmark",
        "scb",
        "--file",
        str(write_submission(tmp_path / "d.jsonl", seed=5)),
        "--model",
        "Hidden",
        "--team",
        "Vision Lab",
        "--user",
        "root",
        "--visibility",
        "private",
    ).stdout
    assert private.startswith("scored") and "Hidden" not in scored_models(data)


def test_gold_add_asks_to_confirm_a_changed_question_set(tmp_path: Path) -> None:
    data = tmp_path / "data"
    gold = small_gold()
    board(data, write_gold(tmp_path / "gold.jsonl", gold))
    fewer = write_gold(tmp_path / "fewer.jsonl", gold[:-12])
    refused = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(fewer), ok=False)
    assert refused.returncode == 3 and "nothing was stored" in refused.stderr
    assert f"questions: {len(gold)} -> {len(gold) - 12} (0 added, 12 removed)" in refused.stderr
    assert "--confirm" in refused.stderr and "staged" not in cli(data, "gold", "show").stdout
    staged = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(fewer), "--confirm").stdout
    assert "12 removed" in staged and "is staged" in staged
    assert "staged: " in cli(data, "gold", "show", "--benchmark", "scb").stdout


def test_submit_takes_a_grounding_format_and_the_rescore_keeps_it(tmp_path: Path) -> None:
    """A raw Gemini file sent with --grounding-format gemini scores as its pixel conversion, and a
    rescore on a new gold reads it the same way (the format is stored with the submission)."""
    data = tmp_path / "data"
    gold = small_gold()
    cli(data, "gold", "add", "--benchmark", "scb", "--file", str(write_gold(tmp_path / "gold.jsonl", gold)))
    box = [120, 80, 860, 930]  # y first: [ymin, xmin, ymax, xmax] on 0-1000
    raw, pixel = [], []
    for r in gold:
        w, h = r["width"], r["height"]
        raw.append(
            {"question_id": r["question_id"], "answer": r["answer"], "grounding_response": f'{{"box_2d": {box}}}'}
        )
        xyxy = [box[1] * (w / 1000), box[0] * (h / 1000), box[3] * (w / 1000), box[2] * (h / 1000)]
        pixel.append({"question_id": r["question_id"], "answer": r["answer"], "bbox": xyxy})
    paths = {name: tmp_path / f"{name}.jsonl" for name in ("raw", "pixel")}
    for name, lines in (("raw", raw), ("pixel", pixel)):
        paths[name].write_text("".join(json.dumps(x) + "\n" for x in lines))
    common = ("--team", "T", "--user", "u", "--benchmark", "scb")
    cli(data, "submit", "--file", str(paths["pixel"]), "--model", "pixel", *common)
    refused = cli(data, "submit", "--file", str(paths["raw"]), "--model", "raw", *common, ok=False)
    assert refused.returncode == 2 and "missing_grounding_format" not in refused.stdout  # the message, not the code
    assert "grounding_response but no grounding_format is declared" in refused.stdout
    out = cli(data, "submit", "--file", str(paths["raw"]), "--model", "raw", "--grounding-format", "gemini", *common)
    assert out.stdout.startswith("scored:"), out.stdout
    figures = {r["model"]: r for r in table_json(data) if r["source"] == "scored here"}
    assert figures["raw"]["overall.miou"] == pytest.approx(figures["pixel"]["overall.miou"], abs=1e-6)
    new = [dict(r, answer="ABCD"[("ABCD".index(r["answer"]) + 1) % 4]) if i < 10 else r for i, r in enumerate(gold)]
    cli(data, "gold", "add", "--benchmark", "scb", "--file", str(write_gold(tmp_path / "gold-v2.jsonl", new)))
    staged = lb_status(data)
    assert sorted(staged) == ["rejected", "scored", "scored"], staged  # by gold add's preview, kept
    rescored = cli(data, "rescore", "--benchmark", "scb").stdout
    # the pixel and the declared raw file scored again; the undeclared one rejected again (by the preview)
    assert "no submission needed scoring" in rescored and "the board now shows gold" in rescored, rescored
    figures = {r["model"]: r for r in table_json(data) if r["source"] == "scored here"}
    assert figures["raw"]["overall.miou"] == pytest.approx(figures["pixel"]["overall.miou"], abs=1e-6)


def test_the_held_queue_lists_releases_and_hides_with_reasons(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl"))
    ids = [
        lb.submissions.submit(
            SubmitRequest(
                "scb",
                write_submission(tmp_path / f"{i}.jsonl", seed=i),
                form(f"M{i}", "t", visibility="private"),
                Identity("alice"),
            )
        ).submission_id
        for i in range(3)
    ]
    lb.moderation.hold(ids[:2], "automatic", "its probe series is flagged (signals: near_copy)")
    listed = cli(data, "held").stdout
    assert ids[0] in listed and ids[1] in listed and ids[2] not in listed
    assert "by automatic: its probe series is flagged (signals: near_copy)" in listed and "2 held" in listed
    assert cli(data, "held", "--hide", ids[1], ok=False).returncode == 1  # a hide needs its reason
    assert cli(data, "held", "--release", ids[2], ok=False).returncode == 1  # not held
    done = cli(data, "held", "--release", ids[0], "--hide", ids[1], "--reason", "probing confirmed").stdout
    assert f"released: {ids[0]}" in done and f"hidden: {ids[1]} (probing confirmed)" in done
    assert "A running app shows this within" in done
    after = board(data)
    assert after.visibility.entry(Identity("alice"), ids[0]).reason.code in {"shown", "ladder_withheld"}
    hidden = after.visibility.entry(Identity("alice"), ids[1]).reason
    assert hidden.code == "hidden_by_maintainer" and "probing confirmed" in hidden.message
    assert "0 held submission(s)" in cli(data, "held").stdout


def test_gold_add_lists_mask_changes(tmp_path: Path) -> None:
    """Three masks shifted by 5 px: the diff says so (review turn 3, #24)."""
    data = tmp_path / "data"
    gold = small_gold()
    board(data, write_gold(tmp_path / "gold.jsonl", gold))
    moved = [dict(r) for r in gold]
    shifted = 0
    for r in moved:
        if isinstance(r["segmentation"], list) and shifted < 3:
            r["segmentation"] = [[v + 5 for v in part] for part in r["segmentation"]]
            shifted += 1
    out = cli(data, "gold", "add", "--benchmark", "scb", "--file", str(write_gold(tmp_path / "v2.jsonl", moved))).stdout
    assert "answers changed on kept questions: 0" in out and "masks changed on kept questions: 3" in out


@pytest.mark.parametrize(
    "command",
    [("status",), ("table", "--benchmark", "scb"), ("gold", "show"), ("team", "list"), ("held",), ("probes",)],
)
def test_a_read_only_command_without_a_data_folder_says_so_and_creates_nothing(tmp_path: Path, command) -> None:
    """Run from the wrong folder, `status` created ./data and reported "sync: complete" (review turn 3, #22)."""
    missing = tmp_path / "data"
    done = cli(missing, *command, ok=False)
    assert done.returncode == 1 and not missing.exists(), done.stdout + done.stderr
    assert f"no data folder at {missing.resolve()}" in done.stderr
    assert "LEADERBOARD_DATA_DIR" in done.stderr and "sync: complete" not in done.stdout


def test_gold_audit_needs_no_data_folder(tmp_path: Path) -> None:
    missing = tmp_path / "data"
    gold = write_gold(tmp_path / "gold.jsonl")
    out = cli(missing, "gold", "audit", "--benchmark", "scb", "--file", str(gold)).stdout
    assert "public question list withholds: nothing" in out and not missing.exists()


def test_rescore_without_any_gold_says_so(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    out = cli(tmp_path / "data", "rescore").stdout
    assert "nothing to rescore: no benchmark has a gold" in out  # it printed nothing


def test_a_cli_change_names_the_running_apps_own_refresh_interval(tmp_path: Path, monkeypatch) -> None:
    """The delay is the configured poll, not a literal 60 (review turn 3, #22); the app never polls
    more often than REFRESH_AT_LEAST_EVERY seconds, so a smaller setting says that floor."""
    data = tmp_path / "data"
    lb = board(data, write_gold(tmp_path / "gold.jsonl"))
    sid = lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form("M", "t"), MAINTAINER)
    ).submission_id
    monkeypatch.setenv("LEADERBOARD_REFRESH_SECONDS", "17")
    assert "A running app shows this within 17 s" in cli(data, "hide", sid).stdout
    monkeypatch.setenv("LEADERBOARD_REFRESH_SECONDS", "1")
    assert f"A running app shows this within {REFRESH_AT_LEAST_EVERY} s" in cli(data, "unhide", sid).stdout


def lb_status(data: Path) -> list[str]:
    """Each stored submission's status on the staged gold, as another process reads the store."""
    from scoring import SCORER_VERSION

    lb = board(data)
    staged = lb.corrections.staged_gold("scb").version
    return [s.status(staged, SCORER_VERSION).value for s in lb.catalog.all("scb")]


def test_items_on_the_demo_store(tmp_path: Path) -> None:
    """``items --json``: one object, a record per question (n counted from the submissions' own
    answers) and the suspects most suspect first; kept, so a second call computes nothing; words
    without --json."""
    data = tmp_path / "data"
    cli(data, "demo")
    done = cli_process(data, "items", "--benchmark", "kviscuit", "--json")
    found = json.loads(done.stdout)
    lb = board(data)
    gold = lb.golds.get("kviscuit")
    assert [q["question_id"] for q in found["questions"]] == list(gold.keys)
    assert all({"question_id", "n", "difficulty"} <= set(q) for q in found["questions"])
    answered = sum(len(p.read_text().splitlines()) for p in demo_files(tmp_path, "kviscuit"))
    assert sum(q["n"] for q in found["questions"]) == answered  # every counted answer, once
    assert found["submissions"] == len(lb.catalog.all("kviscuit")) and found["suspects"]
    by_kind = {}
    for s in found["suspects"]:
        assert s["kind"] in ("answer", "mask") and "answer" in s["suggestion"]
        by_kind.setdefault(s["kind"], []).append(s["score"])
    assert all(scores == sorted(scores, reverse=True) for scores in by_kind.values())
    again = json.loads(cli(data, "items", "--benchmark", "kviscuit", "--json").stdout)
    assert again["computed_at"] == found["computed_at"]
    words = cli(data, "items", "--benchmark", "scb").stdout
    assert "submission(s) counted (each team's model once" in words and "{" not in words
    assert f"1. {found['suspects'][0]['question_id']} answer" in cli(data, "items", "--benchmark", "kviscuit").stdout


def demo_files(tmp_path: Path, benchmark: str) -> list[Path]:
    from scoring.benchmarks import demo

    return list(demo.write_files(benchmark, tmp_path / "demo-files").submissions.values())
