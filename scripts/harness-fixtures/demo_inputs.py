"""The embedded default's demo inputs, as the site publishes them, for a harness run.

Writes into OUT_DIR: the demo golds (``scb_gold.jsonl``, ``kviscuit_gold.jsonl``: what the
fixtures are scored against), the public lists in the published order (``scb-questions.jsonl``,
the name About downloads and the lmms-eval task reads; ``kviscuit-questions.jsonl``), and the
images the site serves for them (``images/`` for SCB, ``kv_images/`` for K-Viscuit), made by the
same code as ``/questions/{benchmark}/images/{name}``.

usage: python scripts/harness-fixtures/demo_inputs.py OUT_DIR   (from a checkout, the app's venv)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from leaderboard.demo import write_demo
from leaderboard.demo.images import demo_image
from scoring.benchmarks import get_benchmark
from ui.public_files import KVISCUIT_DEMO_SIZE


def _write_list(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _image(folder: Path, name: str, size: tuple[int, int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(demo_image(name.rsplit(".", 1)[0], *size))


def main(out: Path) -> None:
    paths = write_demo(out / "demo")
    for bench in ("scb", "kviscuit"):
        (out / f"{bench}_gold.jsonl").write_bytes(paths[f"{bench}_gold"].read_bytes())
    scb = get_benchmark("scb").public_questions(out / "scb_gold.jsonl")
    kviscuit = get_benchmark("kviscuit").public_questions(out / "kviscuit_gold.jsonl")
    _write_list(out / "scb-questions.jsonl", scb)
    _write_list(out / "kviscuit-questions.jsonl", kviscuit)
    sizes = {o["url"].rsplit("/", 1)[-1]: (o["width"], o["height"]) for q in scb for o in q["options"]}
    for name, size in sizes.items():
        _image(out / "images", name, size)
    for name in sorted({q["image_path"] for q in kviscuit}):
        _image(out / "kv_images", name, KVISCUIT_DEMO_SIZE)
    print(f"{len(scb)} SCB questions ({len(sizes)} images), {len(kviscuit)} K-Viscuit questions -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
