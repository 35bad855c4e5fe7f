"""ui.admin: the Maintainers tab opens with the token or a maintainer account, and every
action checks again; hiding takes a row off the board."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest
from starlette.datastructures import Headers

from leaderboard.config import UiSettings
from submissions.records import Identity
from tests.support.submissions import write_broken, write_submission
from tests.ui.fakes import Profile, Request
from tests.ui.test_auth import Clock
from tests.ui.test_submit import submit
from ui.admin import CONFIRM_RESCORE_JS, CONFIRMED, Maintainers, rescore_markdown, rescore_plan
from ui.auth import Auth
from ui.submit import Submitter
from ui.throttle import Backoff, Proxies, client_of

LOCAL = UiSettings(admin_token="open-sesame")


def test_unlock_with_the_token_or_a_maintainer_account(lb):
    panel, message, gold, picker, rejected, held, plan = Maintainers(lb, Auth(LOCAL)).unlock("open-sesame", None)
    assert panel.visible and message.startswith("Unlocked")
    assert "| scb | `" in gold and "| kviscuit | none |" in gold and list(rejected.columns)[0] == "id"
    assert list(held.columns) == ["id", "benchmark", "model", "team", "submitter", "held at", "by", "why"]
    panel, message, *rest = Maintainers(lb, Auth(LOCAL)).unlock("guess", None)
    assert not panel.visible and message == "Wrong token (or not a maintainer)."
    assert all(isinstance(r, type(gr.skip())) for r in rest)
    on_space = Auth(UiSettings(oauth=True, maintainers=("boss",)))
    assert Maintainers(lb, on_space).unlock("", Profile("boss"))[0].visible
    assert not Maintainers(lb, on_space).unlock("", Profile("eve"))[0].visible


def test_every_action_checks_the_token_it_is_sent(lb):
    maintainers = Maintainers(lb, Auth(LOCAL))
    assert maintainers.unlock("open-sesame", None)[0].visible  # an unlock is remembered nowhere
    assert maintainers.hide("", "", "open-sesame", None)[0] == "Choose a submission first."
    for token in ("", "guess"):
        with pytest.raises(gr.Error):
            maintainers.rescore(token, None, None, lambda *a, **k: None)
        with pytest.raises(gr.Error):
            maintainers.hide("any", "why", token, None)
        assert all(isinstance(r, type(gr.skip())) for r in maintainers.view(token, None))


def test_wrong_tokens_back_off_and_are_logged_without_the_token(lb, caplog):
    clock = Clock()
    maintainers = Maintainers(lb, Auth(LOCAL), Backoff(free=3, base=1.0, clock=clock))
    alice, bob = Request(client="10.0.0.1"), Request(client="10.0.0.2")
    answers = [maintainers.unlock(f"guess-{i}", None, alice)[1] for i in range(4)]
    assert answers[:3] == ["Wrong token (or not a maintainer)."] * 3
    assert answers[3] == "Too many wrong admin tokens: try again in 1 s."
    assert maintainers.unlock("open-sesame", None, alice)[1].startswith("Too many")  # not even checked
    assert maintainers.unlock("open-sesame", None, bob)[0].visible  # another client is not slowed
    clock.now = 1.0
    assert maintainers.unlock("guess-4", None, alice)[1] == "Wrong token (or not a maintainer)."
    assert maintainers.unlock("open-sesame", None, alice)[1] == "Too many wrong admin tokens: try again in 2 s."
    clock.now = 3.0
    assert maintainers.unlock("open-sesame", None, alice)[0].visible
    assert "wrong admin token from 10.0.0.1 (4 in a row)" in caplog.text and "guess-" not in caplog.text


def test_wrong_tokens_from_rotating_addresses_lock_no_one_else_out(lb):
    """attacks.md #9: 34 wrong tokens from 34 addresses in a row, then the right token from a new
    address got "Too many wrong admin tokens" (a global budget); the backoff is per client only."""
    clock = Clock()
    proxied = UiSettings(admin_token="open-sesame", on_space=True, trusted_proxies=("127.0.0.1/32",))  # the proxy
    maintainers = Maintainers(lb, Auth(proxied), Backoff(clock=clock))
    for i in range(34):
        forwarded = Request(headers={"x-forwarded-for": f"10.0.{i}.1"})  # the named proxy appends the caller
        assert maintainers.unlock(f"guess-{i}", None, forwarded)[1] == "Wrong token (or not a maintainer)."
    assert maintainers.unlock("open-sesame", None, Request(headers={"x-forwarded-for": "192.168.7.7"}))[0].visible
    one = Request(headers={"x-forwarded-for": "10.0.99.1"})
    answers = [maintainers.unlock(f"again-{i}", None, one)[1] for i in range(4)]
    assert answers[3].startswith("Too many wrong admin tokens")  # one client is still slowed
    assert maintainers.unlock("open-sesame", None, one)[1].startswith("Too many")


def test_off_a_space_the_forwarded_header_is_the_callers_own_and_is_ignored(lb):
    """Without a proxy in front, X-Forwarded-For is whatever the caller writes: rotating it from
    one socket address is one client."""
    maintainers = Maintainers(lb, Auth(LOCAL), Backoff(clock=Clock()))
    rotating = [Request(headers={"x-forwarded-for": f"10.0.{i}.1"}, client="10.1.1.1") for i in range(4)]
    answers = [maintainers.unlock(f"guess-{i}", None, request)[1] for i, request in enumerate(rotating)]
    assert answers[3].startswith("Too many wrong admin tokens")
    assert maintainers.unlock("open-sesame", None, Request(client="10.2.2.2"))[0].visible


def test_hide_and_unhide_a_submission(lb, tmp_path):
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    answer = submit(Submitter(lb, Auth(LOCAL)), path, visibility="public")
    sid = answer["submission_id"]
    maintainers = Maintainers(lb, Auth(LOCAL))
    message, picker, _held = maintainers.hide(sid, "duplicate of another row", "open-sesame", None)
    assert message == f"Hidden: `{sid}`. The team is shown your reason: duplicate of another row"
    assert lb.submissions.rank_of("scb", sid) is None
    assert any(label.endswith("HIDDEN") for label, value in picker.choices if value == sid)
    reason = lb.visibility.entry(Identity(lb.catalog.get(sid).meta.submitter), sid).reason
    assert reason.code == "hidden_by_maintainer" and "duplicate of another row" in reason.message
    assert maintainers.unhide(sid, "", "open-sesame", None)[0] == f"Unhidden: `{sid}`." and lb.submissions.rank_of(
        "scb", sid
    )
    assert maintainers.hide("", "", "open-sesame", None)[0] == "Choose a submission first."
    unknown = maintainers.hide("no-such-id", "", "open-sesame", None)[0]
    assert unknown == r"Unknown submission `no\-such\-id`."  # escaped, though a code span shows the backslashes


def test_rejected_uploads_and_the_rescore_report(lb, tmp_path):
    submit(Submitter(lb, Auth(LOCAL)), write_broken(tmp_path / "b.jsonl"))
    rejected = Maintainers(lb, Auth(LOCAL)).view("open-sesame", None)[2]
    assert list(rejected["errors"]) == [3] and rejected["first errors"].iloc[0].startswith("line 2: ")
    report = Maintainers(lb, Auth(LOCAL)).rescore("open-sesame", None, None, lambda *a, **k: None)
    assert report.startswith("### Rescore report") and "\nscb: " in report
    assert rescore_markdown({}) == "### Rescore report\n\nnothing to rescore: no benchmark has a gold yet"
    from leaderboard.service import RankChange

    moved = rescore_markdown({"scb": {"counts": {"scored": 1}, "rank_changes": [
        RankChange("(paper)", "GPT-4.1", 2, 3), RankChange("Lab", "M", None, 1)]}})  # fmt: skip
    assert r"  - \(paper\) / GPT\-4\.1: rank 2 -> 3" in moved and "(\\(paper" not in moved
    assert "  - Lab / M: rank - -> 1" in moved


def test_the_tab_and_the_cli_word_the_rescore_report_alike(capsys):
    """One wording for both (review turn 3, #22/#23): the CLI printed a raw dict, then its own
    words, the tab others ("2 → gone" beside "rank 2 -> -")."""
    from leaderboard.cli import _print_rescore
    from leaderboard.service import RankChange

    for report in (
        {},
        {"scb": {"counts": {}, "rank_changes": []}},
        {"scb": {"counts": {"scored": 2, "rejected": 1}, "switched_to": "abc123",
                 "rank_changes": [RankChange("(paper)", "GPT-4.1", 2, 3), RankChange("Lab", "M", None, 1)]},
         "kviscuit": {"counts": {"scored": 1}, "still_staged": "def456", "rank_changes": []}},
    ):  # fmt: skip
        _print_rescore(report)
        printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
        shown = rescore_markdown(report).replace("\\", "").replace("`", "")
        assert printed and all(line in shown for line in printed), (printed, shown)


def test_rescore_all_runs_only_on_the_exact_confirmation(lb):
    """The browser's confirm reaches the server through a Textbox: a cancel arrives as "False" or "",
    both truthy or not, and neither may start a rescore."""
    maintainers = Maintainers(lb, Auth(LOCAL))
    quiet = lambda *a, **k: None  # noqa: E731
    plan = rescore_plan(lb)
    for cancelled in ("False", "", "false", None):
        cancel = maintainers.rescore_if_confirmed("open-sesame", cancelled, plan, None, None, quiet)
        assert cancel == "Rescore cancelled."
    assert "Rescore report" in maintainers.rescore_if_confirmed("open-sesame", CONFIRMED, plan, None, None, quiet)
    assert f'? "{CONFIRMED}" : ""' in CONFIRM_RESCORE_JS  # what the browser sends on OK / Cancel


def test_the_rescore_confirmation_names_the_gold_it_will_use(lb, tmp_path):
    """It said "on the current gold" while a staged gold was about to be switched in (review turn 3, #23)."""
    from tests.support.submissions import small_gold, write_gold

    current = lb.gold_info("scb").version
    plan = rescore_plan(lb)
    assert f"scb: on its current gold {current[:12]}" in plan and "kviscuit" not in plan  # no gold: not rescored
    maintainers = Maintainers(lb, Auth(LOCAL))
    assert maintainers.view("open-sesame", None)[-1] == plan  # the confirmation's text comes with the tab's view
    gold = [dict(r) for r in small_gold()]
    for r in gold[:3]:
        r["answer"] = "ABCD"[("ABCD".index(r["answer"]) + 1) % 4]
    staged = lb.corrections.add_gold("scb", write_gold(tmp_path / "v2.jsonl", gold), "m").version
    assert lb.corrections.staged_gold("scb").version == staged != current
    now = rescore_plan(lb)
    assert f"scb: on the staged gold {staged[:12]}, then the board switches to it from {current[:12]}" in now
    quiet = lambda *a, **k: None  # noqa: E731
    stale = maintainers.rescore_if_confirmed("open-sesame", CONFIRMED, plan, None, None, quiet)
    assert stale.startswith("Nothing was rescored: the gold changed") and staged[:12] in stale
    assert lb.corrections.staged_gold("scb").version == staged  # not switched on a confirmation of another plan
    assert "now shows gold" in maintainers.rescore_if_confirmed("open-sesame", CONFIRMED, now, None, None, quiet)


def test_the_held_queue_shows_holds_and_releases_them(lb, tmp_path):
    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    sid = submit(Submitter(lb, Auth(LOCAL)), path, visibility="private")["submission_id"]
    lb.moderation.hold([sid], "automatic", "its probe series is flagged (signals: near_copy)")
    maintainers = Maintainers(lb, Auth(LOCAL))
    _gold, picker, _rejected, held, _plan = maintainers.view("open-sesame", None)
    assert list(held["id"]) == [sid] and held["why"].iloc[0] == "its probe series is flagged (signals: near_copy)"
    assert any(label.endswith("HELD for review") for label, value in picker.choices if value == sid)
    message, _picker, held = maintainers.unhide(sid, "", "open-sesame", None)
    assert message == f"Released: `{sid}`." and held.empty


def test_the_proxy_address_is_the_last_of_every_forwarded_copy():
    """A caller's own X-Forwarded-For line may come before the one the proxy adds: the first
    copy alone (what ``headers.get`` returns) would let the caller pick its address."""
    headers = Headers(raw=[(b"x-forwarded-for", b"10.9.9.9"), (b"x-forwarded-for", b"203.0.113.7")])
    request = SimpleNamespace(headers=headers, client=SimpleNamespace(host="10.0.0.1"))
    assert client_of(request, Proxies(("10.0.0.0/8",))) == "203.0.113.7"
    assert client_of(request) == "10.0.0.1"


def test_the_hide_picker_lists_one_benchmark_and_hide_asks_first(lb, tmp_path):
    """as-users 3d: one flat list of every benchmark's submissions and a Hide that acted at once
    had a maintainer hide a K-Viscuit row instead of the SCB one."""
    from ui.admin import CONFIRM_HIDE_JS, HIDE_CANCELLED, submission_choices

    path = write_submission(tmp_path / "s.jsonl", accuracy=0.8)
    sid = submit(Submitter(lb, Auth(LOCAL)), path, visibility="public")["submission_id"]
    maintainers = Maintainers(lb, Auth(LOCAL))
    view = maintainers.view("open-sesame", None)
    assert view[1].choices and all(" · scb · " in label for label, _ in view[1].choices)  # the first benchmark
    again = maintainers.view("open-sesame", None, None, "kviscuit")[1].choices  # Refresh keeps the chosen one
    assert maintainers.pick_benchmark("kviscuit", "open-sesame", None).choices == submission_choices(lb, "kviscuit")
    assert again == submission_choices(lb, "kviscuit") and sid not in [value for _, value in again]
    assert all(" · kviscuit · " in label for label, _ in submission_choices(lb, "kviscuit"))
    picked = maintainers.describe(sid, "open-sesame", None)
    assert picked.startswith(f"Picked: `{sid}` · scb · ")
    cancelled = maintainers.hide(sid, HIDE_CANCELLED, "open-sesame", None)[0]
    assert cancelled == f"Nothing was hidden (cancelled). {picked}" and lb.submissions.rank_of("scb", sid) is not None
    assert "window.confirm" in CONFIRM_HIDE_JS and "#hide-msg" in CONFIRM_HIDE_JS  # quotes what is picked
    assert maintainers.hide(sid, "checked", "open-sesame", None)[0].startswith("Hidden")


def test_the_tab_previews_a_staged_gold_and_its_confirmation_sums_it_up(lb, tmp_path):
    from tests.support.submissions import small_gold, write_gold
    from ui.admin import gold_markdown

    submit(Submitter(lb, Auth(LOCAL)), write_submission(tmp_path / "s.jsonl", accuracy=0.8), visibility="public")
    lb.corrections.add_gold("scb", write_gold(tmp_path / "v2.jsonl", small_gold()[2:]), "m", confirm=True)
    assert "is being computed" in gold_markdown(lb)  # staged confirmed, with no preview: computed off the render
    lb.corrections.preview_jobs.wait(timeout=120)
    shown = gold_markdown(lb)
    assert "### What the switch would do" in shown and "(0 added, 2 removed)" in shown
    assert "rows on the board (paper rows included): " in shown and "per row (rank and figures" in shown
    plan = rescore_plan(lb)
    assert "the switch: 2 questions removed, 0 added, 0 answers changed; rows: " in plan and " 0 leave" in plan
