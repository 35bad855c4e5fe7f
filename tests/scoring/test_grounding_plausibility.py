"""No silent wrong figure (issue 42, team trial step 3b): every grounding a file gives (a ``bbox``, a
``grounding_response`` in any family, what the lmms-eval and Inspect stage-2 readers make) passes the
same plausibility checks before it is scored, and a file that would score mIoU 0 because its boxes
are read in a convention they are not in is stopped with one message naming the declaration that
reads them (``Issue.suggested``, which the Submit form pre-fills).

The files of 2026-12-02 were written by the project's own lmms-eval tasks before 054fe6e, whose
stage 2 asked "Locate the artifact in the image." with no convention; the reviewers did not keep
them, so they are rebuilt from the kept lmms-eval 0.7.3 fixtures by rewriting each sample's ``input``
as those tasks wrote it (tests/support/harness_files.py ``old_task_samples``). The model's answers are
the toy's own ``[0.15, 0.2, 0.7, 0.8]``, as in the teams' files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
from scoring.errors import suggested_settings
from scoring.readers import bundle
from scoring.validation import check_file
from tests.support.harness_files import demo_gold_files, lmms_samples, old_task_samples, written_name
from tests.support.scoring import REPO_ROOT, write_lines


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> dict[str, Path]:
    return demo_gold_files(str(tmp_path_factory.mktemp("demo")))


@pytest.fixture(scope="module")
def golds(demo) -> tuple[scoring.Gold, scoring.Gold]:
    """The demo SCB gold and its public question list (no answer, no mask)."""
    return scoring.load_gold("scb", demo["scb_gold"]), scoring.load_questions("scb", demo["scb_questions"])


@pytest.fixture(scope="module")
def old_pair(tmp_path_factory) -> list[Path]:
    folder = tmp_path_factory.mktemp("old")
    paths = []
    for task in ("scb_stage1", "scb_stage2"):
        path = folder / written_name(task).replace("20261205", "20261202")
        path.write_bytes(old_task_samples(task))
        paths.append(path)
    return paths


def _joined(paths: list[Path]) -> bytes:
    return bundle.gather([bundle.Part(p.name, p.read_bytes()) for p in paths], 10**8)


def _issues(gold: scoring.Gold, data: bytes, **kw) -> list[scoring.Issue]:
    with pytest.raises(scoring.SubmissionError) as e:
        check_file("scb", gold, data, **kw)
    return e.value.issues


def test_the_old_tasks_files_without_a_declaration_are_told_plain_with_xyxy_norm(golds, old_pair):
    for gold in golds:
        (issue,) = _issues(gold, _joined(old_pair))
        assert issue.code == "missing_grounding_format"
        assert "grounding_format plain with bbox_format xyxy_norm" in issue.message
        assert suggested_settings(issue) == {"grounding_format": "plain", "bbox_format": "xyxy_norm"}


def test_the_old_tasks_files_declared_plain_with_the_default_xyxy_are_stopped_naming_xyxy_norm(golds, old_pair):
    """Team trial 3b: "valid", then mIoU 0.00 (a 0.55 x 0.6 pixel box on every image)."""
    for gold in golds:
        (issue,) = _issues(gold, _joined(old_pair), grounding_format="plain")
        assert issue.code == "suspect_bbox_format" and "lies in 0-1" in issue.message
        assert "Did you mean xyxy_norm" in issue.message
        assert suggested_settings(issue) == {"bbox_format": "xyxy_norm"}


def test_declared_as_suggested_the_old_files_score_as_todays_tasks_files(golds, old_pair):
    gold = golds[0]
    data = _joined(old_pair)
    assert check_file("scb", golds[1], data, grounding_format="plain", bbox_format="xyxy_norm").answered == gold.size
    got = scoring.score_file("scb", gold, data, grounding_format="plain", bbox_format="xyxy_norm")
    today = [bundle.Part(written_name(f"scb_{t}"), lmms_samples(f"scb_{t}")) for t in ("stage1", "stage2")]
    expected = scoring.score_file("scb", gold, bundle.gather(today, 10**8))
    assert got.overall["miou"] == pytest.approx(expected.overall["miou"], abs=1e-9) and got.overall["miou"] > 5
    assert got.overall["acc"] == expected.overall["acc"]


def test_confirmed_the_declaration_is_read_as_given(golds, old_pair):
    """The one override (confirm_box_format): the team says plain pixels are meant; nothing stops it."""
    report = check_file("scb", golds[1], _joined(old_pair), grounding_format="plain", confirm_box_format=True)
    assert report.answered == golds[1].size


def _cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scoring", *map(str, args)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_command_line_validate_and_score_stop_the_pair_and_name_xyxy_norm(demo, old_pair):
    validate = _cli(
        "validate", "--benchmark", "scb", "--questions", demo["scb_questions"], "--predictions", *old_pair,
        "--grounding-format", "plain",
    )  # fmt: skip
    assert validate.returncode == 2 and "Did you mean xyxy_norm" in validate.stderr, validate.stderr
    score = ["score", "--benchmark", "scb", "--gold", demo["scb_gold"], "--no-cache", "--json", "--predictions"]
    stopped = _cli(*score, *old_pair, "--grounding-format", "plain")
    assert stopped.returncode == 2 and "Did you mean xyxy_norm" in stopped.stderr, stopped.stderr
    assert '"miou"' not in stopped.stdout
    bare = _cli(*score, *old_pair)
    assert bare.returncode == 2 and "--grounding-format plain --bbox-format xyxy_norm" in bare.stderr
    right = _cli(*score, *old_pair, "--grounding-format", "plain", "--bbox-format", "xyxy_norm")
    assert right.returncode == 0 and json.loads(right.stdout)["overall"]["miou"] > 5
    confirmed = _cli(*score, *old_pair, "--grounding-format", "plain", "--confirm-box-format")
    assert confirmed.returncode == 0 and json.loads(confirmed.stdout)["overall"]["miou"] == 0.0


# ---- every family, every way in ----


def _answered(gold: scoring.Gold, n: int = 60) -> list[dict]:
    """Lines answering the first ``n`` questions with option A (a public frame: A's size)."""
    return [{"question_id": k, "answer": "A"} for k in gold.keys[:n]]


@pytest.mark.parametrize(
    ("family", "text"),
    [
        ("qwen2_vl", "<|box_start|>(0.15,0.2),(0.7,0.8)<|box_end|>"),
        ("qwen3_vl", '[{"bbox_2d": [0.15, 0.2, 0.7, 0.8]}]'),
        ("internvl", "<ref>it</ref><box>[[0.15, 0.2, 0.7, 0.8]]</box>"),
        ("gemini", '[{"box_2d": [0.2, 0.15, 0.8, 0.7], "label": "it"}]'),
    ],
)
def test_a_0_1000_family_given_numbers_in_0_1_is_stopped_naming_plain_xyxy_norm(golds, tmp_path, family, text):
    """Boxes of a thousandth of the image on every line: the family's convention does not fit the numbers."""
    lines = [x | {"grounding_response": text} for x in _answered(golds[1])]
    path = write_lines(tmp_path / "f.jsonl", lines)
    (issue,) = _issues(golds[1], path.read_bytes(), grounding_format=family)
    assert issue.code == "suspect_grounding_format" and "lies in 0-1" in issue.message
    assert suggested_settings(issue) == {"grounding_format": "plain", "bbox_format": "xyxy_norm"}
    assert _issues(golds[0], path.read_bytes(), grounding_format=family) == [issue]  # the gold says nothing more


def test_lines_that_declare_their_own_family_are_checked_too(golds, tmp_path):
    """What the lmms-eval and Inspect stage-2 readers make: the family the prompt asked, on each line.
    The form cannot change it, so the message says so and the file can only be confirmed or rewritten."""
    text = '[{"bbox_2d": [0.15, 0.2, 0.7, 0.8]}]'
    lines = [x | {"grounding_response": text, "grounding_format": "qwen3_vl"} for x in _answered(golds[1])]
    (issue,) = _issues(golds[1], write_lines(tmp_path / "f.jsonl", lines).read_bytes())
    assert issue.code == "suspect_grounding_format" and "its lines declare" in issue.message
    assert suggested_settings(issue) == {}


def test_pixel_boxes_far_outside_the_answered_images_are_stopped(golds, tmp_path):
    """Pixels of another frame (e.g. a resize no preset names): most boxes reach far past the image."""
    frames = golds[1].extra["option_sizes"]
    lines = []
    for row, x in enumerate(_answered(golds[1])):
        w, h = (int(v) for v in frames[row, 0])
        lines.append(x | {"bbox": [w * 1.5, h * 1.5, w * 2.5, h * 2.5]})
    (issue,) = _issues(golds[1], write_lines(tmp_path / "f.jsonl", lines).read_bytes())
    assert issue.code == "suspect_bbox_format" and "outside the answered image" in issue.message
    assert "bbox_ref_size" in issue.message


def test_one_constant_box_for_every_question_is_a_warning(golds, tmp_path):
    """The same box whatever the image is a weak answer, not a misread one: said, and scored as it is."""
    lines = [x | {"bbox": [0.1, 0.1, 0.5, 0.625]} for x in _answered(golds[1])]
    path = write_lines(tmp_path / "f.jsonl", lines)
    report = check_file("scb", golds[1], path.read_bytes(), bbox_format="xyxy_norm")
    assert [w.code for w in report.warnings] == ["constant_box"]
    assert "[0.1, 0.1, 0.5, 0.625]" in report.warnings[0].message
    varied = [x | {"bbox": [0.1, 0.1, 0.5, 0.6 + k / 1000]} for k, x in enumerate(_answered(golds[1]))]
    path = write_lines(tmp_path / "g.jsonl", varied)
    assert check_file("scb", golds[1], path.read_bytes(), bbox_format="xyxy_norm").warnings == ()
