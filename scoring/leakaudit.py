"""Gold leak audit: how many answers a public question list gives away, channel by channel.

A cheater who holds only the public list (question fields and the four option images: id, size,
url) tries simple rules. Each rule below picks an option for the questions it can decide; the
audit counts those decisions against the gold answers and reports the rule's accuracy over the
whole list (undecided questions guessed at chance) as points above chance (25 % with 4 options):

- ``id pattern`` / ``url pattern``: the option whose id (url) has a shape, digits and letters
  folded (``img-00913`` -> ``a-9``), that the other three share not: the odd one out.
- ``size``: the one option whose width x height no other option has, the other three sharing one.
- ``co-occurrence with FIELD``: an image can be an option of several questions; the gold image of
  a concept is the answer of that concept's question and a decoy elsewhere, so the option most
  often seen with this question's FIELD value (as a share of all its appearances) is picked, when
  one option is ahead of the others. ``FIELD`` is each published grouping or prompt field, and
  ``fields together`` all of them at once.

The audit reads answers: maintainers only (``python -m leaderboard gold add`` prints it).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

CHANCE = 0.25
LETTERS = "ABCD"
LEAKY_POINTS = 5.0
"""A channel this many points above chance is named as a leak (an honest list sits near 0)."""


@dataclass(frozen=True)
class Channel:
    """What one cheating rule gets from the public list."""

    name: str
    decided: int  # questions the rule picks an option for
    right: int  # of those, picked right
    questions: int

    @property
    def accuracy(self) -> float:
        """The rule's accuracy with the undecided questions guessed at chance."""
        if not self.questions:
            return CHANCE
        return (self.right + CHANCE * (self.questions - self.decided)) / self.questions

    @property
    def above_chance(self) -> float:
        """Percentage points above chance."""
        return 100 * (self.accuracy - CHANCE)

    @property
    def leaky(self) -> bool:
        return self.above_chance >= LEAKY_POINTS

    def line(self) -> str:
        verdict = "LEAK" if self.leaky else "ok"
        return (
            f"{verdict:<4} {self.name}: decides {self.decided:,} of {self.questions:,} answers, {self.right:,} right; "
            f"{self.above_chance:+.1f} points above chance ({CHANCE:.0%})"
        )


def shape(text: str) -> str:
    """A string's pattern: runs of letters -> ``a``, runs of digits -> ``9`` (``img-00913`` -> ``a-9``)."""
    return re.sub(r"[0-9]+", "9", re.sub(r"[^\W\d_]+", "a", text))


def _odd_one_out(values: Sequence[object]) -> int | None:
    """The index of the one value the other three share not (they all share one), else None."""
    counts = Counter(values)
    if len(counts) != 2:
        return None
    (common, n_common), (odd, n_odd) = counts.most_common()
    return values.index(odd) if n_odd == 1 and n_common == len(values) - 1 else None


def _by_rule(name: str, questions: Sequence[Mapping], answers: Mapping[str, str], pick: Callable) -> Channel:
    decided = right = 0
    for q in questions:
        choice = pick(q)
        if choice is None:
            continue
        decided += 1
        right += LETTERS[choice] == answers.get(q["question_id"])
    return Channel(name, decided, right, len(questions))


def _options(q: Mapping) -> list[Mapping]:
    """The option images of a question (none for text options, as K-Viscuit's)."""
    options = q.get("options")
    return [o for o in options if isinstance(o, Mapping)] if isinstance(options, list) else []


def _pattern_channel(name: str, key: str, questions, answers) -> Channel:
    def pick(q):
        options = _options(q)
        return _odd_one_out([shape(str(o.get(key, ""))) for o in options]) if len(options) == 4 else None

    return _by_rule(name, questions, answers, pick)


def _size_channel(questions, answers) -> Channel:
    def pick(q):
        options = _options(q)
        return _odd_one_out([(o.get("width"), o.get("height")) for o in options]) if len(options) == 4 else None

    return _by_rule("size of the answer option", questions, answers, pick)


def _value(q: Mapping, fields: Sequence[str]) -> tuple:
    return tuple(str(q.get(f, "")) for f in fields)


def _cooccurrence_channel(
    name: str, fields: Sequence[str], questions, answers, images: Sequence[list[str]] | None = None
) -> Channel:
    """``images``: each question's option image ids (worked out once for every channel of an audit)."""
    images = images if images is not None else _images(questions)
    values = [_value(q, fields) for q in questions]
    seen: dict[str, Counter] = defaultdict(Counter)  # image id -> field value -> appearances
    total: Counter = Counter()  # image id -> appearances
    for value, ids in zip(values, images, strict=True):
        for image in ids:
            seen[image][value] += 1
            total[image] += 1
    picks = {}
    for q, value, ids in zip(questions, values, images, strict=True):
        shares = [seen[image][value] / total[image] for image in ids]
        best = max(shares) if len(shares) == 4 else None
        picks[id(q)] = shares.index(best) if best is not None and shares.count(best) == 1 else None
    return _by_rule(name, questions, answers, lambda q: picks[id(q)])


def _images(questions: Sequence[Mapping]) -> list[list[str]]:
    return [[str(o.get("image_id", "")) for o in _options(q)] for q in questions]


def audit(questions: Sequence[Mapping], answers: Mapping[str, str], fields: Iterable[str]) -> list[Channel]:
    """Every channel's result on the public ``questions`` (as published), ``answers`` being
    question id -> letter, ``fields`` the published question fields besides id and options."""
    fields = [f for f in fields if any(f in q for q in questions)]
    channels = [
        _pattern_channel("id pattern of the options", "image_id", questions, answers),
        _pattern_channel("url pattern of the options", "url", questions, answers),
        _size_channel(questions, answers),
    ]
    images = _images(questions)
    channels += [_cooccurrence_channel(f"co-occurrence with {f}", [f], questions, answers, images) for f in fields]
    if len(fields) > 1:
        both = " + ".join(fields)
        channels.append(_cooccurrence_channel(f"co-occurrence with {both}", fields, questions, answers, images))
    return channels


def report(channels: Sequence[Channel]) -> list[str]:
    """The audit in words, one line per channel, the leaks named first."""
    leaks = [c for c in channels if c.leaky]
    head = (
        f"leak audit: {len(leaks)} channel(s) give answers away: " + ", ".join(c.name for c in leaks)
        if leaks
        else "leak audit: no channel gives answers away"
    )
    return [head, *(c.line() for c in sorted(channels, key=lambda c: -c.above_chance))]
