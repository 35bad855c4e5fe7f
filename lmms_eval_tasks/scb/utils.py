"""SCB for lmms-eval: stage 1 (pick an image among four) and stage 2 (ground the artifact in the
image the model chose). The gold is hidden, so these tasks only predict (``--predict_only``);
the leaderboard scores the samples files.

Importable without lmms-eval. Images are read from ``$SCB_IMAGES`` (default ``images``) by each
option's ``url``; stage 2 reads the stage-1 samples file named by ``$SCB_STAGE1_SAMPLES`` and picks,
per ``doc_id``, the option the model's answer names, with the same answer reader the leaderboard
uses when it is importable (``scoring.answers``), else the exact-letter rule.
"""

import json
import os
from functools import lru_cache
from pathlib import Path

LETTERS = "ABCD"
ANSWER_INSTRUCTION = "Answer with the letter of the correct image (A, B, C or D)."
DEFAULT_GROUNDING_PROMPT = "Locate the artifact in the image."


def _image(ref):
    from PIL import Image

    root = Path(os.environ.get("SCB_IMAGES", "images"))
    path = root / ref if (root / ref).is_file() else root / Path(ref).name
    return Image.open(path).convert("RGB")


def stage1_visual(doc):
    return [_image(o["url"]) for o in doc["options"]]


def stage1_text(doc, lmms_eval_specific_kwargs=None):
    return f"{doc['question']}\n{ANSWER_INSTRUCTION}"


def stage1_messages(doc, lmms_eval_specific_kwargs=None):
    content = []
    for letter, image in zip(LETTERS, stage1_visual(doc)):
        content += [{"type": "text", "text": f"Image {letter}:"}, {"type": "image", "url": image}]
    content.append({"type": "text", "text": stage1_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


def _response(sample):
    value = sample.get("filtered_resps", sample.get("resps"))
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else ""


def _letter(text):
    try:
        from scoring.answers import read_response

        return read_response(text, LETTERS).letter
    except ImportError:
        stripped = text.strip()
        return stripped if len(stripped) == 1 and stripped in LETTERS else None


@lru_cache(maxsize=4)
def chosen_letters(samples_path):
    """``doc_id`` -> the letter the stage-1 response names (None: unparsed)."""
    out = {}
    with open(samples_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                sample = json.loads(line)
                out[int(sample["doc_id"])] = _letter(_response(sample))
    return out


def _chosen_option(doc):
    samples = os.environ.get("SCB_STAGE1_SAMPLES")
    if not samples:
        raise RuntimeError("scb_stage2 needs SCB_STAGE1_SAMPLES: the samples file of scb_stage1")
    by_question = _chosen_by_question(samples)
    letter = by_question.get(doc["question_id"]) or "A"
    return doc["options"][LETTERS.index(letter)]


@lru_cache(maxsize=4)
def _chosen_by_question(samples_path):
    """question_id -> chosen letter: stage 1's ``doc_id`` is the row of the same public list."""
    questions = Path(os.environ.get("SCB_QUESTIONS", "scb_questions.jsonl"))
    order = [json.loads(x)["question_id"] for x in questions.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {order[i]: letter for i, letter in chosen_letters(samples_path).items() if letter}


def stage2_visual(doc):
    return [_image(_chosen_option(doc)["url"])]


def stage2_text(doc, lmms_eval_specific_kwargs=None):
    return doc.get("grounding_prompt") or DEFAULT_GROUNDING_PROMPT


def stage2_messages(doc, lmms_eval_specific_kwargs=None):
    image = stage2_visual(doc)[0]
    text = stage2_text(doc, lmms_eval_specific_kwargs)
    return [{"role": "user", "content": [{"type": "image", "url": image}, {"type": "text", "text": text}]}]


def process_results(doc, results):
    return {"scb_bypass": 0.0}


def aggregate_nothing(results):
    return 0.0
