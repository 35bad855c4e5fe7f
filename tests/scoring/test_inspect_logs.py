"""Inspect AI's ``.eval`` logs as the real inspect-ai 0.3.285 wrote them (scripts/harness-fixtures/
inspect_ai.sh: the Inspect tasks of scoring.harness.inspect against the stand-in endpoint, on the
app's question lists and images) are scored exactly as the same responses written as our JSON Lines,
read by inspect-ai's own reader; and a log that is not one answer per question, or too big, is one clear error."""

from __future__ import annotations

import io
import json
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest

import scoring
from scoring.readers import harness_files as harness
from scoring.readers import inspect_log
from scoring.validation import check_file
from submissions.request import SubmitRequest
from tests.support import demo, toy

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "harness" / "inspect_ai-0.3.285"
BENCHMARKS = ("kviscuit", "scb", "toy")
"""The shipped benchmarks' tasks and the example plugin's (``inspect eval scoring/toy``, on its public list)."""


@lru_cache(maxsize=1)
def _gold_paths(folder: str) -> dict[str, Path]:
    return demo.write_demo(Path(folder))


@pytest.fixture(scope="module")
def golds(tmp_path_factory) -> dict[str, scoring.Gold]:
    """The embedded default's golds (with the plugin's): the ones the app's question lists of the fixture
    run come from."""
    with toy.registered():
        paths = _gold_paths(str(tmp_path_factory.mktemp("demo")))
        yield {b: scoring.load_gold(b, paths[f"{b}_gold"]) for b in BENCHMARKS}


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_an_inspect_log_is_scored_exactly_as_its_responses_in_json_lines(benchmark, golds):
    log = (FIXTURES / f"{benchmark}.eval").read_bytes()
    same = (FIXTURES / f"{benchmark}.jsonl").read_bytes()
    gold = golds[benchmark]
    from_log = scoring.score_file(benchmark, gold, log, min_coverage=0)
    from_lines = scoring.score_file(benchmark, gold, same, min_coverage=0)
    assert from_log.to_dict() == from_lines.to_dict()
    assert from_log.counts["submitted"] == gold.size == len(same.splitlines())  # every question of the demo list
    bench = scoring.get_benchmark(benchmark)
    converted = harness.as_submission(bench, gold, log, 10**8)
    assert converted.kind == "an Inspect AI log (.eval)" and converted.issues == ()
    lines = [json.loads(x) for x in converted.data.splitlines()]
    assert sorted(line[bench.key_field] for line in lines) == sorted(gold.keys)  # sample ids are the question keys
    if benchmark == "scb":  # both stages of one sample, stage 2 read in the family the run named
        assert {line["grounding_format"] for line in lines} == {"qwen2_5_vl"}
        assert from_log.overall["miou"] is not None


def test_a_log_of_the_benchmarks_eval_yaml_run_from_the_hub_is_scored_as_its_responses_in_json_lines(golds):
    """``inspect eval hf/ddehun/k-viscuit/kviscuit_accuracy``: the real inspect-ai running K-Viscuit from the
    eval.yaml --eval-yaml prints, on the test Hub (scripts/harness-fixtures/inspect_hub.sh, all 657 demo
    rows). Its loader numbers samples 1, 2, ... by position in the split: read as written, sample n is
    question n - 1, exactly as the JSON Lines in which each response's question was found by what it
    asked; and the official one-letter rule counts what Inspect's own scorer (match, exact) counted."""
    gold = golds["kviscuit"]
    log = (FIXTURES / "hub" / "kviscuit_accuracy.eval").read_bytes()
    same = (FIXTURES / "hub" / "kviscuit_accuracy.jsonl").read_bytes()
    from_log = scoring.score_file("kviscuit", gold, log, min_coverage=0)
    from_lines = scoring.score_file("kviscuit", gold, same, min_coverage=0)
    assert from_log.to_dict() == from_lines.to_dict()
    assert from_log.counts["submitted"] == 657 == len(same.splitlines()) == gold.size
    with zipfile.ZipFile(io.BytesIO(log)) as z:
        header = inspect_log._json(z, z.getinfo("header.json"), inspect_log.MAX_SAMPLE_BYTES)
    assert header["eval"]["task"] == "hf/ddehun/k-viscuit/kviscuit_accuracy"
    (logged,) = header["results"]["scores"]
    assert logged["scorer"] == "match"
    inspect_accuracy = logged["metrics"]["accuracy"]["value"]
    assert from_log.overall["acc_strict"] == pytest.approx(100 * inspect_accuracy, abs=0.005)
    assert from_log.overall["acc"] > from_log.overall["acc_strict"] > 0  # "The answer is B." counts only leniently


