"""A local stand-in for the Hub dataset ``ddehun/k-viscuit`` (split ``test``), which the shipped
``kviscuit`` task names: the official annotation fields plus an ``image`` column, saved with
``save_to_disk`` for lmms-eval's ``dataset_kwargs: {load_from_disk: true}`` (no machine here
reaches the Hub). Runs in lmms-eval's environment (it needs ``datasets``).

usage: python kviscuit_dataset.py KVISCUIT_GOLD.jsonl IMAGE_DIR OUT_DIR
"""

import json
import os
import sys

import datasets

FIELDS = {
    "question": datasets.Value("string"),
    "options": datasets.Sequence(datasets.Value("string")),
    "answer": datasets.Value("int64"),
    "category": datasets.Value("string"),
    "id_": datasets.Value("string"),
    "question_type": datasets.Value("int64"),
    "image_url": datasets.Value("string"),
    "image_path": datasets.Value("string"),
    "image": datasets.Image(),
}


def main(gold, image_dir, out):
    with open(gold, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = [
        {**{k: r[k] for k in FIELDS if k != "image"}, "image": os.path.join(image_dir, r["image_path"])} for r in rows
    ]
    test = datasets.Dataset.from_list(rows, features=datasets.Features(FIELDS))
    datasets.DatasetDict({"test": test}).save_to_disk(out)
    print(f"{len(test)} K-Viscuit rows -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
