"""What both Inspect AI tasks share: the question list and images, from files or URLs, and the
leaderboard's protocol turned into Inspect messages.

``questions``: the public question list as JSON Lines (the app's ``/questions/<benchmark>.jsonl``,
or a downloaded copy). ``images``: a folder, or an address to which an image's file name is
appended (the app's ``/questions/<benchmark>/images`` on the embedded default, or wherever the
benchmark publishes its images): an option's ``url`` (SCB) or ``image_path`` / ``image_url``
(K-Viscuit) is looked up there by its path, then by its file name.

The prompts are the leaderboard's own (``scoring.protocol``, the one declaration the runner and the
other harnesses read), so Inspect's environment needs the leaderboard's scoring package:
``pip install ./scoring`` from a checkout. Without it the task stops and says so.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.solver import generate

MAX_LIST_BYTES = 64 * 1024 * 1024  # a question list larger than this is not one of ours


def scoring(module: str):
    """``scoring.<module>`` of the leaderboard, or a clear instruction to install it."""
    try:
        return __import__(f"scoring.{module}", fromlist=[module])
    except ImportError as e:
        raise RuntimeError(
            "the Inspect tasks need the leaderboard's scoring package for the benchmark's prompts and to "
            "read answers as the site does: pip install ./scoring (from a checkout of the leaderboard)"
        ) from e


def _is_url(ref: str) -> bool:
    return ref.startswith(("http://", "https://"))


def read_questions(questions: str) -> list[dict]:
    """The question list's records, in its order (a file path or a URL)."""
    if _is_url(questions):
        with urllib.request.urlopen(questions, timeout=60) as answer:  # noqa: S310 (an http(s) address)
            data = answer.read(MAX_LIST_BYTES + 1)
    else:
        data = Path(questions).read_bytes()
    if len(data) > MAX_LIST_BYTES:
        raise ValueError(f"{questions}: more than {MAX_LIST_BYTES} bytes; not a question list")
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def image_ref(images: str, ref: str) -> str:
    """Where an image is: ``images``/ref (a folder holding it by its path, else by its name) or ``images``/name."""
    name = ref.rsplit("/", 1)[-1]
    if _is_url(images):
        return f"{images.rstrip('/')}/{name}"
    root = Path(images)
    return str(root / ref if (root / ref).is_file() else root / name)


def user_message(parts, image_refs: list[str] | dict[int, str]) -> ChatMessageUser:
    """The protocol's parts (text, image index) as one Inspect user message."""
    protocol = scoring("protocol")
    content = [
        ContentText(text=p.text) if isinstance(p, protocol.TextPart) else ContentImage(image=image_refs[p.index])
        for p in parts
    ]
    return ChatMessageUser(content=content)


def _choice_sample(bench, question: dict, images: str) -> Sample:
    family = bench.family
    parts = bench.protocol["answer"](str(question[family.question]), family.option_texts(question))
    metadata = {bench.key_echo: question.get(bench.key_echo, "")} if bench.key_echo else {}
    return Sample(
        id=question[bench.key_field],
        input=[user_message(parts, [image_ref(images, family.image_of(question))])],
        metadata=metadata,
    )


def multiple_choice_task(benchmark: str, questions: str, images: str) -> Task:
    """A multiple-choice benchmark's task, from its declaration: the family's fields and prompt, one
    sample per question, its id the benchmark's key (plugins named in ``LEADERBOARD_PLUGINS`` load first)."""
    bench = scoring("benchmarks.lmms_eval").declared(benchmark)
    if not isinstance(bench.family, scoring("benchmarks.families").MultipleChoice):
        raise ValueError(f"benchmark {benchmark!r} does not declare the multiple-choice family")
    dataset = MemoryDataset([_choice_sample(bench, q, images) for q in read_questions(questions)], name=bench.id)
    return Task(dataset=dataset, solver=generate(), name=bench.id)
