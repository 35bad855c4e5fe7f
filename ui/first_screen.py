"""The board's first screen as HTML, written by the bake (issue 44): seen before any script runs.

A first visit used to wait behind a "Loading" line until the table library had built its table
(1.2-1.8 s on a desktop, 5.6-6.4 s on a throttled phone, most of it one forced layout). The page is
baked once per data change, so the first screen of the default view (the first benchmark's overview)
is written here from the same data the script reads: its controls with the markup
``ui/static/board.js`` and ``focus.js`` draw (so the script's first draw changes no size: nothing
moves) and its first :data:`FIRST_ROWS` rows with their figures in a plain table, which the script
swaps for its own table in one frame. A phone shows the columns its table keeps (rank, model with
the team under it, two headline figures); the others are in the HTML for a wide window only.

An address of another view (a benchmark, a view, a filter, a model page, Compare) is drawn by the
script alone, as before: the page's head marks the default view (``first-view``) before anything
is painted, and the stylesheet shows the baked screen only then.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta

FIRST_ROWS = 20
PHONE_FIGURES = 2  # figures a phone's overview keeps beside the name (board.js columnDefs)
NEW_DAYS = 7
SHOWN_KINDS = frozenset({"rank", "model", "text", "model_type", "number"})
"""The columns the baked table shows: the row's identity and its figures (what a first screen holds)."""


