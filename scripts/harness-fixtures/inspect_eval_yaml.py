"""Check eval.yaml files with inspect-ai's own Hub loader (``inspect_ai/_eval/task/hf.py``), the code
that runs ``inspect eval hf/OWNER/DATASET/TASK`` from a benchmark's ``eval.yaml``:

- each task validates as its ``HFTask`` (unknown keys refused, ``field_spec`` a FieldSpec with
  ``input_image``, at least one solver and one scorer, names from its ``HFSolver``/``HFScorer``);
- each solver and scorer is built as the loader builds it (``solver_from_spec``,
  ``scorer_from_spec``: the multiple-choice template is checked there);
- a record with the ``field_spec``'s columns becomes an Inspect sample (``_record_to_sample_hf``).

    python scripts/harness-fixtures/inspect_eval_yaml.py OUT.json EVAL.yaml...   (in inspect-ai's venv)

Writes what it found as JSON (inspect-ai's version, each file's tasks, the sample a record gives);
exits 1 if any file is refused. inspect_ai.sh runs it on ``--eval-yaml`` of both benchmarks.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import inspect_ai
import yaml
from inspect_ai._eval.loader import scorer_from_spec, solver_from_spec
from inspect_ai._eval.task.hf import HFTask, _record_to_sample_hf
from inspect_ai.scorer._scorer import ScorerSpec
from inspect_ai.solver._solver import SolverSpec


def _record(field_spec) -> dict:
    """A record holding every column the field_spec names (a letter's index as the target)."""
    record: dict = {field_spec.input: "What is shown?"}
    choices = field_spec.choices
    if isinstance(choices, list):
        record |= {column: f"option {i}" for i, column in enumerate(choices)}
    elif choices:
        record[choices] = ["one", "two", "three", "four"]
    if not field_spec.target.startswith("literal:"):
        record[field_spec.target] = 1
    if field_spec.input_image:
        record[field_spec.input_image] = "https://example.org/image.jpg"
    for column in field_spec.metadata or []:
        record[column] = f"{column} value"
    return record


def _check_task(config: dict) -> dict:
    task = HFTask.model_validate(config)
    solvers = [solver_from_spec(SolverSpec(s.name, s.args, s.args)) for s in task.solvers]
    scorers = [scorer_from_spec(ScorerSpec(scorer=s.name), task_path=None, **s.args) for s in task.scorers]
    sample = _record_to_sample_hf(_record(task.field_spec), task.field_spec)
    return {
        "id": task.id,
        "solvers": [s.name for s in task.solvers],
        "scorers": [s.name for s in task.scorers],
        "built": len(solvers) == len(task.solvers) and len(scorers) == len(task.scorers),
        "sample": {"target": sample.target, "choices": sample.choices, "metadata": sample.metadata},
    }


def check(path: Path) -> dict:
    data = path.read_bytes()
    found: dict = {"file": path.name, "sha256": hashlib.sha256(data).hexdigest()}
    try:
        config = yaml.safe_load(data.decode("utf-8"))
        found["tasks"] = [_check_task(t) for t in config["tasks"]]
        found["accepted"] = True
    except Exception as e:  # noqa: BLE001 (the refusal is the finding)
        found["accepted"] = False
        found["refusal"] = f"{type(e).__name__}: {e}"
    return found


def main(out: str, *paths: str) -> int:
    report = {"inspect_ai": inspect_ai.__version__, "files": [check(Path(p)) for p in paths]}
    Path(out).write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for f in report["files"]:
        print(f"{f['file']}: {'accepted' if f['accepted'] else 'REFUSED ' + f['refusal']}")
    return 0 if all(f["accepted"] for f in report["files"]) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
