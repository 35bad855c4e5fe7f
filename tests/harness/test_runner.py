"""The runner against a local fake OpenAI-compatible endpoint: the protocol it sends, the lines it
writes, retries, bounded concurrency, resume, and K-Viscuit scored through the scoring CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scoring.harness.runner.cli import main
from scoring.harness.runner.fake_endpoint import FakeOpenAI
from tests.harness.conftest import LETTERS, images_of, write_image
from tests.support.scoring import SHARED_DATA

REPO = Path(__file__).resolve().parents[2]


def scb_model(gold: list[dict], right: set[str]):
    """A fake model that picks the gold image for questions in ``right`` and the next letter otherwise,
    printing its choice as a sentence ("The answer is C."), and a plain normalised box in stage 2."""
    by_images = {tuple(int(o["image_id"][4:]) for o in r["options"]): r for r in gold}

    def reply(messages: list[dict]) -> str:
        seen = images_of(messages)
        if len(seen) == 4:
            record = by_images[tuple(seen)]
            k = LETTERS.index(record["answer"])
            letter = record["answer"] if record["question_id"] in right else LETTERS[(k + 1) % 4]
            return f"The answer is {letter}."
        return "[0.2, 0.2, 0.6, 0.7]"

    return reply


def run_scb(fake: FakeOpenAI, questions: Path, images: Path, out: Path, *extra: str) -> int:
    return main(
        ["scb", "--questions", str(questions), "--images", str(images), "--base-url", fake.base_url]
        + ["--model", "fake-vlm", "--out", str(out), "--no-progress", *extra]
    )


def test_scb_two_stages_ground_the_image_the_model_chose(scb_case, tmp_path):
    gold_path, questions, images, gold = scb_case
    right = {r["question_id"] for r in gold[::2]}
    out = tmp_path / "pred.jsonl"
    with FakeOpenAI(scb_model(gold, right)) as fake:
        assert run_scb(fake, questions, images, out) == 0
    lines = {json.loads(x)["question_id"]: json.loads(x) for x in out.read_text().splitlines()}
    assert set(lines) == {r["question_id"] for r in gold}
    for r in gold:
        line = lines[r["question_id"]]
        assert line["response"].startswith("The answer is ")
        assert line["grounding_response"] == "[0.2, 0.2, 0.6, 0.7]"
        assert line["grounding_format"] == "plain" and line["bbox_format"] == "xyxy_norm"
    # stage 2 got the chosen image, never the gold one when the choice was wrong
    stage2 = [req["body"]["messages"] for req in fake.requests if len(images_of(req["body"]["messages"])) == 1]
    assert len(stage2) == len(gold)
    chosen = {images_of(m)[0] for m in stage2}
    wrong = [r for r in gold if r["question_id"] not in right]
    for r in wrong:
        gold_image = int(r["image_id"][4:])
        letter = LETTERS[(LETTERS.index(r["answer"]) + 1) % 4]
        picked = int(r["options"][LETTERS.index(letter)]["image_id"][4:])
        assert picked in chosen
        assert gold_image != picked
    prompts = [p["text"] for m in stage2 for p in m[0]["content"] if p["type"] == "text"]
    assert all(t.startswith("Locate the artifact in the image.") for t in prompts)


def test_stage1_labels_the_four_images_in_letter_order(scb_case, tmp_path):
    _, questions, images, gold = scb_case
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, tmp_path / "p.jsonl", "--limit", "1") == 0
    first = fake.requests[0]["body"]["messages"][0]["content"]
    labels = [p["text"] for p in first if p["type"] == "text"][:4]
    assert labels == ["Image A:", "Image B:", "Image C:", "Image D:"]
    assert [p["type"] for p in first[:8]] == ["text", "image_url"] * 4
    assert images_of(fake.requests[0]["body"]["messages"]) == [int(o["image_id"][4:]) for o in gold[0]["options"]]


def test_unparsed_stage1_sends_no_stage2(scb_case, tmp_path):
    _, questions, images, gold = scb_case
    out = tmp_path / "p.jsonl"
    with FakeOpenAI(lambda messages: "I cannot tell.") as fake:
        assert run_scb(fake, questions, images, out, "--limit", "3") == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(fake.requests) == 3 and all("grounding_response" not in x for x in lines)


def test_retries_429_and_500_then_succeeds(scb_case, tmp_path):
    _, questions, images, gold = scb_case
    out = tmp_path / "p.jsonl"
    with FakeOpenAI(scb_model(gold, set()), faults=[429, 500, 503]) as fake:
        assert run_scb(fake, questions, images, out, "--limit", "2", "--concurrency", "1") == 0
    assert fake.statuses[:3] == [429, 500, 503]
    assert len(out.read_text().splitlines()) == 2


def test_a_question_failing_after_retries_is_left_for_resume(scb_case, tmp_path, capsys):
    _, questions, images, gold = scb_case
    out = tmp_path / "p.jsonl"
    with FakeOpenAI(scb_model(gold, set()), faults=[500] * 3) as fake:
        code = run_scb(fake, questions, images, out, "--limit", "4", "--concurrency", "1", "--max-retries", "2")
    assert code == 1
    assert "--resume" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 3
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, out, "--limit", "4", "--resume") == 0
    assert len(fake.requests) == 2  # one question, two stages: the other three were kept
    ids = [json.loads(x)["question_id"] for x in out.read_text().splitlines()]
    assert sorted(ids) == sorted(r["question_id"] for r in gold[:4])


def test_resume_drops_a_cut_off_last_line(scb_case, tmp_path):
    _, questions, images, gold = scb_case
    out = tmp_path / "p.jsonl"
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, out, "--limit", "3") == 0
    whole = out.read_text().splitlines()
    out.write_text("\n".join(whole[:2]) + "\n" + whole[2][:15])  # killed mid-write
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, out, "--limit", "3", "--resume") == 0
    assert len(fake.requests) == 2
    assert sorted(json.loads(x)["question_id"] for x in out.read_text().splitlines()) == sorted(
        r["question_id"] for r in gold[:3]
    )


def test_concurrency_is_bounded(scb_case, tmp_path):
    _, questions, images, gold = scb_case
    with FakeOpenAI(scb_model(gold, set()), delay=0.05) as fake:
        assert run_scb(fake, questions, images, tmp_path / "p.jsonl", "--concurrency", "3") == 0
    assert 2 <= fake.max_in_flight <= 3


def test_api_key_comes_from_the_environment(scb_case, tmp_path, monkeypatch):
    _, questions, images, gold = scb_case
    monkeypatch.setenv("MY_KEY", "sk-test-123")
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, tmp_path / "p.jsonl", "--limit", "1", "--api-key-env", "MY_KEY") == 0
    assert fake.requests[0]["authorization"] == "Bearer sk-test-123"


def test_missing_images_say_so(scb_case, tmp_path, capsys):
    _, questions, _, gold = scb_case
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, tmp_path / "nowhere", tmp_path / "p.jsonl", "--limit", "2") == 1
    assert "check --images" in capsys.readouterr().err


def test_a_list_without_options_is_refused(tmp_path, capsys):
    bad = tmp_path / "q.jsonl"
    bad.write_text(json.dumps({"question_id": "scb-1"}) + "\n")
    assert (
        main(
            ["scb", "--questions", str(bad), "--images", ".", "--base-url", "http://127.0.0.1:9/v1"]
            + ["--model", "m", "--out", str(tmp_path / "o.jsonl")]
        )
        == 2
    )
    assert "no options: use the question list the leaderboard publishes" in capsys.readouterr().err


KVISCUIT = SHARED_DATA / "k-viscuit" / "annotations.jsonl"


@pytest.mark.skipif(not KVISCUIT.exists(), reason="needs the shared K-Viscuit gold")
def test_kviscuit_run_scores_through_the_scoring_cli(tmp_path):
    """40 questions, the fake model right where the answer is A or B: the CLI's accuracy is that count over 657."""
    rows = [json.loads(x) for x in KVISCUIT.read_text().splitlines()]
    images = tmp_path / "images"
    for i, r in enumerate(rows[:40]):  # rows share images: any colour will do
        write_image(images / r["image_path"], i, 640, 480)
    texts = {r["question"] + "|" + "|".join(r["options"]): r for r in rows}

    def reply(messages: list[dict]) -> str:
        prompt = next(p["text"] for p in messages[0]["content"] if p["type"] == "text")
        question, *opts = prompt.split("\n")
        options = [o.strip()[3:] for o in opts[:4]]
        assert len(images_of(messages)) == 1
        record = texts[question + "|" + "|".join(options)]
        return "ABCD"[record["answer"]] if record["answer"] < 2 else "ABCD"[(record["answer"] + 1) % 4]

    out = tmp_path / "kv.jsonl"
    with FakeOpenAI(reply) as fake:
        code = main(
            ["kviscuit", "--questions", str(KVISCUIT), "--images", str(images), "--base-url", fake.base_url]
            + ["--model", "fake", "--out", str(out), "--limit", "40", "--no-progress"]
        )
    assert code == 0
    assert (
        "Answer with the option's letter from the given choices directly."
        in fake.requests[0]["body"]["messages"][0]["content"][1]["text"]
    )
    score = subprocess.run(
        [sys.executable, "-m", "scoring", "score", "--benchmark", "kviscuit", "--gold", str(KVISCUIT)]
        + ["--predictions", str(out), "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    right = sum(1 for r in rows[:40] if r["answer"] < 2)
    assert json.loads(score.stdout)["overall"]["acc"] == pytest.approx(100 * right / 657)


def test_the_toy_endpoint_answers_both_stages_in_the_asked_format(scb_case, tmp_path):
    """``python -m scoring.harness.runner.fake_endpoint``'s model: a letter for a choice, a box for stage 2."""
    _, questions, images, _ = scb_case
    out = tmp_path / "p.jsonl"
    with FakeOpenAI() as fake:
        assert run_scb(fake, questions, images, out, "--grounding-format", "gemini") == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert all(x["response"].startswith("The answer is ") for x in lines)
    assert all(json.loads(x["grounding_response"])[0]["box_2d"] for x in lines)
    assert {x["grounding_format"] for x in lines} == {"gemini"}


def test_the_request_is_the_chat_completions_body_the_sdk_sends(scb_case, tmp_path):
    """The runner posts through the client's ``post`` (chat.completions.create walks every image part
    against its typed dicts first: half the runner's CPU): the body must be what ``create`` sends."""
    from openai import OpenAI

    _, questions, images, gold = scb_case
    with FakeOpenAI(scb_model(gold, set())) as fake:
        assert run_scb(fake, questions, images, tmp_path / "p.jsonl", "--limit", "1") == 0
        sent = fake.requests[0]
        client = OpenAI(base_url=fake.base_url, api_key="sk-none", max_retries=0)
        client.chat.completions.create(**sent["body"])  # the same arguments, through the SDK's own method
    assert fake.requests[-1]["body"] == sent["body"]
    assert set(sent["body"]) == {"model", "messages", "max_tokens", "temperature"}
