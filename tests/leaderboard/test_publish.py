"""leaderboard.publish: the public dataset's card is generated from the declarations, keeps a
maintainer's edits outside its markers, and the Parquet types dates as timestamps."""

from __future__ import annotations

import io

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from leaderboard import publish as pub
from leaderboard.config import Settings, UiSettings
from leaderboard.service import Leaderboard
from scoring.benchmarks import BENCHMARKS
from store import layout


@pytest.fixture(scope="module")
def lb(tmp_path_factory) -> Leaderboard:
    settings = Settings(data_dir=tmp_path_factory.mktemp("pub") / "data", ui=UiSettings(space_id="org/cvlm"))
    board = Leaderboard(settings)
    board.seed_demo()
    return board


def read_card(lb: Leaderboard) -> str:
    return lb.store.read("results", pub.CARD_PATH).decode()


def front_matter(card: str) -> dict:
    return yaml.safe_load(card.split("---\n")[1])


def test_the_card_describes_every_column_of_every_table(lb):
    card = read_card(lb)
    for bench in BENCHMARKS:
        table = pd.read_parquet(io.BytesIO(lb.store.read("results", layout.public_table(bench, "parquet"))))
        for column in table.columns:
            assert f"| `{column}` | " in card, column
    assert "mean IoU over correctly answered questions" in card and "half-width of the 95% bootstrap" in card
    assert "https://huggingface.co/spaces/org/cvlm" in card and "<this repo>" not in card
    assert "@inproceedings{satar-etal-2025-seeing" in card and "eprint = {2406.16469}" in card
    assert "questions/<benchmark>.jsonl" in card and f'load_dataset("{lb.settings.data_dir / "results"}"' in card


def test_configs_have_a_default_and_one_per_benchmark(lb):
    configs = front_matter(read_card(lb))["configs"]
    assert [c["config_name"] for c in configs] == list(BENCHMARKS)
    assert configs[0]["default"] is True and not any(c.get("default") for c in configs[1:])


def test_submitted_is_a_timestamp_in_the_parquet(lb):
    schema = pq.read_schema(io.BytesIO(lb.store.read("results", layout.public_table("scb", "parquet"))))
    kind = schema.field("submitted").type
    assert str(kind).startswith("timestamp[") and kind.tz == "UTC"


def test_a_maintainers_edits_survive_the_next_publish(lb):
    card = read_card(lb)
    edited = card.replace("license: cc-by-4.0", "license: cc-by-nc-4.0\nannotations_creators:\n- expert-generated")
    edited = edited.replace(pub.BEGIN, "Maintained by the lab.\n" + pub.BEGIN) + "\n## Changelog\nFixed a row.\n"
    lb.store.put("results", {pub.CARD_PATH: edited.encode()}, "edit the card", overwrite=True)
    lb.publisher.publish("scb")
    again = read_card(lb)
    meta = front_matter(again)
    assert meta["license"] == "cc-by-nc-4.0" and meta["annotations_creators"] == ["expert-generated"]
    assert [c["config_name"] for c in meta["configs"]] == list(BENCHMARKS)  # always ours
    assert again.count(pub.BEGIN) == 1 and "Maintained by the lab.\n" + pub.BEGIN in again
    assert again.endswith("## Changelog\nFixed a row.\n")


def test_a_card_without_markers_keeps_its_text_below_the_generated_block():
    card = pub.card("org/results", "---\nlicense: mit\n---\n# Old card\nHand-written.\n").decode()
    assert front_matter(card)["license"] == "mit"
    assert card.index(pub.END) < card.index("# Old card\nHand-written.")


def test_the_public_results_load_with_datasets(lb, tmp_path):
    datasets = pytest.importorskip("datasets")
    root = str(lb.settings.data_dir / "results")
    cache = str(tmp_path)  # datasets' cache is keyed by folder name: another test's "results" must not answer
    default = datasets.load_dataset(root, split="train", cache_dir=cache)
    first = datasets.load_dataset(root, next(iter(BENCHMARKS)), split="train", cache_dir=cache)
    assert default.column_names == first.column_names and default.num_rows == first.num_rows > 0
    assert "timestamp" in str(first.features["submitted"])


def test_the_published_kviscuit_table_carries_the_strict_protocol(lb):
    """issue 19: the public dataset (what another board page reads) has the strict-protocol figure
    per group and the count of lines read leniently, and the card says what they mean."""
    table = pd.read_parquet(io.BytesIO(lb.store.read("results", layout.public_table("kviscuit", "parquet"))))
    assert {"overall_acc_strict", "counts_lenient", "overall_acc"} <= set(table.columns)
    scored = table[table["source"] != "reported in paper"]
    assert (scored["overall_acc_strict"] <= scored["overall_acc"] + 1e-9).all()
    card = read_card(lb)
    assert "`counts_lenient`" in card and "exactly one capital letter" in card
