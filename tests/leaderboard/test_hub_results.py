"""A row's figures in the Hub's own evaluation system: the ``.eval_results`` entries (hub-docs
``docs/hub/eval-results.md``), the benchmark's ``eval.yaml``, and the pull request its owner opens
on the model repo with their own token, tested against the test Hub (tests/support/hub_server.py)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml
from huggingface_hub import HfApi, eval_result_entries_to_yaml, parse_eval_result_entries

from leaderboard.config import ConfigError, Settings
from leaderboard.hub_results import SOURCE_NAME, entries, eval_yaml, eval_yaml_text, results_path
from scoring.benchmarks import BENCHMARKS
from scoring.benchmarks.scb import release
from submissions.records import Identity
from submissions.request import SubmitRequest
from tests.leaderboard.test_cli import cli, table_json
from tests.support.hub_models import QWEN, publish_models
from tests.support.hub_server import User
from tests.support.submissions import MAINTAINER, board, form, small_gold, write_gold, write_submission

ALICE = Identity("alice")
BOB = Identity("bob")
OWN_REPO = "alice/alice-vlm"
CLOSED = "alice/closed-vlm"  # discussions closed by its owner
OAUTH = ("openid", "profile", "write-discussions")
TOKENS = {
    "alice-oauth": User("alice", scopes=OAUTH),
    "alice-narrow": User("alice", scopes=("openid", "profile")),
    "bob-oauth": User("bob", scopes=OAUTH),
    "carol-oauth": User("carol", orgs=("carol-lab",), read_orgs=("alice",), scopes=OAUTH),
}
LAB_REPO = "carol-lab/lab-vlm"
VERIFIED = "verified by the leaderboard"


def test_the_cli_prints_entries_the_hub_format_takes_for_a_public_row(tmp_path):
    """``export --eval-results``: a YAML list, one entry per headline figure, dataset id with its owner,
    task ids those of the printed eval.yaml, values the board's, source the row's page."""
    data = tmp_path / "data"
    gold = small_gold()
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    path = write_submission(tmp_path / "s.jsonl", gold, accuracy=0.7, seed=3, grounding="bbox_good")
    lb.submissions.submit(SubmitRequest("scb", path, form("Exp-VLM", "Lab"), MAINTAINER))
    row = next(r for r in table_json(data) if r["model"] == "Exp-VLM")
    printed = cli(data, "export", "--benchmark", "scb", row["row_id"], "--eval-results").stdout
    listed = yaml.safe_load(printed)
    registration = yaml.safe_load(cli(data, "export", "--benchmark", "scb", "--eval-yaml").stdout)
    assert isinstance(listed, list) and len(listed) == 1  # mIoU has no Hub task (issue 42): the board shows it
    task_ids = {t["id"] for t in registration["tasks"]}
    assert [e["dataset"]["task_id"] for e in listed] == ["scb_accuracy"]
    assert {e["dataset"]["task_id"] for e in listed} <= task_ids
    assert {e["dataset"]["id"] for e in listed} == {"Multimedia-SMU/seeingculture-benchmark"}
    assert [e["value"] for e in listed] == [round(row["overall.acc"], 2)]
    for entry in listed:
        assert entry["source"] == {
            "url": f"http://127.0.0.1:7860/?bench=scb&model={row['row_id']}",
            "name": SOURCE_NAME,
        }
        assert entry["date"] == lb.board("scb").row(row["row_id"]).submitted_at[:10]
    # the format as huggingface_hub reads and writes it (EvalResultEntry): nothing it does not know, nothing lost
    parsed = parse_eval_result_entries(listed)
    assert eval_result_entries_to_yaml(parsed) == listed
    assert all(re.fullmatch(r"[\w.-]+/[\w.-]+", e.dataset_id) and e.source_url for e in parsed)
    assert all(type(e.value) is float and type(e.date) is str for e in parsed)
    assert printed.count(f"date: '{parsed[0].date}'") == len(parsed)  # quoted: YAML would read a bare date as a date
    assert set(registration) == {"name", "description", "evaluation_framework", "tasks"}
    assert registration["evaluation_framework"] == "inspect-ai"
    assert all({"id", "config", "split"} <= set(t) for t in registration["tasks"])
    refused = cli(data, "export", "--benchmark", "scb", "nope", "--eval-results", ok=False)
    assert refused.returncode == 1 and "no public scored scb row 'nope'" in refused.stderr


def test_source_url_is_the_address_the_app_serves_at(tmp_path):
    """issue 42 (team trial step 6): off a Space, ``source.url`` named port 7860 whatever port the app ran
    on. The command line has no request: LEADERBOARD_PUBLIC_URL, else the configured GRADIO_SERVER_NAME
    and GRADIO_SERVER_PORT (Gradio's 7860 when none is set)."""
    from unittest import mock

    data = tmp_path / "data"
    gold = small_gold()
    lb = board(data, write_gold(tmp_path / "gold.jsonl", gold))
    path = write_submission(tmp_path / "s.jsonl", gold, accuracy=0.7, seed=3, grounding="bbox_good")
    lb.submissions.submit(SubmitRequest("scb", path, form("Port-VLM", "Lab"), MAINTAINER))
    row = next(r for r in table_json(data) if r["model"] == "Port-VLM")["row_id"]

    def source(**env: str) -> set[str]:
        with mock.patch.dict("os.environ", env):
            printed = cli(data, "export", "--benchmark", "scb", row, "--eval-results").stdout
        return {e["source"]["url"] for e in yaml.safe_load(printed)}

    assert source(GRADIO_SERVER_PORT="7900") == {f"http://127.0.0.1:7900/?bench=scb&model={row}"}
    assert source(GRADIO_SERVER_PORT="7900", GRADIO_SERVER_NAME="0.0.0.0") == {  # a wildcard is no address
        f"http://127.0.0.1:7900/?bench=scb&model={row}"
    }
    public = source(GRADIO_SERVER_PORT="7900", LEADERBOARD_PUBLIC_URL="https://lab.example/board")
    assert public == {f"https://lab.example/board/?bench=scb&model={row}"}


def test_a_row_without_grounding_gives_only_its_accuracy_and_kviscuit_notes_its_official_protocol():
    scb, kv = BENCHMARKS["scb"], BENCHMARKS["kviscuit"]
    no_boxes = entries(scb, {"overall": {"acc": 61.2345, "miou": None}}, dataset="o/d", date="", source_url="u")
    assert [(e["dataset"]["task_id"], e["value"]) for e in no_boxes] == [("scb_accuracy", 61.23)]
    assert "date" not in no_boxes[0]
    lenient = entries(kv, {"overall": {"acc": 70.0, "acc_strict": 65.55}}, dataset="o/d", date="2026-01-02T03:04",
                      source_url="u")  # fmt: skip
    assert lenient[0]["value"] == 70.0 and lenient[0]["date"] == "2026-01-02"
    assert lenient[0]["notes"].startswith("Accuracy, official protocol: 65.55 (")
    same = entries(kv, {"overall": {"acc": 70.0, "acc_strict": 70.0}}, dataset="o/d", date="", source_url="u")
    assert "notes" not in same[0]
    assert results_path(kv) == ".eval_results/kviscuit.yaml"


VALIDATED = Path(__file__).parents[1] / "fixtures" / "harness" / "inspect_ai-0.3.285" / "eval-yaml"
HF_TASK_KEYS = {"id", "config", "split", "field_spec", "shuffle_choices", "epochs", "epoch_reducer", "solvers"} | {
    "scorers"
}
"""inspect-ai 0.3.285's ``HFTask`` (inspect_ai/_eval/task/hf.py, ``extra="forbid"``): any other key is refused."""


@pytest.mark.parametrize("benchmark", ["scb", "kviscuit"])
def test_eval_yaml_is_the_file_inspect_ais_hub_loader_accepted(benchmark):
    """hub-docs (docs/hub/eval-results.md, "Eval.yaml specification"): an ``inspect-ai`` benchmark's tasks
    also need ``field_spec``, ``solvers`` and ``scorers``; inspect-ai's Hub loader refused the file
    without them. What --eval-yaml prints is byte for byte the file that loader accepted
    (scripts/harness-fixtures/inspect_hub.sh wrote the fixture and its findings)."""
    bench = BENCHMARKS[benchmark]
    printed = eval_yaml_text(bench, bench.hub.dataset_id)
    report = json.loads((VALIDATED / "validation.json").read_text(encoding="utf-8"))
    (found,) = [f for f in report["files"] if f["file"] == f"{benchmark}.eval.yaml"]
    assert report["inspect_ai"] == "0.3.285" and found["accepted"] is True
    assert printed == (VALIDATED / f"{benchmark}.eval.yaml").read_text(encoding="utf-8")
    assert hashlib.sha256(printed.encode("utf-8")).hexdigest() == found["sha256"]
    data = yaml.safe_load(printed)
    assert data["evaluation_framework"] == "inspect-ai"
    assert [t["id"] for t in data["tasks"]] == [t.id for t in bench.hub.tasks] == [t["id"] for t in found["tasks"]]
    for task in data["tasks"]:
        assert set(task) <= HF_TASK_KEYS and {"field_spec", "solvers", "scorers"} <= set(task)
        assert {"input", "target"} <= set(task["field_spec"]) and task["solvers"] and task["scorers"]
    assert all(t["built"] for t in found["tasks"])
    # K-Viscuit's answer 1 read as its letter; SCB's release has no answers, so its tasks have no target
    assert {t["sample"]["target"] for t in found["tasks"]} == ({"B"} if benchmark == "kviscuit" else {""})


WITHHELD_SCB_COLUMNS = {"answer", "correct_answer", "scores", "rationale", *release.CHOICE_FIELDS}
"""What the SCB release does not publish: the answer (``correct_answer``, and its ``scores`` and
``rationale``) and the options' image paths of its generator (``choice_a``..``choice_d``)."""


def _named_columns(field_spec: dict) -> set[str]:
    named = set()
    for value in field_spec.values():
        for column in value if isinstance(value, list) else [value]:
            if not str(column).startswith("literal:"):
                named.add(str(column))
    return named


def test_scbs_eval_yaml_declares_no_accuracy_task_under_an_miou_name_nor_a_withheld_column():
    """issue 42 (team trial step 6): scb_miou was the same multiple_choice + match exact task as
    scb_accuracy, and field_spec named answer and choice_a..d, which the release withholds."""
    data = yaml.safe_load(eval_yaml_text(BENCHMARKS["scb"], "lab/scb"))
    for task in data["tasks"]:
        assert "miou" not in task["id"] and "iou" not in task["id"]  # no Hub scorer computes IoU
        assert not _named_columns(task["field_spec"]) & WITHHELD_SCB_COLUMNS, task["field_spec"]
    assert [t.metric for t in BENCHMARKS["scb"].hub.tasks] == ["acc"]


def test_an_inspect_ai_registration_without_its_fields_is_refused_and_comments_say_where_a_hub_run_differs():
    kv = BENCHMARKS["kviscuit"]
    bare = dataclasses.replace(kv.hub, tasks=tuple(dataclasses.replace(t, inspect=None) for t in kv.hub.tasks))
    with pytest.raises(ValueError, match="kviscuit_accuracy: evaluation_framework inspect-ai requires field_spec"):
        eval_yaml(dataclasses.replace(kv, hub=bare), "o/d")
    other = dataclasses.replace(bare, evaluation_framework="math-arena")
    assert eval_yaml(dataclasses.replace(kv, hub=other), "o/d")["tasks"] == [
        {"id": "kviscuit_accuracy", "config": "default", "split": "test"}
    ]
    text = eval_yaml_text(BENCHMARKS["scb"], "lab/scb")
    comments = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))
    assert comments.startswith("eval.yaml of lab/scb:") and "inspect-ai's Hub loader cannot run SCB" in comments
    assert "&id" not in text and "*id" not in text  # no YAML anchors: tasks spell their lists out


