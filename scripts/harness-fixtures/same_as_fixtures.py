"""Whether a new run of a harness script wrote what the committed fixtures hold, apart from what
changes on every run (ids, times, temporary paths, function addresses): so a change to a shipped
task can be shown to leave the real tool's output as it was, and the fixtures need not be rewritten.

    python scripts/harness-fixtures/same_as_fixtures.py lmms-eval OLD_DIR NEW_DIR
        the samples (.jsonl.gz) and results files of lmms_eval.sh, task by task (stdlib only)
    .harness/inspect-ai-0.3.285/bin/python scripts/harness-fixtures/same_as_fixtures.py inspect OLD.eval NEW.eval
        two Inspect AI logs: the plan and task arguments, and per sample its input, messages, store,
        metadata, output and every model call's input and output (needs inspect-ai)
    .harness/vlmevalkit/bin/python scripts/harness-fixtures/same_as_fixtures.py vlmevalkit OLD_DIR NEW_DIR
        VLMEvalKit's prediction files (.xlsx, .tsv, .json) as the tables they hold, and prompts.json
        (needs pandas and openpyxl)

Prints what differs and exits 1 when anything does.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path

VOLATILE = {
    "uuid",
    "id",
    "timestamp",
    "working_start",
    "working_time",
    "total_time",
    "completed",
    "started_at",
    "completed_at",
    "created",
    "eval_id",
    "run_id",
    "task_id",
    "pending",
    "span_id",
    "parent_id",
    "time",
    "retries",
    "call",
    "input_refs",
    "event_id",
    "message_id",
    "model_usage",
    "usage",
    "cache",
    "metadata_refs",
    "date",
    "start_time",
    "end_time",
    "total_evaluation_time_seconds",
    "throughput",
    "efficiency",
    "git_hash",
    "git_branch",
    "model_source",
    "lmms_eval_version",
}
"""Keys whose values change on every run (lmms-eval's results file and Inspect's log)."""


def scrub(value: object) -> object:
    """``value`` without volatile keys, temporary folders and function addresses."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, str):
        value = re.sub(r"/tmp/[A-Za-z0-9._/-]*?(?=/(?:inputs|logs|tasks)\b|$)", "TMP", value)
        value = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", value)  # the toy endpoint's free port
        return re.sub(r" at 0x[0-9a-f]+>", ">", value)
    return value


def by_task(folder: Path) -> dict[str, Path]:
    """``task`` -> its file, for ``<date>_samples_<task>.jsonl.gz`` and ``<date>_results.json``."""
    out = {}
    for path in sorted(folder.iterdir()):
        if m := re.fullmatch(r"\d+_\d+_samples_(.+)\.jsonl(\.gz)?", path.name):
            out[m[1]] = path
        elif re.fullmatch(r"\d+_\d+_results\.json", path.name):
            tasks = sorted(json.loads(path.read_text())["configs"])
            out["results:" + ",".join(tasks)] = path
    return out


def read(path: Path) -> object:
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    if path.name.endswith("_results.json"):
        return scrub(json.loads(data))
    return [scrub(json.loads(line)) for line in data.decode("utf-8").splitlines() if line.strip()]


def _first_difference(a: object, b: object) -> str:
    if not (isinstance(a, list) and isinstance(b, list)):
        return ""
    differing = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    if not differing:
        return f" ({len(a)} samples then {len(b)})"
    fields = sorted({k for i in differing for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k)})
    return (
        f" ({len(differing)} of {len(a)} samples, in {', '.join(fields)}; first: doc {a[differing[0]].get('doc_id')})"
    )


def lmms_eval(old: Path, new: Path) -> list[str]:
    before, after = by_task(old), by_task(new)
    problems = [f"files: {sorted(before)} then {sorted(after)}"] if sorted(before) != sorted(after) else []
    for task in sorted(set(before) & set(after)):
        a, b = read(before[task]), read(after[task])
        if a != b:
            problems.append(f"{task}: differs{_first_difference(a, b)}")
        print(f"{task}: {'same' if a == b else 'DIFFERENT'} ({len(a) if isinstance(a, list) else 'results'})")
    return problems


def _inspect_view(path: Path) -> tuple[dict, dict]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    head = {
        "plan": log.plan.model_dump(),
        "task": log.eval.task,
        "args": sorted(log.eval.task_args),
        "status": log.status,
        "samples": len(log.samples or []),
    }
    samples = {}
    for s in log.samples or []:
        calls = [e.model_dump() for e in s.events if e.event == "model"]
        samples[s.id] = scrub(
            {
                "input": s.input if isinstance(s.input, str) else [m.model_dump() for m in s.input],
                "messages": [m.model_dump() for m in s.messages],
                "store": s.store,
                "metadata": s.metadata,
                "output": s.output.completion,
                "calls": [{"input": c["input"], "output": c["output"]["choices"]} for c in calls],
            }
        )
    return scrub(head), samples


def inspect(old: Path, new: Path) -> list[str]:
    (head_a, a), (head_b, b) = _inspect_view(old), _inspect_view(new)
    problems = [f"header: {k}" for k in head_a if head_a[k] != head_b.get(k)]
    if list(a) != list(b):
        problems.append("sample ids or their order differ")
    problems += [f"sample {k}: {f}" for k in a for f in a[k] if k in b and a[k][f] != b[k][f]]
    print(f"{new.name}: {len(a)} samples, {len(problems)} differences")
    return problems


def _table(path: Path):
    import pandas as pd

    if path.suffix == ".xlsx":
        return pd.read_excel(path, dtype=str, keep_default_na=False)
    if path.suffix == ".tsv":
        return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    return pd.read_json(path, dtype=str)


def vlmevalkit(old: Path, new: Path) -> list[str]:
    """The files both folders hold: each prediction file as its table (a workbook's bytes carry its
    writing time), prompts.json as JSON; files only one holds are named."""
    names = {p.name for p in old.iterdir()} | {p.name for p in new.iterdir()}
    problems = []
    for name in sorted(names - {"environment.txt"}):
        a, b = old / name, new / name
        if not (a.exists() and b.exists()):
            problems.append(f"{name}: only in {'old' if a.exists() else 'new'}")
            continue
        same = (
            json.loads(a.read_text()) == json.loads(b.read_text())
            if name == "prompts.json"
            else _table(a).equals(_table(b))
        )
        print(f"{name}: {'same' if same else 'DIFFERENT'}")
        if not same:
            problems.append(f"{name}: differs")
    return problems


if __name__ == "__main__":
    kind, old, new = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    problems = {"lmms-eval": lmms_eval, "inspect": inspect, "vlmevalkit": vlmevalkit}[kind](old, new)
    for problem in problems[:20]:
        print(problem)
    sys.exit(1 if problems else 0)
