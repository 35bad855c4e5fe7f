"""Files lmms-eval 0.7.3 really wrote (issue 28), read as written: the project's lmms_eval_tasks/
run with ``--predict_only --log_samples`` against the toy endpoint on the embedded default's demo
questions (scripts/harness-fixtures/lmms_eval.sh). They score exactly as the same texts written as
the project's JSON Lines (accuracy equal, mIoU within 0.001), SCB's two stages given together
(two files in either order, or a .zip of the output folder); the other benchmark's file, or
stage 2 alone, is one message that names the fix.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import scoring
from scoring.benchmarks.toy import demo as toy_demo
from scoring.readers import bundle
from scoring.readers import harness_files as harness
from scoring.validation import check_file
from tests.support import toy
from tests.support.harness_files import LMMS_EVAL, demo_gold_files, lmms_manifest, lmms_samples, written_name
from tests.support.scoring import write_lines

NULL_HASH = hashlib.sha256(json.dumps(None, indent=2).encode()).hexdigest()


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict[str, Path]:
    return demo_gold_files(str(tmp_path_factory.mktemp("demo")))


@pytest.fixture(scope="module")
def golds(demo) -> dict[str, scoring.Gold]:
    return {b: scoring.load_gold(b, demo[f"{b}_gold"]) for b in ("scb", "kviscuit")}


def _samples(task: str) -> list[dict]:
    return [json.loads(x) for x in lmms_samples(task).decode("utf-8").splitlines() if x.strip()]


def _ours_kviscuit(gold: scoring.Gold) -> list[dict]:
    return [{"question_id": gold.keys[s["doc_id"]], "response": s["filtered_resps"]} for s in _samples("kviscuit")]


def _ours_scb(gold: scoring.Gold) -> list[dict]:
    """The same texts as the runner writes them: the family the stage-2 prompt asked (plain) on the line."""
    lines = {s["doc_id"]: {"question_id": gold.keys[s["doc_id"]], "response": s["filtered_resps"]}
             for s in _samples("scb_stage1")}  # fmt: skip
    for s in _samples("scb_stage2"):
        lines[s["doc_id"]] |= {"grounding_response": s["filtered_resps"], "grounding_format": "plain",
                               "bbox_format": "xyxy_norm"}  # fmt: skip
    return [lines[k] for k in sorted(lines)]


def _same_figures(got: scoring.ResultRecord, expected: scoring.ResultRecord) -> None:
    assert got.counts == expected.counts
    assert got.overall["acc"] == expected.overall["acc"]
    if expected.overall.get("miou") is not None:
        assert got.overall["miou"] == pytest.approx(expected.overall["miou"], abs=0.001)


def test_the_files_are_lmms_evals_own():
    """What lmms-eval 0.7.3 writes, which our old imitation did not: one doc_hash (of ``null``) on every
    sample of every task, the name <date>_samples_<task>.jsonl, and no doc."""
    for task in ("kviscuit", "scb_stage1", "scb_stage2"):
        samples = _samples(task)
        assert {s["doc_hash"] for s in samples} == {NULL_HASH}
        assert [s["doc_id"] for s in samples] == list(range(len(samples)))
        assert "doc" not in samples[0] and isinstance(samples[0]["filtered_resps"], str)
        assert written_name(task).endswith(f"_samples_{task}.jsonl") and written_name(task)[:8].isdigit()
    # surprising: stage 2's input_media lists the four options (lmms-eval guesses media from the doc),
    # though one image, the chosen option's, was sent (tests/harness/test_one_protocol.py)
    assert len(_samples("scb_stage2")[0]["input_media"]) == 4


def test_kviscuit_samples_score_as_the_same_texts_in_our_jsonl(golds, tmp_path):
    gold = golds["kviscuit"]
    expected = scoring.score_file("kviscuit", gold, write_lines(tmp_path / "ours.jsonl", _ours_kviscuit(gold)))
    got = scoring.score_file("kviscuit", gold, lmms_samples("kviscuit"))
    _same_figures(got, expected)
    assert got.counts["questions"] == len(_samples("kviscuit")) == gold.size


def test_the_plugins_task_ran_on_its_public_list_and_scores_as_its_texts(demo, tmp_path):
    """The example plugin's task, which ``python -m scoring.harness.lmms_eval tasks`` wrote, run by
    lmms-eval 0.7.3 on the toy's public list, whose documents hold no answer: every sample was logged
    with an empty target (before, ``doc_to_target`` raised ``KeyError: 'answer'`` on each), asked the
    toy's own instruction, and the samples score exactly as the same texts keyed by ``qid``."""
    with toy.registered() as bench:
        gold = scoring.load_gold("toy", write_lines(tmp_path / "gold.jsonl", toy_demo.toy_gold(0)))
        assert gold.version == lmms_manifest()["gold_versions"]["toy"]
        samples = _samples("toy")
        assert [s["doc_id"] for s in samples] == list(range(gold.size))
        assert {s["target"] for s in samples} == {""}
        assert all(s["input"].endswith(bench.family.instruction) for s in samples)
        ours = [{"qid": gold.keys[s["doc_id"]], "response": s["filtered_resps"]} for s in samples]
        expected = scoring.score_file("toy", gold, write_lines(tmp_path / "ours.jsonl", ours))
        got = scoring.score_file("toy", gold, lmms_samples("toy"))
        _same_figures(got, expected)
        assert got.counts["submitted"] == gold.size


