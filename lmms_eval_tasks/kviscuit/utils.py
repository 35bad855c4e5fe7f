"""K-Viscuit for lmms-eval: the official ``run_vqa.py`` prompt and its exact-letter rule.

The task is the multiple-choice family's (``scoring.benchmarks.lmms_eval``), bound to K-Viscuit's
declaration: the prompt is the leaderboard's protocol (``scoring.protocol``, written once for every
harness). This task needs the leaderboard's ``scoring`` package in lmms-eval's environment
(``pip install ./scoring`` from a checkout) and stops with that instruction when it is missing.
The leaderboard scores the samples file itself (``doc_id`` is the SPEC's ``question_id``); the
accuracy here is only the harness's own view, by the official rule: the stripped generation must
be exactly one capital letter A-D. Another multiple-choice benchmark's task is this file with its
own ``BENCHMARK`` and a yaml naming these functions.
"""

BENCHMARK = "kviscuit"


def _family():
    try:
        import scoring  # noqa: F401 (the package itself, not only a submodule left in memory)
        from scoring.benchmarks import lmms_eval
    except ImportError as e:
        raise RuntimeError(
            f"the {BENCHMARK} task needs the leaderboard's scoring package in lmms-eval's environment, "
            "for the benchmark's prompt: pip install ./scoring (from a checkout of the leaderboard)"
        ) from e
    return lmms_eval


def _task():
    return _family().ChoiceTask.of(BENCHMARK)


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
    return _family().aggregate_accuracy(results)
