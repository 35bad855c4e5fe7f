"""HubStore under the real Hub's limits: 429 + Retry-After, the hourly commit quota, hangs,
paginated listings, LFS by .gitattributes, visibility, and the upload path (no Xet).

Every call that could block runs in a helper thread joined with a bound, so a regression fails
the test instead of hanging the suite.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from huggingface_hub import constants
from huggingface_hub.utils._runtime import is_xet_available

from store.base import RepoNotPrivate, Unavailable
from store.hub import HubStore, RetryPolicy
from tests.support.hub_fixture import PAGE_SIZE
from tests.support.hub_server import QUOTA_MESSAGE, TOKEN, HubServer

pytestmark = pytest.mark.filterwarnings("ignore:Use .content=:DeprecationWarning")  # inside the LFS client
Ids = dict[str, str]
MakeStore = Callable[..., HubStore]
TIMEOUT, DEADLINE = 0.5, 2.0  # per request, per put
SLACK = 2.0  # scheduling noise on a loaded 2-core machine


@pytest.fixture
def make_store(hub_server: HubServer, hub_repo_ids: Ids, tmp_path: Path) -> MakeStore:
    def make(name: str = "main", hub: HubServer = hub_server, **policy: Any) -> HubStore:
        retry = RetryPolicy.fast(timeout=policy.pop("timeout", TIMEOUT), deadline=policy.pop("deadline", DEADLINE))
        return HubStore(tmp_path / name, hub_repo_ids, TOKEN, endpoint=hub.url, retry=retry)

    return make


@pytest.fixture
def released(hub_server: HubServer) -> Iterator[HubServer]:
    """The Hub, with every held request let go at the end of the test."""
    yield hub_server
    hub_server.release()


def timed(fn: Callable[[], Any], bound: float) -> float:
    """Run ``fn`` in a thread; fail unless it ends within ``bound`` seconds; return its time."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as err:  # noqa: BLE001 - re-raised below
            errors.append(err)

    started = time.monotonic()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(bound)
    elapsed = time.monotonic() - started
    assert not worker.is_alive(), f"still blocked after {bound:.1f} s"
    if errors:
        raise errors[0]
    return elapsed


def commit_posts(hub: HubServer) -> int:
    return sum(line.startswith("POST ") and "/commit/" in line for line in hub.log)


def put_and_push(store: HubStore, repo: str, files: dict[str, bytes], message: str, **kw: Any) -> int:
    """A derived (outbox) write, then the background job's push; returns what still waits."""
    store.put(repo, files, message, **kw)
    return store.push_pending()


# -- 429 and Retry-After ------------------------------------------------------------------------
def test_short_retry_after_is_waited_out(hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids) -> None:
    store = make_store(deadline=5.0)
    store.put("gold", {"warm.json": b"1"}, "warm up", durable=True)
    hub_server.inject(r"POST /api/datasets/.*/commit/", "ratelimit", retry_after=1)
    before = commit_posts(hub_server)
    elapsed = timed(lambda: store.put("gold", {"a.json": b"a"}, "after 429", durable=True), 5.0 + SLACK)
    assert elapsed >= 1.0, "Retry-After was not honoured"
    assert store.pending() == 0 and commit_posts(hub_server) - before == 2
    assert hub_server.files(hub_repo_ids["gold"])["a.json"].data == b"a"


@pytest.mark.parametrize(
    "route", [r"/preupload/", r"/paths-info/", r"GET /api/datasets/[^/]+/[^/]+$"]
)  # repo_info: the head
def test_long_retry_after_anywhere_does_not_block(hub_server: HubServer, make_store: MakeStore, route: str) -> None:
    """huggingface_hub alone would sleep an hour here (five times on preupload)."""
    store = make_store()
    store.put("gold", {"warm.json": b"1"}, "warm up", durable=True)
    hub_server.inject(route, "ratelimit", times=100, retry_after=3600)
    timed(lambda: put_and_push(store, "gold", {"a.json": b"a"}, "limited"), DEADLINE + SLACK)
    assert store.read("gold", "a.json") == b"a" and store.pending() == 1
    with pytest.raises(Unavailable):  # a durable write says "try again" in time and keeps nothing
        timed(lambda: store.put("gold", {"b.json": b"b"}, "limited", durable=True), DEADLINE + SLACK)
    assert not store.exists("gold", "b.json")