@pytest.mark.parametrize("order", ["stage1 stage2", "stage2 stage1"])
def test_scbs_two_samples_files_score_as_the_same_texts_in_our_jsonl(order, golds, tmp_path):
    gold = golds["scb"]
    expected = scoring.score_file("scb", gold, write_lines(tmp_path / "ours.jsonl", _ours_scb(gold)))
    files = [bundle.Part(written_name(f"scb_{t}"), lmms_samples(f"scb_{t}")) for t in order.split()]
    got = scoring.score_file("scb", gold, bundle.gather(files, 10**8), bbox_format="xyxy")
    _same_figures(got, expected)
    assert got.overall["miou"] is not None and got.counts["questions"] == gold.size


def _output_folder_zip(extra: dict[str, bytes] | None = None) -> bytes:
    """lmms-eval's output folder (results and samples files, as written) zipped as a team would."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(LMMS_EVAL.glob("*_results.json")):
            z.write(path, f"logs/toy/{path.name}")
        for task in ("scb_stage1", "scb_stage2"):
            z.writestr(f"logs/toy/{written_name(task)}", lmms_samples(task))
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_of_the_output_folder_is_one_submission(golds, tmp_path):
    gold = golds["scb"]
    expected = scoring.score_file("scb", gold, write_lines(tmp_path / "ours.jsonl", _ours_scb(gold)))
    _same_figures(scoring.score_file("scb", gold, _output_folder_zip()), expected)


def test_a_zip_is_bounded_and_says_which_limit_applied(golds):
    gold = golds["scb"]
    crowded = _output_folder_zip({f"logs/toy/note-{k}.txt": b"x" for k in range(bundle.MAX_MEMBERS)})
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", gold, crowded)
    assert e.value.total == 1 and f"the limit is {bundle.MAX_MEMBERS:,}" in e.value.issues[0].message
    assert "members" in e.value.issues[0].message
    small = scoring.jsonl.Limits(max_bytes=len(_output_folder_zip()) + 1)  # the zip fits; what it unpacks to does not
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", gold, _output_folder_zip(), limits=small)
    assert (
        e.value.total == 1 and "unpack to" in e.value.issues[0].message and "upload limit" in e.value.issues[0].message
    )


def test_a_zip_without_samples_says_what_to_zip(golds):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path in LMMS_EVAL.glob("*_results.json"):
            z.write(path, path.name)
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", golds["scb"], buffer.getvalue())
    assert e.value.total == 1 and "--log_samples" in e.value.issues[0].message


@pytest.mark.parametrize(
    ("bench", "task", "says"),
    [
        ("scb", "kviscuit", "of the kviscuit task"),
        ("kviscuit", "scb_stage1", "of the scb_stage1 task"),
        ("scb", "scb_stage2", "send both files together"),
    ],
)
def test_another_task_or_one_stage_of_two_is_one_message(bench, task, says, golds):
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file(bench, golds[bench], lmms_samples(task))
    assert e.value.total == 1 and e.value.issues[0].code == "file_shape"
    assert says in e.value.issues[0].message


def test_a_stage_given_twice_is_a_duplicate_not_a_grounding(golds):
    twice = bundle.gather([bundle.Part("a", lmms_samples("scb_stage1"))] * 2, 10**8)
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", golds["scb"], twice)
    assert e.value.total == 1 and "a samples file was given twice" in e.value.issues[0].message


def test_several_files_other_than_samples_are_one_message(golds):
    with pytest.raises(bundle.BundleError, match="send any other file alone"):
        bundle.gather(
            [bundle.Part("a", lmms_samples("scb_stage1")), bundle.Part("b.jsonl", b'{"question_id": 1}\n')], 10**8
        )


def test_the_stage2_lines_carry_the_family_the_prompt_asked(golds):
    converted = harness.as_submission(scoring.get_benchmark("scb"), golds["scb"], _output_folder_zip(), 10**8)
    first = json.loads(converted.data.splitlines()[0])
    assert first["grounding_format"] == "plain" and first["bbox_format"] == "xyxy_norm"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scoring", *args], capture_output=True, text=True, timeout=300)


def test_the_clis_take_both_stage_files(demo, golds, tmp_path):
    stage1 = tmp_path / written_name("scb_stage1")
    stage2 = tmp_path / written_name("scb_stage2")
    stage1.write_bytes(lmms_samples("scb_stage1"))
    stage2.write_bytes(lmms_samples("scb_stage2"))
    questions = write_lines(
        tmp_path / "scb-questions.jsonl", scoring.get_benchmark("scb").public_questions(demo["scb_gold"])
    )
    run = _cli(
        "validate", "--benchmark", "scb", "--questions", str(questions), "--predictions", str(stage1), str(stage2)
    )
    assert run.returncode == 0, run.stderr
    assert "valid" in run.stdout
    run = _cli("score", "--benchmark", "scb", "--gold", str(demo["scb_gold"]), "--no-cache", "--json",
               "--predictions", str(stage2), str(stage1))  # fmt: skip
    assert run.returncode == 0, run.stderr
    expected = scoring.score_file("scb", golds["scb"], write_lines(tmp_path / "ours.jsonl", _ours_scb(golds["scb"])))
    result = json.loads(run.stdout)
    assert result["overall"]["acc"] == expected.overall["acc"]
    assert result["overall"]["miou"] == pytest.approx(expected.overall["miou"], abs=0.001)
    only = _cli("validate", "--benchmark", "scb", "--questions", str(questions), "--predictions", str(stage2))
    assert only.returncode == 2 and "scb_stage1" in only.stderr


# ---- faults in a real file: the tool's lines, one thing changed (was tests/scoring/test_harness.py's imitation) ----


def _jsonl(samples: list[dict]) -> bytes:
    return b"".join(json.dumps(s, ensure_ascii=False).encode() + b"\n" for s in samples)


def test_the_stages_become_one_line_per_question_in_the_published_order(golds):
    gold = golds["scb"]
    data = _jsonl(_samples("scb_stage2")[:3] + _samples("scb_stage1")[:3])
    converted = harness.as_submission(scoring.get_benchmark("scb"), gold, data, 10**6)
    lines = [json.loads(t) for t in converted.data.splitlines()]
    stage1, stage2 = _samples("scb_stage1")[:3], _samples("scb_stage2")[:3]
    assert lines == [
        {"question_id": gold.keys[k], "response": stage1[k]["filtered_resps"],
         "grounding_response": stage2[k]["filtered_resps"], "grounding_format": "plain", "bbox_format": "xyxy_norm"}
        for k in range(3)
    ]  # fmt: skip
    assert converted.origin == (4, 5, 6)  # each line names the stage-1 record it came from


@pytest.mark.parametrize(
    ("task", "bench", "keep", "says"),
    [("kviscuit", "kviscuit", -1, "show the options of the question next to"), ("scb_stage1", "scb", None, "from 1")],
)
def test_positions_counted_from_one_are_one_error(task, bench, keep, says, golds):
    """doc_id + 1 on every sample: K-Viscuit's prompts then show the row before's options (the last
    sample left out, so no position runs past the end); SCB's options are images, so no prompt can
    show it, but positions 1..n are one error."""
    shifted = [dict(s, doc_id=s["doc_id"] + 1) for s in _samples(task)][:keep]
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file(bench, golds[bench], _jsonl(shifted))
    assert e.value.total == 1 and e.value.issues[0].code == "file_shape"
    assert says in e.value.issues[0].message


def test_bad_records_are_named_by_their_record(golds):
    samples = _samples("kviscuit")
    samples[3]["doc_id"] = 900
    samples[10]["filtered_resps"] = 5
    samples[12]["input"] = samples[13]["input"]  # the next question's prompt
    samples[20]["input"] = "What is this? Answer with a letter."  # no options shown: says nothing
    assert samples[7]["doc_hash"] == samples[6]["doc_hash"]  # as lmms-eval writes every one: says nothing either
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", golds["kviscuit"], _jsonl(samples))
    assert [(i.line, i.code) for i in e.value.issues] == [
        (4, "harness_position"),
        (11, "bad_response"),
        (13, "harness_options"),
    ]
    assert "0-656" in e.value.issues[0].message


def test_a_prompt_without_the_options_is_no_evidence(golds, tmp_path):
    gold = golds["kviscuit"]
    samples = [dict(s, input="Look at the image and answer with the letter.") for s in _samples("kviscuit")]
    expected = scoring.score_file("kviscuit", gold, write_lines(tmp_path / "ours.jsonl", _ours_kviscuit(gold)))
    _same_figures(scoring.score_file("kviscuit", gold, _jsonl(samples)), expected)


def test_the_offline_validator_reads_the_file_as_written(demo, tmp_path):
    listed = write_lines(tmp_path / "kviscuit-questions.jsonl",
                         scoring.get_benchmark("kviscuit").public_questions(demo["kviscuit_gold"]))  # fmt: skip
    samples = tmp_path / written_name("kviscuit")
    samples.write_bytes(lmms_samples("kviscuit"))
    run = _cli(
        "validate", "--benchmark", "kviscuit", "--questions", str(listed), "--predictions", str(samples), "--json"
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["answered"] == len(_samples("kviscuit")) and report["lenient"] == report["answered"]


def test_the_documented_merge_of_scbs_two_stages_gives_the_file_the_site_reads(golds, tmp_path):
    """docs/submitting.md's command, run as written on the files as lmms-eval names them."""
    import re

    from tests.support.scoring import REPO_ROOT

    guide = (REPO_ROOT / "docs" / "submitting.md").read_text(encoding="utf-8")
    (command,) = [
        b for b in re.findall(r"```bash\n(.*?)```", guide, re.S) if b.startswith("cat ") and "_samples_scb_stage1" in b
    ]
    for task in ("scb_stage1", "scb_stage2"):
        (tmp_path / written_name(task)).write_bytes(lmms_samples(task))
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True, timeout=30)
    gold = golds["scb"]
    expected = scoring.score_file("scb", gold, write_lines(tmp_path / "ours.jsonl", _ours_scb(gold)))
    _same_figures(scoring.score_file("scb", gold, tmp_path / "samples_scb.jsonl"), expected)


