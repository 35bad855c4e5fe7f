"""SCB for lmms-eval: stage 1 (pick an image among four) and stage 2 (ground the artifact in the
image the model chose). The gold is hidden, so these tasks only predict (``--predict_only``);
the leaderboard scores the samples files.

The tasks are the two-stage family's (``scoring.benchmarks.lmms_eval.TwoStageTask``), bound to
SCB's declaration: both stages ask what its protocol says (written once for every harness), and
stage 2 reads each stage-1 answer with the leaderboard's own reader (``scoring.answers``), so it
grounds the image the site will read from that answer. Both need the leaderboard's ``scoring``
package in lmms-eval's environment (``pip install ./scoring`` from a checkout): without it the
tasks stop with that instruction, never falling back to another rule.

Images are read from ``$SCB_IMAGES`` (default ``images``) by each option's ``url``; the question
list is ``$SCB_QUESTIONS`` (default ``scb-questions.jsonl``, the name the site's About tab
downloads); stage 2 reads the stage-1 samples file named by ``$SCB_STAGE1_SAMPLES`` (``doc_id`` is
the row of the same list). The model family's output convention for stage 2 comes from
``lmms_eval_specific_kwargs`` (``grounding_format``; see scb_stage2*.yaml). Another two-stage
benchmark's tasks are this file with its own ``BENCHMARK`` and yaml naming these functions.
"""

BENCHMARK = "scb"


def _family():
    try:
        import scoring  # noqa: F401 (the package itself, not only a submodule left in memory)
        from scoring.benchmarks import lmms_eval
    except ImportError as e:
        raise RuntimeError(
            f"the {BENCHMARK} tasks need the leaderboard's scoring package in lmms-eval's environment, for "
            "the benchmark's prompts and to read stage-1 answers as the site does: pip install ./scoring "
            "(from a checkout of the leaderboard)"
        ) from e
    return lmms_eval


def _task():
    return _family().TwoStageTask.of(BENCHMARK)


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
    return _family().aggregate_nothing(results)
