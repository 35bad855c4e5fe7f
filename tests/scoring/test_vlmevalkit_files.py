"""Prediction files written by VLMEvalKit 0.0.20 itself (issue 28), read as written: its own
inference (``infer_data_job``, ``OpenAIWrapper``) ran the leaderboard's dataset classes
(``vlmevalkit/``) on the embedded default's TSVs against the toy endpoint
(scripts/harness-fixtures/vlmevalkit.sh keeps how; ``environment.txt`` what was installed).
Each scores exactly as the same texts in the project's JSON Lines, through the library and the CLI.

What VLMEvalKit writes that one would not guess, each pinned below: the workbook holds every TSV
column back, ``image_path`` rewritten from the TSV's JSON list to a Python list's repr
(``"['scb/images/img-01939.png', ...]"``); ``index`` comes back as a number; an API call that kept
failing leaves its failure text as the prediction ("Failed to obtain answer via API.: ..."), which
must read as unparsed, never as a letter (its "API" holds an A).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import scoring
import scoring.answers
from scoring.benchmarks import get_benchmark
from scoring.readers import harness_files as harness
from tests.support import demo, toy
from tests.support.scoring import write_lines

openpyxl = pytest.importorskip("openpyxl")

VERSION = "0.0.20"
FIXTURES = Path(__file__).parents[1] / "fixtures" / "harness" / f"vlmevalkit-{VERSION}"
KVISCUIT = FIXTURES / "toy_KViscuit_LB.xlsx"
SCB_STAGE1 = FIXTURES / "toy_SCB_LB.xlsx"
SCB_STAGE2 = FIXTURES / "toy_SCB_LB_STAGE2.xlsx"
TOY = FIXTURES / "toy_toy_LB.xlsx"
"""The example plugin's dataset (``toy_LB``, its id as harness_name) run by the model named toy."""
REPO = Path(__file__).resolve().parents[2]


def rows_of(path: Path) -> list[dict]:
    """The rows as VLMEvalKit wrote them: a workbook's first sheet, a TSV (pandas, every cell quoted),
    or a JSON array of records (vlmeval/smp/file.py ``dump``), read here without the site's reader."""
    if path.suffix == ".tsv":
        return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""), delimiter="\t"))
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    sheet = openpyxl.load_workbook(path, read_only=True).worksheets[0]
    header, *rows = list(sheet.iter_rows(values_only=True))
    return [dict(zip(header, row, strict=True)) for row in rows]


@pytest.fixture(scope="module")
def demo_golds(tmp_path_factory) -> dict[str, Path]:
    """The embedded default's golds: what the fixtures' TSVs were published from."""
    folder = tmp_path_factory.mktemp("demo-golds")
    return {
        "scb": demo.write_jsonl(folder / "scb_gold.jsonl", demo.scb_gold(options=True)),
        "kviscuit": demo.write_jsonl(folder / "kviscuit_gold.jsonl", demo.kviscuit_gold()),
    }


def same_texts_as_jsonl(bench: str, gold: scoring.Gold, path: Path, out: Path) -> Path:
    """The workbook's texts as the project's JSON Lines (stage 2's row: both answers and the family)."""
    lines = []
    key = scoring.get_benchmark(bench).key_field
    for row in rows_of(path):
        line = {key: gold.keys[int(row["index"])]}
        if "stage1_prediction" in row:
            line |= {"response": str(row["stage1_prediction"]), "grounding_response": str(row["prediction"])}
            line |= {"grounding_format": row["grounding_format"], "bbox_format": row["bbox_format"]}
        else:
            line["response"] = str(row["prediction"])
        lines.append(line)
    return write_lines(out, lines)


def scored_alike(bench: str, gold_path: Path, path: Path, tmp_path: Path) -> scoring.ResultRecord:
    gold = scoring.load_gold(bench, gold_path)
    expected = scoring.score_file(bench, gold, same_texts_as_jsonl(bench, gold, path, tmp_path / "ours.jsonl"))
    got = scoring.score_file(bench, gold, path)
    assert got.to_dict() == expected.to_dict()
    return got


def test_the_fixtures_are_what_vlmevalkit_wrote():
    assert (FIXTURES / "environment.txt").read_text().count(f"ms-vlmeval=={VERSION}") == 1
    kviscuit = rows_of(KVISCUIT)
    assert len(kviscuit) == 657 and [r["index"] for r in kviscuit] == list(range(657))
    assert list(kviscuit[0]) == [
        "index", "question", "A", "B", "C", "D", "image_path", "category", "l2-category", "prediction",
    ]  # fmt: skip
    stage1, stage2 = rows_of(SCB_STAGE1), rows_of(SCB_STAGE2)
    assert [r["index"] for r in stage2] == [r["index"] for r in stage1]
    assert [r["stage1_prediction"] for r in stage2] == [r["prediction"] for r in stage1]
    assert {(r["grounding_format"], r["bbox_format"]) for r in stage2} == {("plain", "xyxy_norm")}
    # surprising: the TSV's JSON list of images comes back as a Python list's repr
    assert stage1[0]["image_path"].startswith("['scb/images/img-") and '"' not in stage1[0]["image_path"]
    assert all(isinstance(r["index"], int) for r in stage1)


VLMEVALKIT_FAILURE = "Failed to obtain answer via API.: Failed with all possible conversation turns."
"""What VLMEvalKit 0.0.20's API models return after their retries (vlmeval/api/base.py ``fail_msg``)."""


