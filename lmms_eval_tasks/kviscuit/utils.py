"""K-Viscuit for lmms-eval: the official ``run_vqa.py`` prompt and its exact-letter rule.

The prompt is the leaderboard's protocol (``scoring.protocol``, written once for every harness):
this task needs the leaderboard's ``scoring`` package in lmms-eval's environment
(``pip install ./scoring`` from a checkout) and stops with that instruction when it is missing.
The leaderboard scores the samples file itself (``doc_id`` is the SPEC's ``question_id``); the
accuracy here is only the harness's own view, by the official rule: the stripped generation must
be exactly one capital letter A-D.
"""

LETTERS = "ABCD"


def _protocol():
    try:
        from scoring import protocol
    except ImportError as e:
        raise RuntimeError(
            "the kviscuit task needs the leaderboard's scoring package in lmms-eval's environment, "
            "for the benchmark's prompt: pip install ./scoring (from a checkout of the leaderboard)"
        ) from e
    return protocol


def doc_to_visual(doc):
    return [doc["image"].convert("RGB")]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The text of the protocol's parts (the prompt; the image comes first, see doc_to_messages)."""
    return "\n".join(_protocol().text_of(_parts(doc)))


def _parts(doc):
    return _protocol().kviscuit(doc["question"], doc["options"])


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    images = doc_to_visual(doc)
    return _protocol().user_turn(_parts(doc), lambda index: {"type": "image", "url": images[index]})


def doc_to_target(doc):
    return LETTERS[int(doc["answer"])]


def process_results(doc, results):
    generation = results[0].strip()
    return {"kviscuit_acc": {"pred": generation, "answer": doc_to_target(doc), "category": doc.get("category")}}


def aggregate_accuracy(results):
    if not results:
        return 0.0
    return 100.0 * sum(r["pred"] == r["answer"] for r in results) / len(results)