def test_lmms_evals_own_results_file_is_one_message_naming_the_samples_file(golds):
    (results, *_) = sorted(LMMS_EVAL.glob("*_results.json"))
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("kviscuit", golds["kviscuit"], results)
    assert e.value.total == 1 and "<date>_samples_<task>.jsonl" in e.value.issues[0].message


def test_a_stage2_asked_in_qwen2_5_vl_is_left_to_the_declared_pixel_preset(golds):
    """Qwen2.5-VL's boxes are pixels of a resize the serving stack chose (qwen2_5_vl:lmms-eval): the line
    names no family, so the submission's declaration reads it; plain's lines name theirs (above)."""
    from scoring.benchmarks.protocol import GROUNDING_PRESETS

    plain, qwen = GROUNDING_PRESETS["plain"].instruction, GROUNDING_PRESETS["qwen2_5_vl"].instruction
    stage2 = [dict(s, input=s["input"].replace(plain, qwen)) for s in _samples("scb_stage2")[:2]]
    converted = harness.as_submission(
        scoring.get_benchmark("scb"), golds["scb"], _jsonl(_samples("scb_stage1")[:2] + stage2), 10**6
    )
    lines = [json.loads(t) for t in converted.data.splitlines()]
    assert [set(x) for x in lines] == [{"question_id", "response", "grounding_response"}] * 2


