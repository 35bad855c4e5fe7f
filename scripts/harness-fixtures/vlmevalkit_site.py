"""The embedded default's public files laid out as the site serves them, for a VLMEvalKit run
against a plain file server: ``questions/{benchmark}.tsv`` (the same bytes as the site's
``/questions/{benchmark}.tsv``, :func:`scoring.benchmarks.tsv.vlmevalkit_tsv`) and
``questions/{benchmark}/images/{name}`` (the same PNGs as the site's image route), so the TSV's
relative image addresses resolve exactly as against the site.

usage: python scripts/harness-fixtures/vlmevalkit_site.py OUT_DIR   (from a checkout, the app's venv)
"""

from __future__ import annotations

import sys
from pathlib import Path

from scoring.benchmarks import get_benchmark, load_environment_plugins
from scoring.benchmarks.demo import registered, write_files
from scoring.benchmarks.demo_images import demo_image
from scoring.benchmarks.tsv import vlmevalkit_tsv


def public_lists(folder: Path) -> dict[str, list[dict]]:
    """Each benchmark's public list (with a family: the plugins named too), in the published order, from
    its demo gold (seed 0, as the embedded default seeds it)."""
    load_environment_plugins()
    return {
        bench.id: bench.public_questions(write_files(bench.id, folder / "demo").gold)
        for bench in registered()
        if bench.family is not None
    }


def main(out: Path) -> None:
    questions = out / "questions"
    questions.mkdir(parents=True, exist_ok=True)
    for benchmark, listed in public_lists(out).items():
        (questions / f"{benchmark}.tsv").write_bytes(vlmevalkit_tsv(benchmark, listed))
        images = questions / benchmark / "images"
        images.mkdir(parents=True, exist_ok=True)
        sizes = get_benchmark(benchmark).family.image_sizes(listed)
        for name, size in sizes.items():
            (images / name).write_bytes(demo_image(name.rsplit(".", 1)[0], *size))
        print(f"{benchmark}: {len(listed)} questions, {len(sizes)} images -> {questions}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(Path(sys.argv[1]))
