"""What reading a team's adversarial response costs, old checkout and new, in one run (issue 30 item 1).

    git worktree add ../old-ebb85c5 ebb85c5
    .venv/bin/python perf/bench_linear_readers.py --old ../old-ebb85c5 [--limit 30]

Each case runs in a child process of its checkout (``read_response(text, "ABCD")`` and again with option
texts, as a K-Viscuit line is read), stopped after ``--limit`` seconds; the last case scores a whole
K-Viscuit file (the demo gold, 657 lines) whose every response is ``\\boxed{`` and spaces up to the
10,000-character cap. Times are the child's CPU time for the work (imports excluded), then its
wall-clock time in brackets (on a loaded machine the two differ); a stopped case shows the limit.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

NEW = Path(__file__).resolve().parents[1]
CAP = 10_000
CASES = {
    "\\boxed{ + 250 spaces": "\\boxed{" + " " * 250,
    "\\boxed{ + 800 spaces": "\\boxed{" + " " * 800,
    "\\boxed{ + spaces to the cap": "\\boxed{" + " " * (CAP - 7),
    "\\boxed{\\text{ + spaces to the cap": "\\boxed{\\text{" + " " * (CAP - 13),
    "정답 + 500 spaces + x": "정답" + " " * 500 + "x",
    "정답 + spaces to the cap + x": "정답" + " " * (CAP - 3) + "x",
    "<answer> + spaces to the cap": "<answer>" + " " * (CAP - 8),
    "answer is + spaces to the cap + x": "answer is" + " " * (CAP - 10) + "x",
    "<answer> repeated to the cap": "<answer>" * (CAP // 8),
}
CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from scoring.answers import read_response
text = json.loads(sys.stdin.read())
read_response("B", "ABCD"); read_response("The answer is B", "ABCD")  # patterns compiled before timing
start, cpu = time.perf_counter(), time.process_time()
read_response(text, "ABCD"); read_response(text, "ABCD", ["a b", "c", "d", "e"])
print(time.process_time() - cpu, time.perf_counter() - start)
"""
FILE_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import scoring
from tests.support import demo
from pathlib import Path
gold = scoring.load_gold("kviscuit", demo.write_jsonl(Path(sys.argv[2]) / "gold.jsonl", demo.kviscuit_gold()))
start, cpu = time.perf_counter(), time.process_time()
result = scoring.score_file("kviscuit", gold, sys.argv[3])
print(time.process_time() - cpu, time.perf_counter() - start)
"""


def _run(code: str, args: list[str], stdin: str, limit: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True, timeout=limit, check=True
        )
    except subprocess.TimeoutExpired:
        return f"> {limit:.0f} s (stopped)"
    except subprocess.CalledProcessError as e:
        return f"error: {e.stderr.strip().splitlines()[-1][:80]}"
    cpu, wall = (float(x) for x in done.stdout.strip().splitlines()[-1].split())
    return f"{_seconds(cpu)} ({_seconds(wall)})"


def _seconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (git worktree add)")
    parser.add_argument("--limit", type=float, default=30.0, help="seconds before a case is stopped")
    args = parser.parse_args()
    checkouts = {"old": args.old.resolve(), "new": NEW}
    print(f"| response (old: {_commit(args.old)}, new: {_commit(NEW)}) | characters | old | new |\n|---|---|---|---|")
    for name, text in CASES.items():
        times = [_run(CHILD, [str(c)], json.dumps(text), args.limit) for c in checkouts.values()]
        print(f"| `{name}` | {len(text):,} | {times[0]} | {times[1]} |", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        responses = Path(tmp, "kv.jsonl")
        line = {"response": "\\boxed{" + " " * (CAP - 7)}
        responses.write_text("".join(json.dumps({"question_id": i, **line}) + "\n" for i in range(657)))
        times = [_run(FILE_CHILD, [str(c), tmp, str(responses)], "", args.limit) for c in checkouts.values()]
        size = responses.stat().st_size
        what = f"score_file: K-Viscuit, 657 such lines ({size / 1e6:.1f} MB)"
        print(f"| {what} | {CAP:,} each | {times[0]} | {times[1]} |")


def _commit(checkout: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    main()
