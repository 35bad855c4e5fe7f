"""Scoring parity: the same files scored by two checkouts give byte-identical results.

A speed change to ``scoring/`` must not move any figure by one digit, nor change any error
message. This script writes a fixed corpus of submissions (boxes in every format, per-line
formats and reference sizes, boxes outside the image and on sub-pixel edges, polygons in both
layouts, compressed and plain RLE masks, responses, missing lines, K-Viscuit answers and
responses, and files full of errors), scores each one with the fixed bootstrap seed and with
two per-submission seeds, and writes every result (or error listing) as JSON, one file each.

    .venv/bin/python perf/scoring_parity.py --against /tmp/old      # a checkout of the old code
    .venv/bin/python perf/scoring_parity.py --digests               # sha256 of each output

``--against DIR`` scores the corpus with this checkout and with the one in DIR (each in its own
process, importing only its own ``scoring``) and reports any file whose output differs.
``SHARED_DATA_DIR`` adds the shared SCB synthetic gold (with option image sizes) and the real
K-Viscuit annotations. tests/scoring/test_scoring_parity.py pins the portable digests of the
``--small`` corpus (tests/scoring/parity_digests.json, written by the code before the speed work
with ``--small --against OLD --pin tests/scoring/parity_digests.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
EXTRA_SEEDS = (987654321, 2**64 - 59)
"""Per-submission seeds besides the fixed one (the leaderboard's are 64-bit HMAC digests)."""


# --------------------------------------------------------------------------- the corpus


def _mixed_lines(lines: list[dict], records: dict[str, dict], options: bool) -> list[dict]:
    """Every line gets one of many groundings in turn, so each kind meets right and wrong answers."""
    from pycocotools import mask as coco_mask

    out = []
    for k, line in enumerate(lines):
        rec = records[line["question_id"]]
        w, h = rec["width"], rec["height"]
        if options and "answer" in line:
            opt = rec["options"]["ABCD".index(line["answer"])]
            w, h = opt["width"], opt["height"]
        kind = k % 13
        line = {key: v for key, v in line.items() if key not in ("bbox", "polygon")}
        x0, y0 = (k * 37) % max(w // 2, 1), (k * 53) % max(h // 2, 1)
        if kind == 0:
            line["bbox"] = [x0, y0, x0 + w / 3, y0 + h / 4]
        elif kind == 1:
            line |= {"bbox": [x0 / w, y0 / h, 0.9, 0.95], "bbox_format": "xyxy_norm"}
        elif kind == 2:
            line |= {"bbox": [100, 200, 700, 900], "bbox_format": "yxyx_1000"}
        elif kind == 3:
            line |= {"bbox": [x0 / 2, y0 / 2, x0 / 2 + 40.5, y0 / 2 + 30.25], "bbox_ref_size": [w / 2, h / 2]}
        elif kind == 4:
            line["bbox"] = [-50.0, -20.0, w + 100.0, h + 7.0]  # reaches outside the image
        elif kind == 5:
            line["bbox"] = [x0 + 0.3, y0 + 0.49, x0 + 0.71, y0 + 2.2]  # sub-pixel edges
        elif kind == 6:
            line |= {"bbox": [x0, y0, w / 5, h / 6], "bbox_format": "xywh"}
        elif kind == 7:
            line["polygon"] = [[[x0, y0], [x0 + w / 4, y0 + 3], [x0 + w / 5, y0 + h / 3]]]
        elif kind == 8:
            line["polygon"] = [[x0, y0, x0 + 30, y0, x0 + 15, y0 + 40], [5, 5, 60.5, 9, 30, 70.25]]
        elif kind == 9 and options:
            rle = coco_mask.frPyObjects([[x0, y0, x0 + w / 3, y0 + 10, x0 + w / 4, y0 + h / 3]], h, w)[0]
            line["mask"] = {"size": [h, w], "counts": rle["counts"].decode("ascii")}
        elif kind == 10 and options:
            line["mask"] = {"size": [h, w], "counts": [x0 * h, h * 3, w * h - x0 * h - h * 3]}
        elif kind == 11:
            line |= {"bbox": [250, 250, 750, 750], "bbox_format": "xyxy_1000"}
        out.append(line)
    return out


def _error_lines(lines: list[dict], shift: int = 0) -> list[object]:
    """A file whose lines make one mistake after another (``shift`` rotates which ones come first:
    a listing shows only the first few)."""
    bad: list[object] = [
        b"{not json", b'{"question_id": "x", "answer": NaN}', b'{"question_id": 1e999}', b"[1, 2]", b"\xff\xfe",
        {"answer": "A"}, {"question_id": "nope", "answer": "A"}, {"question_id": lines[0]["question_id"]},
    ]  # fmt: skip
    for k, line in enumerate(lines[1:200]):
        q = line["question_id"]
        variants = [
            {"question_id": q, "answer": "E"},
            {"question_id": q, "answer": "A", "bbox": [10, 10, 5, 20]},
            {"question_id": q, "answer": "B", "bbox": [0, 0, 2, 2], "bbox_format": "xyxy_norm"},
            {"question_id": q, "answer": "C", "bbox": [1, 2, 3]},
            {"question_id": q, "answer": "D", "polygon": [[1, 2, 3, 4]]},
            {"question_id": q, "answer": "A", "polygon": [[1, 2, 3, 4, 5, "6"]]},
            {"question_id": q, "answer": "A", "mask": {"size": [2, 2], "counts": "zz~"}},
            {"question_id": q, "answer": "A", "bbox": [1, 1, 5, 5], "polygon": [[1, 1, 4, 1, 2, 3]]},
            {"question_id": q, "response": 7},
            {"question_id": q, "answer": "A", "bbox": [1, 1, 5, 5], "bbox_ref_size": [0, 10]},
            line,
        ]
        bad.append(variants[(k + shift) % len(variants)])
    return bad + lines[200:] + [lines[5]]  # and a duplicate at the end


SMALL_SIZES = (84, 83, 150)
"""Questions per SCB type in the small corpus (the test's): a tenth of the real gold."""


def build_corpus(folder: Path, shared: Path | None, sizes: tuple[int, int, int] | None = None) -> list[dict]:
    """Write the corpus under ``folder``; each entry names a benchmark, a gold and a file.
    ``sizes``: questions per SCB type of the demo gold (default: the real gold's)."""
    from tests.support import demo
    from tests.support.scoring import write_lines

    scb = demo.scb_gold(seed=0, sizes=sizes or demo.SCB_TYPE_SIZES)
    kv = demo.kviscuit_gold()
    golds = {"demo-scb": ("scb", demo.write_jsonl(folder / "scb_gold.jsonl", scb), scb)}
    golds["demo-kv"] = ("kviscuit", demo.write_jsonl(folder / "kv_gold.jsonl", kv), kv)
    if shared is not None and (shared / "scb-synthetic" / "gold.jsonl").exists():
        path = shared / "scb-synthetic" / "gold.jsonl"
        golds["shared-scb"] = ("scb", path, [json.loads(t) for t in path.read_text().splitlines() if t.strip()])
    if shared is not None and (shared / "k-viscuit" / "annotations.jsonl").exists():
        path = shared / "k-viscuit" / "annotations.jsonl"
        golds["shared-kv"] = ("kviscuit", path, [json.loads(t) for t in path.read_text().splitlines() if t.strip()])

    entries = []

    def add(gold_name: str, name: str, lines: list, bbox_format: str = "xyxy") -> None:
        path = write_lines(folder / f"{gold_name}-{name}.jsonl", lines)
        bench, gold_path, _ = golds[gold_name]
        entries.append({"name": f"{gold_name}-{name}", "benchmark": bench, "gold": str(gold_path),
                        "file": str(path), "bbox_format": bbox_format})  # fmt: skip

    for gold_name, (bench, _, records) in golds.items():
        if bench == "kviscuit":
            add(gold_name, "answers", demo.kviscuit_submission(records, 0.66, seed=3))
            add(gold_name, "responses", demo.kviscuit_submission(records, 0.7, seed=4, missing=9, as_response=0.6))
            add(gold_name, "errors", _error_lines(demo.kviscuit_submission(records, 0.5, seed=5)))
            continue
        sub = partial(demo.scb_submission, records)
        add(gold_name, "boxes", sub(0.85, "bbox_good", 1))
        add(gold_name, "polygons", sub(0.63, "polygon", 2))
        add(gold_name, "none", sub(0.5, "none", 3, missing=40, as_response=0.3))
        for fmt, seed in (("xywh", 4), ("xyxy_norm", 5), ("xyxy_1000", 6), ("yxyx_1000", 7)):
            add(gold_name, f"boxes-{fmt}", sub(0.7, "bbox_poor", seed, fmt, missing=25, as_response=0.2), fmt)
        by_id = {r["question_id"]: r for r in records}
        add(gold_name, "mixed", _mixed_lines(sub(0.75, "bbox_good", 8), by_id, gold_name.startswith("shared")))
        add(gold_name, "errors", _error_lines(sub(0.6, "bbox_good", 9)))
        add(gold_name, "errors-b", _error_lines(sub(0.6, "bbox_good", 9)[8:], shift=4))
    return entries


# --------------------------------------------------------------------------- scoring one checkout


def score_corpus(entries: list[dict], out: Path) -> None:
    """Score every entry with the ``scoring`` on sys.path; write one JSON file per (entry, seed)."""
    import scoring
    from scoring.engine import validate_file
    from scoring.metrics import BOOTSTRAP_SEED

    out.mkdir(parents=True, exist_ok=True)
    golds: dict[tuple[str, str], object] = {}
    for e in entries:
        key = (e["benchmark"], e["gold"])
        if key not in golds:
            golds[key] = scoring.load_gold(*key)
        gold, fmt = golds[key], e["bbox_format"]
        for seed in (BOOTSTRAP_SEED, *EXTRA_SEEDS):
            try:
                predictions = validate_file(e["benchmark"], gold, Path(e["file"]), bbox_format=fmt)
                result = scoring.score_predictions(e["benchmark"], gold, predictions, seed=seed)
                body = {"result": result.to_dict(), "unparsed_lines": [[u.line, u.text] for u in result.unparsed_lines]}
            except scoring.SubmissionError as err:
                body = {"issues": [i.to_dict() for i in err.issues], "total": err.total}
            text = json.dumps(body, ensure_ascii=False)
            (out / f"{e['name']}-seed{seed}.json").write_text(text, encoding="utf-8")


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.json"))}


def portable_digests(folder: Path) -> dict[str, str]:
    """sha256 of every output: what tests/scoring/test_scoring_parity.py pins. Since scorer 1.3
    every figure, intervals included, is the same on every machine (exact resampled sums)."""
    return digests(folder)


def _leaves(body: object, path: str = "") -> dict[str, object]:
    """Every scalar or interval of an output by its path (``result/overall/miou_ci``)."""
    if isinstance(body, dict):
        return {k: v for key, value in body.items() for k, v in _leaves(value, f"{path}/{key}").items()}
    if isinstance(body, list) and not (len(body) == 2 and all(isinstance(v, (int, float)) for v in body)):
        return {k: v for i, value in enumerate(body) for k, v in _leaves(value, f"{path}/{i}").items()}
    return {path: body}


def field_differences(old: Path, new: Path, names: list[str]) -> dict[str, float | None]:
    """Per field name (the last part of a path, e.g. ``miou_ci``) that differs in any output: the
    largest absolute difference of its numbers (None for a non-numeric or missing difference)."""
    worst: dict[str, float | None] = {}
    for name in names:
        a = _leaves(json.loads((old / name).read_text(encoding="utf-8")))
        b = _leaves(json.loads((new / name).read_text(encoding="utf-8")))
        for path in a.keys() | b.keys():
            x, y = a.get(path), b.get(path)
            if x == y:
                continue
            field = path.rsplit("/", 1)[-1]
            pairs = list(zip(x, y, strict=True)) if isinstance(x, list) and isinstance(y, list) else [(x, y)]
            numeric = all(isinstance(u, (int, float)) and isinstance(v, (int, float)) for u, v in pairs)
            gap = max(abs(u - v) for u, v in pairs) if numeric else None
            before = worst.get(field, 0.0)
            worst[field] = None if gap is None or before is None else max(before, gap)
    return worst


def _score_in(code: Path, corpus: Path, out: Path) -> None:
    """Score in a fresh process that imports ``scoring`` from ``code`` (and nothing from here)."""
    env = dict(os.environ, PYTHONPATH=str(code))
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path;"
        "import importlib.util as u; s = u.spec_from_file_location('parity', sys.argv[2]);"
        "m = u.module_from_spec(s); s.loader.exec_module(m);"
        "m.score_corpus(json.loads(Path(sys.argv[3]).read_text()), Path(sys.argv[4]))"
    )
    subprocess.run(
        [sys.executable, "-c", script, str(code), __file__, str(corpus / "entries.json"), str(out)],
        check=True, cwd=code, env=env,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, help="another checkout to compare with, byte for byte")
    parser.add_argument("--digests", action="store_true", help="print the sha256 of every output")
    parser.add_argument("--keep", type=Path, help="write the corpus and outputs here (default: a temp folder)")
    parser.add_argument("--small", action="store_true", help="the test's corpus: a small demo gold, no shared data")
    parser.add_argument("--pin", type=Path, help="write the portable digests of the outputs (of --against's if given)")
    args = parser.parse_args(argv)
    shared = Path(os.environ["SHARED_DATA_DIR"]) if os.environ.get("SHARED_DATA_DIR") and not args.small else None
    sys.path.insert(0, str(REPO_ROOT))
    with tempfile.TemporaryDirectory(prefix="scoring-parity-") as tmp:
        root = args.keep or Path(tmp)
        corpus = root / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        entries = build_corpus(corpus, shared, SMALL_SIZES if args.small else None)
        (corpus / "entries.json").write_text(json.dumps(entries))
        _score_in(REPO_ROOT, corpus, root / "new")
        new = digests(root / "new")
        if args.digests:
            print(json.dumps(new, indent=1, sort_keys=True))
        if args.against is None:
            if args.pin:
                args.pin.write_text(json.dumps(portable_digests(root / "new"), indent=1, sort_keys=True) + "\n")
            print(f"{len(new)} outputs written")
            return 0
        _score_in(args.against.resolve(), corpus, root / "old")
        old = digests(root / "old")
        if args.pin:
            args.pin.write_text(json.dumps(portable_digests(root / "old"), indent=1, sort_keys=True) + "\n")
        differ = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
        for name in differ:
            print(f"DIFFERS: {name}")
        for field, gap in sorted(field_differences(root / "old", root / "new", differ).items()):
            print(f"  field {field}: " + ("not numeric" if gap is None else f"largest difference {gap:.3g}"))
        print(f"{len(new) - len(differ)} of {len(new)} outputs byte-identical with {args.against}")
        return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
