"""Model repos on the test Hub (tests.support.hub_server) as teams publish them, and the
safetensors file whose header alone says a model's parameter count."""

from __future__ import annotations

import json
import struct

from tests.support.hub_server import HubServer

QWEN = "Qwen/Qwen2.5-VL-7B-Instruct"  # indexed: model_info carries safetensors.total
QWEN_PARAMS = 8_292_166_656
UNINDEXED = "lab/tiny-vlm"  # no safetensors index: only the file's header tells
UNINDEXED_PARAMS = 1_500 * 1_000_000 + 2_048 * 512
LLAMA = "meta-llama/Llama-3.2-90B-Vision-Instruct"  # gated, licence "other" named by license_name
GATED_PARAMS = 88_600_000_000
PRIVATE = "lab/private-vlm"


def safetensors_header(shapes: dict[str, list[int]], dtype: str = "BF16") -> bytes:
    """A safetensors file of headers only (huggingface_hub reads the first 100 kB for them)."""
    header, offset = {}, 0
    for name, shape in shapes.items():
        size = 2
        for n in shape:
            size *= n
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    body = json.dumps(header).encode()
    return struct.pack("<Q", len(body)) + body


def publish_models(hub: HubServer) -> dict[str, str]:
    """The repos above on ``hub``; returns each one's head sha."""
    shas = {
        QWEN: hub.add_model(
            QWEN,
            safetensors={"parameters": {"BF16": QWEN_PARAMS}, "total": QWEN_PARAMS},
            card_data={"license": "apache-2.0"},
            config={"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl"},
        ),
        UNINDEXED: hub.add_model(
            UNINDEXED,
            {"model.safetensors": safetensors_header({"w": [1_500, 1_000_000], "b": [2_048, 512]})},
            card_data={"license": "mit"},
        ),
        LLAMA: hub.add_model(
            LLAMA,
            {"model.safetensors": safetensors_header({"w": [1, 1]})},  # gated: its files are not readable
            card_data={"license": "other", "license_name": "llama3.2", "license_link": "LICENSE"},
            config={"architectures": ["MllamaForConditionalGeneration"]},
            gated="manual",
            safetensors={"parameters": {"BF16": GATED_PARAMS}, "total": GATED_PARAMS},
        ),
        PRIVATE: hub.add_model(PRIVATE, card_data={"license": "mit"}, private=True),
    }
    return shas
