"""Errors as data with a location (after pydantic).

Two kinds are kept apart: a submitter's bad file (:class:`SubmissionError`, a list of
:class:`Issue`, shown to the submitter as a table) and a maintainer's broken gold or
configuration (:class:`GoldError`), which stops the app and is never blamed on a submitter.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

MAX_LISTED = 20
"""How many issues a message lists before it only counts the rest."""

OPTIONAL_KEYS = frozenset({"suggested", "file"})
"""Keys :meth:`Issue.to_dict` writes only when they are set."""


@dataclass(frozen=True)
class Issue:
    """One problem in a submission: a fixed snake_case ``code``, a 1-based ``line`` (0 for the
    whole file), the offending ``field`` ('' for the whole line) and a message that says what
    was expected and what arrived."""

    code: str
    line: int
    field: str
    message: str
    suggested: str = ""
    """The declaration the message proposes, as the settings to send ("grounding_format=plain
    bbox_format=xyxy_norm", :func:`suggested_settings`); "" when it proposes none. The Submit form
    pre-fills them."""
    file: str = ""
    """The file inside the upload that ``line`` is a line of, when the upload is several files or a
    zip (``logs/<model>/<date>_samples_<task>.jsonl``); "" for one file, whose lines ``line`` counts."""

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        where = f"{self.file} {where}" if self.file and self.line else where
        field = f" [{self.field}]" if self.field else ""
        return f"{where}{field}: {self.message}"

    def to_dict(self) -> dict:
        """Its fields; ``suggested`` and ``file`` only when set (earlier readers know four keys)."""
        return {k: v for k, v in asdict(self).items() if k not in OPTIONAL_KEYS or v}


SETTINGS = ("grounding_format", "bbox_format")
"""The submission settings an issue may suggest, in the order they are written."""


def suggestion(**settings: str) -> str:
    """The ``Issue.suggested`` spelling of ``settings`` (in :data:`SETTINGS` order).

    >>> suggestion(bbox_format="xyxy_norm", grounding_format="plain")
    'grounding_format=plain bbox_format=xyxy_norm'
    """
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise ValueError(f"not a submission setting: {sorted(unknown)}")
    return " ".join(f"{name}={settings[name]}" for name in SETTINGS if settings.get(name))


def suggested_settings(issue: Issue | dict) -> dict[str, str]:
    """The settings an issue (or its API dict) suggests: name -> value, {} for none.

    >>> suggested_settings({"suggested": "grounding_format=plain bbox_format=xyxy_norm"})
    {'grounding_format': 'plain', 'bbox_format': 'xyxy_norm'}
    """
    text = issue.get("suggested", "") if isinstance(issue, dict) else issue.suggested
    pairs = (part.partition("=") for part in str(text or "").split())
    return {name: value for name, _, value in pairs if name in SETTINGS and value}


class SubmissionError(Exception):
    """A submission file with format errors: nothing of it is scored.

    ``issues`` holds at most :data:`MAX_LISTED` issues in file order; ``total`` counts them all.
    """

    def __init__(self, issues: list[Issue], total: int | None = None) -> None:
        self.issues = issues[:MAX_LISTED]
        self.total = len(issues) if total is None else total
        super().__init__(self.summary())

    def summary(self) -> str:
        lines = [f"{self.total} format error(s); nothing was scored."]
        lines += [str(i) for i in self.issues]
        if self.total > len(self.issues):
            lines.append(f"... and {self.total - len(self.issues)} more")
        return "\n".join(lines)


class GoldError(Exception):
    """The gold (a maintainer's file) is broken: say where, stop, blame no submitter."""


class LineError(ValueError):
    """A bad value in one line; the validator turns it into an :class:`Issue` with the line."""

    def __init__(self, code: str, message: str, field: str = "") -> None:
        self.code = code
        self.field = field
        super().__init__(message)


GeometryError = LineError
"""Geometry raises the same line-level error; the alias names where it comes from."""
