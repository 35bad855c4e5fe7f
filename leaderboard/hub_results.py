"""A public row's verified figures in the Hub's own evaluation system, and the benchmark's registration there.

The Hub (hub-docs ``docs/hub/eval-results.md`` and ``eval_results.yaml``): a dataset repo registers
as a *Benchmark* with an ``eval.yaml`` at its root (``name``, ``description``,
``evaluation_framework``, ``tasks`` with ``id``, ``config``, ``split``); a model repo carries its
scores as a YAML list under ``.eval_results/``, one entry per figure (``dataset.id``,
``dataset.task_id``, ``value``, optional ``date``, ``source.url``/``source.name``, ``notes``), shown
on the model page and aggregated on the benchmark's leaderboard, as "community" while it sits in an
open pull request.

A row gives one entry per task of its benchmark's :class:`~scoring.benchmarks.base.HubRegistration`
(SCB: stage-1 accuracy and mIoU; K-Viscuit: accuracy, its official protocol's figure in ``notes``
where it differs), ``value`` as the board shows it (the metric's decimals), ``source.url`` the
row's page here. Only figures the disclosure rule shows a visitor are ever given (the callers in
``leaderboard.service`` check the entry's state first).

For ``evaluation_framework: inspect-ai`` hub-docs ("Eval.yaml specification") also requires each
task's ``field_spec``, ``solvers`` and ``scorers``: how Inspect's Hub loader runs the task from the
dataset (``inspect eval hf/OWNER/DATASET/TASK``), declared per task (``HubInspect``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import yaml
from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

from scoring.benchmarks.base import Benchmark, HubInspect, HubRegistration, HubTask, InspectStep

SOURCE_NAME = "Cultural VLM Leaderboard"
"""``source.name`` of every entry: the site that verified the figure."""
INSPECT = "inspect-ai"
"""The framework whose tasks hub-docs requires to carry ``field_spec``, ``solvers`` and ``scorers``."""


def dataset_of(bench: Benchmark, overrides: Mapping[str, str]) -> str:
    """The Hub dataset the benchmark is registered as: ``LEADERBOARD_HUB_DATASETS``, else the authors'."""
    if bench.hub is None:
        raise ValueError(f"{bench.id} declares no Hub registration")
    return overrides.get(bench.id) or bench.hub.dataset_id


def row_permalink(root: str, benchmark: str, row_id: str) -> str:
    """The row's page here: what ``source.url`` names, so anyone can check the figure. ``root``: the
    address the app serves at (``UiSettings.served_root``, or the request's own: ui.origin)."""
    return f"{root.rstrip('/')}/?bench={benchmark}&model={row_id}"


def results_path(bench: Benchmark) -> str:
    """Where the entries go in a model repo (one file per benchmark of this leaderboard)."""
    return f".eval_results/{bench.id}.yaml"


def shown_value(bench: Benchmark, metric: str, figures: Mapping) -> float | None:
    """The overall figure as the board prints it (the metric's decimals), or None when there is none."""
    value = (figures.get("overall") or {}).get(metric)
    return None if value is None else round(float(value), bench.metric(metric).decimals)


def _notes(bench: Benchmark, note_metric: str | None, value: float, figures: Mapping) -> str:
    if note_metric is None:
        return ""
    strict = shown_value(bench, note_metric, figures)
    if strict is None or strict == value:
        return ""
    metric = bench.metric(note_metric)
    return f"{metric.label}: {strict:.{metric.decimals}f} ({metric.description})"


def entries(bench: Benchmark, figures: Mapping, *, dataset: str, date: str, source_url: str) -> list[dict]:
    """The ``.eval_results`` entries of a row's figures: one per task with a figure, in task order,
    written by huggingface_hub's own codec of the format (``EvalResultEntry``)."""
    registration: HubRegistration = bench.hub  # type: ignore[assignment]
    out = []
    for task in registration.tasks:
        value = shown_value(bench, task.metric, figures)
        if value is None:
            continue  # e.g. SCB's mIoU of a row that grounds nothing: no figure, no entry
        entry = EvalResultEntry(
            dataset_id=dataset,
            task_id=task.id,
            value=value,
            date=date[:10] or None,
            source_url=source_url,
            source_name=SOURCE_NAME,
            notes=_notes(bench, task.note_metric, value, figures) or None,
        )
        out.append(entry)
    return eval_result_entries_to_yaml(out)


class _Dumper(yaml.SafeDumper):
    """Safe YAML without anchors (a list two tasks share is written twice) and with text of several
    lines as a ``|`` block, as people write prompts in ``eval.yaml``."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text and not any(line != line.rstrip() for line in text.splitlines()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _text)


def to_yaml(data: object) -> str:
    """One YAML codec for both files: block style, keys in the order given, text as written."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100)


def _steps(declared: tuple[InspectStep, ...]) -> list[dict]:
    return [{"name": step.name, **({"args": dict(step.args)} if step.args else {})} for step in declared]


def _inspect_fields(inspect: HubInspect) -> dict:
    fields = {"field_spec": dict(inspect.field_spec)}
    return fields | {"solvers": _steps(inspect.solvers), "scorers": _steps(inspect.scorers)}


def _task(registration: HubRegistration, task: HubTask) -> dict:
    out: dict = {"id": task.id, "config": registration.config, "split": registration.split}
    if registration.evaluation_framework == INSPECT:
        if task.inspect is None:
            raise ValueError(f"task {task.id}: evaluation_framework {INSPECT} requires field_spec, solvers, scorers")
        out |= _inspect_fields(task.inspect)
    return out


def eval_yaml(bench: Benchmark, dataset: str) -> dict:
    """The ``eval.yaml`` the benchmark's authors add at the root of ``dataset`` to register it: the
    hub-docs fields, and for ``inspect-ai`` each task's ``field_spec``, ``solvers`` and ``scorers``."""
    registration: HubRegistration = bench.hub  # type: ignore[assignment]
    return {
        "name": bench.name,
        "description": f"{bench.description} Paper: {bench.paper}.",
        "evaluation_framework": registration.evaluation_framework,
        "tasks": [_task(registration, t) for t in registration.tasks],
    }


def eval_yaml_text(bench: Benchmark, dataset: str) -> str:
    """The file as printed: what the Hub reads, after comments that say where a run from the Hub
    differs from the leaderboard's protocol (YAML comments: the Hub and Inspect ignore them)."""
    registration: HubRegistration = bench.hub  # type: ignore[assignment]
    caveats = dict.fromkeys(t.inspect.caveat for t in registration.tasks if t.inspect and t.inspect.caveat)
    said = [f"eval.yaml of {dataset}: registers {bench.name} as a Benchmark on the Hub's Eval Results.", *caveats]
    header = "\n#\n".join("\n".join(f"# {line}" for line in textwrap.wrap(text, 96)) for text in said)
    return header + "\n" + to_yaml(eval_yaml(bench, dataset))
