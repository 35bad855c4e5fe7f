"""What counts as leaking the gold: a finder used by every secrecy test (files, logs, pages)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class GoldSecrets:
    """Needles that only the gold holds: per-question answers keyed by id, mask data, sizes."""

    needles: tuple[str, ...]

    @classmethod
    def from_scb(cls, gold: list[dict]) -> GoldSecrets:
        needles: list[str] = []
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
            needles.append(f"{rec['width']}x{rec['height']}")
        return cls(tuple(n for n in needles if len(n) >= 8))

    def leaks(self, text: str) -> list[str]:
        found = [n for n in self.needles if n in text]
        for key in ("segmentation", '"counts"', "per_question", "is_correct"):
            if key in text:
                found.append(key)
        if re.search(r'"answer"\s*:\s*"[A-D]"', text):
            found.append('"answer": letter')
        return found