def test_vlmevalkits_failure_text_is_unparsed_not_a_letter():
    assert scoring.answers.read_response(VLMEVALKIT_FAILURE, "ABCD").letter is None
    assert scoring.answers.read_response(VLMEVALKIT_FAILURE.split(":")[0], "ABCD").letter is None


@pytest.mark.parametrize("written", [KVISCUIT, KVISCUIT.with_suffix(".tsv"), KVISCUIT.with_suffix(".json")])
def test_kviscuit_files_score_as_the_same_texts(written, demo_golds, tmp_path):
    """The default workbook and the two other formats VLMEvalKit writes (``PRED_FORMAT=tsv|json``)."""
    result = scored_alike("kviscuit", demo_golds["kviscuit"], written, tmp_path)
    assert result.counts["submitted"] == 657 and result.counts["lenient"] == 657  # "The answer is C."
    assert result.overall["acc_strict"] == 0.0


def test_the_plugins_workbook_scores_as_its_texts(tmp_path):
    """VLMEvalKit 0.0.20 ran the example plugin through the family's dataset class on the toy's TSV
    (``/questions/toy.tsv``, its own field names written as VLMEvalKit's columns): the workbook holds a
    prediction for every question and scores as its texts keyed by ``qid``."""
    from scoring.benchmarks.toy import demo as toy_demo

    with toy.registered():
        rows = rows_of(TOY)
        assert [r["index"] for r in rows] == list(range(12)) and list(rows[0])[:6] == ["index", "question", *"ABCD"]
        gold_path = demo.write_jsonl(tmp_path / "toy_gold.jsonl", toy_demo.toy_gold(0))
        result = scored_alike("toy", gold_path, TOY, tmp_path)
        assert result.counts["submitted"] == 12 and all(r["prediction"] for r in rows)


def test_scb_stage1_xlsx_scores_its_choices(demo_golds, tmp_path):
    result = scored_alike("scb", demo_golds["scb"], SCB_STAGE1, tmp_path)
    assert result.counts["submitted"] == len(rows_of(SCB_STAGE1)) and result.overall["miou"] is None


def test_scb_stage2_xlsx_carries_both_stages(demo_golds, tmp_path):
    """One file, as VLMEvalKit wrote it: the same accuracy as stage 1's, and a grounding read in the
    family's grammar (plain boxes, normalised)."""
    result = scored_alike("scb", demo_golds["scb"], SCB_STAGE2, tmp_path)
    stage1 = scoring.score_file("scb", scoring.load_gold("scb", demo_golds["scb"]), SCB_STAGE1)
    assert result.overall["acc"] == stage1.overall["acc"] and result.counts["submitted"] == stage1.counts["submitted"]
    assert result.overall["miou"] is not None and result.overall["miou"] > 0
    assert result.counts["grounding_unparsed"] == 0


def test_a_stage2_file_for_kviscuit_is_one_clear_error(demo_golds):
    gold = scoring.load_gold("kviscuit", demo_golds["kviscuit"])
    with pytest.raises(harness.ShapeError, match="SCB's stage 2"):
        harness.as_submission(get_benchmark("kviscuit"), gold, SCB_STAGE2.read_bytes(), 10**8)


@pytest.mark.parametrize(("bench", "path"), [("kviscuit", KVISCUIT), ("scb", SCB_STAGE2)])
def test_the_clis_take_the_files_as_written(bench, path, demo_golds, tmp_path):
    """``python -m scoring validate`` (public list only) and ``score`` (gold) read the workbook as is."""
    listed = write_lines(tmp_path / "questions.jsonl", get_benchmark(bench).public_questions(demo_golds[bench]))

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "scoring", *args, "--benchmark", bench, "--predictions", str(path),
                               "--json"], capture_output=True, text=True, timeout=300, cwd=REPO)  # fmt: skip

    check = cli("validate", "--questions", str(listed))
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["answered"] == len(rows_of(path))
    score = cli("score", "--gold", str(demo_golds[bench]))
    assert score.returncode == 0, score.stderr
    gold = scoring.load_gold(bench, demo_golds[bench])
    expected = scoring.score_file(bench, gold, same_texts_as_jsonl(bench, gold, path, tmp_path / "ours.jsonl"))
    assert json.loads(score.stdout)["overall"]["acc"] == expected.overall["acc"]


def test_a_qwen2_5_vl_stage2_row_is_left_to_the_declared_preset(demo_golds, tmp_path):
    """Qwen2.5-VL boxes are pixels of the serving stack's resize (an endpoint's Hub config, or
    VLMEvalKit's own model class: ``qwen2_5_vl:vlmevalkit``): the row's family name must not override
    the submission's declaration, as for lmms-eval's stage 2. VLMEvalKit's rows, family renamed."""
    rows = [dict(r, grounding_format="qwen2_5_vl", bbox_format="") for r in rows_of(SCB_STAGE2)]
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(rows[0]), delimiter="\t")
    writer.writeheader()
    writer.writerows(rows)
    gold = scoring.load_gold("scb", demo_golds["scb"])
    converted = harness.as_submission(get_benchmark("scb"), gold, table.getvalue().encode(), 10**8)
    lines = [json.loads(x) for x in converted.data.splitlines()]
    assert len(lines) == 3178 and all("grounding_format" not in x and "grounding_response" in x for x in lines)
