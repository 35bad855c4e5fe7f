"""What the site reads from a model's Hub repo at submission time, against the test Hub's
model_info (huggingface_hub 2.4's real client): with and without the safetensors index, gated,
missing, private, rate-limited and down."""

from __future__ import annotations

import pytest

from submissions.model_hub import EXPAND, HubModels, ModelFacts
from tests.support.hub_models import (
    GATED_PARAMS,
    LLAMA,
    PRIVATE,
    QWEN,
    QWEN_PARAMS,
    UNINDEXED,
    UNINDEXED_PARAMS,
    publish_models,
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
