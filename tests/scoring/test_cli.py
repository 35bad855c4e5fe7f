"""``python -m scoring score``: exit codes, the JSON record of SPEC, the table, the gold cache,
and the gold read from JSONL, Parquet and COCO JSON.

Gold: the 15-question demo SCB gold (polygons and one RLE mask) and the demo K-Viscuit gold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import scoring
from tests.support import demo
from tests.support.scoring import REPO_ROOT, write_lines

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

FIGURES = {"acc", "acc_ci", "miou", "miou_ci", "gacc50", "ciou", "questions", "correct"}


def run_cli(*args: str, cache_dir=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if cache_dir is None:
        args = (*args, "--no-cache")
    else:
        env["SCORING_CACHE_DIR"] = str(cache_dir)
    return subprocess.run(
        [sys.executable, "-m", "scoring", "score", *map(str, args)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def scb_good_submission(scb_small_records, tmp_path_factory):
    lines = demo.scb_submission(scb_small_records, 0.8, "bbox_good", seed=3, box_format="xyxy_1000", missing=1)
    return write_lines(tmp_path_factory.mktemp("cli") / "scb_good.jsonl", lines)


@pytest.fixture(scope="module")
def scb_good_json(scb_small_gold_path, scb_good_submission):
    proc = run_cli(
        "--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", scb_good_submission,
        "--bbox-format", "xyxy_1000", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


SCB_KEYS = {"benchmark", "gold_version", "scorer_version", "counts", "overall", "type", "country", "category"}


def test_scb_json_record_has_the_spec_shape(scb_good_json, scb_small_records, scb_small_gold, scb_good_submission):
    record = scb_good_json
    assert set(record) == SCB_KEYS
    assert record["benchmark"] == "scb"
    assert record["gold_version"] == scb_small_gold.version and len(record["gold_version"]) == 64
    assert record["scorer_version"] == scoring.SCORER_VERSION
    gold_answer = {r["question_id"]: r["answer"] for r in scb_small_records}
    lines = [json.loads(t) for t in scb_good_submission.read_text(encoding="utf-8").splitlines()]
    right = [x for x in lines if x["answer"] == gold_answer[x["question_id"]]]
    assert record["counts"] == {
        "questions": 15,
        "submitted": 14,
        "missing": 1,
        "unparsed": 0,
        "grounded": sum("bbox" in x for x in right),
    }
    assert record["overall"]["acc"] == pytest.approx(100 * len(right) / 15)
    assert set(record["overall"]) >= FIGURES
    assert set(record["type"]) == {"1", "2", "3"}
    assert set(record["country"]) == {r["country"] for r in scb_small_records}
    assert set(record["category"]) == {r["category"] for r in scb_small_records}
    assert all(set(s) >= FIGURES for g in ("type", "country", "category") for s in record[g].values())


def test_cli_json_equals_the_in_process_result(scb_good_json, scb_small_gold, scb_good_submission):
    result = scoring.score_file("scb", scb_small_gold, scb_good_submission, bbox_format="xyxy_1000")
    assert scb_good_json == json.loads(json.dumps(result.to_dict()))


def test_kviscuit_json_record(kviscuit_demo_records, kviscuit_demo_gold_path, tmp_path):
    lines = demo.kviscuit_submission(kviscuit_demo_records, 0.5708, seed=206, missing=12)
    sub = write_lines(tmp_path / "kv.jsonl", lines)
    proc = run_cli("--benchmark", "kviscuit", "--gold", kviscuit_demo_gold_path, "--predictions", sub, "--json")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert set(record) == {"benchmark", "gold_version", "scorer_version", "counts", "overall", "type", "category"}
    assert record["counts"] == {"questions": 657, "submitted": 645, "missing": 12, "unparsed": 0}
    assert {"acc", "acc_ci"} <= set(record["overall"])
    assert "miou" not in record["overall"]
    assert set(record["type"]) == {"1", "2"}
    assert len(record["category"]) == 10


def test_bad_file_exits_2_with_line_numbered_errors(scb_small_gold_path, scb_small_records, tmp_path):
    qid = scb_small_records[0]["question_id"]
    lines = [
        {"question_id": qid, "answer": "A"},
        "{not json",
        {"question_id": "nope", "answer": "A"},
        {"question_id": qid, "answer": "B"},
    ]
    sub = write_lines(tmp_path / "bad.jsonl", lines)
    for extra in ([], ["--json"]):
        proc = run_cli("--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", sub, *extra)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert "line 2" in proc.stderr and "line 3" in proc.stderr and "line 4" in proc.stderr
        if extra:
            errors = json.loads(proc.stdout)
            assert [(e["code"], e["line"]) for e in errors["errors"]] == [
                ("json_decode", 2),
                ("unknown_question_id", 3),
                ("duplicate_question_id", 4),
            ]
            assert errors["total"] == 3


def test_min_coverage_only_when_asked(scb_small_gold_path, scb_good_submission, scb_good_json):
    """The fixture submission leaves 1 of 15 questions out (93 %): scored unless --min-coverage."""
    assert scb_good_json["counts"]["missing"] == 1
    base = ("--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", scb_good_submission)
    base += ("--bbox-format", "xyxy_1000", "--json")
    assert json.loads(run_cli(*base, "--min-coverage", "0.9").stdout) == scb_good_json
    proc = run_cli(*base, "--min-coverage", "0.95")
    assert proc.returncode == 2
    assert [(e["code"], e["line"]) for e in json.loads(proc.stdout)["errors"]] == [("too_few_answers", 0)]
    assert "1 missing" in proc.stderr
    assert run_cli(*base, "--min-coverage", "95").returncode == 2  # a share, not a percentage
    assert "between 0 and 1" in run_cli(*base, "--min-coverage", "95").stderr


def test_bad_gold_exits_1_without_traceback(scb_good_submission, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"question_id": "q1"}\n', encoding="utf-8")
    proc = run_cli("--benchmark", "scb", "--gold", gold, "--predictions", scb_good_submission)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "gold" in proc.stderr


def test_readable_table_without_json(scb_small_gold_path, scb_good_submission, scb_good_json):
    proc = run_cli(
        "--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", scb_good_submission,
        "--bbox-format", "xyxy_1000",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert not out.lstrip().startswith("{")
    for label in ("overall", "Accuracy", "mIoU", "type:", "country:", "category:", "counts:"):
        assert label in out, label
    assert f"{scb_good_json['overall']['acc']:6.2f}" in out


def test_compiled_gold_cache_gives_the_same_result(scb_small_gold_path, scb_good_submission, scb_good_json, tmp_path):
    cache = tmp_path / "cache"
    args = ("--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", scb_good_submission)
    args += ("--bbox-format", "xyxy_1000", "--json")
    first = run_cli(*args, cache_dir=cache)
    assert first.returncode == 0, first.stderr
    entries = list(cache.glob("*.pickle"))
    assert len(entries) == 1
    stamp = entries[0].stat().st_mtime_ns
    second = run_cli(*args, cache_dir=cache)
    assert second.returncode == 0, second.stderr
    assert json.loads(first.stdout) == json.loads(second.stdout) == scb_good_json
    assert entries[0].stat().st_mtime_ns == stamp  # read, not rewritten


# --------------------------------------------------------------------------- gold formats


def test_gold_version_is_the_same_in_jsonl_and_parquet(scb_small_records, tmp_path):
    pd = pytest.importorskip("pandas")
    jsonl = scoring.load_gold("scb", demo.write_jsonl(tmp_path / "gold.jsonl", scb_small_records))
    # segmentation as JSON text (polygons and RLE in one column)
    frame = pd.DataFrame(scb_small_records)
    frame["segmentation"] = [json.dumps(s) for s in frame["segmentation"]]
    frame.to_parquet(tmp_path / "gold_text.parquet")
    as_text = scoring.load_gold("scb", tmp_path / "gold_text.parquet")
    assert as_text.version == jsonl.version
    # segmentation as nested lists (polygon-only records)
    polygons = [r for r in scb_small_records if isinstance(r["segmentation"], list)]
    assert len(polygons) < len(scb_small_records)  # the fixture does hold an RLE mask
    pd.DataFrame(polygons).to_parquet(tmp_path / "gold_nested.parquet")
    nested = scoring.load_gold("scb", tmp_path / "gold_nested.parquet")
    assert nested.version == scoring.load_gold("scb", demo.write_jsonl(tmp_path / "poly.jsonl", polygons)).version


def test_gold_version_ignores_whitespace_and_key_order(scb_small_records, tmp_path):
    reordered = tmp_path / "gold.jsonl"
    reordered.write_text(
        "\n".join(json.dumps(dict(reversed(list(r.items()))), indent=None) for r in scb_small_records) + "\n\n",
        encoding="utf-8",
    )
    plain = demo.write_jsonl(tmp_path / "plain.jsonl", scb_small_records)
    assert scoring.load_gold("scb", reordered).version == scoring.load_gold("scb", plain).version


def test_cli_parquet_gold_gives_the_jsonl_record(scb_small_records, scb_good_submission, scb_good_json, tmp_path):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(scb_small_records)
    frame["segmentation"] = [json.dumps(s) for s in frame["segmentation"]]
    frame.to_parquet(tmp_path / "gold.parquet")
    proc = run_cli(
        "--benchmark", "scb", "--gold", tmp_path / "gold.parquet", "--predictions", scb_good_submission,
        "--bbox-format", "xyxy_1000", "--json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == scb_good_json


def coco_document(records: list[dict]) -> dict:
    """A COCO annotation file as an annotation tool exports it: one annotation per polygon part."""
    images, annotations = [], []
    for n, r in enumerate(records, 1):
        fields = {k: r[k] for k in ("question_id", "type", "country", "category", "concept", "answer")}
        images.append({"id": n, "file_name": r["image_id"], "width": r["width"], "height": r["height"], **fields})
        parts = [r["segmentation"]] if isinstance(r["segmentation"], dict) else [[p] for p in r["segmentation"]]
        for seg in parts:
            annotations.append({"id": len(annotations) + 1, "image_id": n, "category_id": 1, "segmentation": seg})
    return {"images": images, "annotations": annotations, "categories": [{"id": 1, "name": "artifact"}]}


def test_coco_json_gold_gives_the_same_figures(scb_small_records, scb_small_gold, scb_good_submission, tmp_path):
    assert any(len(r["segmentation"]) > 1 for r in scb_small_records if isinstance(r["segmentation"], list))
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(coco_document(scb_small_records)), encoding="utf-8")
    coco = scoring.load_gold("scb", path)
    assert [m.area for m in coco.extra["masks"]] == [m.area for m in scb_small_gold.extra["masks"]]
    from_coco = scoring.score_file("scb", coco, scb_good_submission, bbox_format="xyxy_1000").to_dict()
    from_jsonl = scoring.score_file("scb", scb_small_gold, scb_good_submission, bbox_format="xyxy_1000").to_dict()
    for key in ("counts", "overall", "type", "country", "category"):
        assert from_coco[key] == from_jsonl[key], key


def test_grounding_format_on_the_command_line(scb_small_gold_path, scb_small_records, tmp_path):
    """--grounding-format reads grounding_response lines in score and validate; an unknown one is
    a usage error (exit 2, argparse); the validator lists unparsed groundings."""
    lines = [
        {
            "question_id": r["question_id"],
            "answer": r["answer"],
            "grounding_response": '[{"box_2d": [100, 200, 900, 800]}]',
        }
        for r in scb_small_records
    ]
    lines[0]["grounding_response"] = "It is the dancer on the left."
    path = write_lines(tmp_path / "gemini.jsonl", lines)
    common = ("--benchmark", "scb", "--gold", scb_small_gold_path, "--predictions", path)
    scored = run_cli(*common, "--grounding-format", "gemini", "--json")
    assert scored.returncode == 0, scored.stderr
    record = json.loads(scored.stdout)
    assert record["counts"]["grounding_unparsed"] == 1 and record["overall"]["miou"] > 0
    refused = run_cli(*common)
    assert refused.returncode == 2 and "no grounding_format is declared" in refused.stderr
    assert run_cli(*common, "--grounding-format", "gemini-2.5").returncode == 2
    questions = tmp_path / "questions.jsonl"
    demo.write_jsonl(questions, scoring.get_benchmark("scb").public_questions(scb_small_gold_path))
    checked = subprocess.run(
        [sys.executable, "-m", "scoring", "validate", "--benchmark", "scb", "--questions", str(questions),
         "--predictions", str(path), "--grounding-format", "gemini", "--min-coverage", "0"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert "1 grounding_response(s) name no box" in checked.stdout and "dancer on the left" in checked.stdout


def test_a_reader_that_stops_early_gets_no_traceback(scb_small_gold_path, scb_good_submission):
    """Team trial (issue 42): ``python -m scoring score ... | head`` ended in a BrokenPipeError
    traceback. Here the reader closes the pipe before a line is written."""
    process = subprocess.Popen(
        [sys.executable, "-m", "scoring", "score", "--benchmark", "scb", "--gold", str(scb_small_gold_path),
         "--predictions", str(scb_good_submission), "--no-cache"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    process.stdout.close()  # as `head` does once it has its lines
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) != 0  # the output was not all read: not a success
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
