"""Running as a Space on Hub datasets: what is acknowledged survives a restart onto an empty disk,
a burst of submissions costs few commits under the Hub's commit quota, nothing is decided or
published from a partial copy, and a rescore is a handful of commits (the fake Hub counts them).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from leaderboard.service import Leaderboard
from store import layout
from store.hub import HubStore, RetryPolicy
from submissions.intake import new_submission_id
from submissions.records import Identity, Status, SubmissionMeta
from submissions.request import SubmitRequest
from tests.support.hub_server import TOKEN, HubServer
from tests.support.submissions import board, form, scored, small_gold, write_gold, write_submission
from tests.support.threads import run_together

pytestmark = pytest.mark.filterwarnings("ignore:Use .content=:DeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]
Ids = dict[str, str]


def replica(hub: HubServer, ids: Ids, folder: Path, **policy: float) -> Leaderboard:
    """A facade on its own (empty or not) disk, after the start-up sync. Without a ``policy`` the
    bounds are for a hang, not a speed check: pulling 400 files took over 20 s at load 13 on 2 cores
    and left a fresh replica empty (test_rescoring_two_hundred_is_a_few_commits)."""
    retry = RetryPolicy.fast(**policy) if policy else RetryPolicy.fast(timeout=30.0, deadline=180.0)
    store = HubStore(folder / "cache", ids, TOKEN, endpoint=hub.url, retry=retry)
    lb = board(folder, store=store)
    lb.refresh()
    return lb


def commits(hub: HubServer, ids: Ids, repo: str) -> int:
    return len(hub.commits(ids[repo]))


def hub_env(hub: HubServer, ids: Ids, data_dir: Path) -> dict[str, str]:
    env = os.environ | {
        "LEADERBOARD_DATA_DIR": str(data_dir),
        "LEADERBOARD_GOLD_REPO": ids["gold"],
        "LEADERBOARD_SUBMISSIONS_REPO": ids["submissions"],
        "LEADERBOARD_RESULTS_REPO": ids["results"],
        "HF_TOKEN": TOKEN,
        "HF_ENDPOINT": hub.url,
        "LEADERBOARD_DEMO": "0",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("LEADERBOARD_PLUGINS", None)
    return env


# -- acknowledged means on the Hub -------------------------------------------------------------
_SUBMIT_THEN_HANG = """
import sys, time
from pathlib import Path
from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
lb = Leaderboard(Settings.from_env())
lb.refresh()
form = SubmissionForm(model="Crash-Model", team="T")
answer = lb.submissions.submit(SubmitRequest("scb", Path(sys.argv[1]), form, Identity("alice")))
print("ACK", answer.status.value, answer.submission_id, flush=True)
time.sleep(600)  # killed -9 before any push of its derived files
"""


def test_kill_9_after_acknowledgement_then_restart_on_an_empty_disk(
    hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path
) -> None:
    replica(hub_server, hub_repo_ids, tmp_path / "maintainer").corrections.add_gold(
        "scb", write_gold(tmp_path / "g.jsonl"), "m"
    )
    data = tmp_path / "space"
    upload = write_submission(tmp_path / "s.jsonl", accuracy=0.5)
    env = hub_env(hub_server, hub_repo_ids, data)
    app = subprocess.Popen(
        [sys.executable, "-c", _SUBMIT_THEN_HANG, str(upload)], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        line = app.stdout.readline().split()
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait(30)
    assert line[:2] == ["ACK", "scored"], line
    sid = line[2]
    on_hub = hub_server.files(hub_repo_ids["submissions"])
    assert on_hub[layout.raw("scb", sid)].data == upload.read_bytes()  # on the Hub when acknowledged
    assert not any("/result-" in p for p in on_hub)  # its result died with the process
    shutil.rmtree(data)  # the Space restarts on an empty disk
    restarted = replica(hub_server, hub_repo_ids, data)
    assert restarted.submissions.status(restarted.catalog.get(sid)) is Status.RECEIVED
    assert restarted.corrections.resume() == 1
    assert list(scored(restarted)["model"]) == ["Crash-Model"]


def test_a_burst_of_ten_under_the_commit_quota(
    hub_factory: Callable[..., HubServer], hub_repo_ids: Ids, tmp_path: Path
) -> None:
    """12 commits a minute allowed; 10 concurrent submissions all acknowledged, few commits."""
    n = 10
    hub = hub_factory(commit_quota=12, quota_window=60.0)
    lb = replica(hub, hub_repo_ids, tmp_path / "app")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    before = commits(hub, hub_repo_ids, "submissions")
    paths = [write_submission(tmp_path / f"{i}.jsonl", seed=i) for i in range(n)]

    def one(i: int) -> tuple:
        answer = lb.submissions.submit(SubmitRequest("scb", paths[i], form(f"m{i}", f"t{i}"), Identity(f"user{i}")))
        files = hub.files(hub_repo_ids["submissions"])  # the moment it is acknowledged
        return answer, layout.meta("scb", answer.submission_id or "") in files

    answers, errors = run_together(n, one)
    assert errors == [] and len(answers) == n
    assert all(a.status is Status.SCORED and on_hub for a, on_hub in answers)
    assert lb.flush() == 0
    spent = commits(hub, hub_repo_ids, "submissions") - before
    assert spent <= 1.5 * n + 1, f"{spent} commits for {n} submissions"
    fresh = replica(hub, hub_repo_ids, tmp_path / "fresh")
    assert sorted(scored(fresh)["model"]) == sorted(f"m{i}" for i in range(n))


# -- nothing from a partial copy ----------------------------------------------------------------
def test_a_partial_first_sync_decides_and_publishes_nothing(
    hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path
) -> None:
    first = replica(hub_server, hub_repo_ids, tmp_path / "first")
    first.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    for i in range(3):
        first.submissions.submit(
            SubmitRequest(
                "scb", write_submission(tmp_path / f"{i}.jsonl", seed=i), form(f"M{i}", f"t{i}"), Identity("a")
            )
        )
    assert first.flush() == 0
    published = commits(hub_server, hub_repo_ids, "results")
    subs = commits(hub_server, hub_repo_ids, "submissions")
    sid = first.catalog.all("scb")[0].meta.id
    hub_server.inject(rf"/resolve/.*{sid}/meta.json", "error", times=1000)  # one file will not come
    second = replica(hub_server, hub_repo_ids, tmp_path / "second", timeout=1.0, deadline=2.0)
    assert not second.store.ready and not second.health().store.ok
    answer = second.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "x.jsonl", seed=9), form("X"), Identity("b"))
    )
    assert answer.status is Status.RETRY and "loading" in answer.message
    assert second.corrections.resume() == 0 and second.repair() == []
    second.flush()
    assert commits(hub_server, hub_repo_ids, "results") == published  # no partial public table
    assert commits(hub_server, hub_repo_ids, "submissions") == subs  # no failure records
    assert second.catalog.all("scb") == []  # the submissions repo came whole or not at all
    hub_server.faults.clear()
    second.refresh()
    assert second.store.ready and sorted(scored(second)["model"]) == ["M0", "M1", "M2"]


# -- rescoring costs a few commits ---------------------------------------------------------------
def stored_submissions(hub: HubServer, ids: Ids, n: int) -> None:
    """``n`` uploads committed by another writer in one go (their raw file and record)."""
    files: dict[str, bytes] = {}
    start = datetime(2026, 11, 1, tzinfo=UTC)
    gold = small_gold()
    for i in range(n):
        at = start + timedelta(minutes=i)
        data = write_submission(Path(f"/tmp/rescore-{os.getpid()}-{i}.jsonl"), gold, seed=i).read_bytes()
        sid = new_submission_id(at)
        meta = SubmissionMeta(
            id=sid,
            benchmark="scb",
            model=f"m{i}",
            team=f"t{i}",
            model_type="open",
            paper_url="",
            code_url="",
            description="",
            submitter=f"u{i}",
            sha256=hashlib.sha256(data).hexdigest(),
            bbox_format="xyxy",
            submitted_at=at.isoformat(),
            size_bytes=len(data),
            filename="",
        )
        files[layout.raw("scb", sid)] = data
        files[layout.meta("scb", sid)] = meta.to_bytes()
    hub.commit_files(ids["submissions"], files, "import")
    hub.set_private(ids["submissions"], True)


def test_rescoring_two_hundred_is_a_few_commits(hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path) -> None:
    n = 200
    stored_submissions(hub_server, hub_repo_ids, n)
    lb = replica(hub_server, hub_repo_ids, tmp_path / "app")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    before = {r: commits(hub_server, hub_repo_ids, r) for r in hub_repo_ids}
    report = lb.corrections.rescore("scb", workers=2)
    assert report["scb"]["counts"]["scored"] == n
    assert lb.flush() == 0
    spent = sum(commits(hub_server, hub_repo_ids, r) - before[r] for r in hub_repo_ids)
    # uploads from before readings: this first rescore reads each once and keeps its reading too
    # (600 files: two commits of the outbox's 500), and never again
    assert spent <= 5, f"{spent} commits to rescore {n} and keep their readings"
    assert all(s.readings for s in lb.catalog.all("scb"))
    fresh = replica(hub_server, hub_repo_ids, tmp_path / "fresh")
    assert len(scored(fresh)) == n
    corrected = small_gold()
    corrected[0]["answer"] = "ABCD"[("ABCD".index(corrected[0]["answer"]) + 1) % 4]
    fresh.corrections.add_gold("scb", write_gold(tmp_path / "gold-v2.jsonl", corrected), "maintainer", confirm=True)
    before = {r: commits(hub_server, hub_repo_ids, r) for r in hub_repo_ids}
    report = fresh.corrections.rescore("scb", workers=2)  # from the readings: no upload read again
    assert report["scb"]["counts"]["scored"] == n and report["scb"]["switched_to"]
    assert fresh.flush() == 0
    spent = sum(commits(hub_server, hub_repo_ids, r) - before[r] for r in hub_repo_ids)
    assert spent <= 4, f"{spent} commits to rescore {n}"
    assert all(len(s.readings) == 1 for s in fresh.catalog.all("scb"))  # the same public facts: the same reading


# -- health and the maintainer CLI --------------------------------------------------------------
def cli(hub: HubServer, ids: Ids, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "leaderboard", *args],
        cwd=ROOT,
        env=hub_env(hub, ids, data_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_reads_the_hub_first_and_reports_status(hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path) -> None:
    lb = replica(hub_server, hub_repo_ids, tmp_path / "app")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "gold.jsonl"), "maintainer")
    lb.submissions.submit(
        SubmitRequest("scb", write_submission(tmp_path / "s.jsonl"), form("From-The-Hub"), Identity("a"))
    )
    lb.flush()
    table = cli(hub_server, hub_repo_ids, tmp_path / "empty-disk", "table", "--benchmark", "scb")
    assert table.returncode == 0 and "From-The-Hub" in table.stdout, table.stderr
    status = cli(hub_server, hub_repo_ids, tmp_path / "empty-disk", "status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "sync: complete" in status.stdout and "writes waiting to be pushed: 0" in status.stdout


def test_gold_is_never_written_to_a_public_repo(hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path) -> None:
    hub_server.commit_files(hub_repo_ids["gold"], {"README.md": b"# made by hand"})  # public
    gold = write_gold(tmp_path / "gold.jsonl")
    added = cli(hub_server, hub_repo_ids, tmp_path / "data", "gold", "add", "--benchmark", "scb", "--file", str(gold))
    assert added.returncode != 0 and "public" in added.stderr.lower()
    assert set(hub_server.files(hub_repo_ids["gold"])) == {".gitattributes", "README.md"}
    status = cli(hub_server, hub_repo_ids, tmp_path / "data", "status")
    assert status.returncode == 3 and "PROBLEM" in status.stdout and "PUBLIC" in status.stdout
