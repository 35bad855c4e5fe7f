"""One run: every question not yet in the output file, a bounded number at a time.

The model is anything with an OpenAI-compatible ``/chat/completions`` (vLLM, TGI, SGLang, OpenAI,
Gemini's OpenAI-compatible API). Retries with exponential backoff on 408/409/429/5xx and connection
errors (honouring ``Retry-After``) are the ``openai`` client's own; a question that still fails is
left out of the file and reported, so ``--resume`` asks it again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from scoring.benchmarks import Benchmark
from scoring.benchmarks.families import TwoStage
from scoring.benchmarks.protocol import GroundingPreset, Part, user_turn
from scoring.harness.runner.images import Images
from scoring.harness.runner.outfile import LineWriter, finished
from scoring.harness.runner.questions import ChoiceQuestion, TwoStageQuestion


@dataclass(frozen=True)
class Endpoint:
    """How to reach the model: the OpenAI client's settings and the generation settings."""

    base_url: str
    model: str
    api_key: str
    max_retries: int = 6
    timeout: float = 300.0
    max_tokens: int = 512
    temperature: float = 0.0

    def client(self):
        from openai import OpenAI  # the official client: retries, backoff and Retry-After done right

        return OpenAI(base_url=self.base_url, api_key=self.api_key, max_retries=self.max_retries, timeout=self.timeout)


Chat = Callable[[list[dict]], str]


def chat_with(endpoint: Endpoint) -> Chat:
    """``POST /chat/completions`` through the client's ``post`` (its retries, backoff, errors and
    response model), with the request body as given: ``chat.completions.create`` first walks every
    message part against the SDK's typed-dict declarations, about half the runner's CPU for a question
    with four inline images (``perf/runner_cost.py`` at 3860df9), to send the same JSON."""
    from openai.types.chat import ChatCompletion

    client = endpoint.client()

    def chat(messages: list[dict]) -> str:
        body = {
            "model": endpoint.model,
            "messages": messages,
            "max_tokens": endpoint.max_tokens,
            "temperature": endpoint.temperature,
        }
        reply = client.post("/chat/completions", body=body, cast_to=ChatCompletion)
        return reply.choices[0].message.content or ""

    return chat


def _user(parts: tuple[Part, ...], images: list[dict] | dict[int, dict]) -> list[dict]:
    """One user turn; an image part is ``images[index]`` (an ``image_url`` content part)."""
    return user_turn(parts, images.__getitem__)


def two_stage_line(
    question: TwoStageQuestion, chat: Chat, images: Images, bench: Benchmark, preset: GroundingPreset
) -> dict:
    """Stage 1, then stage 2 on the chosen image, each as the declaration's protocol asks; no stage 2
    when stage 1 names no letter the site reads. Each option image is read (or fetched) once: stage 2
    sends the part stage 1 sent."""
    family = bench.family
    assert isinstance(family, TwoStage)
    parts = [images.part(o.ref) for o in question.options]
    response = chat(_user(bench.protocol["stage1"](question.question), parts))
    line = {bench.key_field: question.key, "response": response}
    letter = family.chosen_letter(response, bench.choices)
    if letter is not None:
        chosen = family.chosen_index(letter, bench.choices)
        asked = bench.protocol["stage2"](question.grounding_prompt, preset.name, chosen)
        line["grounding_response"] = chat(_user(asked, {chosen: parts[chosen]}))
        line |= preset.line_fields()
    return line


def choice_line(question: ChoiceQuestion, chat: Chat, images: Images, bench: Benchmark) -> dict:
    """A multiple-choice question as the declaration asks it: the model's response under its key field."""
    parts = bench.protocol["answer"](question.question, question.options)
    return {bench.key_field: question.key, "response": chat(_user(parts, [images.part(question.image_ref)]))}


@dataclass
class Outcome:
    written: int = 0
    skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # question key -> the last error


def run(
    questions: Iterable,
    answer: Callable[[object], dict],
    out: Path,
    *,
    resume: bool,
    concurrency: int,
    progress: bool = True,
    key: str,
) -> Outcome:
    """Answer every question not in ``out`` (all of them unless ``resume``), ``concurrency`` at a time;
    ``key``: the field of a line that names its question."""
    done = finished(out, key) if resume else {}
    todo = [q for q in questions if str(q.key) not in done]
    outcome = Outcome(skipped=len(done))
    writer = LineWriter(out, fresh=not resume)
    bar = _bar(len(todo) + len(done), len(done), progress)
    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            pending: dict[Future, object] = {}
            queue = iter(todo)
            for q in _take(queue, concurrency * 2):
                pending[pool.submit(answer, q)] = q
            while pending:
                ready, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in ready:
                    q = pending.pop(future)
                    try:
                        writer.write(future.result())
                        outcome.written += 1
                    except Exception as e:  # noqa: BLE001 (a failed question is reported, the run goes on)
                        outcome.failed[str(q.key)] = f"{type(e).__name__}: {e}"
                    bar.update(1)
                    for nxt in _take(queue, 1):
                        pending[pool.submit(answer, nxt)] = nxt
    finally:
        writer.close()
        bar.close()
    return outcome


def _take(it, n: int) -> list:
    out = []
    for _ in range(n):
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


def _bar(total: int, initial: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True)
