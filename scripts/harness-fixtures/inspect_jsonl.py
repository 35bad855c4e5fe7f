"""The responses of an Inspect AI log as the project's JSON Lines, read with inspect-ai's own
reader (``inspect_ai.log.read_eval_log``): the file a team would write from the same outputs, which
the leaderboard must score exactly as the ``.eval`` log itself (tests/scoring/test_inspect_logs.py).

    python scripts/harness-fixtures/inspect_jsonl.py LOG.eval OUT.jsonl   (in inspect-ai's venv)
"""

from __future__ import annotations

import json
import sys

from inspect_ai.log import read_eval_log

from scoring.benchmarks import declared
from scoring.readers.inspect_log import store_keys


def main(log_path: str, out_path: str) -> None:
    log = read_eval_log(log_path)
    bench = declared(log.eval.task.rsplit("/", 1)[-1])  # the task "scoring/<id>" (its entry point's name)
    stages = store_keys(bench.id)
    with open(out_path, "w", encoding="utf-8") as out:
        for sample in log.samples or []:
            store = sample.store or {}
            if stages["stage1"] in store:  # a two-stage task: both stages in the store
                line = {
                    bench.key_field: sample.id,
                    "response": store[stages["stage1"]],
                    "grounding_response": store[stages["stage2"]],
                    "grounding_format": store[stages["family"]],
                }
            else:
                line = {bench.key_field: sample.id, "response": sample.output.completion}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