def test_the_hub_dataset_is_configured_per_benchmark_and_needs_an_owner():
    settings = Settings.from_env({"LEADERBOARD_HUB_DATASETS": "kviscuit=lab/k-viscuit-mirror"})
    assert dict(settings.hub_datasets) == {"kviscuit": "lab/k-viscuit-mirror"}
    assert eval_yaml(BENCHMARKS["kviscuit"], "lab/k-viscuit-mirror")["tasks"][0]["id"] == "kviscuit_accuracy"
    with pytest.raises(ConfigError, match="LEADERBOARD_HUB_DATASETS"):
        Settings.from_env({"LEADERBOARD_HUB_DATASETS": "kviscuit=k-viscuit"})


@pytest.fixture
def hub(hub_factory):
    server = hub_factory(users=dict(TOKENS))
    publish_models(server)
    server.add_model(OWN_REPO)
    server.add_model(CLOSED)
    server.add_model(LAB_REPO)
    server.repo(CLOSED, "model").discussions = False
    return server


@pytest.fixture
def lb(tmp_path, hub):
    return board(tmp_path / "data", write_gold(tmp_path / "gold.jsonl"), hub_endpoint=hub.url)


def submit(lb, tmp_path, name: str, who: Identity = ALICE, seed: int = 1, **extra) -> str:
    path = write_submission(tmp_path / f"{name}.jsonl", accuracy=0.6, seed=seed, grounding="bbox_good")
    answer = lb.submissions.submit(SubmitRequest("scb", path, form(name, f"{who.username}-team", **extra), who))
    assert answer.submission_id, answer.message
    return answer.submission_id


