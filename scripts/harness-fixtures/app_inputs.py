"""Write what the app serves a team on the embedded default: each benchmark's question list
(``/questions/<benchmark>.jsonl``) and the images of its first ``--limit`` questions
(``/questions/<benchmark>/images/<name>``), fetched from the app's own routes, byte for byte.

    python scripts/harness-fixtures/app_inputs.py OUT --limit 40

OUT gets ``<benchmark>-questions.jsonl`` and ``images/<benchmark>/`` for every benchmark with a family
(the plugins ``LEADERBOARD_PLUGINS`` names too). Run with the app's environment, from the repository
root, on an empty ``LEADERBOARD_DATA_DIR`` (the demo store is seeded there first). A helper of the
harness-fixture scripts; not a fixture itself.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS
from ui import public_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limit", type=int, default=40, help="questions whose images are written, per benchmark")
    args = parser.parse_args()
    lb = Leaderboard(Settings.from_env())
    lb.seed_demo()
    client = TestClient(Starlette(routes=public_files.routes(lb, demo=True)))
    for benchmark in [b.id for b in BENCHMARKS.values() if b.family is not None]:
        listed = client.get(f"/questions/{benchmark}.jsonl")
        listed.raise_for_status()
        (args.out / f"{benchmark}-questions.jsonl").parent.mkdir(parents=True, exist_ok=True)
        (args.out / f"{benchmark}-questions.jsonl").write_bytes(listed.content)
        folder = args.out / "images" / benchmark
        folder.mkdir(parents=True, exist_ok=True)
        questions = [json.loads(line) for line in listed.text.splitlines() if line.strip()]
        for name in BENCHMARKS[benchmark].family.image_sizes(questions[: args.limit]):
            image = client.get(f"/questions/{benchmark}/images/{name}")
            image.raise_for_status()
            (folder / name).write_bytes(image.content)
        print(f"{benchmark}: {len(questions)} questions, images of the first {args.limit} in {folder}")


if __name__ == "__main__":
    main()
