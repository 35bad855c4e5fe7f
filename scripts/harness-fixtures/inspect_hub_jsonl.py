"""The responses of a log of ``inspect eval hf/OWNER/DATASET/TASK`` (Inspect's Hub loader running a
benchmark's ``eval.yaml``) as the project's JSON Lines, read with inspect-ai's own reader.

That loader numbers samples by position (1, 2, ...), not by question id, so each sample's question
is found here by what it asked (its question text and options), looked up in the app's public
question list: the file a team would write from the same outputs, independent of the numbering.

    python scripts/harness-fixtures/inspect_hub_jsonl.py LOG.eval QUESTIONS.jsonl OUT.jsonl   (inspect's venv)
"""

from __future__ import annotations

import json
import sys

from inspect_ai.log import read_eval_log


def _asked(sample) -> tuple[str, tuple[str, ...]]:
    messages = sample.input if isinstance(sample.input, list) else []
    content = messages[0].content if messages else sample.input
    text = content if isinstance(content, str) else next(part.text for part in content if part.type == "text")
    return text, tuple(sample.choices or ())


def main(log_path: str, questions_path: str, out_path: str) -> None:
    with open(questions_path, encoding="utf-8") as f:
        listed = [json.loads(line) for line in f if line.strip()]
    by_asked: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for question in listed:
        by_asked.setdefault((question["question"], tuple(question["options"])), []).append(question["question_id"])
    log = read_eval_log(log_path)
    with open(out_path, "w", encoding="utf-8") as out:
        for sample in log.samples or []:
            (question_id,) = by_asked[_asked(sample)]  # one question asks exactly this, or stop
            line = {"question_id": question_id, "response": sample.output.completion}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