def test_commit_quota_leaves_writes_pending_and_stops_spending(
    hub_factory: Callable[..., HubServer], make_store: MakeStore, hub_repo_ids: Ids
) -> None:
    hub = hub_factory(commit_quota=2)
    store = make_store(hub=hub)
    put_and_push(store, "gold", {"1.json": b"1"}, "one")
    put_and_push(store, "gold", {"2.json": b"2"}, "two")
    timed(lambda: put_and_push(store, "gold", {"3.json": b"3"}, "three"), DEADLINE + SLACK)
    assert store.pending() == 1 and QUOTA_MESSAGE in (store.last_error or "")
    assert "1 commit(s) pending, last error" in store.describe() and "hourly quotas" in store.describe()
    refused = commit_posts(hub)
    timed(lambda: put_and_push(store, "gold", {"4.json": b"4"}, "four"), DEADLINE + SLACK)
    assert store.push_pending() == 2 and store.pending() == 2
    with pytest.raises(Unavailable):  # no durable write is tried while the Hub said to wait
        store.put("gold", {"5.json": b"5"}, "five", durable=True)
    assert commit_posts(hub) == refused, "commits were sent during the Retry-After"
    assert store.read("gold", "4.json") == b"4"
    hub.commit_times.clear()  # an hour later; a restarted app pushes what waited, in one commit
    restarted = make_store(hub=hub)
    assert restarted.push_pending() == 0
    commits = hub.commits(hub_repo_ids["gold"])
    assert [c.message for c in commits[-3:]] == ["one", "two", "three (+1 more)"]
    assert {"3.json", "4.json"} <= set(commits[-1].files) and "5.json" not in commits[-1].files


# -- hangs ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "route", [r"/preupload/", r"POST /api/datasets/.*/commit/", r"PUT /lfs-upload/", r"/paths-info/"]
)
def test_a_hang_ends_within_the_deadline_and_nothing_half_lands(
    released: HubServer, make_store: MakeStore, hub_repo_ids: Ids, route: str
) -> None:
    store = make_store()
    store.put("results", {"README.md": b"# card"}, "warm up", durable=True)
    released.inject(route, "hang", times=1000, delay=None)
    tables = {"data/scb.parquet": b"PAR1 scb", "data/kviscuit.parquet": b"PAR1 kv", "data/scb.csv": b"m\n"}
    timed(lambda: put_and_push(store, "results", tables, "publish"), DEADLINE + TIMEOUT + SLACK)
    assert store.pending() == 1 and "within" in (store.last_error or "")
    assert not set(tables) & set(released.files(hub_repo_ids["results"])), "part of the commit reached the Hub"
    assert all(store.read("results", p) == d for p, d in tables.items())
    released.release()
    released.faults.clear()
    assert store.push_pending() == 0
    hub_files = released.files(hub_repo_ids["results"])
    assert {p: hub_files[p].data for p in tables} == tables
    assert [c.message for c in released.commits(hub_repo_ids["results"])].count("publish") == 1


def test_a_hang_during_sync_keeps_the_cache(released: HubServer, make_store: MakeStore, hub_repo_ids: Ids) -> None:
    writer, reader = make_store("writer"), make_store("reader")
    writer.put("submissions", {"s/1.json": b"one"}, "one", durable=True)
    reader.sync()
    writer.put("submissions", {"s/2.json": b"two"}, "two", durable=True)
    released.inject(r"/resolve/", "hang", times=1000, delay=None)
    timed(reader.sync, 3 * (DEADLINE + TIMEOUT) + SLACK)
    assert reader.list("submissions") == ["s/1.json"]
    assert "within" in (reader.last_error or "")
    released.release()
    released.faults.clear()
    reader.sync()
    assert reader.read("submissions", "s/2.json") == b"two"


# -- listings span pages -------------------------------------------------------------------------
def test_sync_reads_every_page(hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids) -> None:
    files = {f"scb/{i:03d}/result.json": f"{i}".encode() for i in range(4 * PAGE_SIZE + 3)}
    make_store("writer").put("submissions", files, "many", durable=True)
    hub_server.commit_files(hub_repo_ids["submissions"], {"kviscuit/x/result.json": b"x"})
    fresh = make_store("fresh")
    before = len(hub_server.log)
    fresh.sync()
    assert fresh.list("submissions") == sorted([*files, "kviscuit/x/result.json"])
    assert sum("/tree/" in line for line in hub_server.log[before:]) > 4