def test_the_owner_opens_the_pull_request_with_their_own_token(lb, hub, tmp_path):
    sid = submit(lb, tmp_path, "Alice-VLM", model_repo=OWN_REPO)
    main_before = hub.repo(OWN_REPO, "model").head.oid
    pr = lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", sid)
    assert pr.opened, pr.refusal
    assert pr.url.endswith(f"/{OWN_REPO}/discussions/1")
    assert hub.repo(OWN_REPO, "model").head.oid == main_before  # main untouched: only proposed
    (opened,) = hub.pull_requests(OWN_REPO)
    assert opened.author == "alice"
    assert VERIFIED in opened.title and not pr.community  # she can write the repo: the Hub's whoami says so
    proposed = yaml.safe_load(opened.commit.files[".eval_results/scb.yaml"].data)
    assert proposed == list(lb.visibility.eval_results("scb", sid).entries)
    # the real client reads it back as a pull request on refs/pr/1
    api = HfApi(endpoint=hub.url, token="alice-oauth")
    (listed,) = list(api.get_repo_discussions(OWN_REPO))
    assert listed.is_pull_request and listed.num == 1
    text = api.hf_hub_download(OWN_REPO, ".eval_results/scb.yaml", revision="refs/pr/1", cache_dir=tmp_path / "c")
    assert yaml.safe_load(Path(text).read_text(encoding="utf-8")) == proposed


