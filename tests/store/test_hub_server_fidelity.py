"""The test Hub answers the real ``huggingface_hub`` client as the real Hub does, where it matters.

Each test drives the unmodified client (``HfApi``) against ``tests.support.hub_server`` and checks a
behaviour the real Hub has: LFS chosen by ``.gitattributes``, tree pages linked by ``Link``
headers, tokens and orgs, visibility, the hourly commit quota, 429 + Retry-After, held requests.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable

import httpx2
import pytest
from huggingface_hub import CommitOperationAdd, HfApi
from huggingface_hub.errors import HfHubHTTPError

from tests.support.hub_fixture import PAGE_SIZE
from tests.support.hub_server import DEFAULT_GITATTRIBUTES, ORG, QUOTA_MESSAGE, TOKEN, USER, HubServer, User, matches

pytestmark = pytest.mark.filterwarnings("ignore:Use .content=:DeprecationWarning")  # inside the LFS client
REPO = f"{ORG}/fidelity"


def api_for(hub: HubServer, token: str = TOKEN) -> HfApi:
    return HfApi(endpoint=hub.url, token=token)


def commit(api: HfApi, files: dict[str, bytes], message: str = "c", repo: str = REPO) -> None:
    ops = [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()]
    api.create_commit(repo, ops, commit_message=message, repo_type="dataset")


@pytest.fixture
def api(hub_server: HubServer) -> HfApi:
    api = api_for(hub_server)
    api.create_repo(REPO, repo_type="dataset", private=True)
    return api


# -- LFS as the repo's .gitattributes says -------------------------------------------------------
def test_new_dataset_repo_has_the_hubs_gitattributes(hub_server: HubServer, api: HfApi) -> None:
    files = hub_server.files(REPO)
    assert list(files) == [".gitattributes"]
    assert files[".gitattributes"].data == DEFAULT_GITATTRIBUTES
    assert b"*.parquet filter=lfs diff=lfs merge=lfs -text\n" in DEFAULT_GITATTRIBUTES


def test_lfs_is_chosen_by_gitattributes_not_size(hub_server: HubServer, api: HfApi) -> None:
    commit(api, {"data/scb.parquet": b"PAR1 tiny", "data/scb.csv": b"m,s\n" * 1000, "a.json": b"{}"})
    files = hub_server.files(REPO)
    assert files["data/scb.parquet"].lfs, "a 9-byte parquet is LFS: *.parquet is in .gitattributes"
    assert not files["data/scb.csv"].lfs and not files["a.json"].lfs
    assert api.hf_hub_download(REPO, "data/scb.parquet", repo_type="dataset") is not None
    info = {f.path: f for f in api.get_paths_info(REPO, ["data/scb.parquet", "a.json"], repo_type="dataset")}
    assert info["data/scb.parquet"].lfs is not None and info["a.json"].lfs is None


def test_binary_samples_and_edited_gitattributes_decide_too(hub_server: HubServer, api: HfApi) -> None:
    commit(api, {".gitattributes": b"*.json filter=lfs diff=lfs merge=lfs -text\n"}, "only json")
    commit(api, {"x.json": b"{}", "data/scb.parquet": b"PAR1", "blob.txt": b"\0\1\2"})
    files = hub_server.files(REPO)
    assert files["x.json"].lfs and not files["data/scb.parquet"].lfs
    assert files["blob.txt"].lfs, "binary bytes never go into git as a regular file"


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("*.parquet", "data/deep/x.parquet", True),
        ("*.tar.*", "a/b.tar.gz", True),
        ("*tfevents*", "logs/events.out.tfevents.1", True),
        ("saved_model/**/*", "saved_model/v1/vars/x", True),
        ("saved_model/**/*", "other/saved_model/x", False),
        ("*.json", "a.jsonl", False),
    ],
)
def test_gitattributes_patterns(pattern: str, path: str, hit: bool) -> None:
    assert matches(pattern, path) is hit


def test_regular_files_above_10_mib_are_refused(hub_server: HubServer, api: HfApi) -> None:
    """The Hub's preupload sends big files to LFS; a commit carrying one inline is refused."""
    big = b"x" * (10 * 1024 * 1024 + 1)
    commit(api, {"big.txt": big})
    assert hub_server.files(REPO)["big.txt"].lfs
    lines = [
        {"key": "header", "value": {"summary": "inline"}},
        {"key": "file", "value": {"path": "huge.txt", "content": base64.b64encode(big).decode(), "encoding": "base64"}},
    ]
    response = httpx2.post(
        f"{hub_server.url}/api/datasets/{REPO}/commit/main",
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/x-ndjson"},
        content=b"".join(json.dumps(line).encode() + b"\n" for line in lines),
    )
    assert response.status_code == 400 and "10 MiB" in response.json()["error"]
    assert "huge.txt" not in hub_server.files(REPO)


