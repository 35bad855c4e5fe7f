"""SCB gold in its authors' release shape (MCQ generator records, an image list, COCO masks)
imports as the same gold version as its JSONL twin, and no public file carries what names the answer."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import scoring
from scoring.benchmarks.scb import declaration as scb_module
from scoring.errors import GoldError
from tests.support.scoring import rect_polygon

LETTERS = "ABCD"


def twins(tmp_path: Path, n: int = 8) -> tuple[Path, Path]:
    """A JSONL gold and the release folder that says the same (decoys are other questions' images)."""
    sizes = [(640 + 10 * i, 480 + 7 * i) for i in range(n)]
    gold, mcq = [], []
    for i in range(n):
        w, h = sizes[i]
        answer = LETTERS[i % 4]
        others = [(i + k) % n for k in (1, 2, 3)]
        images = []
        for letter in LETTERS:
            images.append(i if letter == answer else others.pop(0))
        paths = [f"images/Vietnam/img-{j:03d}.jpg" for j in images]
        options = [
            {"image_id": f"img-{j:03d}", "width": sizes[j][0], "height": sizes[j][1], "url": p}
            for j, p in zip(images, paths)
        ]
        fields = {"type": 1 + i % 2, "country": "Vietnam", "category": "game", "concept": f"c{i % 3}"}
        seg = [rect_polygon(10, 10, w / 2, h / 2)] if i % 3 else {"size": [h, w], "counts": None}
        gold.append(
            {
                "question_id": f"scb-{i:05d}",
                **fields,
                "answer": answer,
                "image_id": f"img-{i:03d}",
                "width": w,
                "height": h,
                "segmentation": seg,
                "question": f"Which image shows c{i % 3}?",
                "options": options,
            }
        )
        scores = [0.3, 0.2, 0.4, 0.1]
        scores[LETTERS.index(answer)] = -1.0
        mcq.append(
            {
                **fields,
                "question": f"Which image shows c{i % 3}?",
                "rationale": "because",
                **{f"choice_{c.lower()}": p for c, p in zip(LETTERS, paths)},
                "correct_answer": paths[LETTERS.index(answer)],
                "scores": scores,
            }
        )
    import numpy as np
    from pycocotools import mask as coco_mask

    coco = {"images": [], "annotations": []}
    for i, rec in enumerate(gold):
        w, h = rec["width"], rec["height"]
        if isinstance(rec["segmentation"], dict):  # an RLE part, as some annotation tools export
            m = np.zeros((h, w), dtype=np.uint8, order="F")
            m[20:60, 30:90] = 1
            rle = coco_mask.encode(m)
            rle["counts"] = rle["counts"].decode()
            rec["segmentation"] = rle
        coco["images"].append({"id": i + 1, "file_name": f"images/Vietnam/img-{i:03d}.jpg", "width": w, "height": h})
        coco["annotations"].append({"id": i + 1, "image_id": i + 1, "segmentation": rec["segmentation"]})
    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in gold))
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in mcq))
    (folder / "masks.json").write_text(json.dumps(coco))
    with (folder / "Image_List.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["Image Path", "width", "height"])
        for j, (w, h) in enumerate(sizes):
            writer.writerow([f"images/Vietnam/img-{j:03d}.jpg", w, h])
    return jsonl, folder


def test_release_folder_is_the_same_gold_version_as_its_jsonl_twin(tmp_path):
    jsonl, folder = twins(tmp_path)
    a, b = scoring.load_gold("scb", jsonl), scoring.load_gold("scb", folder)
    assert a.version == b.version
    assert a.keys == b.keys and list(a.answers) == list(b.answers)


def test_the_public_list_of_a_release_never_names_the_answer(tmp_path):
    _, folder = twins(tmp_path)
    public = scb_module.public_questions(folder)
    text = json.dumps(public)
    for never in ("correct_answer", "scores", "rationale", "-1.0", "segmentation", '"answer"'):
        assert never not in text
    assert [o["letter"] for o in public[0]["options"]] == list(LETTERS)


def test_a_release_folder_missing_its_masks_says_what_it_needs(tmp_path):
    _, folder = twins(tmp_path)
    (folder / "masks.json").unlink()
    with pytest.raises(GoldError, match="COCO masks"):
        scoring.load_gold("scb", folder)


def test_a_correct_answer_outside_the_choices_is_refused(tmp_path):
    _, folder = twins(tmp_path)
    lines = (folder / "questions.jsonl").read_text().splitlines()
    first = json.loads(lines[0]) | {"correct_answer": "images/elsewhere.jpg"}
    (folder / "questions.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(GoldError, match="record 1: correct_answer"):
        scoring.load_gold("scb", folder)


def test_gold_add_takes_a_release_folder_and_keeps_it_as_its_jsonl_twin(tmp_path):
    import os
    import subprocess
    import sys

    jsonl, folder = twins(tmp_path)
    env = os.environ | {"LEADERBOARD_DATA_DIR": str(tmp_path / "store"), "LEADERBOARD_DEMO": "0"}
    repo = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "leaderboard",
            "gold",
            "add",
            "--benchmark",
            "scb",
            "--file",
            str(folder),
            "--by",
            "maint",
        ],
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert scoring.load_gold("scb", jsonl).version[:12] in run.stdout
    public = next((tmp_path / "store").rglob("questions/scb.jsonl")).read_text()
    assert "scores" not in public and "correct_answer" not in public and "rationale" not in public