def test_a_repo_the_owner_cannot_write_gets_a_community_pull_request(lb, hub, tmp_path):
    """Red team N6: any team could open "results verified by the leaderboard" on any model repo its row
    names. The leaderboard scored a file; it did not see who made the model. A requester the Hub does
    not show as able to write the repo opens a pull request that says it is a community submission
    (hub-docs eval-results.md: an open pull request shows as "community"), never "verified"."""
    sid = submit(lb, tmp_path, "Qwen-Tuned", model_repo=QWEN)
    assert not TOKENS["alice-oauth"].can_write(QWEN)
    pr = lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", sid)
    assert pr.opened and pr.community, pr.refusal
    (opened,) = hub.pull_requests(QWEN)
    assert opened.author == "alice"
    assert VERIFIED not in opened.title and "community submission" in opened.title
    assert "verified" not in opened.description.lower() and "not checked who made the model" in opened.description


def test_an_organisations_repo_is_verified_only_for_members_who_may_write_it(lb, hub, tmp_path):
    """The requester's organisations and roles as the Hub's whoami gives them: a member with the write
    role opens the verified pull request; a member with the read role only a community one."""
    carol = Identity("carol")
    lab = submit(lb, tmp_path, "Lab-VLM", who=carol, model_repo=LAB_REPO)
    pr = lb.visibility.open_eval_results_pr(carol, "carol-oauth", "scb", lab)
    assert pr.opened and not pr.community and VERIFIED in hub.pull_requests(LAB_REPO)[0].title
    readonly = submit(lb, tmp_path, "Alice-VLM", who=carol, seed=2, model_repo=OWN_REPO)
    pr = lb.visibility.open_eval_results_pr(carol, "carol-oauth", "scb", readonly)
    assert pr.opened and pr.community and VERIFIED not in hub.pull_requests(OWN_REPO)[0].title


