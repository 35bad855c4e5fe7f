"""K-Viscuit for lmms-eval: the official ``run_vqa.py`` prompt and its exact-letter rule.

Importable without lmms-eval (the leaderboard's tests call these functions directly). The
leaderboard scores the samples file itself (``doc_id`` is the SPEC's ``question_id``); the
accuracy here is only the harness's own view, by the official rule: the stripped generation must
be exactly one capital letter A-D.
"""

LETTERS = "ABCD"
INSTRUCTION = "Answer with the option's letter from the given choices directly."


def doc_to_visual(doc):
    return [doc["image"].convert("RGB")]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """``run_vqa.py``'s prompt (its options are indented by four spaces) without the [INST] markers,
    which the model's own chat template adds."""
    options = "\n".join(f"    {letter}. {option}" for letter, option in zip(LETTERS, doc["options"]))
    return f"{doc['question']}\n{options}\n    {INSTRUCTION}"


def doc_to_target(doc):
    return LETTERS[int(doc["answer"])]


def process_results(doc, results):
    generation = results[0].strip()
    return {"kviscuit_acc": {"pred": generation, "answer": doc_to_target(doc), "category": doc.get("category")}}


def aggregate_accuracy(results):
    if not results:
        return 0.0
    return 100.0 * sum(r["pred"] == r["answer"] for r in results) / len(results)
