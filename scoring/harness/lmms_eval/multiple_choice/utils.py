"""lmms-eval's hooks of the multiple-choice family (:class:`scoring.harness.lmms_eval.hooks.ChoiceTask`).

This file is the family's, written once: ``python -m scoring.harness.lmms_eval tasks DIR`` copies it
unchanged into each multiple-choice benchmark's task folder, which is named after the benchmark's id;
the hooks read their benchmark from that name. The prompt, the fields and the letters are the
benchmark's declaration's. Needs ``pip install ./scoring[lmms-eval]`` in lmms-eval's environment.
"""

from pathlib import Path

from scoring.harness.lmms_eval.hooks import ChoiceTask
from scoring.harness.lmms_eval.hooks import aggregate_accuracy as _aggregate_accuracy

BENCHMARK = Path(__file__).resolve().parent.name


def _task():
    return ChoiceTask.of(BENCHMARK)


def doc_to_visual(doc):
    return _task().doc_to_visual(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return _task().doc_to_text(doc)


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    return _task().doc_to_messages(doc)


def doc_to_target(doc):
    return _task().doc_to_target(doc)


def process_results(doc, results):
    return _task().process_results(doc, results)


def aggregate_accuracy(results):
    return _aggregate_accuracy(results)
