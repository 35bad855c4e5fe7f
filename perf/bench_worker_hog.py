"""How long an honest account's check waits behind another account's hostile one in a one-worker scoring
pool, old checkout and new, in one run (issue 30 items 1 and 2; scripts/red/t_worker_hog.py offline).

    git worktree add ../old-ebb85c5 ebb85c5
    .venv/bin/python perf/bench_worker_hog.py --old ../old-ebb85c5 [--spaces 600] [--bound 10]

In a child process per checkout: a ScoringPool of one worker and the demo K-Viscuit gold; the hog is
a validate-only of 657 lines whose line 0 is ``\\boxed{`` and ``--spaces`` spaces (the red team's
kv_redos file); one second after it starts, an honest validate-only of 657 plain lines is sent, and
its wait is timed. The new checkout runs a second case: a check that stalls (tests/support/jobs.py),
with the pool's job bound set to ``--bound`` seconds. Wall-clock seconds; each child is stopped after
``--limit`` seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

NEW = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, tempfile, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
spaces, bound, stall = int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "stall"
from tests.support import demo
import scoring
from submissions import intake, worker
from submissions.records import SubmissionForm
tmp = Path(tempfile.mkdtemp())
gold = scoring.load_gold("kviscuit", demo.write_jsonl(tmp / "gold.jsonl", demo.kviscuit_gold()))
lines = [json.dumps({"question_id": i, "response": "Image " + "ABCD"[i % 4]}) for i in range(657)]
honest = ("\\n".join(lines) + "\\n").encode()
lines[0] = json.dumps({"question_id": 0, "response": "\\\\boxed{" + " " * spaces})
hog = ("\\n".join(lines) + "\\n").encode()
if hasattr(worker, "JobBounds"):
    pool = worker.ScoringPool(1, nice=0, bounds=worker.JobBounds(seconds=bound))
else:
    pool = worker.ScoringPool(1, nice=0)
pool.run_check(intake.validate_only_answer, gold, honest, SubmissionForm.of(model="Warm", team="T"),
               scoring.Limits(), None, True)  # the worker spawned and holding the gold
check = intake.validate_only_answer
if stall:
    from tests.support import jobs
    check = jobs.stalling_check
said = {}
def send(who, data, model):
    start = time.perf_counter()
    try:
        form = SubmissionForm.of(model=model, team="T")
        answer = pool.run_check(check, gold, data, form, scoring.Limits(), None, True)
        text = answer.message + (" " + answer.issues[0].message if answer.issues else "")
    except Exception as e:
        text = type(e).__name__ + ": " + str(e)
    said[who] = (time.perf_counter() - start, text)
hog_thread = threading.Thread(target=send, args=("hog", hog, "Stalled" if stall else "Hog"))
hog_thread.start()
time.sleep(1)
send("honest", honest, "Honest")
hog_thread.join()
pool.close()
print(json.dumps(said))
"""


def run(checkout: Path, spaces: int, bound: float, stall: bool, limit: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(checkout), str(spaces), str(bound), "stall" if stall else "hog"],
            capture_output=True, text=True, timeout=limit, check=True, cwd=NEW,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"stopped after {limit:.0f} s | |"
    except subprocess.CalledProcessError as e:
        return f"error: {e.stderr.strip().splitlines()[-1][:100]} | |"
    said = json.loads(done.stdout.strip().splitlines()[-1])
    (hog_s, hog_text), (honest_s, honest_text) = said["hog"], said["honest"]
    return f"{hog_s:.1f} s: {hog_text[:110]} | {honest_s:.1f} s: {honest_text[:40]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (git worktree add)")
    parser.add_argument("--spaces", type=int, default=600)
    parser.add_argument("--bound", type=float, default=10.0, help="the new pool's job bound, seconds")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds before a child is stopped")
    args = parser.parse_args()
    print("| checkout | hostile check | its answer after | honest check's answer after |\n|---|---|---|---|")
    hog = f"`\\boxed{{` + {args.spaces} spaces on line 0"
    for name, checkout in (("old", args.old.resolve()), ("new", NEW)):
        print(f"| {name} ({_commit(checkout)}) | {hog} | {run(checkout, args.spaces, args.bound, False, args.limit)} |")
    stalled = f"a check that stalls, job bound {args.bound:g} s"
    print(f"| new ({_commit(NEW)}) | {stalled} | {run(NEW, args.spaces, args.bound, True, args.limit)} |")


def _commit(checkout: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    main()