def test_a_hub_loader_log_whose_samples_were_shuffled_is_one_error_saying_to_run_it_unshuffled(golds):
    """Positions are the only link from such a sample to its question: shuffled, they link nothing."""
    members = _members("kviscuit_accuracy", "hub")
    for name in ("header.json", "_journal/start.json"):
        run = json.loads(members[name])
        run["eval"]["dataset"]["shuffled"] = True
        members[name] = json.dumps(run).encode()
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.score_file("kviscuit", golds["kviscuit"], _zip(members), min_coverage=0)
    assert e.value.total == 1 and "ran with its samples shuffled" in e.value.issues[0].message


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _members(benchmark: str, folder: str = "") -> dict[str, bytes]:
    """The fixture's members, unpacked (a log to change in one place)."""
    with zipfile.ZipFile(FIXTURES / folder / f"{benchmark}.eval") as z:
        return {i.filename: inspect_log._member(z, i, inspect_log.MAX_LOG_BYTES) for i in z.infolist()}


def test_a_log_of_several_epochs_is_one_error_saying_to_run_one(golds):
    members = _members("kviscuit")
    members["samples/0_epoch_2.json"] = members["samples/0_epoch_1.json"]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.score_file("kviscuit", golds["kviscuit"], _zip(members), min_coverage=0)
    assert e.value.total == 1 and "--epochs 1" in e.value.issues[0].message


def test_a_sample_that_errored_is_named_and_the_rest_are_read(golds):
    members = _members("kviscuit")
    broken = json.loads(members["samples/3_epoch_1.json"])
    broken["error"] = {"message": "RateLimitError: too many requests", "traceback": ""}
    members["samples/3_epoch_1.json"] = json.dumps(broken).encode()
    converted = harness.as_submission(scoring.get_benchmark("kviscuit"), golds["kviscuit"], _zip(members), 10**8)
    assert len(converted.data.splitlines()) == golds["kviscuit"].size - 1  # every sample but the broken one
    ((_, code, message),) = converted.issues
    assert code == "bad_response" and "sample 3 ended in an error in the run (RateLimitError" in message


def test_a_member_bigger_than_its_bound_is_refused_before_it_is_read(golds, monkeypatch):
    monkeypatch.setattr(inspect_log, "MAX_SAMPLE_BYTES", 1_000)
    with pytest.raises(
        harness.ShapeError, match=r"samples/0_epoch_1.json .* unpacks to [\d,]+ bytes; the limit is 1,000"
    ):
        harness.as_submission(scoring.get_benchmark("kviscuit"), golds["kviscuit"],
                              (FIXTURES / "kviscuit.eval").read_bytes(), 10**8)  # fmt: skip


def test_a_log_with_more_members_than_questions_need_is_refused(golds):
    members = _members("kviscuit")
    members |= {f"samples/x{i}_epoch_1.json": b"{}" for i in range(2 * 657 + 64)}
    with pytest.raises(harness.ShapeError, match="members, more than 657 questions need"):
        harness.as_submission(scoring.get_benchmark("kviscuit"), golds["kviscuit"], _zip(members), 10**8)


def test_a_workbook_is_still_a_workbook():
    assert not inspect_log.is_eval_log(_zip({"xl/workbook.xml": b"<x/>", "[Content_Types].xml": b"<x/>"}))
    assert inspect_log.is_eval_log((FIXTURES / "scb.eval").read_bytes())


