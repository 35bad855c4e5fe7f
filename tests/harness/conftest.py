"""A tiny SCB gold with realistic decoys (other questions' gold images, their real sizes), its
public list, generated images that say who they are (a colour per image), and a fake model."""

from __future__ import annotations

import base64
import io
import json
import random
from pathlib import Path

import pytest
from PIL import Image

LETTERS = "ABCD"


def colour_of(index: int) -> tuple[int, int, int]:
    return (index // 256, index % 256, 77)


def index_of(colour: tuple[int, int, int]) -> int:
    return colour[0] * 256 + colour[1]


def write_image(path: Path, index: int, width: int, height: int) -> None:
    """A small image standing for a ``width`` x ``height`` photo: its colour names it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (max(8, width // 100), max(8, height // 100)), colour_of(index)).save(path, format="PNG")


def image_index(part: dict) -> int:
    """Which generated image a chat content part carries (a data URL)."""
    data = part["image_url"]["url"].split(",", 1)[1]
    with Image.open(io.BytesIO(base64.b64decode(data))) as im:
        return index_of(im.convert("RGB").getpixel((0, 0)))


def images_of(messages: list[dict]) -> list[int]:
    return [image_index(p) for m in messages for p in m["content"] if p.get("type") == "image_url"]


@pytest.fixture
def scb_case(tmp_path: Path):
    """(gold path, public list path, images folder, gold records) for 16 questions."""
    rng = random.Random(5)
    n = 16
    sizes = [(rng.choice([640, 1024, 2355]), rng.choice([480, 768, 1794])) for _ in range(n)]
    gold = []
    for i in range(n):
        w, h = sizes[i]
        answer = LETTERS[rng.randrange(4)]
        others = rng.sample([j for j in range(n) if j != i], 3)
        options, k = [], 0
        for letter in LETTERS:
            j = i if letter == answer else others[k]
            k += letter != answer
            ow, oh = sizes[j]
            options.append({"image_id": f"img-{j:05d}", "width": ow, "height": oh, "url": f"images/img-{j:05d}.png"})
        gold.append(
            {
                "question_id": f"scb-{i:05d}",
                "type": 1 + i % 3,
                "country": "Vietnam",
                "category": "game",
                "concept": f"concept {i}",
                "answer": answer,
                "image_id": f"img-{i:05d}",
                "width": w,
                "height": h,
                "segmentation": [[w * 0.2, h * 0.2, w * 0.6, h * 0.2, w * 0.6, h * 0.7, w * 0.2, h * 0.7]],
                "question": f"Which image shows concept {i}?",
                "grounding_prompt": "Locate the artifact in the image.",
                "options": options,
            }
        )
    gold_path = tmp_path / "gold.jsonl"
    gold_path.write_text("".join(json.dumps(r) + "\n" for r in gold))
    public = [
        {k: v for k, v in r.items() if k not in ("answer", "image_id", "width", "height", "segmentation")} for r in gold
    ]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in public))
    images = tmp_path / "images"
    for j, (w, h) in enumerate(sizes):
        write_image(images / f"img-{j:05d}.png", j, w, h)
    return gold_path, questions, images, gold