def test_stage1_alone_is_valid_but_warns_that_no_answer_is_grounded(golds):
    """lmms-eval's SCB stage-1 file sent without its stage-2 file answers every question and grounds
    none: it may be scored (accuracy is real), but the team is told mIoU counts every question as 0
    and how to send the grounding; both stages together carry no such warning."""
    gold = golds["scb"]
    alone = check_file("scb", gold, lmms_samples("scb_stage1"))
    assert alone.answered == gold.size
    assert [w.code for w in alone.warnings] == ["no_grounding"]
    said = alone.summary()
    assert "mIoU" in said and "stage-2" in said and "both files" in said
    both = [bundle.Part(written_name(f"scb_{t}"), lmms_samples(f"scb_{t}")) for t in ("stage1", "stage2")]
    together = check_file("scb", gold, bundle.gather(both, 10**8), bbox_format="xyxy").warnings
    assert [w.code for w in together] == ["constant_box"]  # no no_grounding; the toy answers one box everywhere
    kviscuit = check_file("kviscuit", golds["kviscuit"], lmms_samples("kviscuit"))
    assert kviscuit.warnings == ()  # no grounding metric: nothing to warn about


# ---- a whole logs/ folder as one zip; error lines name the file inside the upload (issue 42, item 2) ----

LOGGED_TASKS = ("kviscuit", "scb_stage1", "scb_stage2")
"""What the documented run leaves in one logs/ folder: ``--tasks kviscuit,scb_stage1``, then ``--tasks scb_stage2``."""


