"""What the site reads from a model's Hub repo at submission time, against the test Hub's
model_info (huggingface_hub 2.4's real client): with and without the safetensors index, gated,
missing, private, rate-limited and down."""

from __future__ import annotations

import json

import pytest

from submissions.model_hub import EXPAND, MAX_INDEX_BYTES, MAX_SHARDS, HubModels, ModelFacts
from tests.support.hub_models import (
    GATED_PARAMS,
    LLAMA,
    PRIVATE,
    QWEN,
    QWEN_PARAMS,
    UNINDEXED,
    UNINDEXED_PARAMS,
    publish_models,
    safetensors_header,
)


@pytest.fixture
def hub(hub_server):
    shas = publish_models(hub_server)
    return hub_server, shas, HubModels(hub_server.url, timeout=3)


def test_an_indexed_repo_gives_size_licence_architecture_and_pins_its_commit(hub):
    server, shas, models = hub
    found = models(QWEN)
    assert found.refusal is None and found.warning is None
    assert found.facts == ModelFacts(shas[QWEN], QWEN_PARAMS, "apache-2.0", "Qwen2_5_VLForConditionalGeneration", "")
    asked = [line for line in server.log if line.startswith("GET /api/models/")]
    assert asked == [f"GET /api/models/{QWEN}"]  # one call: safetensors.total came with it
    assert found.facts.info() == {"model_sha": shas[QWEN], "model_params": str(QWEN_PARAMS),
                                  "model_license": "apache-2.0",
                                  "model_architecture": "Qwen2_5_VLForConditionalGeneration"}  # fmt: skip


def test_the_expand_names_are_the_clients_own():
    from typing import get_args

    from huggingface_hub.hf_api import ExpandModelProperty_T

    assert set(EXPAND) <= set(get_args(ExpandModelProperty_T))


def test_without_the_index_the_safetensors_headers_give_the_count_at_the_pinned_commit(hub):
    server, shas, models = hub
    found = models(UNINDEXED)
    assert found.facts is not None and found.facts.params == UNINDEXED_PARAMS
    assert found.facts.sha == shas[UNINDEXED] and found.facts.license == "mit"
    assert any(line == f"GET /{UNINDEXED}/resolve/{shas[UNINDEXED]}/model.safetensors" for line in server.log)


def test_a_gated_repo_is_described_and_its_other_licence_named(hub):
    _, shas, models = hub
    found = models(LLAMA)
    assert found.facts == ModelFacts(shas[LLAMA], GATED_PARAMS, "llama3.2", "MllamaForConditionalGeneration", "manual")


def test_a_gated_repo_without_the_index_has_no_size_but_is_not_refused(hub):
    server, _, models = hub
    server.repo(LLAMA, "model").card.pop("safetensors")
    found = models(LLAMA)
    assert found.refusal is None and found.facts is not None
    assert found.facts.params is None and found.facts.gated == "manual" and found.facts.license == "llama3.2"


@pytest.mark.parametrize("repo", ["nobody/no-such-model", PRIVATE])
def test_a_missing_or_private_repo_is_a_clear_field_issue(hub, repo):
    _, _, models = hub
    found = models(repo)
    assert found.facts is None and found.refusal is not None
    assert found.refusal.code == "model_repo_not_found" and found.refusal.field == "model_repo"
    assert repo in found.refusal.message and "API" in found.refusal.message


def test_rate_limited_the_submission_goes_on_with_a_warning(hub):
    server, _, models = hub
    server.inject(r"GET /api/models/", "ratelimit", times=10, retry_after=1)
    found = models(QWEN)
    assert found.facts is None and found.refusal is None
    assert found.warning is not None and found.warning.code == "model_info_missing"
    assert "rate-limited" in found.warning.message


def test_a_hub_that_is_down_is_a_warning_not_a_failure(hub):
    server, _, models = hub
    server.stop()
    found = models(QWEN)
    assert found.facts is None and found.refusal is None and "unreachable" in found.warning.message


# ---- bounded facts (attacks.md turn 4 #4): a repo decides what it lists, not what the site fetches