# -- LFS by .gitattributes -----------------------------------------------------------------------
def test_parquet_goes_lfs_and_round_trips(hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids) -> None:
    table = b"PAR1" + bytes(range(256)) * 4 + b"PAR1"
    make_store("writer").put("results", {"data/scb.parquet": table, "data/scb.csv": b"m,s\n"}, "publish", durable=True)
    on_hub = hub_server.files(hub_repo_ids["results"])
    assert on_hub["data/scb.parquet"].lfs and not on_hub["data/scb.csv"].lfs
    assert any("/lfs-upload/" in line for line in hub_server.log)
    fresh = make_store("fresh")
    fresh.sync()
    assert fresh.read("results", "data/scb.parquet") == table
    assert fresh.list("results") == ["data/scb.csv", "data/scb.parquet"]  # .gitattributes is not a record


def test_uploads_take_the_lfs_path_not_xet(hub_server: HubServer, make_store: MakeStore, monkeypatch) -> None:
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", False)  # as in a Space, where nothing sets it
    monkeypatch.setattr("store.hub._installed", False)
    make_store()
    assert constants.HF_HUB_DISABLE_XET is True and not is_xet_available()


# -- visibility ----------------------------------------------------------------------------------
def test_secrets_are_never_pushed_to_a_public_repo(
    hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids
) -> None:
    gold = hub_repo_ids["gold"]
    hub_server.commit_files(gold, {"README.md": b"# made by hand"})  # created without a visibility: public
    assert not hub_server.repo(gold).private
    store = make_store()
    with pytest.raises(RepoNotPrivate):  # an input (gold, an upload) is refused at once
        store.put("gold", {"scb/v0.jsonl": b'{"answer": 0}\n'}, "gold v0", durable=True)
    assert not store.exists("gold", "scb/v0.jsonl")
    store.put("gold", {"scb/v1.jsonl": b'{"answer": 1}\n'}, "gold v1")
    store.put("results", {"README.md": b"# card"}, "card")
    assert store.push_pending() == 1  # the public results go; the gold waits
    assert "scb/v1.jsonl" not in hub_server.files(gold) and "README.md" in hub_server.files(hub_repo_ids["results"])
    assert store.pending() == 1 and "public" in (store.last_error or "")
    assert any("PUBLIC" in p for p in store.check())
    hub_server.set_private(gold, True)
    assert store.push_pending() == 0
    assert hub_server.files(gold)["scb/v1.jsonl"].data == b'{"answer": 1}\n'


# -- dead letters --------------------------------------------------------------------------------
def test_a_write_refused_for_good_is_parked_and_the_others_go_on(
    hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids
) -> None:
    store = make_store()
    store.put("submissions", {"a.json": b"a"}, "first")
    store.put("submissions", {"b.json": b"b"}, "second")
    hub_server.inject(r"POST /api/datasets/.*/commit/", "error", status=400, times=2)  # the batch, then "first"
    assert store.push_pending() == 0
    files = hub_server.files(hub_repo_ids["submissions"])
    assert "b.json" in files and "a.json" not in files
    (parked,) = store.health().parked
    assert "a.json" in parked and "first" in parked and "400" in parked
    assert store.push_pending() == 0  # parked writes are not retried


def test_derived_writes_wait_and_go_in_one_commit(
    hub_server: HubServer, make_store: MakeStore, hub_repo_ids: Ids
) -> None:
    store = make_store()
    store.put("results", {"README.md": b"# card"}, "warm up", durable=True)
    before = len(hub_server.commits(hub_repo_ids["results"]))
    for i in range(30):
        store.put("results", {f"data/{i}.csv": b"x%d" % i}, f"table {i}")
    store.put("results", {"data/0.csv": b"latest"}, "table 0 again", overwrite=True)
    assert len(hub_server.commits(hub_repo_ids["results"])) == before and store.pending() == 31
    assert store.push_pending() == 0
    (commit,) = hub_server.commits(hub_repo_ids["results"])[before:]
    assert commit.message == "table 0 (+30 more)" and commit.files["data/0.csv"].data == b"latest"
