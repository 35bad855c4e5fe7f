"""The upload door before and after it lost its holds, under one validate-only flood, in one run.

The old door (``ui/upload_line.py``, ``ui/door_holds.py``: an account's upload waited unread while
its checks filled its bound, and a refusal was held 3 s before its answer) against the new one
(``ui/uploads.py``: who may upload and a per-account budget on the ``limits`` library, refusals
answered at once). Each checkout's app is measured by ``perf/load_test.py`` (browsers reading the
board page, quiet, then under ``--loops`` validate-only loops of one account sending a ~27 MB
polygon file), old and new alternated ``--rounds`` times, with the deployed upload budget and,
with ``--raised``, with the quotas raised 5,000x as well (the flood then meets no budget at all).

    python perf/flood_doors.py --old /tmp/old-7a89bb4            # git archive 7a89bb4 | tar -x -C /tmp/old-7a89bb4
    python perf/flood_doors.py --old /tmp/old-7a89bb4 --raised --seconds 20 --browsers 50
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
PAGE_ROW = re.compile(r"^\| (quiet|flood): browse: page with data \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", re.M)
ANSWERS = re.compile(r"^validate-only answers: (.*)$", re.M)
CHECKS = r"errors|tracebacks in the app log|app alive at the end|app CPU \(app \+ its children\)"
CHECK = re.compile(rf"^\| ({CHECKS}) \| (.*) \|$", re.M)


def measure(root: Path, args: argparse.Namespace, deployed: bool) -> dict:
    """One ``perf/load_test.py`` run against ``root``'s app.py: the page's figures and the flood's answers."""
    command = [
        sys.executable, str(HERE / "perf" / "load_test.py"), "--seconds", str(args.seconds), "--submitters", "0",
        "--browsers", str(args.browsers), "--validate-flood", str(args.loops), "--app-root", str(root),
    ] + (["--deployed-quotas"] if deployed else [])  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, cwd=HERE, timeout=1800).stdout
    pages = {phase: (int(n), int(p50), int(p95)) for phase, n, p50, p95, _ in PAGE_ROW.findall(out)}
    answers = ANSWERS.search(out)
    return {
        "pages": pages,
        "answers": answers.group(1) if answers else "none",
        "checks": dict(CHECK.findall(out)),
        "raw": out,
    }


def row(name: str, budget: str, got: dict) -> str:
    quiet, flood = got["pages"].get("quiet", (0, 0, 0)), got["pages"].get("flood", (0, 0, 0))
    checks = got["checks"]
    return (
        f"| {name} | {budget} | {quiet[1]} / {quiet[2]} ms ({quiet[0]}) | {flood[1]} / {flood[2]} ms ({flood[0]}) | "
        f"{got['answers']} | {checks.get('app CPU (app + its children)', '?')} | {checks.get('errors', '?')} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout with the old door (e.g. 7a89bb4)")
    parser.add_argument("--new", type=Path, default=HERE, help="the checkout to compare (default: this one)")
    parser.add_argument("--seconds", type=float, default=20.0, help="quiet window, then the flood's (each)")
    parser.add_argument("--browsers", type=int, default=50)
    parser.add_argument("--loops", type=int, default=6, help="validate-only loops of one account")
    parser.add_argument("--rounds", type=int, default=1, help="old and new alternated this many times")
    parser.add_argument("--raised", action="store_true", help="also with the quotas raised (no budget)")
    parser.add_argument("--raw", action="store_true", help="print load_test.py's own tables too")
    args = parser.parse_args(argv)
    print(
        f"\n### The upload door under {args.loops} validate-only loops of one account (~27 MB file), "
        f"{args.browsers} browsers, {args.seconds:.0f} s quiet then {args.seconds:.0f} s flooded\n"
    )
    print("| app | upload budget | page with data p50 / p95 quiet (n) | under the flood (n) | validate-only answers "
          "| app CPU | errors |\n|---|---|---|---|---|---|---|")  # fmt: skip
    failed = False
    budgets = [("deployed", True)] + ([("raised 5,000x", False)] if args.raised else [])
    for budget, deployed in budgets:
        for _ in range(args.rounds):
            for name, root in (("old " + args.old.name, args.old), ("new " + args.new.name, args.new)):
                got = measure(root.resolve(), args, deployed)
                print(row(name, budget, got), flush=True)
                if args.raw:
                    print(got["raw"], file=sys.stderr)
                failed |= got["checks"].get("app alive at the end") != "True" or "flood" not in got["pages"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