def shard_files(n: int, per_shard: list[int]) -> dict[str, bytes]:
    """``n`` small valid shards (each one tensor of shape ``per_shard``) and their index."""
    names = [f"model-{i:05d}-of-{n:05d}.safetensors" for i in range(n)]
    files = {name: safetensors_header({f"t{i}": per_shard}) for i, name in enumerate(names)}
    index = {"metadata": {"total_size": 2 * n}, "weight_map": {f"t{i}": name for i, name in enumerate(names)}}
    files["model.safetensors.index.json"] = json.dumps(index).encode()
    return files


def asked_about(server, repo: str) -> list[str]:
    return [line for line in server.log if repo in line]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The Hugging Face cache the web process would write to."""
    from huggingface_hub import constants

    folder = tmp_path / "hf-cache"
    folder.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(folder))
    monkeypatch.setattr(constants, "HUGGINGFACE_HUB_CACHE", str(folder))
    return folder


def test_a_repo_listing_thousands_of_shards_costs_a_bounded_few_requests_and_no_size(hub, cache):
    server, _, models = hub
    server.add_model("mallory/shardbomb", shard_files(2_000, [1]))  # mk_shardbomb2.py: no Hub summary
    found = models("mallory/shardbomb")
    assert found.refusal is None and found.facts is not None and found.facts.params is None  # size unknown
    asked = asked_about(server, "mallory/shardbomb")
    assert len(asked) <= 4, asked  # model_info, the single file, the index: no shard header (2,006 before)
    assert not any(cache.rglob("*"))


def test_an_index_larger_than_any_models_is_not_read_whole_nor_kept(hub, cache):
    server, _, models = hub
    names = {f"layer.{i:09d}.weight.padding.pad": "model-00001.safetensors" for i in range(60_000)}  # ~3 MB
    files = {"model-00001.safetensors": safetensors_header({"w": [2, 2]})}
    files["model.safetensors.index.json"] = json.dumps({"weight_map": names}).encode()
    assert len(files["model.safetensors.index.json"]) > MAX_INDEX_BYTES
    server.add_model("mallory/bigindex", files)  # mk_bigindex.py, smaller
    found = models("mallory/bigindex")
    assert found.facts is not None and found.facts.params is None
    assert len(asked_about(server, "mallory/bigindex")) <= 3
    assert not any(cache.rglob("*"))  # nothing written to the server's disk (70 MB kept for good before)


def test_a_few_shards_give_the_exact_count_in_bounded_requests(hub, cache):
    server, shas, models = hub
    server.add_model("lab/sharded-vlm", shard_files(MAX_SHARDS, [1_000, 1_000]))
    found = models("lab/sharded-vlm")
    assert found.facts is not None and found.facts.params == MAX_SHARDS * 1_000_000
    assert len(asked_about(server, "lab/sharded-vlm")) <= 3 + MAX_SHARDS
    assert not any(cache.rglob("*"))


def test_one_header_larger_than_the_bound_leaves_the_size_unknown(hub):
    server, _, models = hub
    huge = {f"tensor.{i:07d}": [1] for i in range(30_000)}  # a header of ~2 MB
    server.add_model("mallory/bigheader", {"model.safetensors": safetensors_header(huge)})
    found = models("mallory/bigheader")
    assert found.facts is not None and found.facts.params is None and found.refusal is None


def test_the_lookup_runs_in_a_worker_process_and_a_dead_worker_loses_no_upload(hub):
    import os
    from concurrent.futures.process import BrokenProcessPool

    from submissions.model_hub import PooledModels
    from submissions.worker import WorkerPool

    server, shas, in_process = hub
    pool = WorkerPool(1)
    try:
        pids = []

        def run(what, fn, *args):  # WorkerPool.run, noting where it ran
            pids.append(pool.run("pid", os.getpid))
            return pool.run(what, fn, *args)

        found = PooledModels(run, server.url, timeout=3)(UNINDEXED)
        assert found == in_process(UNINDEXED) and found.facts.params == UNINDEXED_PARAMS
        assert pids and os.getpid() not in pids
    finally:
        pool.close()

    def died(*_):
        raise BrokenProcessPool("the worker was killed")

    lost = PooledModels(died, server.url)(QWEN)
    assert lost.facts is None and lost.refusal is None and lost.warning.code == "model_info_missing"
