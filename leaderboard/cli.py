"""Maintainer command line (also what tests and scripts use); see docs/maintainers.md.

python -m leaderboard gold add --benchmark scb --file GOLD [--confirm] [--withhold concept,country]
python -m leaderboard gold audit --benchmark scb --file GOLD [--withhold concept,country]
python -m leaderboard gold restore --benchmark scb --version PREFIX [--confirm]
python -m leaderboard submit --benchmark scb --file F --model M --team T --user U [--bbox-format F]
    [--grounding-format G]
python -m leaderboard table --benchmark scb [--view overall] [--format csv|json]
python -m leaderboard export --benchmark scb ROW_ID [--contact EMAIL] [--paper-or-repo URL] [--markdown]
python -m leaderboard export --benchmark scb ROW_ID --eval-results   (the Hub's .eval_results YAML)
python -m leaderboard export --benchmark scb --eval-yaml             (the benchmark's Hub eval.yaml)
python -m leaderboard rescore [--benchmark scb] [--workers N] [--deadline SECONDS] [--json]
python -m leaderboard hide ID [--reason WHY] / unhide ID
python -m leaderboard held [--benchmark scb] [--release ID ...] [--hide ID --reason WHY]
python -m leaderboard team list | show NAME | transfer NAME --to USER|org:NAME [--create] [--by M]
python -m leaderboard probes [--benchmark scb] [--hold SUBMITTER] [--by NAME]   (holds its whole series)
python -m leaderboard items --benchmark scb [--json]   (item analysis: hard questions, suspect gold; maintainers)
python -m leaderboard resume | push | demo | status

On the Hub, every command first brings the working copy to the Hub's current state (so it
acts on what the Hub holds even from an empty disk) and ends by pushing what it wrote.

``gold add``, ``gold restore``, ``rescore`` and ``resume`` evaluate stored uploads in a bounded
scoring pool of their own (``--workers`` processes, default the machine's cores; each job within
LEADERBOARD_JOB_SECONDS and LEADERBOARD_JOB_MEMORY_MB, as in the app), never in this process: an
upload that runs past its bound is reported and never read again.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from leaderboard.columns import Kind, frame_columns
from leaderboard.config import REFRESH_AT_LEAST_EVERY, Settings
from leaderboard.corrections import DEADLINE_SECONDS
from leaderboard.golds import GoldPreview
from leaderboard.hub_results import dataset_of, eval_yaml_text, row_permalink
from leaderboard.joined import BundleError, one_upload
from leaderboard.rescore_report import report_lines
from leaderboard.service import Leaderboard
from leaderboard.table import to_csv_bytes
from scoring import BENCHMARKS, GoldError, load_gold
from scoring.benchmarks import get_benchmark, load_plugins
from scoring.benchmarks.base import SiteRow
from scoring.geometry import BOX_FORMATS
from scoring.grounding_formats import describe_formats
from scoring.leakaudit import report
from store.base import StoreError
from store.golds import UnconfirmedGold, leak_audit
from store.records import HOLD_REASON
from submissions import fields
from submissions.probes import held_queue
from submissions.records import VISIBILITIES, Identity, Status, SubmissionForm
from submissions.request import SubmitRequest


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m leaderboard", description="Maintain the leaderboard.")
    sub = p.add_subparsers(dest="command", required=True)
    _gold_parser(sub)
    _submit_parser(sub)
    _export_parser(sub)

    t = sub.add_parser("table", help="print the current public table")
    t.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    t.add_argument("--view", default="overall")
    t.add_argument("--format", default="text", choices=["text", "csv", "json"])

    r = sub.add_parser("rescore", help="score all submissions on the staged (else current) gold, then switch to it")
    r.add_argument("--benchmark", choices=list(BENCHMARKS))
    r.add_argument("--workers", type=int, help="scoring processes (default: the machine's cores)")
    r.add_argument(
        "--deadline", type=float, default=DEADLINE_SECONDS, help="start no evaluation after this many seconds"
    )
    r.add_argument("--json", action="store_true", help="the report as JSON, for scripts")
    _moderation_parsers(sub)
    _team_parser(sub)
    pr = sub.add_parser("probes", help="submitters whose series look like probes of the hidden test")
    pr.add_argument("--benchmark", choices=list(BENCHMARKS))
    pr.add_argument("--hold", metavar="SUBMITTER", help="hold every submission of this flagged submitter")
    pr.add_argument("--by", default="maintainer")
    it = sub.add_parser("items", help="item analysis: which questions are hard, which gold looks wrong")
    it.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    it.add_argument("--json", action="store_true", help="one JSON object: questions and suspects, for scripts")
    sub.add_parser("resume", help="finish submissions left unscored")
    sub.add_parser("push", help="push writes waiting for the Hub")
    sub.add_parser("demo", help="seed an empty store with demo data")
    sub.add_parser("status", help="storage health: sync, writes waiting or refused, start-up problems")
    return p


def _gold_parser(sub) -> None:
    gold = sub.add_parser("gold", help="gold versions").add_subparsers(dest="gold_command", required=True)
    add = gold.add_parser("add", help="validate a gold file and stage it (current after the rescore)")
    add.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    add.add_argument(
        "--file",
        required=True,
        type=Path,
        help="JSONL, Parquet or COCO JSON; or a folder, for a benchmark that declares one (gold_folder)",
    )
    add.add_argument("--by", default="maintainer")
    add.add_argument(
        "--confirm", action="store_true", help="accept a change of the question set or of group sizes (listed first)"
    )
    add.add_argument(
        "--withhold",
        default="",
        metavar="FIELD,...",
        help="question fields to leave out of the public list (e.g. concept,country); the leak audit is of the rest",
    )
    restore = gold.add_parser("restore", help="stage a stored earlier gold again (previewed like gold add)")
    restore.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    restore.add_argument(
        "--version", required=True, help="the stored version, or a prefix of it (gold show lists them)"
    )
    restore.add_argument("--by", default="maintainer")
    restore.add_argument("--confirm", action="store_true", help="as for gold add")
    audit = gold.add_parser("audit", help="the leak audit of a gold's public question list (stores nothing)")
    audit.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    audit.add_argument("--file", required=True, type=Path)
    audit.add_argument("--withhold", default="", metavar="FIELD,...", help="as for gold add")
    show = gold.add_parser("show", help="current gold versions")
    show.add_argument("--benchmark", choices=list(BENCHMARKS))


def _submit_parser(sub) -> None:
    s = sub.add_parser("submit", help="submit a prediction file (as a maintainer: no quota)")
    s.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    s.add_argument(
        "--file",
        required=True,
        type=Path,
        nargs="+",
        metavar="FILE",
        help="the predictions file; or several lmms-eval samples files together (two stages: stage 1's and 2's)",
    )
    for f in fields.submitted_fields():  # --model, --team, --model-type, ..., --model-repo
        choices = {"choices": list(f.choice_keys)} if f.choices else {}
        s.add_argument(f.flag, required=f.required, default=f.default, help=f.hint or None, **choices)
    s.add_argument("--user", required=True)
    s.add_argument("--bbox-format", default="xyxy", choices=list(BOX_FORMATS))
    s.add_argument(
        "--grounding-format",
        default="",
        metavar="FAMILY",
        help=f"family of grounding_response lines: {describe_formats()}",
    )
    s.add_argument("--as-submitter", action="store_true", help="apply the daily quota as for a team")
    s.add_argument("--visibility", default="public", choices=list(VISIBILITIES))
    s.add_argument("--anonymous", action="store_true", help="show as an anonymous submission on the board")
    s.add_argument("--reveal-date", default="", help="YYYY-MM-DD: an anonymous entry shows its names from then")


def _export_parser(sub) -> None:
    """export: a public row in its benchmark site's format, or in the Hub's Eval Results files."""
    ex = sub.add_parser("export", help="a public row in its benchmark site's format")
    ex.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    ex.add_argument("row", nargs="?", default="", help="the row id (the model page's ?model=) or its submission id")
    ex.add_argument(
        "--eval-results", action="store_true", help="the row's entries for a model repo's .eval_results/ (YAML)"
    )
    ex.add_argument("--eval-yaml", action="store_true", help="the eval.yaml that registers the benchmark on the Hub")
    ex.add_argument("--paper-or-repo", default="", help="SCB: paper_or_repo (default: the row's link)")
    ex.add_argument("--contact", default="", help="SCB: the contact field")
    ex.add_argument("--markdown", action="store_true", help="K-Viscuit: the paper's table row as Markdown")


def _moderation_parsers(sub) -> None:
    """hide / unhide and the queue of held submissions."""
    for name in ("hide", "unhide"):
        h = sub.add_parser(name, help=f"{name} a submission from the public table")
        h.add_argument("submission_id")
        h.add_argument("--by", default="maintainer")
        if name == "hide":
            h.add_argument("--reason", default="", help="why, in words the team is shown (My submissions, /my_result)")
    held = sub.add_parser("held", help="the queue of submissions held for review, and releasing or hiding them")
    held.add_argument("--benchmark", choices=list(BENCHMARKS))
    held.add_argument("--release", nargs="+", metavar="ID", default=[], help="release these held submissions")
    held.add_argument("--hide", nargs="+", metavar="ID", default=[], help="hide these for good (needs --reason)")
    held.add_argument("--reason", default="", help="the maintainer's reason, shown to the team")
    held.add_argument("--by", default="maintainer")


def _team_parser(sub) -> None:
    team = sub.add_parser("team", help="team names and their owners").add_subparsers(dest="team_command", required=True)
    team.add_parser("list", help="every team name and who owns it")
    show = team.add_parser("show", help="a team name's owner and history")
    show.add_argument("name")
    transfer = team.add_parser("transfer", help="give a team name to another account")
    transfer.add_argument("name")
    transfer.add_argument("--to", required=True, help="a user name, or org:NAME for every member of an organisation")
    transfer.add_argument("--by", default="maintainer")
    transfer.add_argument("--create", action="store_true", help="create the name if no team has it (else refused)")


def _team(lb: Leaderboard, args: argparse.Namespace) -> int:
    if args.team_command == "list":
        for team in lb.teams.all():
            print(f"{team.name}\t{team.owner}" + ("" if team.claimed else "\t(first user; not yet written down)"))
        return 0
    if args.team_command == "show":
        team = lb.moderation.team(args.name)
        if team is None:
            print(f"no team named like {args.name!r}")
            return 1
        print(f"{team.name}: owned by {team.owner}")
        for event in team.events:
            print(f"  {event.at[:19]} {event.action} -> {event.owner} (by {event.by})")
        return 0
    current = lb.moderation.team(args.name)
    if current is None and not args.create:
        known = difflib.get_close_matches(args.name, [t.name for t in lb.teams.all()], n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(k) for k in known)}?" if known else ""
        print(
            f"error: no team is named like {args.name!r}; nothing was changed.{hint} "
            "Pass --create to create this name and give it away.",
            file=sys.stderr,
        )
        return 1
    if current is not None and current.owner == args.to:
        print(f"{current.name}: already owned by {current.owner}; nothing was changed")
        return 0
    try:
        team = lb.moderation.transfer_team(args.name, args.to, args.by)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{team.name}: owned by {team.owner} now" + (" (a new name)" if current is None else ""))
    _when_shown(lb)
    return 0


def _when_shown(lb: Leaderboard) -> None:
    """Say when a running app shows a change written here: on its next refresh poll."""
    seconds = max(REFRESH_AT_LEAST_EVERY, lb.settings.ui.refresh_seconds)
    print(
        f"A running app shows this within {seconds} s (it rereads the store every {seconds} s: "
        "LEADERBOARD_REFRESH_SECONDS); the Maintainers tab acts at once."
    )


def _add_gold(lb: Leaderboard, args: argparse.Namespace) -> int:
    """Preview the switch (the gold's changes, the leak audit, every row before -> after), then
    stage the gold; exit 3, nothing stored, when it needs --confirm (a changed question set or
    group sizes, or a row that would leave the board)."""
    shown = None
    try:
        if lb.gold_info(args.benchmark) is not None:
            shown = lb.corrections.preview_gold(args.benchmark, args.file, _fields(args))
            _print_audit(shown.leaks, _fields(args))
            print("\n".join(shown.lines()))
            if shown.needs_confirmation and not args.confirm:
                return _unconfirmed(shown)
        update = lb.corrections.update_gold(
            args.benchmark, args.file, args.by, confirm=args.confirm, withheld=_fields(args), preview=shown
        )
    except UnconfirmedGold as e:
        print(f"{e.benchmark}: the new gold changes the questions; nothing was stored:", file=sys.stderr)
        for line in e.changes.lines():
            print(f"  {line}", file=sys.stderr)
        print("Add it again with --confirm to stage it.", file=sys.stderr)
        return 3
    except (GoldError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    info = update.info
    if shown is None:
        _print_audit(update.leaks, info.withheld)
    if not update.staged:
        print(f"{info.benchmark}: gold {info.version} is current ({info.questions} questions)")
        return 0
    print(f"{info.benchmark}: gold {info.version} is staged ({info.questions} questions); the board keeps the")
    print("current gold until every submission is scored on the new one. Run `python -m leaderboard rescore`")
    print("to do that now and switch (a running app's background job does it within minutes).")
    return 0


def _restore_gold(lb: Leaderboard, args: argparse.Namespace) -> int:
    """Stage a stored version again, as `gold add` of its file would (preview, --confirm): its
    outcomes are kept, so the switch back scores only what arrived since."""
    with tempfile.TemporaryDirectory() as tmp:
        path = lb.golds.stored_file(args.benchmark, args.version, Path(tmp))
        if path is None:
            known = ", ".join(f.version[:12] for f in lb.golds.versions(args.benchmark)) or "none"
            print(
                f"error: no one stored {args.benchmark} gold starts with {args.version!r}; stored: {known}",
                file=sys.stderr,
            )
            return 1
        info = lb.gold_info(args.benchmark)
        withhold = ",".join(info.withheld) if info else ""
        return _add_gold(lb, argparse.Namespace(**vars(args), file=path, withhold=withhold))


def _unconfirmed(shown: GoldPreview) -> int:
    """Say why the previewed gold needs --confirm; nothing was stored (exit 3)."""
    changes = shown.changes
    if changes is not None and changes.needs_confirmation:
        print(f"{shown.benchmark}: the new gold changes the questions; nothing was stored:", file=sys.stderr)
        for line in changes.lines():
            print(f"  {line}", file=sys.stderr)
    if shown.leaving:
        print(
            f"{shown.benchmark}: {len(shown.leaving)} row(s) would leave the board; nothing was stored:",
            file=sys.stderr,
        )
        for row in shown.leaving:
            print(f"  {row.line()}", file=sys.stderr)
    print("Add it again with --confirm to stage it.", file=sys.stderr)
    return 3


def _fields(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(f.strip() for f in args.withhold.split(",") if f.strip())


def _print_audit(leaks, withheld: tuple[str, ...]) -> None:
    """The leak audit, the leaking channels named (maintainers only: it reads the answers)."""
    print(f"public question list withholds: {', '.join(withheld) or 'nothing'}")
    for line in report(leaks):
        print(f"  {line}")
    if any(c.leaky for c in leaks):
        print("  A channel above gives answers away: withhold the fields it names (--withhold), or fix the data.")


def _audit_gold(args: argparse.Namespace) -> int:
    """The leak audit of a gold file's public list with the given fields withheld; stores nothing."""
    try:
        gold = load_gold(args.benchmark, args.file)
        leaks = leak_audit(args.benchmark, args.file, gold, _fields(args))
    except (GoldError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    _print_audit(leaks, _fields(args))
    return 0


def _print_rescore(report: dict) -> None:
    for line in report_lines(report):
        print("  " * line.depth + line.text)


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    load_plugins(settings.plugins)  # plugin benchmarks are valid --benchmark choices
    args = _parser().parse_args(argv)
    if args.command == "gold" and args.gold_command == "audit":
        return _audit_gold(args)  # reads the file given, not the store
    if not settings.uses_hub and not settings.data_dir.is_dir() and not _starts_a_store(args):
        print(
            f"error: no data folder at {settings.data_dir.resolve()}; nothing was created. Run from the folder "
            "that holds it, or point LEADERBOARD_DATA_DIR at it (`python -m leaderboard demo` or `gold add` "
            "starts a new one).",
            file=sys.stderr,
        )
        return 1
    lb = Leaderboard(settings)
    if settings.uses_hub:
        lb.refresh()
        if not lb.store.consistent and args.command != "status":
            print("error: could not read the Hub's current state; see `python -m leaderboard status`", file=sys.stderr)
            for line in lb.health().lines():
                print(f"  {line}", file=sys.stderr)
            return 1
    pool = _maintainer_pool(lb, args)
    try:
        return _run(lb, args)
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if pool is not None:
            pool.close()
        if lb.flush():
            note = f"{lb.store.pending()} write(s) still wait for the Hub; run `python -m leaderboard push`"
            print(f"warning: {note}", file=sys.stderr)


EVALUATES = {("gold", "add"), ("gold", "restore"), ("rescore",), ("resume",), ("items",)}
"""Commands that evaluate stored uploads: they get a bounded scoring pool (module doc)."""


def _maintainer_pool(lb: Leaderboard, args: argparse.Namespace):
    """A bounded scoring pool for a command that evaluates stored uploads (None for the others)."""
    subcommand = getattr(args, f"{args.command}_command", None)
    if (args.command,) not in EVALUATES and (args.command, subcommand) not in EVALUATES:
        return None
    import os

    from submissions.job_bounds import JobBounds

    workers = getattr(args, "workers", None) or os.cpu_count() or 1
    return lb.use_scoring_pool(workers, JobBounds(lb.settings.job_seconds, lb.settings.job_memory_mb))


STARTS_A_STORE = {("demo",), ("submit",), ("gold", "add"), ("team", "transfer")}
"""Commands that write a first record, so may create the local data folder. Every other one reads
or changes what a store holds: run from the wrong folder, it must say so, not report on an empty
store it has just created."""


def _starts_a_store(args: argparse.Namespace) -> bool:
    subcommand = getattr(args, f"{args.command}_command", None)
    return (args.command,) in STARTS_A_STORE or (args.command, subcommand) in STARTS_A_STORE


def _status(lb: Leaderboard, _args: argparse.Namespace | None = None) -> int:
    health = lb.health()
    for line in health.lines():
        print(line)
    return 0 if health.store.ok else 3


def _run(lb: Leaderboard, args: argparse.Namespace) -> int:
    """One command: the function :data:`COMMANDS` names for it."""
    return COMMANDS[args.command](lb, args)


def _gold(lb: Leaderboard, args: argparse.Namespace) -> int:
    if args.gold_command == "add":
        return _add_gold(lb, args)
    if args.gold_command == "audit":
        return _audit_gold(args)
    if args.gold_command == "restore":
        return _restore_gold(lb, args)
    for b in [args.benchmark] if args.benchmark else BENCHMARKS:
        info, staged = lb.gold_info(b), lb.corrections.staged_gold(b)
        print(f"{b}: " + (f"{info.version} since {info.added_at} by {info.added_by}" if info else "no gold"))
        if staged:
            print(f"  staged: {staged.version} since {staged.added_at} by {staged.added_by} (awaiting the rescore)")
        stored = [f.version[:12] for f in lb.golds.versions(b)]
        if stored:  # what `gold restore --version` can take
            print(f"  stored versions: {', '.join(stored)}")
        if info:  # the audit of the list teams have now, not only in the run that staged it
            _print_audit(lb.corrections.gold_audit(b), info.withheld)
    return 0


def _submit(lb: Leaderboard, args: argparse.Namespace) -> int:
    identity = Identity(args.user, is_maintainer=not args.as_submitter, source="cli")
    described = {f.name: getattr(args, f.name) for f in fields.submitted_fields()}
    form = SubmissionForm.of(
        **described,
        bbox_format=args.bbox_format,
        visibility=args.visibility,
        anonymous=args.anonymous,
        reveal_date=args.reveal_date,
        grounding_format=args.grounding_format,
    )
    try:
        with one_upload(args.file, lb.settings.max_upload_bytes) as (path, name):
            answer = lb.submissions.submit(SubmitRequest(args.benchmark, path, form, identity, name))
    except (BundleError, OSError) as e:
        print(f"error: predictions: {e}", file=sys.stderr)
        return 2
    print(f"{answer.status}: {answer.message}" + (f" (id {answer.submission_id})" if answer.submission_id else ""))
    if answer.reason is not None and answer.reason.code != "shown":
        print(f"  reason: {answer.reason.code}")
    for note in answer.notes:
        print(f"  note ({note.code}): {note.message}")
    for issue in answer.issues:
        print(f"  {issue}")
    if answer.total_issues > len(answer.issues):
        print(f"  ... and {answer.total_issues - len(answer.issues)} more")
    if answer.result:
        print(json.dumps(answer.result.overall))
    return 0 if answer.status is Status.SCORED else 2


def _table(lb: Leaderboard, args: argparse.Namespace) -> int:
    df = lb.table(args.benchmark, args.view)
    if args.format == "csv":
        sys.stdout.write(to_csv_bytes(df).decode())
    elif args.format == "json":
        print(df.to_json(orient="records"))
    else:
        declared = {f.name for f in fields.public_fields()}
        wide = [
            c.key
            for c in frame_columns(BENCHMARKS[args.benchmark], args.view)
            if c.key in declared and c.kind in (Kind.URL, Kind.DATA)
        ]  # links and page-only facts
        print(df.drop(columns=wide).to_string(index=False, float_format=lambda v: f"{v:.2f}"))
    return 0


def _progress() -> Callable[[float, str], None]:
    """Progress of a long evaluation, told on stderr every tenth of the way."""
    shown = [-1]

    def tell(share: float, what: str) -> None:
        if int(share * 10) > shown[0]:
            shown[0] = int(share * 10)
            print(f"  {what}", file=sys.stderr, flush=True)

    return tell


def _rescore(lb: Leaderboard, args: argparse.Namespace) -> int:
    report = lb.corrections.rescore(args.benchmark, args.workers, _progress(), args.deadline)
    if args.json:
        print(
            json.dumps(
                {
                    b: {
                        **part,
                        "rank_changes": [vars(c) for c in part["rank_changes"]],
                        "rows": [dataclasses.asdict(r) for r in part["rows"]],
                    }
                    for b, part in report.items()
                }
            )
        )
    else:
        _print_rescore(report)
    return 0


def _moderate(lb: Leaderboard, args: argparse.Namespace) -> int:
    reason = getattr(args, "reason", "")
    if not lb.moderation.set_hidden(args.submission_id, args.command == "hide", args.by, reason):
        print(f"error: no submission {args.submission_id}", file=sys.stderr)
        return 1
    why = f" ({reason})" if reason else " (no reason given: the team is told none was given; add --reason)"
    print(f"{args.command}: {args.submission_id}" + (why if args.command == "hide" else ""))
    meta = lb.catalog.get(args.submission_id).meta
    print(f"  {meta.benchmark}: {meta.team} / {meta.model}, submitted {meta.submitted_at[:16]} by {meta.submitter}")
    _when_shown(lb)
    return 0


def _held(lb: Leaderboard, args: argparse.Namespace) -> int:
    """The held queue (oldest hold first), or release / hide some of it."""
    if args.hide and not args.reason.strip():
        print("error: --hide needs --reason (the team is shown it)", file=sys.stderr)
        return 1
    queue = {s.meta.id: s for s in held_queue(lb.catalog.all(args.benchmark))}
    unknown = [sid for sid in [*args.release, *args.hide] if sid not in queue]
    if unknown:
        print(f"error: not held: {', '.join(unknown)} (see `python -m leaderboard held`)", file=sys.stderr)
        return 1
    for sid in args.release:
        lb.moderation.set_hidden(sid, False, args.by)
        print(f"released: {sid} (its figures are shown to its team as the Ladder allows)")
    for sid in args.hide:
        lb.moderation.set_hidden(sid, True, args.by, args.reason)
        print(f"hidden: {sid} ({args.reason.strip()})")
    if args.release or args.hide:
        _when_shown(lb)
        return 0
    for state in queue.values():
        m, mod = state.meta, state.moderation
        print(
            f"{m.id}  {m.benchmark}  {m.model} / {m.team} ({m.submitter})  held {mod.at[:16]} by {mod.by}: "
            f"{mod.reason.removeprefix(HOLD_REASON).strip()}"
        )
    print(
        f"{len(queue)} held submission(s)"
        + ("; release with --release ID, hide with --hide ID --reason WHY" if queue else "")
    )
    return 0


def _resume(lb: Leaderboard, _args: argparse.Namespace) -> int:
    print(f"finished {lb.corrections.resume()} submission(s)")
    return 0


def _push(lb: Leaderboard, _args: argparse.Namespace) -> int:
    print(f"{lb.push_pending()} write(s) still waiting")
    return 0


def _demo(lb: Leaderboard, _args: argparse.Namespace) -> int:
    print("seeded" if lb.seed_demo() else "the store is not empty: nothing done")
    return 0


def _probes(lb: Leaderboard, args: argparse.Namespace) -> int:
    """Print the flags and their evidence; with ``--hold``, hold that submitter's submissions."""
    found = [
        f for b in ([args.benchmark] if args.benchmark else list(BENCHMARKS)) for f in lb.moderation.probe_report(b)
    ]
    if args.hold:
        series = {
            name for f in found if args.hold in (f.submitter, *f.submitters) for name in (f.submitter, *f.submitters)
        }
        ids = [s.meta.id for s in lb.catalog.all(args.benchmark) if s.meta.submitter in series]
        if not ids:
            print(f"error: {args.hold!r} is not a flagged submitter", file=sys.stderr)
            return 1
        others = f" and its series ({', '.join(sorted(series - {args.hold}))})" if len(series) > 1 else ""
        print(f"held {len(lb.moderation.hold(ids, args.by))} submission(s) of {args.hold}{others}")
        return 0
    for flag in found:
        linked = f" (series with {', '.join(a for a in flag.submitters if a != flag.submitter)})"
        print(
            f"{flag.benchmark}: {flag.submitter}{linked if len(flag.submitters) > 1 else ''}: {len(flag.evidence)} "
            f"of {flag.submissions} submissions look like probes (flagged at its submission {flag.flagged_at}; "
            f"{len(flag.held)} held)"
        )
        for p in flag.evidence:
            print(f"  {p.submission_id} {p.model} / {p.team}: {'; '.join(p.reasons)}")
    if not found:
        print("no submitter flagged")
    unread = sum(lb.moderation.unread(b) for b in ([args.benchmark] if args.benchmark else list(BENCHMARKS)))
    if unread:
        print(f"{unread} stored upload(s) left out: not read yet (`python -m leaderboard resume` reads them),")
        print("stopped at a job bound while read, or answering no question")
    return 0


def _items(lb: Leaderboard, args: argparse.Namespace) -> int:
    """The stored item analysis of the current gold, computed first (in the bounded pool) when it
    is missing or older than the scored submissions; with ``--json`` one object (docs/items.md)."""
    if lb.golds.info(args.benchmark) is None:
        print(f"error: {args.benchmark} has no gold yet", file=sys.stderr)
        return 1
    record = lb.items.analysis(args.benchmark)
    if record is None or lb.items.stale(args.benchmark):
        record = lb.items.compute(args.benchmark)
    suspects = lb.items.suspects(args.benchmark)
    if args.json:
        payload = {
            "benchmark": record.benchmark,
            "gold_version": record.gold_version,
            "computed_at": record.computed_at,
            "submissions": record.submissions,
            "questions": list(record.questions),
            "suspects": suspects,
            "dismissed": [dataclasses.asdict(d) for d in lb.items.dismissals(args.benchmark).values()],
            "reports": [dataclasses.asdict(r) for r in lb.items.reports(args.benchmark)],
        }
        print(json.dumps(payload, ensure_ascii=False))
        return 0
    for line in items_lines(record, suspects, len(lb.items.reports(args.benchmark))):
        print(line)
    return 0


def items_lines(record, suspects: list[dict], reports: int) -> list[str]:
    """The analysis in words: what it counted, the suspects most suspect first, the hardest questions."""
    out = [
        f"{record.benchmark}: gold {record.gold_version[:12]}, {record.submissions} submission(s) counted "
        f"(each team's model once, its latest scored upload), computed {record.computed_at}",
        f"suspects ({len(suspects)}, most suspect first; dismissed ones left out):" if suspects else "no suspect",
    ]
    for i, s in enumerate(suspects, 1):
        top = next((b for b in s["evidence"].get("bands", []) if b["name"] == "top"), None)
        if s["kind"] == "answer":
            said = f"gold {s['evidence'].get('gold')}, suggested {s['suggestion']['answer']}"
            if top:
                said += f"; top third: {top['chose_suggestion']} of {top['answered']} chose it"
        else:
            said = "region missed; consensus box " + ", ".join(f"{v:g}" for v in s["suggestion"]["box"])
        out.append(f"  {i}. {s['question_id']} {s['kind']} (score {s['score']:g}): {said}")
    rated = [q for q in record.questions if q["difficulty"] is not None]
    hardest = sorted(rated, key=lambda q: -q["difficulty"])[:5]
    out.append("hardest questions: " + ", ".join(f"{q['question_id']} ({q['share_right']:.0%} right)" for q in hardest))
    out.append(f"question reports from users: {reports} (Maintainers tab)")
    return out


def _export_hub(lb: Leaderboard, args: argparse.Namespace) -> int:
    """The Hub's evaluation system: a row's ``.eval_results`` entries, or the benchmark's ``eval.yaml``."""
    bench = BENCHMARKS[args.benchmark]
    if bench.hub is None:
        print(f"error: {args.benchmark} declares no Hub registration", file=sys.stderr)
        return 1
    if args.eval_yaml:
        sys.stdout.write(eval_yaml_text(bench, dataset_of(bench, lb.settings.hub_datasets)))
        return 0
    results = lb.visibility.eval_results(args.benchmark, args.row, Identity("cli", is_maintainer=True, source="cli"))
    if results.refusal:
        print(f"error: {results.refusal} (give a public row's id or submission id)", file=sys.stderr)
        return 1
    sys.stdout.write(results.text)
    return 0


def _export(lb: Leaderboard, args: argparse.Namespace) -> int:
    """A public row's verified figures in the benchmark's own site's shape (its declaration's ``site_export``)."""
    if args.eval_results or args.eval_yaml:
        return _export_hub(lb, args)
    row = next((r for r in lb.board(args.benchmark).rows if args.row in (r.row_id, r.submission_id)), None)
    if row is None or not row.figures.get("overall"):
        print(f"error: no public {args.benchmark} row {args.row!r} (give its row id or submission id)", file=sys.stderr)
        return 1
    site = SiteRow(
        model=row.model,
        model_type=row.model_type,
        date=row.submitted_at or "",
        source=row_permalink(lb.settings.ui.served_root(), args.benchmark, row.row_id),
        paper_or_repo=args.paper_or_repo or row.paper_url or row.code_url,
        contact=args.contact,
        markdown=args.markdown,
    )
    export = get_benchmark(args.benchmark).site_export
    if export is None:
        print(f"error: {args.benchmark} declares no site format; --eval-results gives the Hub's", file=sys.stderr)
        return 2
    out = export(row.figures, site)
    print(out if isinstance(out, str) else json.dumps(out, ensure_ascii=False))
    return 0


COMMANDS: dict[str, Callable[[Leaderboard, argparse.Namespace], int]] = {
    "status": _status,
    "gold": _gold,
    "submit": _submit,
    "table": _table,
    "rescore": _rescore,
    "hide": _moderate,
    "unhide": _moderate,
    "held": _held,
    "team": _team,
    "probes": _probes,
    "items": _items,
    "resume": _resume,
    "push": _push,
    "demo": _demo,
    "export": _export,
}
"""Each sub-command's function (the parser's choices): one small function a command."""
