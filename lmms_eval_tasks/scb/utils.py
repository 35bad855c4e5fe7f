"""SCB for lmms-eval: stage 1 (pick an image among four) and stage 2 (ground the artifact in the
image the model chose). The gold is hidden, so these tasks only predict (``--predict_only``);
the leaderboard scores the samples files.

Both stages ask what the leaderboard's protocol says (``scoring.protocol``, written once for every
harness), and stage 2 reads each stage-1 answer with the leaderboard's own reader
(``scoring.answers``), so it grounds the image the site will read from that answer. Both need the
leaderboard's ``scoring`` package in lmms-eval's environment (``pip install ./scoring`` from a
checkout): without it the tasks stop with that instruction, never falling back to another rule.

Images are read from ``$SCB_IMAGES`` (default ``images``) by each option's ``url``; the question
list is ``$SCB_QUESTIONS`` (default ``scb-questions.jsonl``, the name the site's About tab
downloads); stage 2 reads the stage-1 samples file named by ``$SCB_STAGE1_SAMPLES`` (``doc_id`` is
the row of the same list). The model family's output convention for stage 2 comes from
``lmms_eval_specific_kwargs`` (``grounding_format``; see scb_stage2*.yaml).
"""

import json
import os
from functools import lru_cache
from pathlib import Path

QUESTIONS = "scb-questions.jsonl"


def _scoring(module):
    try:
        return __import__(f"scoring.{module}", fromlist=[module])
    except ImportError as e:
        raise RuntimeError(
            "the SCB tasks need the leaderboard's scoring package in lmms-eval's environment, for the "
            "benchmark's prompts and to read stage-1 answers as the site does: pip install ./scoring "
            "(from a checkout of the leaderboard)"
        ) from e


def _image(ref):
    from PIL import Image

    root = Path(os.environ.get("SCB_IMAGES", "images"))
    path = root / ref if (root / ref).is_file() else root / Path(ref).name
    return Image.open(path).convert("RGB")


def _messages(parts, images):
    return _scoring("protocol").user_turn(parts, lambda index: {"type": "image", "url": images[index]})


def stage1_visual(doc):
    return [_image(o["url"]) for o in doc["options"]]


def stage1_text(doc, lmms_eval_specific_kwargs=None):
    return "\n".join(_scoring("protocol").text_of(_scoring("protocol").scb_stage1(doc["question"])))


def stage1_messages(doc, lmms_eval_specific_kwargs=None):
    return _messages(_scoring("protocol").scb_stage1(doc["question"]), stage1_visual(doc))


def _response(sample):
    value = sample.get("filtered_resps", sample.get("resps"))
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else ""


@lru_cache(maxsize=4)
def chosen_letters(samples_path):
    """``doc_id`` -> the letter the site reads from the stage-1 response (None: unparsed)."""
    answers, letters = _scoring("answers"), _scoring("protocol").LETTERS
    out = {}
    with open(samples_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                sample = json.loads(line)
                out[int(sample["doc_id"])] = answers.read_response(_response(sample), letters).letter
    return out


def _chosen(doc):
    """The index of the option stage 1 chose; option A's (0) when it named none (the site then
    counts the answer wrong and ignores the grounding)."""
    samples = os.environ.get("SCB_STAGE1_SAMPLES")
    if not samples:
        raise RuntimeError("scb_stage2 needs SCB_STAGE1_SAMPLES: the samples file of scb_stage1")
    letter = _chosen_by_question(samples).get(doc["question_id"])
    return _scoring("protocol").LETTERS.index(letter) if letter else 0


def _chosen_option(doc):
    return doc["options"][_chosen(doc)]


@lru_cache(maxsize=4)
def _chosen_by_question(samples_path):
    """question_id -> chosen letter: stage 1's ``doc_id`` is the row of the same public list."""
    questions = Path(os.environ.get("SCB_QUESTIONS", QUESTIONS))
    order = [json.loads(x)["question_id"] for x in questions.read_text(encoding="utf-8").splitlines() if x.strip()]
    return {order[i]: letter for i, letter in chosen_letters(samples_path).items() if letter}


def _family(lmms_eval_specific_kwargs):
    family = (lmms_eval_specific_kwargs or {}).get("grounding_format")
    if not family:
        raise RuntimeError(
            "scb_stage2 needs the model family's grounding_format (lmms_eval_specific_kwargs): run a "
            "variant that names it, e.g. --tasks scb_stage2_plain (see lmms_eval_tasks/README.md)"
        )
    return family


def _stage2_parts(doc, lmms_eval_specific_kwargs):
    family = _family(lmms_eval_specific_kwargs)
    return _scoring("protocol").scb_stage2(doc.get("grounding_prompt") or "", family, _chosen(doc))


def stage2_visual(doc):
    return [_image(_chosen_option(doc)["url"])]


def stage2_text(doc, lmms_eval_specific_kwargs=None):
    return "\n".join(_scoring("protocol").text_of(_stage2_parts(doc, lmms_eval_specific_kwargs)))


def stage2_messages(doc, lmms_eval_specific_kwargs=None):
    parts = _stage2_parts(doc, lmms_eval_specific_kwargs)
    return _messages(parts, {_chosen(doc): stage2_visual(doc)[0]})


def process_results(doc, results):
    return {"scb_bypass": 0.0}


def aggregate_nothing(results):
    return 0.0