def esc(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def fmt(value: object, decimals: int) -> str:
    return "-" if value is None else f"{float(value):.{decimals}f}"


def rank_text(row: dict) -> str:
    return str(row["rank"]) if row["rank"] == row["rank_worst"] else f"{row['rank']}\u2013{row['rank_worst']}"


def chips(name: str, items: list[tuple[str, str]], on: set[str], kind: str) -> str:
    """board.js radio() and boxes(): a chip per choice."""
    out = []
    for value, label in items:
        ticked = value in on
        checked = " checked" if ticked else ""
        out.append(
            f'<label class="chip{" on" if ticked else ""}"><input type="{kind}" name="{esc(name)}" '
            f'value="{esc(value)}"{checked}>{esc(label)}</label>'
        )
    return "".join(out)


def filter_control(f: dict) -> str:
    """board.js filterControl() with every choice kept (the default)."""
    ident = esc(f["id"])
    label = f'<span class="choice-label" id="{ident}-label">{esc(f["label"])}</span>'
    if f["type"] != "dropdown":
        boxes = chips(f["param"], [tuple(c) for c in f["choices"]], {c[0] for c in f["choices"]}, "checkbox")
        return f'{label}<span id="{ident}" class="choice" role="group" aria-labelledby="{ident}-label">{boxes}</span>'
    options = "".join(
        f'<option value="{esc(v)}"{" selected" if v == "" else ""}>{esc(t)}</option>'
        for v, t in [["", "All"], *f["choices"]]
    )
    select = f'<select id="{ident}" name="{esc(f["param"])}" aria-labelledby="{ident}-label">{options}</select>'
    return f'{label}<span class="choice">{select}</span>'


def focus_control(bench: dict) -> str:
    """focus.js controls() with no focus."""
    options = ['<option value="" selected>Whole board</option>'] + [
        f'<option value="{esc(g["name"])}">{esc("One " + g["label"].lower())}</option>' for g in bench["groupings"]
    ]
    return (
        '<span class="choice-label" id="focus-label">Focus</span><span class="choice" role="group" '
        f'aria-labelledby="focus-label"><select id="focus-grouping" name="focus-grouping" aria-label="Focus on">'
        f"{''.join(options)}</select></span>"
    )


def shown_columns(view: dict) -> list[dict]:
    return [c for c in view["columns"] if c["kind"] not in ("data", "url", "ci")]


def groups_of(view: dict) -> list[str]:
    """board.js groupsOf(): the view's column groups but the model's own, in order."""
    seen = dict.fromkeys(c["group"] for c in shown_columns(view))
    return [g for g in seen if g != "Model"]


def controls(data: dict, bench: dict) -> dict[str, str]:
    """The slots of the controls, as board.js drawControlsNow() fills them for the default view."""
    view = bench["views"][0]
    groups = groups_of(view)
    tabs = "".join(
        f'<a href="?bench={esc(b["id"])}" data-bench="{esc(b["id"])}" class="bench-tab{" on" if b is bench else ""}"'
        f"{' aria-current=' + chr(34) + 'page' + chr(34) if b is bench else ''}>{esc(b['name'])}</a>"
        for b in data["benchmarks"]
    )
    return {
        "bench_tabs": tabs,
        "bench_about": f"{esc(bench['description'])} <em>{esc(bench['paper'])}.</em>",
        "view_choice": chips("view", [(v["id"], v["label"]) for v in bench["views"]], {view["id"]}, "radio"),
        "filters_list": "".join(filter_control(f) for f in data["filters"]),
        "focus_choice": focus_control(bench),
        "columns_choice": chips("show", [(g, g) for g in groups], set(groups), "checkbox"),
        "columns_count": f"{len(groups)} of {len(groups)} groups shown",
    }


def is_new(row: dict, now: datetime) -> bool:
    submitted = str(row.get("submitted") or "")[:10]
    try:
        day = datetime.fromisoformat(submitted).replace(tzinfo=UTC)
    except ValueError:
        return False
    return -timedelta(days=1) < now - day < timedelta(days=NEW_DAYS)


def model_cell(data: dict, row: dict, now: datetime) -> str:
    """board.js modelCell() for a first screen: the name (linked as its first link), its marks, the
    team under it (shown on a phone, where the team has no column)."""
    target = next((u for u, _ in row.get("_links") or [] if str(u).startswith(("http://", "https://"))), "")
    name = esc(row["model"])
    if target:
        name = f'<a href="{esc(target)}" target="_blank" rel="noopener noreferrer nofollow" tabindex="-1">{name}</a>'
    lenient = row.get(data["lenient"]["key"])
    mark = f'<span class="lenient-mark">{esc(data["lenient"]["mark"])}</span> ' if lenient and lenient > 0 else ""
    new = ' <span class="new-tag">new</span>' if is_new(row, now) else ""
    paper = ' <span class="paper-tag">reported in paper</span>' if row.get("source") == data["paper_source"] else ""
    return (
        f'<div class="model-name">{mark}<span class="name">{name}</span>{new}{paper}</div>'
        f'<div class="team-line fs-phone">{esc(row.get("team"))}</div>'
    )


def cell(data: dict, row: dict, col: dict, now: datetime) -> str:
    kind, value = col["kind"], row.get(col["key"])
    if kind == "rank":
        return esc(rank_text(row))
    if kind == "model":
        return model_cell(data, row, now)
    if kind == "model_type":  # board.js typeBadge()
        key = str(value or "").lower()
        label, tone = esc(data["type_labels"].get(key, value or "-")), data["type_tones"].get(key)
        return f'<span class="type-badge tone-{esc(tone)}">{label}</span>' if tone else label
    if kind == "number":
        ci = row.get(col["ci"]) if col.get("ci") else None
        figure = fmt(value, col["decimals"])
        return (
            figure
            if value is None or ci is None
            else f'{figure}<span class="ci-line"> ± {fmt(ci, col["decimals"])}</span>'
        )
    return esc("-" if value in (None, "") else value)


DESKTOP_WIDTHS = {"rank": 72, "model": 250, "team": 140, "model_type": 130, "number": 92}
"""board.js DESKTOP_WIDTHS: the baked columns as wide as the script's, so the swap moves nothing."""


def width(col: dict) -> int:
    if col["kind"] == "number":
        return 112 if col.get("ci") else 92
    return DESKTOP_WIDTHS.get("team" if col["key"] == "team" else col["kind"], 120)


def tints(cols: list[dict]) -> dict[str, int]:
    """board.js columnDefs(): a tint per group of figures, in order of appearance (five, repeating)."""
    out: dict[str, int] = {}
    for c in cols:
        if c["kind"] == "number" and c["group"] not in out:
            out[c["group"]] = len(out) % 5
    return out


def first_table(data: dict, bench: dict, now: datetime | None = None) -> str:
    """The first rows of the default view with their figures (module doc); on a phone the columns
    board.js keeps there (``fs-wide`` marks the others)."""
    now = now or datetime.now(UTC)
    view = bench["views"][0]
    cols = [c for c in shown_columns(view) if c["kind"] in SHOWN_KINDS]
    figures = [c["key"] for c in cols if c["kind"] == "number"]
    phone = set([k for k in bench["headline"] if k in figures][:PHONE_FIGURES])
    tint = tints(cols)
    classes = [
        f"k-{c['kind']}"
        + (" fs-wide" if c["kind"] not in ("rank", "model") and c["key"] not in phone else "")
        + (f" tint-{tint[c['group']]}" if c["group"] in tint else "")
        for c in cols
    ]
    heads = "".join(f'<th scope="col" class="{k}">{esc(c["header"])}</th>' for c, k in zip(cols, classes, strict=True))
    body = []
    for row in bench["rows"][:FIRST_ROWS]:
        cells = "".join(f'<td class="{k}">{cell(data, row, c, now)}</td>' for c, k in zip(cols, classes, strict=True))
        body.append(f"<tr>{cells}</tr>")
    columns = "".join(f'<col style="width:{width(c)}px">' for c in cols)
    caption = f"{esc(bench['name'])}: the first {min(FIRST_ROWS, len(bench['rows']))} rows, ranked"
    return (
        f'<div id="first-screen" class="first-screen">'
        f'<table class="first-table" style="width:{sum(map(width, cols))}px">'
        f'<caption class="sr-only">{caption}</caption><colgroup>{columns}</colgroup>'
        f"<thead><tr>{heads}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def summary(data: dict, bench: dict) -> str:
    """board.js render()'s summary line with every row kept."""
    n = len(bench["rows"])
    gold = f" · gold: {bench['gold_questions']:,} questions" if bench["gold_questions"] else ""
    note = ""
    if not bench["has_gold"]:
        note += f" No gold is loaded for {esc(bench['name'])} yet: only the papers' published rows are shown."
    if not n:
        note += f" {data['empty_board']}"
    return f"Showing {n} of {n} rows{gold}.{note}"


def first_screen(data: dict, now: datetime | None = None) -> dict[str, str]:
    """Every slot of the page's first screen (ui/static/board.html)."""
    bench = data["benchmarks"][0]
    return {
        **controls(data, bench),
        "first_bench": esc(bench["id"]),
        "first_table": first_table(data, bench, now) if bench["rows"] else "",
        "summary": summary(data, bench),
        "context": esc(bench["context"]),
    }
