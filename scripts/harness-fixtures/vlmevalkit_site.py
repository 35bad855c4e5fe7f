"""The embedded default's public files laid out as the site serves them, for a VLMEvalKit run
against a plain file server: ``questions/{benchmark}.tsv`` (the same bytes as the site's
``/questions/{benchmark}.tsv``, :func:`leaderboard.harness_inputs.vlmevalkit_tsv`) and
``questions/{benchmark}/images/{name}`` (the same PNGs as the site's image route), so the TSV's
relative image addresses resolve exactly as against the site.

usage: python scripts/harness-fixtures/vlmevalkit_site.py OUT_DIR   (from a checkout, the app's venv)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from leaderboard.demo import kviscuit_gold, scb_gold, scb_questions
from leaderboard.demo.images import demo_image
from leaderboard.harness_inputs import vlmevalkit_tsv
from scoring.benchmarks import get_benchmark
from ui.public_files import KVISCUIT_DEMO_SIZE


def public_lists(folder: Path) -> dict[str, list[dict]]:
    """Each benchmark's public list, in the published order, from the demo gold."""
    gold = folder / "kviscuit_gold.jsonl"
    rows = kviscuit_gold()
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return {
        "scb": sorted(scb_questions(scb_gold(options=True)), key=lambda q: q["question_id"]),
        "kviscuit": get_benchmark("kviscuit").public_questions(gold),
    }


def main(out: Path) -> None:
    questions = out / "questions"
    questions.mkdir(parents=True, exist_ok=True)
    for benchmark, listed in public_lists(out).items():
        (questions / f"{benchmark}.tsv").write_bytes(vlmevalkit_tsv(benchmark, listed))
        images = questions / benchmark / "images"
        images.mkdir(parents=True, exist_ok=True)
        if benchmark == "scb":
            sizes = {o["url"].rsplit("/", 1)[-1]: (o["width"], o["height"]) for q in listed for o in q["options"]}
        else:
            sizes = {q["image_path"]: KVISCUIT_DEMO_SIZE for q in listed}
        for name, size in sizes.items():
            (images / name).write_bytes(demo_image(name.rsplit(".", 1)[0], *size))
        print(f"{benchmark}: {len(listed)} questions, {len(sizes)} images -> {questions}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
