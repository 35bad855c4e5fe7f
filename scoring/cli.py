"""``python -m scoring score|validate|demo ...``: score or check a submission from the shell (SPEC "command
line"); ``demo OUT_DIR`` writes every registered benchmark's demo files (the embedded default's).

``score`` needs the gold; ``validate`` needs only the public question list (the About tab links
it) and runs the server's checks with the server's codes, scoring nothing. Exit 0 with the
result (or "valid"), 2 with line-numbered format errors (no traceback), 1 when the gold, the
question list or the command is wrong. Compiled gold is kept in the one cache (scoring/cache.py) under
``$SCORING_CACHE_DIR`` or the user's cache folder, so a cold start does not rasterise 3,178
masks again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from scoring import BENCHMARKS, GoldError, SubmissionError, get_benchmark, load_questions
from scoring.benchmarks import load_environment_plugins
from scoring.cache import GoldCache
from scoring.engine import ResultRecord, score_predictions, validate_file
from scoring.errors import Issue
from scoring.geometry import BOX_FORMATS
from scoring.grounding_formats import describe_formats, known_format
from scoring.jsonl import Limits
from scoring.readers import bundle
from scoring.validation import check_file

LEADERBOARD_MIN_COVERAGE = 0.95
"""The leaderboard's default minimum coverage; ``validate`` warns below it."""


def _fmt(value: float | None, ci: list | None = None) -> str:
    if value is None:
        return "-"
    return f"{value:6.2f}" + (f" ± {(ci[1] - ci[0]) / 2:4.2f}" if ci else "")


def render_table(result: ResultRecord) -> str:
    """A plain-text table of every group's figures."""
    bench = get_benchmark(result.benchmark)
    names = [m for m in bench.metrics]
    head = f"{'group':<36}{'n':>6}  " + "  ".join(f"{m.label:>15}" for m in names)
    lines = [f"{bench.name}  gold {result.gold_version[:12]}  scorer {result.scorer_version}", head, "-" * len(head)]

    def row(label: str, stats: dict) -> str:
        cells = "  ".join(f"{_fmt(stats.get(m.name), stats.get(m.ci) if m.ci else None):>15}" for m in names)
        return f"{label:<36}{stats['questions']:>6}  {cells}"

    lines.append(row("overall", result.overall))
    for grouping in bench.groupings:
        for label, stats in result.groups.get(grouping.name, {}).items():
            lines.append(row(f"{grouping.name}: {grouping.show(label)}", stats))
    lines.append("counts: " + ", ".join(f"{k} {v}" for k, v in result.counts.items()))
    return "\n".join(lines)


def _share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1, e.g. 0.95; got {text}")
    return value


def _grounding_format(text: str) -> str:
    if text and not known_format(text):
        raise argparse.ArgumentTypeError(f"unknown grounding format {text!r}; known: {describe_formats()}")
    return text


def _file_arguments(parser: argparse.ArgumentParser, reference: str, help: str, reference_type: type = Path) -> None:
    """The arguments ``score`` and ``validate`` share: benchmark, the reference file, predictions, box format."""
    parser.add_argument("--benchmark", required=True, choices=list(BENCHMARKS))
    parser.add_argument(reference, required=True, type=reference_type, help=help)
    parser.add_argument(
        "--predictions",
        required=True,
        type=Path,
        nargs="+",
        metavar="FILE",
        help="the predictions file; or several lmms-eval samples files together (two stages: stage 1's and 2's)",
    )
    parser.add_argument("--bbox-format", default="xyxy", choices=list(BOX_FORMATS))
    parser.add_argument(
        "--grounding-format",
        default="",
        type=_grounding_format,
        metavar="FAMILY",
        help=f"how grounding_response lines are read: {describe_formats()}",
    )
    parser.add_argument(
        "--confirm-box-format",
        action="store_true",
        help="the box (or grounding) format is right: skip the check that the boxes fit it",
    )


def main(argv: list[str] | None = None) -> int:
    load_environment_plugins()  # a plugin benchmark (LEADERBOARD_PLUGINS) is a --benchmark choice too
    parser = argparse.ArgumentParser(prog="python -m scoring", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score a submission file")
    _file_arguments(score, "--gold", help="the gold file (JSONL, Parquet or COCO JSON)")
    score.add_argument(
        "--min-coverage",
        type=_share,
        default=None,
        metavar="SHARE",
        help="refuse a file answering fewer than this share (0-1) of the questions, as the leaderboard does (0.95)",
    )
    score.add_argument("--json", action="store_true", help="print one JSON result record")
    score.add_argument("--no-cache", action="store_true", help="do not read or write compiled gold")
    _validate_parser(sub)
    demo = sub.add_parser("demo", help="write every registered benchmark's demo gold, public list and team files")
    demo.add_argument("out", metavar="OUT_DIR")
    args = parser.parse_args(argv)
    if args.command == "validate":
        return validate(args)
    if args.command == "demo":
        from scoring.benchmarks.demo import main as write_demo_files

        return write_demo_files([args.out])
    cache = GoldCache(None if args.no_cache else _cache_folder())
    try:
        gold = cache.load(args.benchmark, args.gold)
    except (GoldError, OSError) as e:
        print(f"error: gold: {e}", file=sys.stderr)
        return 1
    try:
        predictions = validate_file(
            args.benchmark,
            gold,
            _predictions(args.predictions),
            bbox_format=args.bbox_format,
            min_coverage=args.min_coverage,
            check_box_format=not args.confirm_box_format,  # as the site: never a silent mIoU 0 from a misread box
            grounding_format=args.grounding_format,
        )
        result = score_predictions(args.benchmark, gold, predictions)
    except SubmissionError as e:
        if args.json:
            print(json.dumps({"errors": [i.to_dict() for i in e.issues], "total": e.total}))
        print(e.summary(), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: predictions: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result.to_dict()) if args.json else render_table(result))
    return 0