def _logs_zip(per_task: bool, samples: dict[str, bytes] | None = None) -> bytes:
    """The documented run's logs/ zipped as a team would (``logs/toy/...``): the results files and the
    three samples files lmms-eval 0.7.3 wrote, flat or (``per_task``) each task's in a folder of its own."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(LMMS_EVAL.glob("*_results.json")):
            z.write(path, f"logs/toy/{path.name}")
        for task in LOGGED_TASKS:
            folder = f"logs/toy/{task}/" if per_task else "logs/toy/"
            z.writestr(folder + written_name(task), (samples or {}).get(task) or lmms_samples(task))
    return buffer.getvalue()


@pytest.mark.parametrize("per_task", [False, True], ids=["flat", "a-folder-per-task"])
def test_a_zip_of_the_whole_logs_folder_scores_each_benchmark_as_its_own_files_do(per_task, golds, tmp_path):
    """Before: SCB gave 657 duplicate_question_id errors (the K-Viscuit samples read as stage 1), and
    K-Viscuit "these lmms-eval samples are of the scb_stage1 task"."""
    logs = _logs_zip(per_task)
    scb = scoring.score_file("scb", golds["scb"], write_lines(tmp_path / "scb.jsonl", _ours_scb(golds["scb"])))
    _same_figures(scoring.score_file("scb", golds["scb"], logs), scb)
    _same_figures(scoring.score_file("kviscuit", golds["kviscuit"], logs), scoring.score_file(
        "kviscuit", golds["kviscuit"], lmms_samples("kviscuit")))  # fmt: skip


def test_the_other_benchmarks_files_are_set_aside_with_a_note_not_an_error(golds):
    logs = _logs_zip(per_task=True)
    scb = check_file("scb", golds["scb"], logs)
    (note,) = [w for w in scb.warnings if w.code == "set_aside_files"]
    assert f"logs/toy/kviscuit/{written_name('kviscuit')}" in note.message and "K-Viscuit" in note.message
    assert "scb_stage" not in note.message
    kviscuit = check_file("kviscuit", golds["kviscuit"], logs)
    (note,) = [w for w in kviscuit.warnings if w.code == "set_aside_files"]
    assert written_name("scb_stage1") in note.message and written_name("scb_stage2") in note.message
    assert scb.answered == golds["scb"].size and kviscuit.answered == golds["kviscuit"].size


def test_a_zip_of_the_other_benchmarks_files_only_is_still_one_message(golds):
    only = io.BytesIO()
    with zipfile.ZipFile(only, "w") as z:
        z.writestr(f"logs/toy/{written_name('kviscuit')}", lmms_samples("kviscuit"))
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", golds["scb"], only.getvalue())
    assert e.value.total == 1 and e.value.issues[0].code == "file_shape"
    assert "kviscuit" in e.value.issues[0].message


def _with_faults() -> dict[str, bytes]:
    """Stage 1 with its line 12 naming no position, stage 2 with its line 5 one past the end."""
    stage1, stage2 = _samples("scb_stage1"), _samples("scb_stage2")
    stage1[11]["doc_id"] = "twelve"
    stage2[4]["doc_id"] = len(stage2)
    return {"scb_stage1": _jsonl(stage1), "scb_stage2": _jsonl(stage2)}


def _places(issues) -> set[tuple[str, int, str]]:
    return {(i.file, i.line, i.code) for i in issues}


def test_error_lines_of_a_zip_name_the_member_and_its_own_line(golds):
    """Before: "line 3190" for stage 2's line 5 (the line in the files joined), and no file named."""
    with pytest.raises(scoring.SubmissionError) as e:
        scoring.validate_file("scb", golds["scb"], _logs_zip(per_task=False, samples=_with_faults()))
    assert _places(e.value.issues) == {
        (f"logs/toy/{written_name('scb_stage1')}", 12, "harness_position"),
        (f"logs/toy/{written_name('scb_stage2')}", 5, "harness_position"),
    }
    assert str(next(i for i in e.value.issues if i.file.endswith("stage2.jsonl"))).startswith(
        f"logs/toy/{written_name('scb_stage2')} line 5: "
    )


def test_error_lines_of_two_files_name_the_file_and_its_own_line(demo, tmp_path):
    faults = _with_faults()
    stage1, stage2 = tmp_path / written_name("scb_stage1"), tmp_path / written_name("scb_stage2")
    stage1.write_bytes(faults["scb_stage1"])
    stage2.write_bytes(faults["scb_stage2"])
    questions = write_lines(
        tmp_path / "scb-questions.jsonl", scoring.get_benchmark("scb").public_questions(demo["scb_gold"])
    )
    run = _cli("validate", "--benchmark", "scb", "--questions", str(questions),
               "--predictions", str(stage2), str(stage1))  # fmt: skip
    assert run.returncode == 2
    assert f"{written_name('scb_stage1')} line 12: doc_id 'twelve'" in run.stderr
    assert f"{written_name('scb_stage2')} line 5: doc_id {len(_samples('scb_stage2'))}" in run.stderr
    assert "line 3190" not in run.stderr and "line 3183" not in run.stderr
