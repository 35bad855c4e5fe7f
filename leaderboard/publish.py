"""The public results dataset: only aggregates, one Parquet and one CSV per benchmark, and a
dataset card whose configs make ``datasets.load_dataset(repo, benchmark_id)`` work for every registered benchmark."""

from __future__ import annotations

from leaderboard.table import BoardRow, frame, to_csv_bytes, to_parquet_bytes
from scoring.benchmarks import BENCHMARKS
from store import layout
from store.base import Store

CARD = """---
license: cc-by-4.0
pretty_name: Cultural VLM leaderboard results
configs:
{configs}
---
# Cultural VLM leaderboard: public results

Aggregate scores of the submissions to the leaderboard, one table per benchmark
({names}). Rows marked "reported in paper" are the published figures of the benchmark
papers, not scored here. Percentages at full precision; `*_ci` columns hold the half-width of
the 95% bootstrap interval. No gold answer, mask or per-question result is in this dataset.

```python
from datasets import load_dataset
table = load_dataset("<this repo>", "{example}", split="train")
```
"""


def card() -> bytes:
    configs = "\n".join(
        f"- config_name: {b}\n  data_files:\n  - split: train\n    path: {layout.public_table(b, 'parquet')}"
        for b in BENCHMARKS
    )
    return CARD.format(configs=configs, names=", ".join(BENCHMARKS), example=next(iter(BENCHMARKS))).encode()


def publish(store: Store, benchmark: str, rows: list[BoardRow]) -> None:
    """Write the benchmark's public table (all views' columns) and the card, in one commit."""
    df = frame(benchmark, rows, "all").rename(columns=lambda c: c.replace(".", "_"))
    files = {
        layout.public_table(benchmark, "parquet"): to_parquet_bytes(df),
        layout.public_table(benchmark, "csv"): to_csv_bytes(df),
        "README.md": card(),
    }
    store.put("results", files, f"Update {benchmark} results", overwrite=True)
