"""lmms-eval's task folders, written from the declarations: ``python -m scoring.harness.lmms_eval tasks DIR``.

After lmms-eval's ``include:`` families, each family is written once in this package (a ``utils.py`` of
hooks and ``_*template_yaml`` files: ``multiple_choice/``, ``two_stage/``), and a benchmark is the few
lines that differ, generated here from its declaration into ``DIR/<id>/`` beside a copy of its
family's files (the folder's name is how the family's hooks know their benchmark):

- multiple choice: ``<id>.yaml``, the task ``<id>`` with the metric ``<id>_acc``, on the benchmark's
  Hub dataset where its rows are the family's questions (``HubRegistration.question_rows``), else on
  the public list ``<id>-questions.jsonl`` (the name About downloads; answers hidden, so the task only
  predicts);
- two stages: ``<id>_stage1.yaml`` and ``<id>_stage2.yaml`` on the public list, the metric
  ``<id>_bypass``; stage 2 asks the box convention of the model family lmms-eval's ``--model`` names
  (its ``lmms_eval_specific_kwargs``), and ``<id>_stage2_<preset>.yaml`` asks one preset's whatever
  serves the model (an endpoint behind ``--model openai``).

Then ``lmms-eval --include_path DIR ...`` runs them (scoring/harness/lmms_eval/README.md).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from scoring.benchmarks import BENCHMARKS, Benchmark, load_environment_plugins
from scoring.benchmarks.families import MultipleChoice, TwoStage
from scoring.harness.lmms_eval.hooks import ChoiceTask, TwoStageTask

LMMS_EVAL_MODELS = {
    "qwen2_5_vl": "qwen2_5_vl",
    "qwen2_vl": "qwen2_vl",
    "qwen3_vl": "qwen3_vl",
    "internvl": "internvl",
    "internvl2": "internvl",
    "internvl3": "internvl",
    "internvl3_5": "internvl",
    "gemini": "gemini",
    "cogvlm2": "cogvlm",
}
"""lmms-eval's ``--model`` names -> the grounding preset stage 2 asks them in (where the family has it)."""
FAMILY_FOLDERS = {MultipleChoice: "multiple_choice", TwoStage: "two_stage"}


def _lines(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def _dataset(bench: Benchmark) -> tuple[str, ...]:
    hub = bench.hub
    if isinstance(bench.family, MultipleChoice) and hub is not None and hub.question_rows:
        return (f"dataset_path: {hub.dataset_id}", f"test_split: {hub.split}")
    return (
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {bench.id}-questions.jsonl",
        "test_split: test",
    )


def _metric(name: str, aggregation: str) -> tuple[str, ...]:
    return (
        "metric_list:",
        f"  - metric: {name}",
        f"    aggregation: !function utils.{aggregation}",
        "    higher_is_better: true",
    )


def _head(bench: Benchmark, what: str) -> str:
    return f"# {bench.name}, {what}: written from its declaration by python -m scoring.harness.lmms_eval tasks"


def choice_files(bench: Benchmark) -> dict[str, str]:
    task = ChoiceTask(bench)
    body = (
        "include: _template_yaml",
        f'task: "{bench.id}"',
        *_dataset(bench),
        *_metric(task.metric, "aggregate_accuracy"),
    )
    return {f"{bench.id}.yaml": _lines(_head(bench, "multiple choice"), *body)}


def _kwargs(presets: Sequence[str], default: str, by_model: bool) -> tuple[str, ...]:
    lines = ["lmms_eval_specific_kwargs:", "  default:", f"    grounding_format: {default}"]
    if by_model:
        for model, preset in LMMS_EVAL_MODELS.items():
            if preset in presets:
                lines += [f"  {model}:", f"    grounding_format: {preset}"]
    return tuple(lines)


def two_stage_files(bench: Benchmark) -> dict[str, str]:
    task = TwoStageTask(bench)
    presets = list(task.family.grounding_presets)
    default = "plain" if "plain" in presets else presets[0]
    metric = _metric(task.metric, "aggregate_nothing")
    stage2 = task.task("stage2")
    files = {
        f"{task.task('stage1')}.yaml": _lines(
            _head(bench, "stage 1"),
            "include: _stage1_template_yaml",
            f'task: "{task.task("stage1")}"',
            *_dataset(bench),
            *metric,
        ),
        f"{stage2}.yaml": _lines(
            _head(bench, "stage 2 in the convention of the family --model names (any other: " + default + ")"),
            "include: _stage2_template_yaml",
            f'task: "{stage2}"',
            *_dataset(bench),
            *metric,
            *_kwargs(presets, default, by_model=True),
        ),
    }
    for preset in presets:
        files[f"{stage2}_{preset}.yaml"] = _lines(
            _head(bench, f"stage 2 asking the {preset} family's box convention, whatever --model serves it"),
            "include: _stage2_template_yaml",
            f'task: "{stage2}_{preset}"',
            *_dataset(bench),
            *metric,
            *_kwargs(presets, preset, by_model=False),
        )
    return files


def write_tasks(folder: Path, benchmarks: Sequence[Benchmark]) -> list[Path]:
    """Write each benchmark's task folder under ``folder`` (the family's files, then its own); the folders."""
    written = []
    for bench in benchmarks:
        family_folder = resources.files("scoring.harness.lmms_eval").joinpath(FAMILY_FOLDERS[type(bench.family)])
        target = Path(folder) / bench.id
        target.mkdir(parents=True, exist_ok=True)
        for item in family_folder.iterdir():
            if item.name == "utils.py" or item.name.endswith("_yaml"):
                with resources.as_file(item) as path:
                    shutil.copyfile(path, target / item.name)
        own = choice_files(bench) if isinstance(bench.family, MultipleChoice) else two_stage_files(bench)
        for name, text in own.items():
            (target / name).write_text(text, encoding="utf-8")
        written.append(target)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "tasks":
        print("usage: python -m scoring.harness.lmms_eval tasks DIR [BENCHMARK ...]", file=sys.stderr)
        return 2
    load_environment_plugins()
    runnable = {b.id: b for b in BENCHMARKS.values() if b.family is not None}
    unknown = [b for b in args[2:] if b not in runnable]
    if unknown:
        print(f"error: no lmms-eval task for {', '.join(unknown)}; known: {', '.join(runnable)}", file=sys.stderr)
        return 2
    for path in write_tasks(Path(args[1]), [runnable[b] for b in args[2:] or runnable]):
        print(path)
    return 0