def _validate_parser(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser(
        "validate", help="check a submission against the public question list (no gold, nothing scored)"
    )
    _file_arguments(
        check, "--questions", help="the public question list: a file, or its URL (About tab)", reference_type=str
    )
    check.add_argument(
        "--min-coverage",
        type=_share,
        default=LEADERBOARD_MIN_COVERAGE,
        metavar="SHARE",
        help="warn when the file answers fewer than this share of the questions (default 0.95, the leaderboard's)",
    )
    check.add_argument("--json", action="store_true", help="print the report (or the errors) as JSON")


def validate(args: argparse.Namespace) -> int:
    """``python -m scoring validate``: the server's validate-only check, offline."""
    try:
        questions = _question_list(args.benchmark, args.questions)
    except (GoldError, OSError) as e:
        print(f"error: question list: {e}", file=sys.stderr)
        return 1
    try:
        report = check_file(
            args.benchmark,
            questions,
            _predictions(args.predictions),
            bbox_format=args.bbox_format,
            min_coverage=args.min_coverage,
            confirm_box_format=args.confirm_box_format,
            grounding_format=args.grounding_format,
        )
    except SubmissionError as e:
        if args.json:
            print(json.dumps({"status": "rejected", "errors": [i.to_dict() for i in e.issues], "total": e.total}))
        print(e.summary(), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: predictions: {e}", file=sys.stderr)
        return 1
    if args.json:
        body = {
            "status": "valid",
            "questions": report.questions,
            "answered": report.answered,
            "unparsed": report.unparsed,
            "lenient": report.lenient,
            "grounding_unparsed": report.grounding_unparsed,
            "unparsed_lines": [u.to_api() for u in report.unparsed_lines],
            "warnings": [w.to_dict() for w in report.warnings],
        }
        print(json.dumps(body, ensure_ascii=False))
    else:
        print(report.summary())
    return 0


QUESTION_LIST_BYTES = 64 * 1024 * 1024
QUESTION_LIST_TIMEOUT = 60  # seconds


def _question_list(benchmark: str, source: str):
    """The public question list from a file or from its URL (the site's ``/questions/{benchmark}.jsonl``,
    what the runner prints back), fetched once, bounded in size and time."""
    if not source.startswith(("http://", "https://")):
        return load_questions(benchmark, source)
    import tempfile
    import urllib.request

    with urllib.request.urlopen(source, timeout=QUESTION_LIST_TIMEOUT) as response:  # noqa: S310 (the team's URL)
        body = response.read(QUESTION_LIST_BYTES + 1)
    if len(body) > QUESTION_LIST_BYTES:
        raise OSError(f"{source}: larger than {QUESTION_LIST_BYTES:,} bytes; download it and pass the file")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "questions.jsonl"
        path.write_bytes(body)
        return load_questions(benchmark, path)


def _predictions(paths: list[Path]) -> Path | bytes:
    """One file as it is; several read together as lmms-eval samples, each by its own name
    (scoring/readers/bundle.py)."""
    if len(paths) == 1:
        return paths[0]
    max_bytes = Limits().max_bytes
    try:
        parts = bundle.read_files(paths, max_bytes)
        total = sum(len(p.data) for p in parts)
        if total > max_bytes:
            raise bundle.BundleError(f"the files given hold {total:,} bytes together; the limit is {max_bytes:,}")
        return bundle.parts_zip(parts)  # read as the site reads an upload of several files: each by its name
    except bundle.BundleError as e:
        raise SubmissionError([Issue(e.code, 0, "", str(e))]) from None


def run(main: Callable[[], int]) -> int:
    """``main``'s exit code; when the reader of stdout stopped early (``| head``), exit 1 quietly, as
    the Python documentation's note on SIGPIPE does (stdout pointed at devnull, so the interpreter's
    last flush does not fail again), instead of a BrokenPipeError traceback."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return code


def _cache_folder() -> Path:
    """``$SCORING_CACHE_DIR``, else the user's cache folder: the command line's own setting,
    read here and nowhere else in ``scoring``."""
    base = os.environ.get("SCORING_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cultural-leaderboard", "gold"
    )
    return Path(base)
