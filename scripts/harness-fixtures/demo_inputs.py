"""The embedded default's demo inputs, as the site publishes them, for a harness run.

Writes into OUT_DIR, for every registered benchmark with a demo and a family (the shipped ones, and the
plugins ``LEADERBOARD_PLUGINS`` names): its demo gold (``{id}_gold.jsonl``: what the fixtures are scored
against), its public list in the published order (``{id}-questions.jsonl``, the name About downloads and
the lmms-eval tasks read) and the images the site serves for it (``images/{id}/``), made by the same code
as ``/questions/{id}/images/{name}``.

usage: python scripts/harness-fixtures/demo_inputs.py OUT_DIR   (from a checkout, the app's venv)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from scoring.benchmarks import load_environment_plugins
from scoring.benchmarks.demo import registered, write_demo
from scoring.benchmarks.demo_images import demo_image


def main(out: Path) -> None:
    load_environment_plugins()
    paths = write_demo(out / "demo")
    for bench in (b for b in registered() if b.family is not None):
        gold = out / f"{bench.id}_gold.jsonl"
        gold.write_bytes(paths[f"{bench.id}_gold"].read_bytes())
        rows = bench.public_questions(gold)
        listed = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (out / f"{bench.id}-questions.jsonl").write_text(listed, encoding="utf-8")
        sizes = bench.family.image_sizes(rows)
        (out / "images" / bench.id).mkdir(parents=True, exist_ok=True)
        for name, size in sizes.items():
            (out / "images" / bench.id / name).write_bytes(demo_image(name.rsplit(".", 1)[0], *size))
        print(f"{bench.id}: {len(rows)} questions, {len(sizes)} images -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
