"""Files the real harnesses wrote (scripts/harness-fixtures/), and the golds they were run on.

The lmms-eval fixtures are what lmms-eval 0.7.3 wrote with the tasks ``python -m scoring.harness.lmms_eval
tasks`` writes, against the toy endpoint on the embedded default's demo questions (the example plugin
toy's too); their samples are gzipped as written.
The demo golds are made again here (deterministic), and checked against the versions the run
recorded, so a changed demo says so instead of failing a figure.
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

import scoring

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "harness"
LMMS_EVAL = FIXTURES / "lmms-eval-0.7.3"


def lmms_manifest() -> dict:
    return json.loads((LMMS_EVAL / "MANIFEST.json").read_text(encoding="utf-8"))


def lmms_samples_path(task: str) -> Path:
    """The gzipped samples file lmms-eval wrote for ``task`` (``<date>_samples_<task>.jsonl.gz``)."""
    (path,) = LMMS_EVAL.glob(f"*_samples_{task}.jsonl.gz")
    return path


def lmms_samples(task: str) -> bytes:
    """The samples file's bytes, as lmms-eval wrote them."""
    return gzip.decompress(lmms_samples_path(task).read_bytes())


def written_name(task: str) -> str:
    """The name lmms-eval gave the file (the fixture's name without .gz)."""
    return lmms_samples_path(task).name.removesuffix(".gz")


@lru_cache(maxsize=1)
def demo_gold_files(folder: str) -> dict[str, Path]:
    """The embedded default's demo golds and public lists, written into ``folder``."""
    from scoring.benchmarks.demo import write_demo

    paths = write_demo(Path(folder))
    versions = {b: scoring.load_gold(b, paths[f"{b}_gold"]).version for b in ("scb", "kviscuit")}
    recorded = {b: v for b, v in lmms_manifest()["gold_versions"].items() if b in versions}
    assert versions == recorded, (
        f"the demo golds changed since the fixtures were written ({recorded} -> {versions}): "
        "run `make harness-fixtures` again"
    )
    return paths


OLD_STAGE2_PROMPT = "Locate the artifact in the image."
"""What the project's lmms-eval ``scb_stage2`` task asked before commit 054fe6e (2026-12-04): the
paper's grounding prompt alone, no box convention named (its ``stage2_text``)."""


def old_task_samples(task: str) -> bytes:
    """The kept samples of ``task`` (scb_stage1 or scb_stage2) as the project's lmms-eval tasks before
    054fe6e wrote them: built from the kept fixtures by rewriting each ``input`` the way those tasks'
    ``doc_to_text`` did (stage 1: the question and the instruction, without the "Image A:" labels;
    stage 2: :data:`OLD_STAGE2_PROMPT`). The responses are the toy model's own, as in the teams'
    files of 2026-12-02 (``[0.15, 0.2, 0.7, 0.8]``: a box in 0-1, asked with no convention)."""
    out = []
    for raw in lmms_samples(task).decode("utf-8").splitlines():
        if not raw.strip():
            continue
        sample = json.loads(raw)
        if task == "scb_stage2":
            sample["input"] = OLD_STAGE2_PROMPT
        else:
            sample["input"] = "\n".join(x for x in sample["input"].split("\n") if not x.startswith("Image "))
        out.append(json.dumps(sample, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode("utf-8")
