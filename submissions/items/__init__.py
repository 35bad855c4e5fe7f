"""Item analysis for maintainers: which questions are hard, and which gold looks wrong (issue 43).

Pure numpy, no I/O: the background job reads the stored readings of every scored submission and
calls :func:`analyse` inside the bounded scoring worker; nothing of it reaches a team or a page.

Interface:
  ItemGold(question_ids, choices, answers, masks=None)     the gold judged against (records.py)
  Responses(choices, boxes=None)                            S x Q letter indices (-1 missing),
                                                            S x Q x 4 boxes in gold-image pixels
  analyse(gold, responses) -> ItemAnalysis                  questions (QuestionStats, gold order)
                                                            and suspects (most suspect first)
  items_json(analysis, benchmark, gold_version, choices)    the CLI's --json object (report.py)

Steps: a 2PL fit of right/wrong with abilities without each question (irt.py); each letter's
discrimination and the ``answer`` suspects (letters.py); the pickers' boxes against the gold
region and the ``mask`` suspects (grounding.py). How the ranking tells a wrong key from a hard
question with an attractive distractor: docs/items.md.
"""

from submissions.items.analysis import analyse
from submissions.items.records import MISSING, ItemAnalysis, ItemGold, QuestionStats, Responses, Suspect
from submissions.items.report import items_json

__all__ = [
    "MISSING",
    "ItemAnalysis",
    "ItemGold",
    "QuestionStats",
    "Responses",
    "Suspect",
    "analyse",
    "items_json",
]
