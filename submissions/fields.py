"""What a team says about its model, declared once: every descriptive field of a submission.

A :class:`Field` says everything every layer needs: its name (the form, ``/submit``, CLI and
``meta.json`` key), label, limit and check, whether it is public (the board, the model page and
the results dataset) or private (maintainers and the team only), whether it *identifies* the
team (hidden on an anonymous row until its reveal date), whether it is part of "the same upload
again", how the board shows it, its form widget, and whether the submitter gives it at all (the
facts read from the model's Hub repo are filled in by the site). What derives from
:func:`declared`:

- ``SubmissionForm.cleaned`` (limits, required, checks: issue codes ``field_too_long``,
  ``field_required`` and the field's ``bad``), the stored record (``meta.json`` stays flat), the
  duplicate key (:func:`repeat_key`);
- the board's columns (``leaderboard.columns``), rows (``leaderboard.table``) and public dataset
  (``leaderboard.publish``, its card's column dictionary too), read back with defaults by any
  reader version;
- the anonymity redaction, an allow-list (:func:`anonymous_allowed_fields`): a field shows on an
  anonymous row only if declared ``identifying=False``;
- the Submit tab's widgets and ``/submit`` parameters (``ui.submit``), the CLI's ``--flags``.

The first six fields predate this module and keep their attributes on ``SubmissionForm``,
``SubmissionMeta`` and ``BoardRow`` (:data:`CLASSIC`; their stored JSON is unchanged); every
later field travels in those records' ``info`` mapping and is stored flat beside them. A new
field is one :class:`Field` here, its check, and a test (README, "Architecture").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum

from scoring.errors import Issue


class Shown(StrEnum):
    """How the board shows a field (``leaderboard.columns`` maps each to a column kind)."""

    MODEL = "model"  # the row's name, linked to the model's Hub page, else its paper or code
    TEAM = "team"  # beside the name
    TYPE = "type"  # a badge: the choice's label in its tone
    TEXT = "text"  # a text column
    URL = "url"  # a link in the Links column
    HUB = "hub"  # a Hub model id: a "Hub" link in the Links column and on the model page
    PARAMS = "params"  # a parameter count: a size column ("7.6B") with a filter by size buckets
    PAGE = "page"  # only on the model page and in the public dataset (the pinned revision)
    NONE = "none"  # nowhere public


class Widget(StrEnum):
    TEXT = "text"
    LONG_TEXT = "long_text"
    CHOICE = "choice"


@dataclass(frozen=True)
class Choice:
    """One allowed value of a choice field: stored ``key``, the ``label`` shown everywhere (form,
    filter, cell, model page, card) and the ``tone`` of its badge on the board (ui/style.py)."""

    key: str
    label: str
    tone: str = ""

    @property
    def shown(self) -> str:
        return self.label


Check = Callable[[str], str | None]
"""A cleaned value -> what is wrong with it (None: fine)."""

FILTER_TYPES = ("checkboxgroup", "dropdown")


@dataclass(frozen=True)
class ColumnFilter:
    """How the board filters rows by a field, declared beside it (as ``gradio_leaderboard``'s
    ``ColumnFilter``): a ``checkboxgroup`` keeps the rows whose value is ticked (all are, at
    first), a ``dropdown`` the rows of the one value picked ("All" at first). ``choices`` are
    (value, label) pairs; by default the field's :class:`Choice` keys, else the values the rows
    have. ``value`` turns a row's stored value into the one the filter matches (a parameter count
    into its size bucket). ``param`` is the board address's key (``?types=open``; default the
    field's name) and ``elem`` names its controls (``#<elem>-choice``; default the field's name).
    The board page builds the control and filters by it with no edit (ui/board_data.py)."""

    type: str = "checkboxgroup"
    label: str = ""
    param: str = ""
    elem: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    value: Callable[[str], str] | None = None

    def __post_init__(self) -> None:
        if self.type not in FILTER_TYPES:
            raise ValueError(f"a filter's type is one of {', '.join(FILTER_TYPES)}, not {self.type!r}")


@dataclass(frozen=True)
class Field:
    """One descriptive field (module doc)."""

    name: str
    label: str
    limit: int = 100
    check: Check | None = None
    bad: str = ""  # the issue code of a value ``check`` refuses (default ``bad_<name>``)
    required: bool = False
    choices: tuple[Choice, ...] = ()
    default: str = ""
    public: bool = True
    identifying: bool = True
    repeat_key: bool = True
    shown: Shown = Shown.TEXT
    header: str = ""  # the column header (default: the label)
    widget: Widget = Widget.TEXT
    hint: str = ""  # the form's placeholder and the CLI's help
    submitted: bool = True  # False: the site fills it in (facts read from the Hub)
    meaning: str = ""  # the public dataset card's line for its column
    elem: str = ""  # the form widget's elem_id suffix (``sub-<elem>``; default the name)
    normal: Callable[[str], str] | None = None  # a spelling to store (e.g. a Hub URL -> its id)
    keep_invisible: bool = False  # keep invisible characters for ``check`` to refuse (a team name), not drop them
    filter: ColumnFilter | None = None  # a filter of the board's rows by this field (public fields only)

    def __post_init__(self) -> None:
        if self.filter is not None and not self.public:
            raise ValueError(f"{self.name} is private: the board cannot filter by it")

    @property
    def flag(self) -> str:
        """The CLI flag: ``--model-repo``."""
        return "--" + self.name.replace("_", "-")

    @property
    def column_header(self) -> str:
        return self.header or self.label

    @property
    def choice_keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.choices)

    def choice(self, key: str) -> Choice | None:
        return next((c for c in self.choices if c.key == key), None)

    def clean(self, value: object) -> tuple[str, list[Issue]]:
        """The value as stored and what is wrong with it (line 0 of the answer's issues)."""
        raw = "" if value is None else str(value)
        if self.choices:
            key = raw.strip().lower()
            if key not in self.choice_keys:
                why = f"{self.name} must be one of {', '.join(self.choice_keys)}"
                return key, [Issue(self.bad or f"bad_{self.name}", 0, self.name, why)]
            return key, []
        issues = []
        if len(raw) > self.limit:
            issues.append(
                Issue("field_too_long", 0, self.name, f"{self.name} is {len(raw)} characters; at most {self.limit}")
            )
        text = clean_text(raw, self.limit, keep_invisible=self.keep_invisible)
        if self.normal is not None and text:
            text = self.normal(text)
        if self.required and not text:
            issues.append(Issue("field_required", 0, self.name, f"{self.name} is required"))
        if text and self.check is not None and (why := self.check(text)) is not None:
            issues.append(Issue(self.bad or f"bad_{self.name}", 0, self.name, why))
        return text, issues


def clean_text(value: object, limit: int, keep_invisible: bool = False) -> str:
    """Printable single-spaced text: control and format characters dropped (kept with
    ``keep_invisible``, for a check that refuses them), then cut to ``limit`` characters (the
    caller reports an over-long value before cutting)."""
    text = "" if value is None else str(value)
    kept = (ch for ch in text if keep_invisible or unicodedata.category(ch)[0] != "C" or ch in "\t\r\n")
    text = "".join(" " if ch in "\t\r\n" else ch for ch in kept)
    return re.sub(r" {2,}", " ", text).strip()[:limit]


# ---------------------------------------------------------------- checks

HTTP_URL = re.compile(r"^https?://[^\s<>\"'`]+$", re.IGNORECASE)
"""An http(s) address with nothing that could break out of an HTML attribute (the one copy)."""
HUB = "https://huggingface.co"


def http_url(value: str) -> str | None:
    return None if HTTP_URL.match(value) else "must be an http:// or https:// address"


def _named(check: Check, name: str) -> Check:
    return lambda v: None if (why := check(v)) is None else f"{name} {why}"


def hub_model_id(value: str) -> str:
    """``https://huggingface.co/Org/Model/tree/main`` -> ``Org/Model`` (ids pass unchanged)."""
    for prefix in (HUB + "/", "huggingface.co/", "hf.co/", "https://hf.co/"):
        if value.lower().startswith(prefix.lower()):
            return "/".join(value[len(prefix) :].split("/")[:2])
    return value


def hub_repo_id(value: str) -> str | None:
    """A model id the Hub accepts (``namespace/name``; huggingface_hub's own rules)."""
    if "/" not in value:
        return f"model_repo must be a Hub model id like Qwen/Qwen2.5-VL-7B-Instruct, got {value!r}"
    # imported here: huggingface_hub.utils brings an HTTP client along, which no scoring worker needs
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(value)
    except HFValidationError as e:
        return f"model_repo is not a Hub model id: {e}"
    return None


# ---------------------------------------------------------------- sizes

SIZE_BUCKETS: tuple[tuple[str, float], ...] = (
    ("~1.5B", 2.0),
    ("~3B", 4.5),
    ("~7B", 10.0),
    ("~14B", 20.0),
    ("~35B", 50.0),
    ("~70B", 80.0),
    (">70B", math.inf),
)
"""Size filter buckets (label, upper bound in billions of parameters), as on the Open LLM Leaderboard."""
UNKNOWN_SIZE = "unknown size"
SIZE_CHOICES = (*(label for label, _ in SIZE_BUCKETS), UNKNOWN_SIZE)


def size_bucket(params: str | int | None) -> str:
    """The bucket of a parameter count (decimal text as stored, or a number)."""
    try:
        count = int(params)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return UNKNOWN_SIZE
    if count <= 0:
        return UNKNOWN_SIZE
    return next(label for label, top in SIZE_BUCKETS if count / 1e9 <= top)


def size_text(params: object) -> str:
    """``7615616512`` -> ``"7.6B"``; ``"-"`` when unknown."""
    try:
        count = int(params)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "-"
    if count >= 10**9:
        return f"{count / 1e9:.1f}B"
    return f"{count / 1e6:.0f}M" if count > 0 else "-"


# ---------------------------------------------------------------- the declarations

MODEL_TYPE = Field(
    "model_type",
    "Model type",
    shown=Shown.TYPE,
    widget=Widget.CHOICE,
    default="open",
    identifying=False,
    choices=(
        Choice("open", "open weights", "green"),
        Choice("closed", "closed weights", "amber"),
        Choice("api", "API only", "violet"),
    ),
    elem="type",
    meaning="open (open weights), closed (closed weights) or api (API only)",
    filter=ColumnFilter(label="Model type", param="types", elem="type"),
)
SIZE_FIELD = "model_params"
HUB_FIELD = "model_repo"
REVISION_FIELD = "model_sha"

_DECLARED: list[Field] = [
    Field(
        "model", "Model name", header="Model", required=True, shown=Shown.MODEL, meaning="the model's name as submitted"
    ),
    Field(
        "team", "Team", required=True, shown=Shown.TEAM, meaning="the team's name as submitted", keep_invisible=True
    ),  # a team name with invisible characters is refused (submissions.teams), not stripped
    Field(
        HUB_FIELD,
        "Hub model id",
        200,
        hub_repo_id,
        shown=Shown.HUB,
        header="Hub",
        elem="repo",
        normal=hub_model_id,
        hint="optional, e.g. Qwen/Qwen2.5-VL-7B-Instruct; empty for an API-only model",
        meaning="the model's Hugging Face Hub id (empty for API-only models)",
    ),
    MODEL_TYPE,
    Field(
        "paper_url",
        "Paper URL",
        300,
        _named(http_url, "paper_url"),
        "bad_url",
        shown=Shown.URL,
        header="Paper",
        elem="paper",
        hint="optional, http/https",
        meaning="a link to the paper the team gave (may be empty)",
    ),
    Field(
        "code_url",
        "Code URL",
        300,
        _named(http_url, "code_url"),
        "bad_url",
        shown=Shown.URL,
        header="Code",
        elem="code",
        hint="optional, http/https",
        meaning="a link to the code the team gave (may be empty)",
    ),
    Field("description", "Description", 1000, public=False, shown=Shown.NONE, widget=Widget.LONG_TEXT, hint="optional"),
    Field(
        SIZE_FIELD,
        "Parameters",
        header="Size",
        shown=Shown.PARAMS,
        submitted=False,
        repeat_key=False,
        meaning="parameter count read from the Hub repo's safetensors at submission (empty if unknown)",
        filter=ColumnFilter(
            label="Size (parameters, from the Hub)",
            param="sizes",
            elem="size",
            choices=tuple((c, c) for c in SIZE_CHOICES),
            value=size_bucket,
        ),
    ),
    Field(
        "model_license",
        "Licence",
        submitted=False,
        repeat_key=False,
        meaning="the licence the Hub repo's card declares (empty if unknown)",
    ),
    Field(
        "model_architecture",
        "Architecture",
        shown=Shown.PAGE,
        submitted=False,
        repeat_key=False,
        meaning="the architecture the Hub repo's config names (empty if unknown)",
    ),
    Field(
        "model_gated",
        "Gated",
        shown=Shown.PAGE,
        submitted=False,
        repeat_key=False,
        meaning='whether the Hub repo is gated: "auto", "manual" or empty (not gated, or unknown)',
    ),
    Field(
        REVISION_FIELD,
        "Revision",
        shown=Shown.PAGE,
        submitted=False,
        repeat_key=False,
        meaning="the Hub repo's commit at submission time (the revision the row was scored as)",
    ),
]

CLASSIC = ("model", "team", "model_type", "paper_url", "code_url", "description")
"""The fields with their own attributes on the records (every other one is in ``info``)."""
CLASSIC_API = ("model", "team", "model_type", "paper_url", "code_url", "description")
"""The descriptive ``/submit`` parameters of the first API, in their places (ui/submit.py);
every later submitted field is a parameter added after ``reveal_date``, in declaration order."""


def declared() -> tuple[Field, ...]:
    """Every declared field, in declaration order (the board's and the form's order)."""
    return tuple(_DECLARED)


def get(name: str) -> Field:
    return next(f for f in _DECLARED if f.name == name)


def submitted_fields() -> tuple[Field, ...]:
    """What the form, ``/submit`` and the CLI ask for."""
    return tuple(f for f in _DECLARED if f.submitted)


def public_fields() -> tuple[Field, ...]:
    """What the board, the model page and the results dataset may show."""
    return tuple(f for f in _DECLARED if f.public)


def anonymous_allowed_fields() -> frozenset[str]:
    """The allow-list of an anonymous row before its reveal date: public fields declared
    non-identifying. Every other field is blanked (the name and team say "anonymous")."""
    return frozenset(f.name for f in _DECLARED if f.public and not f.identifying)


def repeat_key() -> tuple[str, ...]:
    """The fields that, with the file's sha256 (and its box format), make an upload a repeat."""
    return tuple(f.name for f in _DECLARED if f.repeat_key)


def added_api_fields() -> tuple[Field, ...]:
    """Submitted fields that came after the first API: ``/submit`` parameters after ``reveal_date``."""
    return tuple(f for f in submitted_fields() if f.name not in CLASSIC_API)


def value_of(record: object, name: str) -> str:
    """A field's value on a form, stored record or board row (classic attribute, else ``info``)."""
    if name in CLASSIC and hasattr(record, name):
        return getattr(record, name)
    info: Mapping[str, str] = getattr(record, "info", {})
    return info.get(name, "")


def split(values: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(classic attributes, ``info``) of a mapping of field values."""
    classic = {k: v for k, v in values.items() if k in CLASSIC}
    return classic, {k: v for k, v in values.items() if k not in CLASSIC}


@contextmanager
def declaring(*added: Field) -> Iterator[None]:
    """Declare more fields for a while (tests: a field that exists only in the test). Build the
    form, parser or board inside the block; the fields are gone after it."""
    names = {f.name for f in _DECLARED}
    clash = [f.name for f in added if f.name in names]
    if clash:
        raise ValueError(f"already declared: {', '.join(clash)}")
    _DECLARED.extend(added)
    try:
        yield
    finally:
        for f in added:
            _DECLARED.remove(f)
