"""Run a model on a leaderboard benchmark with VLMEvalKit's own inference (``infer_data_job``) and
the datasets of :mod:`scoring.harness.vlmevalkit.datasets`; print the file to upload.

    python -m scoring.harness.vlmevalkit.run BENCHMARK --tsv URL --model NAME [--api-base URL] [--work-dir DIR]
        [--grounding-format FAMILY]   (a two-stage benchmark's stage 2)

Any benchmark with a family runs (plugins named in ``LEADERBOARD_PLUGINS`` too): a multiple-choice one
in one pass; a two-stage one runs stage 1, then stage 2 on the images stage 1 chose, and its stage-2
file holds both answers.

``--model``: a model name of VLMEvalKit (``vlmeval.config.supported_VLM``), or, with ``--api-base``,
the model an OpenAI-compatible endpoint serves (VLMEvalKit's ``OpenAIWrapper``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from scoring.benchmarks import BENCHMARKS, load_environment_plugins
from scoring.benchmarks.families import TwoStage


def families() -> dict[str, str]:
    """Benchmark id -> its family's kind (``two_stage`` or ``multiple_choice``), for every declared family."""
    load_environment_plugins()
    return {
        b.id: "two_stage" if isinstance(b.family, TwoStage) else "multiple_choice"
        for b in BENCHMARKS.values()
        if b.family is not None
    }


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m scoring.harness.vlmevalkit.run", description=__doc__.split("\n\n")[0]
    )
    kinds = families()
    parser.add_argument("benchmark", choices=list(kinds))
    parser.add_argument("--tsv", required=True, help="the site's /questions/{benchmark}.tsv (a URL or a path)")
    parser.add_argument("--model", required=True, help="VLMEvalKit's model name, or the endpoint's model")
    parser.add_argument("--api-base", help="an OpenAI-compatible chat/completions URL (then --model is its model)")
    parser.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY", "sk-local"))
    parser.add_argument("--grounding-format", help="two stages: the model family, e.g. qwen2_5_vl, gemini, plain")
    parser.add_argument("--work-dir", default="outputs")
    parser.add_argument("--limit", type=int, help="only the first N questions (a trial run)")
    parser.add_argument("--nproc", type=int, default=4, help="parallel API requests")
    args = parser.parse_args(argv)
    args.two_stage = kinds[args.benchmark] == "two_stage"
    if args.two_stage and not args.grounding_format:
        parser.error(f"{args.benchmark} needs --grounding-format (the model family, for stage 2)")
    return args


def model_of(args: argparse.Namespace):
    """VLMEvalKit's API wrapper on the endpoint, or the model name for VLMEvalKit to build."""
    if not args.api_base:
        return args.model
    from vlmeval.api.gpt import OpenAIWrapper

    return OpenAIWrapper(
        model=args.model, key=args.api_key, api_base=args.api_base, max_tokens=512, temperature=0, retry=3, timeout=120
    )


def infer(model, dataset, args: argparse.Namespace) -> str:
    """One dataset through VLMEvalKit's inference; the prediction file it wrote."""
    from vlmeval.inference import infer_data_job
    from vlmeval.smp import get_pred_file_path

    os.makedirs(args.work_dir, exist_ok=True)
    infer_data_job(
        model, work_dir=args.work_dir, model_name=args.model, dataset=dataset, api_nproc=args.nproc, limit=args.limit
    )
    return get_pred_file_path(args.work_dir, args.model, dataset.dataset_name, use_env_format=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    from scoring.harness.vlmevalkit import datasets

    model = model_of(args)
    if not args.two_stage:
        upload = infer(model, datasets.MultipleChoice(tsv=args.tsv, benchmark=args.benchmark), args)
    else:
        stage1 = infer(model, datasets.TwoStage1(tsv=args.tsv, benchmark=args.benchmark), args)
        stage2 = datasets.TwoStage2(
            tsv=args.tsv, benchmark=args.benchmark, stage1=stage1, grounding_format=args.grounding_format
        )
        upload = infer(model, stage2, args)
    print(f"upload: {upload}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
