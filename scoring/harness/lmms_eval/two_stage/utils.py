"""lmms-eval's hooks of the two-stage family (:class:`scoring.harness.lmms_eval.hooks.TwoStageTask`):
stage 1 (pick an image among the options) and stage 2 (ground in the image the model chose). The gold
is hidden, so these tasks only predict (``--predict_only``); the leaderboard scores the samples files.

This file is the family's, written once: ``python -m scoring.harness.lmms_eval tasks DIR`` copies it
unchanged into each two-stage benchmark's task folder, which is named after the benchmark's id; the
hooks read their benchmark from that name. Both stages ask what the declaration's protocol says, and
stage 2 reads each stage-1 answer with the leaderboard's own reader, so it grounds the image the site
will read from that answer. Needs ``pip install ./scoring[lmms-eval]`` in lmms-eval's environment.
"""

from pathlib import Path

from scoring.harness.lmms_eval.hooks import TwoStageTask
from scoring.harness.lmms_eval.hooks import aggregate_nothing as _aggregate_nothing

BENCHMARK = Path(__file__).resolve().parent.name


def _task():
    return TwoStageTask.of(BENCHMARK)


def stage1_visual(doc):
    return _task().stage1_visual(doc)


def stage1_text(doc, lmms_eval_specific_kwargs=None):
    return _task().stage1_text(doc)


def stage1_messages(doc, lmms_eval_specific_kwargs=None):
    return _task().stage1_messages(doc)


def chosen_letters(samples_path):
    """``doc_id`` -> the letter the site reads from the stage-1 response (None: unparsed)."""
    return _task().chosen_letters(samples_path)


def stage2_visual(doc):
    return _task().stage2_visual(doc)


def stage2_text(doc, lmms_eval_specific_kwargs=None):
    return _task().stage2_text(doc, lmms_eval_specific_kwargs)


def stage2_messages(doc, lmms_eval_specific_kwargs=None):
    return _task().stage2_messages(doc, lmms_eval_specific_kwargs)


def process_results(doc, results):
    return _task().process_results(doc, results)


def aggregate_nothing(results):
    return _aggregate_nothing(results)