def test_both_command_lines_and_the_sites_intake_take_the_log_as_written(golds, tmp_path_factory):
    """``python -m scoring score`` and ``python -m leaderboard submit`` (the form and ``/submit``
    go through the same intake, Leaderboard.submissions.submit) score the .eval file itself."""
    import subprocess
    import sys

    from leaderboard.config import Settings
    from leaderboard.service import Leaderboard
    from submissions.records import Identity, SubmissionForm
    from tests.support.scoring import REPO_ROOT

    paths = _gold_paths(str(tmp_path_factory.mktemp("demo-cli")))
    log = FIXTURES / "scb.eval"
    expected = scoring.score_file("scb", golds["scb"], (FIXTURES / "scb.jsonl").read_bytes(), min_coverage=0)
    done = subprocess.run(
        [sys.executable, "-m", "scoring", "score", "--benchmark", "scb", "--gold", str(paths["scb_gold"]),
         "--predictions", str(log), "--min-coverage", "0", "--json", "--no-cache"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout)["overall"]["acc"] == expected.overall["acc"]
    lb = Leaderboard(Settings(data_dir=tmp_path_factory.mktemp("site") / "data", demo=False, min_coverage=0))
    lb.corrections.add_gold("kviscuit", paths["kviscuit_gold"], "maintainer")
    answer = lb.submissions.submit(
        SubmitRequest(
            "kviscuit",
            FIXTURES / "kviscuit.eval",
            SubmissionForm.of(model="Toy", team="Inspect"),
            Identity("ann"),
            "2026-12-04_kviscuit.eval",
        )
    )
    same = scoring.score_file("kviscuit", golds["kviscuit"], (FIXTURES / "kviscuit.jsonl").read_bytes(), min_coverage=0)
    assert answer.result is not None, answer.message
    assert answer.result.overall["acc"] == same.overall["acc"]


def test_the_logged_requests_are_the_benchmarks_one_protocol(golds, tmp_path_factory):
    """What inspect-ai logged it sent: stage 1 the protocol's parts; stage 2, its own request, the
    protocol's stage-2 text in the run's family with one image (the chosen option's)."""
    from scoring.answers import read_response
    from scoring.benchmarks import protocol

    paths = _gold_paths(str(tmp_path_factory.mktemp("demo-protocol")))
    listed = {q["question_id"]: q for q in map(json.loads, paths["scb_questions"].read_text().splitlines())}
    members = _members("scb")
    for name, data in members.items():
        if not name.startswith("samples/"):
            continue
        sample = json.loads(data)
        question = listed[sample["id"]]
        texts = tuple(p["text"] for p in sample["input"][0]["content"] if p["type"] == "text")
        assert texts == protocol.text_of(protocol.pick_image(question["question"]))
        stage1, stage2 = [e for e in sample["events"] if e["event"] == "model"]
        (start, end), messages = stage2["input_refs"][0], sample["events_data"]["messages"]
        (request,) = messages[start:end]
        letter = read_response(sample["store"]["scb/stage1"], protocol.LETTERS).letter
        chosen = protocol.LETTERS.index(letter) if letter else 0
        expected = protocol.ground_chosen(question["grounding_prompt"], "qwen2_5_vl", chosen)
        assert tuple(p["text"] for p in request["content"] if p["type"] == "text") == protocol.text_of(expected)
        assert [p["type"] for p in request["content"]] == ["image", "text"]


def test_the_plugins_task_asked_its_declared_prompt_on_its_own_fields(golds, tmp_path_factory):
    """``inspect eval scoring/toy`` (the entry point's task of the example plugin, on its public list):
    every sample is the image, then the toy's own prompt built from its fields (``prompt``, ``choices``)
    with its own instruction, its id the question's ``qid``."""
    paths = _gold_paths(str(tmp_path_factory.mktemp("demo-toy")))
    listed = {q["qid"]: q for q in map(json.loads, paths["toy_questions"].read_text().splitlines())}
    bench = scoring.get_benchmark("toy")
    samples = [json.loads(data) for name, data in _members("toy").items() if name.startswith("samples/")]
    assert sorted(s["id"] for s in samples) == sorted(listed)
    for sample in samples:
        question = listed[sample["id"]]
        (message,) = sample["input"]
        assert [p["type"] for p in message["content"]] == ["image", "text"]
        expected = bench.protocol["answer"](question["prompt"], question["choices"])
        assert (message["content"][1]["text"],) == protocol_text(expected)
        assert message["content"][1]["text"].endswith(bench.family.instruction)


def protocol_text(parts) -> tuple[str, ...]:
    from scoring.benchmarks import protocol

    return protocol.text_of(parts)


def test_a_two_stage_sample_is_read_from_its_own_benchmarks_store_keys():
    """The Inspect task of any two-stage benchmark keeps its stages under its own id
    (``inspect_log.store_keys``, what ``scoring.harness.inspect.tasks.two_stage_task`` writes), and the reader
    takes them from there: another two-stage benchmark's log is not read as a one-stage answer."""
    keys = inspect_log.store_keys("cv2")
    assert keys == {"stage1": "cv2/stage1", "stage2": "cv2/stage2", "family": "cv2/grounding_format"}
    assert inspect_log.store_keys("scb") == {
        "stage1": "scb/stage1",
        "stage2": "scb/stage2",
        "family": "scb/grounding_format",
    }
    store = {keys["stage1"]: "The answer is (B).", keys["stage2"]: "[1, 2, 3, 4]", keys["family"]: "plain"}
    sample = {"id": "cv2-1", "store": store, "output": {"completion": "[1, 2, 3, 4]"}}
    line, why = inspect_log.sample_line("qid", "cv2-1", sample, store_keys=keys)
    assert why == "" and line == {
        "qid": "cv2-1",
        "response": "The answer is (B).",
        "grounding_response": "[1, 2, 3, 4]",
        "grounding_format": "plain",
    }
    # under SCB's keys the same sample has only its output: stage 2's text as the answer
    assert inspect_log.sample_line("qid", "cv2-1", sample)[0] == {"qid": "cv2-1", "response": "[1, 2, 3, 4]"}


# ---- an interrupted SCB run resumed with eval-retry; the per-line family check on a real log (issue 42, item 3) ----

RECOVERED = 33
"""Samples eval-retry recovered with an empty store in the team trial (scb-01369..scb-01401)."""


def _recovered(keep: str) -> bytes:
    """The real SCB log with its first :data:`RECOVERED` samples as ``inspect eval-retry`` recovered an
    interrupted run's finished samples: an empty ``store``; ``keep`` "events" leaves their store and
    state events (as the trial's had), "messages" drops those too, leaving the messages and output."""
    members = _members("scb")
    for name in sorted(n for n in members if n.startswith("samples/"))[:RECOVERED]:
        sample = json.loads(members[name])
        sample["store"] = {}
        if keep == "messages":
            sample["events"] = [e for e in sample["events"] if e["event"] not in ("store", "state")]
        members[name] = json.dumps(sample).encode()
    return _zip(members)


@pytest.mark.parametrize("keep", ["events", "messages"])
def test_an_eval_retry_log_reads_every_answer(keep, golds):
    """Before: the recovered samples' output.completion (stage 2's box) was read as their stage-1
    answer: 33 answers lost (unparsed) and their groundings with them."""
    gold = golds["scb"]
    whole = scoring.score_file("scb", gold, (FIXTURES / "scb.eval").read_bytes(), min_coverage=0)
    resumed = scoring.score_file("scb", gold, _recovered(keep), min_coverage=0)
    assert resumed.to_dict() == whole.to_dict()
    assert resumed.counts["unparsed"] == whole.counts["unparsed"]


def test_a_stage2_family_that_does_not_fit_the_numbers_in_a_real_log_is_stopped(golds):
    """Item 1's check on an actual .eval: every sample's stage 2 answered in 0-1 numbers while the run
    named ``plain`` (pixels, xyxy): stopped naming xyxy_norm, never scored mIoU 0."""
    members = _members("scb")
    for name in (n for n in members if n.startswith("samples/")):
        sample = json.loads(members[name])
        sample["store"] |= {"scb/stage2": "[0.15, 0.2, 0.7, 0.8]", "scb/grounding_format": "plain"}
        members[name] = json.dumps(sample).encode()
    with pytest.raises(scoring.SubmissionError) as e:
        check_file("scb", golds["scb"], _zip(members))  # what validate, score and the site check first
    assert any("xyxy_norm" in i.message for i in e.value.issues), [str(i) for i in e.value.issues]
    assert {i.code for i in e.value.issues} & {"suspect_bbox_format", "suspect_grounding_format"}


def test_a_log_over_the_upload_limit_says_how_inspect_leaves_the_images_out(golds, tmp_path):
    """Team trial step 4: README's Inspect SCB command logged every image (83.6 MB against 50 MB) and
    the refusal only gave the sizes. inspect-ai 0.3.285's CLI logs images unless --no-log-images
    (its --log-images flag defaults to True; a task cannot change it), so the refusal names the flag."""
    log = tmp_path / "scb.eval"
    log.write_bytes((FIXTURES / "scb.eval").read_bytes())
    small = scoring.jsonl.Limits(max_bytes=log.stat().st_size - 1)
    with pytest.raises(scoring.SubmissionError) as e:
        check_file("scb", golds["scb"], log, limits=small)
    (issue,) = e.value.issues
    assert "the limit is" in issue.message and "--no-log-images" in issue.message


RETRY = FIXTURES / "retry"
"""An SCB run killed and resumed with ``inspect eval-retry`` by the real inspect-ai 0.3.285
(scripts/harness-fixtures/inspect_retry.sh), and what inspect-ai's own reader found in it."""


def test_a_real_eval_retry_log_reads_every_answer_as_the_uninterrupted_run_gave_it(golds):
    """Before: its samples recovered with an empty store were read with stage 2's box as their answer,
    and the killed run's cancelled samples, kept under the same member names as their retried ones,
    were errors: the log was refused. Now every sample is the line the uninterrupted run of the same
    toy model on the same inputs gave (tests/fixtures/harness/inspect_ai-0.3.285/scb.jsonl)."""
    found = json.loads((RETRY / "found.json").read_text(encoding="utf-8"))
    assert found["status"] == "success" and found["empty_store"] and found["members_twice"]
    converted = harness.as_submission(
        scoring.get_benchmark("scb"), golds["scb"], (RETRY / "scb-retried.eval").read_bytes(), 10**8
    )
    assert converted.issues == ()
    lines = {line["question_id"]: line for line in map(json.loads, converted.data.splitlines())}
    whole = {line["question_id"]: line for line in map(json.loads, (FIXTURES / "scb.jsonl").read_text().splitlines())}
    assert len(lines) == found["samples"]
    assert all(lines[k] == whole[k] for k in lines), [k for k in lines if lines[k] != whole[k]][:5]
    assert all(lines[k]["response"].startswith("The answer is") for k in found["empty_store"])
