"""``python -m scoring.harness.runner BENCHMARK ...``: from a model behind an OpenAI-compatible
endpoint to a predictions file the leaderboard scores, in one command.

BENCHMARK is any registered benchmark that declares a family (the shipped ones and the plugins named
in ``LEADERBOARD_PLUGINS``); its declaration says what is asked (its protocol) and what a line holds.
``--questions``, ``--images`` and ``--grounding-format`` mean what they mean for every harness
(:mod:`scoring.harness.inputs`).

Exit 0 when every question is in the output file, 1 when some failed after the client's retries
(run again with ``--resume`` to ask only those), 2 on a wrong command or an unreadable input.
The API key is read from the environment variable ``--api-key-env`` names (default
``OPENAI_API_KEY``); local servers that need none get the placeholder ``EMPTY``.
"""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from pathlib import Path

from scoring.benchmarks import BENCHMARKS, Benchmark, get_benchmark, load_environment_plugins
from scoring.benchmarks.families import TwoStage
from scoring.benchmarks.protocol import UnknownFamily
from scoring.harness.inputs import ImageError, QuestionsError
from scoring.harness.runner.images import Images
from scoring.harness.runner.questions import load
from scoring.harness.runner.run import Chat, Endpoint, chat_with, choice_line, run, two_stage_line


def runnable() -> list[str]:
    """The benchmarks the runner can ask: every registered one (plugins too) that declares a family."""
    load_environment_plugins()
    return [b.id for b in BENCHMARKS.values() if b.family is not None]


def questions_and_answer(bench: Benchmark, args: argparse.Namespace, chat: Chat, images: Images):
    """The questions and the function answering one, by the benchmark's family."""
    questions = load(args.questions, bench)
    if isinstance(bench.family, TwoStage):
        preset = bench.family.grounding_preset(args.grounding_format)
        return questions, partial(two_stage_line, chat=chat, images=images, bench=bench, preset=preset)
    return questions, partial(choice_line, chat=chat, images=images, bench=bench)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.harness.runner",
        description="Run a model on a benchmark's public questions and write the file the leaderboard scores.",
    )
    parser.add_argument("benchmark", choices=runnable())
    parser.add_argument("--questions", required=True, help="the public question list: a file or an http(s) URL")
    parser.add_argument(
        "--images",
        required=True,
        help="where the images are: a folder, or an address (the site's /questions/ID/images)",
    )
    parser.add_argument("--base-url", required=True, help="the endpoint, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", required=True, help="the model name the endpoint serves")
    parser.add_argument("--out", required=True, type=Path, help="the predictions file to write (JSONL)")
    parser.add_argument(
        "--grounding-format",
        default="plain",
        help="a two-stage benchmark's stage 2: the model family whose box convention to ask for and declare, one "
        "of the family's grounding presets (default plain)",
    )
    parser.add_argument("--concurrency", type=int, default=8, help="questions in flight at once (default 8)")
    parser.add_argument("--resume", action="store_true", help="keep the lines already in --out, ask only the rest")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (a smoke test)")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="the variable holding the API key")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--max-retries", type=int, default=6, help="retries per request on 429/5xx (default 6)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per request (default 300)")
    parser.add_argument(
        "--inline-images",
        action="store_true",
        help="fetch images from --images URLs and send them inline (each fetched once, up to 256 MB kept)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    endpoint = Endpoint(
        base_url=args.base_url,
        model=args.model,
        api_key=os.environ.get(args.api_key_env) or "EMPTY",
        max_retries=args.max_retries,
        timeout=args.timeout,
        max_tokens=args.max_tokens,
    )
    images = Images(args.images, inline=args.inline_images)
    bench = get_benchmark(args.benchmark)
    try:
        questions, answer = questions_and_answer(bench, args, chat_with(endpoint), images)
    except (QuestionsError, UnknownFamily, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.limit is not None:
        questions = questions[: args.limit]
    outcome = run(
        questions,
        answer,
        args.out,
        resume=args.resume,
        concurrency=args.concurrency,
        progress=not args.no_progress,
        key=bench.key_field,
    )
    print(f"{args.out}: {outcome.written} written, {outcome.skipped} kept from before, {len(outcome.failed)} failed")
    for qid, error in list(outcome.failed.items())[:20]:
        print(f"  {qid}: {error}", file=sys.stderr)
    if outcome.failed:
        missing_images = sum("ImageError" in e for e in outcome.failed.values())
        hint = " (images not found: check --images)" if missing_images else ""
        print(
            f"{len(outcome.failed)} question(s) failed{hint}; run again with --resume to ask only those",
            file=sys.stderr,
        )
        return 1
    print(
        f"next: python -m scoring validate --benchmark {args.benchmark} --questions {args.questions}"
        f" --predictions {args.out}"
    )
    return 0


__all__ = ["ImageError", "main", "questions_and_answer", "runnable"]
