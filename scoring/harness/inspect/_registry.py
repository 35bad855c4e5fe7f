"""The Inspect AI tasks, one per benchmark that declares a family, registered with Inspect through the
package's entry point (``[project.entry-points.inspect_ai]`` in scoring/pyproject.toml): after
``pip install ./scoring[inspect]``, ``inspect eval scoring/<id>`` runs a benchmark from any folder,
with no task file on a path. A plugin benchmark named in ``LEADERBOARD_PLUGINS`` gets its task too.

Arguments (``-T name=value``): ``questions`` (default ``<id>-questions.jsonl``) and ``images`` (default
``images``), as for every harness (:mod:`scoring.harness.inputs`); a two-stage benchmark's also
``grounding_format`` (default ``plain``), the model family whose box convention stage 2 asks for.
"""

from __future__ import annotations

from inspect_ai import Task, task

from scoring.benchmarks import BENCHMARKS, Benchmark, load_environment_plugins
from scoring.benchmarks.families import TwoStage
from scoring.harness.inspect.tasks import multiple_choice_task, two_stage_task


def _two_stage(bench: Benchmark):
    def run(
        questions: str = f"{bench.id}-questions.jsonl", images: str = "images", grounding_format: str = "plain"
    ) -> Task:
        return two_stage_task(bench.id, questions, images, grounding_format)

    return run


def _multiple_choice(bench: Benchmark):
    def run(questions: str = f"{bench.id}-questions.jsonl", images: str = "images") -> Task:
        return multiple_choice_task(bench.id, questions, images)

    return run


def register_tasks() -> dict[str, object]:
    """Every declared benchmark's task, registered with Inspect under the benchmark's id."""
    load_environment_plugins()
    tasks = {}
    for bench in BENCHMARKS.values():
        if bench.family is None:
            continue
        make = _two_stage if isinstance(bench.family, TwoStage) else _multiple_choice
        tasks[bench.id] = task(name=bench.id)(make(bench))
    return tasks


globals().update(register_tasks())
