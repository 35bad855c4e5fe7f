"""What counts as leaking the gold: a finder used by every secrecy test (files, logs, pages).

Two kinds of finder, because a gold image size hides in numbers of many spellings:
- ``needles``: substrings of 8+ characters that only the gold holds (an answer next to its
  question id, mask data, a size spelled ``WxH``, ``W x H``, ``[H, W]``), searched in any text;
- ``numbers``: per question, every number derived from its gold image size or mask that a
  message could carry (sides, area, sums, perimeters, the multiples limits were made of, mask
  areas). Short numbers are everywhere in a page, so these are searched only in messages about
  one line, as whole numbers, minus what that line itself says and the public numbers of the
  option it answered (:meth:`GoldSecrets.numbers_leaked`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pycocotools import mask as coco_mask

SIDE_MULTIPLES = (1, 2, 5, 10, 50, 100, 1000, 2000)
"""k x width and k x height: pycocotools' 5x grid, the old 50x-perimeter outline limit and the
outline a ``bbox_ref_size`` of ``[1, 100000]`` makes (2000 x width, the red-team's attack)."""

_THOUSANDS = re.compile(r"(?<![\d,])\d{1,3}(?:,\d{3})+(?!\d)")


def size_numbers(width: int, height: int) -> set[int]:
    """Numbers that encode one image size: the sides and their multiples, area, sums, perimeter
    and the old outline limit 100 x (width + height)."""
    w, h = int(width), int(height)
    out = {w * h, w + h, 2 * (w + h), 100 * (w + h)}
    out |= {k * w for k in SIDE_MULTIPLES} | {k * h for k in SIDE_MULTIPLES}
    return out


def mask_area(rec: dict) -> int:
    """Pixels of a gold record's mask (its polygon parts merged, or its RLE)."""
    seg, h, w = rec["segmentation"], int(rec["height"]), int(rec["width"])
    if isinstance(seg, dict):
        rle = seg if isinstance(seg["counts"], str) else coco_mask.frPyObjects(seg, h, w)
        if isinstance(rle.get("counts"), str):
            rle = {"size": rle["size"], "counts": rle["counts"].encode()}
        return int(coco_mask.area(rle))
    return int(coco_mask.area(coco_mask.merge(coco_mask.frPyObjects(seg, h, w))))


def numbers_in(text: str) -> set[int]:
    """Whole numbers written in ``text``: ``2355``, ``2,355`` (thousands), ``2355.0``; a list
    ``[179,235]`` is read both as two numbers and as 179235."""
    found = {int(d) for d in re.findall(r"\d+", text)}
    return found | {int(m.replace(",", "")) for m in _THOUSANDS.findall(text)}


@dataclass(frozen=True)
class GoldSecrets:
    """Needles that only the gold holds (see module doc) and, per question id, its numbers."""

    needles: tuple[str, ...]
    numbers: Mapping[str, frozenset[int]] = field(default_factory=dict)

    @classmethod
    def from_scb(cls, gold: list[dict]) -> GoldSecrets:
        needles: list[str] = []
        numbers: dict[str, frozenset[int]] = {}
        for rec in gold:
            qid = rec["question_id"]
            # an answer or a correctness flag next to its question id, in any JSON/CSV spelling
            needles += [f'"{qid}": "{rec["answer"]}"', f'"{qid}":"{rec["answer"]}"', f"{qid},{rec['answer']}"]
            needles += [f'"{qid}", "answer"', f'"{qid}","answer"']
            seg = rec["segmentation"]
            if isinstance(seg, dict):
                needles.append(seg["counts"][:24])
            else:  # the first three points of a mask, spaced as json.dumps writes them and compact
                needles.append(json.dumps(seg[0][:6])[1:-1])
                needles.append(json.dumps(seg[0][:6], separators=(",", ":"))[1:-1])
            w, h = rec["width"], rec["height"]
            if "options" not in rec:  # with options the gold size is public as one of them: which one is the
                # secret, so a message's size counts as a leak only beside a line that answered another option
                # (numbers_leaked with the answered option's size as public)
                needles += [f"{w}x{h}", f"{w} x {h}", f"{w}\u00d7{h}", f"[{h}, {w}]", f"[{h},{w}]"]
            numbers[qid] = frozenset(size_numbers(w, h) | {mask_area(rec)})
        return cls(tuple(n for n in needles if len(n) >= 8), numbers)

    def leaks(self, text: str) -> list[str]:
        found = [n for n in self.needles if n in text]
        for key in ("segmentation", "per_question", "is_correct"):
            if key in text:
                found.append(key)
        if re.search(r'"counts"\s*:\s*["\[]', text):  # an RLE's counts (the public "counts" figures are no mask)
            found.append('"counts": RLE')
        if re.search(r'"answer"\s*:\s*"[A-D]"', text):
            found.append('"answer": letter')
        return found

    def numbers_leaked(self, message: str, qid: str, line_text: str = "", public: Iterable[int] = ()) -> list[int]:
        """Gold numbers of question ``qid`` that ``message`` (about one line of it) writes, except
        those the line's own text holds (an echo of the submitter's input: any digit run of
        the line, so a truncated echo is not taken for a leak) and ``public`` ones (the size
        numbers of the option image the line answered)."""
        secret = self.numbers.get(qid, frozenset()) - set(public)
        return sorted(n for n in numbers_in(message) & secret if str(n) not in line_text)