def test_when_the_hub_cannot_say_who_may_write_the_pull_request_is_a_community_one(lb, hub, tmp_path):
    sid = submit(lb, tmp_path, "Alice-VLM", model_repo=OWN_REPO)
    hub.inject(r"GET /api/whoami-v2", "error", times=5)
    pr = lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", sid)
    assert pr.opened and pr.community and VERIFIED not in hub.pull_requests(OWN_REPO)[0].title


def test_the_hubs_refusals_reach_the_owner_with_the_reason(lb, hub, tmp_path):
    closed = submit(lb, tmp_path, "Closed-VLM", model_repo=CLOSED)
    refused = lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", closed)
    assert not refused.opened and "discussions may be closed" in refused.refusal
    own = submit(lb, tmp_path, "Alice-VLM", seed=2, model_repo=OWN_REPO)
    narrow = lb.visibility.open_eval_results_pr(ALICE, "alice-narrow", "scb", own)
    assert not narrow.opened and "write-discussions" in narrow.refusal
    hub.set_private(OWN_REPO, True, "model")  # bob's sight: gone; alice still sees her own repo
    hub.repo(OWN_REPO, "model").discussions = True
    assert lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", own).opened
    assert hub.pull_requests(CLOSED) == []


def test_the_pull_request_is_refused_to_anyone_but_the_rows_team(lb, hub, tmp_path):
    sid = submit(lb, tmp_path, "Alice-VLM", model_repo=OWN_REPO)
    row_id = lb.visibility.eval_results("scb", sid).row_id
    for ref in (sid, row_id):
        refused = lb.visibility.open_eval_results_pr(BOB, "bob-oauth", "scb", ref)
        assert not refused.opened and refused.refusal == "only the row's team may add its figures to the model's page"
    maintainer = lb.visibility.open_eval_results_pr(MAINTAINER, "bob-oauth", "scb", sid)
    assert not maintainer.opened
    assert lb.visibility.open_eval_results_pr(ALICE, "", "scb", sid).refusal.startswith("sign in with Hugging Face")
    no_repo = submit(lb, tmp_path, "No-Repo", seed=3)
    assert "names no Hub model repo" in lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", no_repo).refusal
    assert hub.pull_requests(OWN_REPO) == []


def test_rows_whose_figures_are_not_out_give_nothing_and_only_their_team_hears_why(lb, hub, tmp_path):
    private = submit(lb, tmp_path, "Private-VLM", model_repo=OWN_REPO, visibility="private")
    anonymous = submit(lb, tmp_path, "Anon-VLM", seed=2, model_repo=OWN_REPO, anonymous="true",
                       reveal_date="2099-01-01")  # fmt: skip
    held = submit(lb, tmp_path, "Held-VLM", seed=3, model_repo=OWN_REPO)
    lb.moderation.hold([held], "maintainer")
    reasons = {
        private: "it is private: make it public first",
        anonymous: "it is anonymous until 2099-01-01",
        held: "it is held for review",
    }
    for sid, why in reasons.items():
        told = lb.visibility.eval_results("scb", sid, ALICE)
        assert not told.entries and why in told.refusal
        assert (
            lb.visibility.eval_results("scb", sid).refusal == f"no public scored scb row {sid!r}"
        )  # a visitor: no row
        assert lb.visibility.eval_results("scb", sid, BOB).refusal == f"no public scored scb row {sid!r}"
        pr = lb.visibility.open_eval_results_pr(ALICE, "alice-oauth", "scb", sid)
        assert not pr.opened and why in pr.refusal
    anonymous_row = next(r for r in lb.board("scb").rows if r.submission_id == anonymous)
    assert lb.visibility.eval_results("scb", anonymous_row.row_id).refusal.startswith("no public scored scb row")
    assert hub.pull_requests(OWN_REPO) == []