# -- tree pagination -----------------------------------------------------------------------------
def test_listing_follows_link_headers(hub_server: HubServer, api: HfApi) -> None:
    paths = [f"scb/{i:02d}/result.json" for i in range(3 * PAGE_SIZE + 2)]
    commit(api, {p: p.encode() for p in paths})
    before = len(hub_server.log)
    assert sorted(api.list_repo_files(REPO, repo_type="dataset")) == sorted([".gitattributes", *paths])
    pages = [line for line in hub_server.log[before:] if "/tree/" in line]
    assert len(pages) > 3, "the listing came in several pages"
    first = httpx2.get(
        f"{hub_server.url}/api/datasets/{REPO}/tree/main",
        params={"recursive": "true"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert len(first.json()) == PAGE_SIZE and first.links["next"]["url"].startswith(hub_server.url)


# -- tokens, orgs, visibility --------------------------------------------------------------------
def test_whoami_names_the_user_and_their_orgs(hub_factory: Callable[..., HubServer]) -> None:
    hub = hub_factory(users={"hf_a": User("alice", ("lab", "leaderboard")), "hf_b": User("bob")})
    me = api_for(hub, "hf_a").whoami()
    assert me["name"] == "alice" and [o["name"] for o in me["orgs"]] == ["lab", "leaderboard"]
    assert api_for(hub, "hf_b").whoami()["orgs"] == []
    with pytest.raises(HfHubHTTPError) as err:
        api_for(hub, "hf_unknown").whoami()
    assert err.value.response.status_code == 401


def test_unknown_tokens_are_refused_even_for_public_repos(hub_server: HubServer) -> None:
    api_for(hub_server).create_repo(f"{ORG}/public", repo_type="dataset")
    with pytest.raises(HfHubHTTPError) as err:
        api_for(hub_server, "hf_wrong").repo_info(f"{ORG}/public", repo_type="dataset")
    assert err.value.response.status_code == 401
    assert HfApi(endpoint=hub_server.url, token=False).repo_info(f"{ORG}/public", repo_type="dataset").private is False


def test_visibility_is_reported_and_defaults_to_public(hub_server: HubServer) -> None:
    api = api_for(hub_server)
    api.create_repo(f"{ORG}/open", repo_type="dataset")
    api.create_repo(f"{ORG}/closed", repo_type="dataset", private=True)
    assert api.repo_info(f"{ORG}/open", repo_type="dataset").private is False
    assert api.repo_info(f"{ORG}/closed", repo_type="dataset").private is True
    api.update_repo_settings(f"{ORG}/open", private=True, repo_type="dataset")
    assert api.repo_info(f"{ORG}/open", repo_type="dataset").private is True
    anonymous = HfApi(endpoint=hub_server.url, token=False)
    with pytest.raises(HfHubHTTPError):  # private repos do not exist for others
        anonymous.repo_info(f"{ORG}/closed", repo_type="dataset")


def test_writes_need_the_namespace(hub_factory: Callable[..., HubServer]) -> None:
    hub = hub_factory(users={TOKEN: User(USER, (ORG,)), "hf_outsider": User("mallory")})
    api_for(hub).create_repo(f"{ORG}/board", repo_type="dataset")
    outsider = api_for(hub, "hf_outsider")
    with pytest.raises(HfHubHTTPError) as err:
        outsider.create_repo(f"{ORG}/mine", repo_type="dataset")
    assert err.value.response.status_code == 403
    with pytest.raises(HfHubHTTPError) as err:
        commit(outsider, {"x.json": b"{}"}, repo=f"{ORG}/board")
    assert err.value.response.status_code == 403
    outsider.create_repo("mallory/own", repo_type="dataset")  # their own namespace is fine


# -- rate limits ---------------------------------------------------------------------------------
def test_hourly_commit_quota(hub_factory: Callable[..., HubServer]) -> None:
    hub = hub_factory(commit_quota=2)
    api = api_for(hub)
    api.create_repo(REPO, repo_type="dataset", private=True)
    commit(api, {"1.json": b"1"})
    commit(api, {"2.json": b"2"})
    with pytest.raises(HfHubHTTPError) as err:
        commit(api, {"3.json": b"3"})
    assert err.value.response.status_code == 429
    assert QUOTA_MESSAGE in str(err.value)
    assert 3590 <= int(err.value.response.headers["Retry-After"]) <= 3600
    assert "3.json" not in hub.files(REPO)


def test_quota_window_frees_up(hub_factory: Callable[..., HubServer]) -> None:
    """On a clock the test moves: a real 1 s window was raced by a slow second commit on a loaded host."""
    now = [0.0]
    hub = hub_factory(commit_quota=1, quota_window=60.0, clock=lambda: now[0])
    api = api_for(hub)
    api.create_repo(REPO, repo_type="dataset", private=True)
    commit(api, {"1.json": b"1"})
    now[0] = 59.0
    with pytest.raises(HfHubHTTPError) as err:
        commit(api, {"2.json": b"2"})
    assert err.value.response.headers["Retry-After"] == "1"
    now[0] = 60.5
    commit(api, {"2.json": b"2"})
    assert "2.json" in hub.files(REPO)


def test_client_sleeps_out_retry_after_on_preupload(hub_server: HubServer, api: HfApi) -> None:
    """Why HubStore must not let huggingface_hub retry: it waits Retry-After + 1 s, 5 times."""
    hub_server.inject(r"/preupload/", "ratelimit", retry_after=1)
    started = time.monotonic()
    commit(api, {"a.json": b"{}"})
    assert time.monotonic() - started >= 2.0
    assert sum("/preupload/" in line for line in hub_server.log) == 2


# -- slow and held requests ----------------------------------------------------------------------
def test_slow_answers_arrive_late(hub_server: HubServer, api: HfApi) -> None:
    hub_server.inject(r"GET /api/datasets/.*/revision/", "slow", delay=0.5)
    started = time.monotonic()
    assert api.repo_info(REPO, repo_type="dataset", revision="main").sha
    assert time.monotonic() - started >= 0.5


def test_held_requests_wait_for_release(hub_server: HubServer, api: HfApi) -> None:
    hub_server.inject(r"/whoami-v2", "slow", delay=None)
    answers: list[str] = []
    caller = threading.Thread(target=lambda: answers.append(api.whoami()["name"]))
    caller.start()
    caller.join(1.0)
    assert caller.is_alive() and not answers
    hub_server.release()
    caller.join(5.0)
    assert answers == [USER]


def test_hang_until_released_times_out_the_caller(hub_server: HubServer, api: HfApi) -> None:
    hub_server.inject(r"/whoami-v2", "hang", delay=None)
    with pytest.raises(httpx2.ReadTimeout):
        httpx2.get(f"{hub_server.url}/api/whoami-v2", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=0.3)
    hub_server.release()
