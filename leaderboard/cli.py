"""Maintainer command line (also what tests and scripts use); see README "Maintainer's jobs".

python -m leaderboard gold add --benchmark scb --file GOLD
python -m leaderboard submit --benchmark scb --file F --model M --team T --user U [--bbox-format F]
python -m leaderboard table --benchmark scb [--view overall] [--format csv|json]
python -m leaderboard rescore [--benchmark scb] [--workers N]
python -m leaderboard hide ID / unhide ID
python -m leaderboard probes [--benchmark scb] [--hold SUBMITTER] [--by NAME]
python -m leaderboard resume | push | demo | status
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from leaderboard.config import Settings
from leaderboard.service import Leaderboard
from scoring import BENCHMARKS, GoldError
from scoring.benchmarks import load_plugins
from scoring.geometry import BOX_FORMATS
from submissions.records import MODEL_TYPES, Identity, Status, SubmissionForm


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m leaderboard", description="Maintain the leaderboard.")
    sub = p.add_subparsers(dest="command", required=True)
    gold = sub.add_parser("gold", help="gold versions").add_subparsers(dest="gold_command", required=True)
    add = gold.add_parser("add", help="validate a gold file and make it current")
    add.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    add.add_argument("--file", required=True, type=Path)
    add.add_argument("--by", default="maintainer")
    show = gold.add_parser("show", help="current gold versions")
    show.add_argument("--benchmark", choices=list(BENCHMARKS))

    s = sub.add_parser("submit", help="submit a prediction file (as a maintainer: no quota)")
    s.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    s.add_argument("--file", required=True, type=Path)
    s.add_argument("--model", required=True)
    s.add_argument("--team", required=True)
    s.add_argument("--user", required=True)
    s.add_argument("--bbox-format", default="xyxy", choices=list(BOX_FORMATS))
    s.add_argument("--model-type", default="open", choices=list(MODEL_TYPES))
    s.add_argument("--paper-url", default="")
    s.add_argument("--code-url", default="")
    s.add_argument("--description", default="")
    s.add_argument("--as-submitter", action="store_true", help="apply the daily quota as for a team")

    t = sub.add_parser("table", help="print the current public table")
    t.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    t.add_argument("--view", default="overall")
    t.add_argument("--format", default="text", choices=["text", "csv", "json"])

    r = sub.add_parser("rescore", help="score all submissions on the current gold, on all cores")
    r.add_argument("--benchmark", choices=list(BENCHMARKS))
    r.add_argument("--workers", type=int)
    for name in ("hide", "unhide"):
        h = sub.add_parser(name, help=f"{name} a submission from the public table")
        h.add_argument("submission_id")
        h.add_argument("--by", default="maintainer")
    pr = sub.add_parser("probes", help="submitters whose series look like probes of the hidden test")
    pr.add_argument("--benchmark", choices=list(BENCHMARKS))
    pr.add_argument("--hold", metavar="SUBMITTER", help="hold every submission of this flagged submitter")
    pr.add_argument("--by", default="maintainer")
    sub.add_parser("resume", help="finish submissions left unscored")
    sub.add_parser("push", help="push writes waiting for the Hub")
    sub.add_parser("demo", help="seed an empty store with demo data")
    return p


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    load_plugins(settings.plugins)  # plugin benchmarks are valid --benchmark choices
    args = _parser().parse_args(argv)
    lb = Leaderboard(settings)
    if args.command == "gold":
        if args.gold_command == "add":
            try:
                info = lb.add_gold(args.benchmark, args.file, args.by)
            except (GoldError, ValueError, OSError) as e:
                print(f"error: {e}", file=sys.stderr)
                return 1
            print(f"{info.benchmark}: gold {info.version} is current ({info.questions} questions)")
            print("Run `python -m leaderboard rescore` to score every submission on it.")
            return 0
        for b in [args.benchmark] if args.benchmark else BENCHMARKS:
            info = lb.gold_info(b)
            print(f"{b}: " + (f"{info.version} since {info.added_at} by {info.added_by}" if info else "no gold"))
        return 0
    if args.command == "submit":
        identity = Identity(args.user, is_maintainer=not args.as_submitter, source="cli")
        form = SubmissionForm(
            args.model, args.team, args.model_type, args.paper_url, args.code_url, args.description, args.bbox_format
        )
        answer = lb.submit(args.benchmark, args.file, form, identity, args.file.name)
        print(f"{answer.status}: {answer.message}" + (f" (id {answer.submission_id})" if answer.submission_id else ""))
        for issue in answer.issues:
            print(f"  {issue}")
        if answer.total_issues > len(answer.issues):
            print(f"  ... and {answer.total_issues - len(answer.issues)} more")
        if answer.result:
            print(json.dumps(answer.result.overall))
        return 0 if answer.status is Status.SCORED else 2
    if args.command == "table":
        df = lb.table(args.benchmark, args.view)
        if args.format == "csv":
            from leaderboard.table import to_csv_bytes

            sys.stdout.write(to_csv_bytes(df).decode())
        elif args.format == "json":
            print(df.to_json(orient="records"))
        else:
            print(df.drop(columns=["paper_url", "code_url"]).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        return 0
    if args.command == "rescore":
        report = lb.rescore(args.benchmark, args.workers)
        for b, part in report.items():
            print(f"{b}: {part['counts']}")
            for c in part["rank_changes"]:
                print(f"  {c.team} / {c.model}: rank {c.before or '-'} -> {c.after or '-'}")
            if not part["rank_changes"]:
                print("  no rank changed")
        return 0
    if args.command in ("hide", "unhide"):
        if not lb.set_hidden(args.submission_id, args.command == "hide", args.by):
            print(f"error: no submission {args.submission_id}", file=sys.stderr)
            return 1
        print(f"{args.command}: {args.submission_id}")
        return 0
    if args.command == "probes":
        return _probes(lb, args)
    if args.command == "resume":
        print(f"finished {lb.resume()} submission(s)")
        return 0
    if args.command == "push":
        print(f"{lb.push_pending()} write(s) still waiting")
        return 0
    if args.command == "demo":
        print("seeded" if lb.seed_demo() else "the store is not empty: nothing done")
        return 0
    return 2


def _probes(lb: Leaderboard, args: argparse.Namespace) -> int:
    """Print the flags and their evidence; with ``--hold``, hold that submitter's submissions."""
    found = [f for b in ([args.benchmark] if args.benchmark else list(BENCHMARKS)) for f in lb.probe_report(b)]
    if args.hold:
        ids = [s.meta.id for s in lb.catalog.all(args.benchmark) if s.meta.submitter == args.hold]
        if args.hold not in {f.submitter for f in found} or not ids:
            print(f"error: {args.hold!r} is not a flagged submitter", file=sys.stderr)
            return 1
        print(f"held {len(lb.hold(ids, args.by))} submission(s) of {args.hold}")
        return 0
    for flag in found:
        print(
            f"{flag.benchmark}: {flag.submitter}: {len(flag.evidence)} of {flag.submissions} submissions look like "
            f"probes (flagged at its submission {flag.flagged_at}; {len(flag.held)} held)"
        )
        for p in flag.evidence:
            print(f"  {p.submission_id} {p.model} / {p.team}: {'; '.join(p.reasons)}")
    if not found:
        print("no submitter flagged")
    return 0
