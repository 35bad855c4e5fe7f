"""False holds of the probe detector on the honest-iteration corpus (tests/support/honest.py).

    python perf/honest_holds.py            # every series of the corpus, 3 seeds each

Each series is sent in order to a fresh local board with the default policy (the Ladder, the
automatic hold) on the small test gold; it prints, per series, the files sent, the files held
and the files shown to their team, then the totals. Run it on two checkouts to compare.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from submissions.records import Identity  # noqa: E402
from submissions.request import SubmitRequest  # noqa: E402
from tests.support import honest  # noqa: E402
from tests.support.submissions import board, form, write_gold  # noqa: E402


def main() -> int:
    totals: Counter = Counter()
    print("| series | seed | files | held | shown |")
    print("|---|---|---|---|---|")
    for name, seed, series in honest.corpus():
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            lb = board(d / "data", write_gold(d / "gold.jsonl"), max_scored_per_day=50)
            held = shown = 0
            for i, (who, team, model, body) in enumerate(series):
                path = honest.write(d / f"f{i}.jsonl", body)
                answer = lb.submissions.submit(
                    SubmitRequest("scb", path, form(model, team, visibility="private"), Identity(who))
                )
                held += bool(answer.submission_id and lb.moderation.is_held(answer.submission_id))
                shown += answer.result is not None
        totals.update(files=len(series), held=held, shown=shown)
        print(f"| {name} | {seed} | {len(series)} | {held} | {shown} |", flush=True)
    print(f"| **all** | | {totals['files']} | {totals['held']} | {totals['shown']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
