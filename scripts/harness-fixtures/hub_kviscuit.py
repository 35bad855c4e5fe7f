"""A Hub that holds K-Viscuit as its authors publish it, for ``inspect eval hf/ddehun/k-viscuit/...``:
the test Hub-API server (tests/support/hub_server.py) with the dataset repo ``ddehun/k-viscuit``
(``eval.yaml`` as ``--eval-yaml`` prints it, ``data/test-00000-of-00001.parquet``: the embedded
default's demo gold in the official ``annotations.jsonl`` columns, answers included as the real
dataset's are), its images at ``image_url`` on a local file server, and the toy endpoint.

    python scripts/harness-fixtures/hub_kviscuit.py EVAL_YAML IMAGES_DIR --limit N   (the app's venv)

Prints ``HF_ENDPOINT=...`` and ``TOY_BASE_URL=...`` lines, then serves until stdin closes. The toy
(scoring.harness.runner.fake_endpoint's ``stand_in_reply``) answers Inspect's ``A) ...`` options like its own choices: a
letter drawn from a hash of the request, written bare or as "The answer is X." (the hash decides),
so the official one-letter rule and the leaderboard's lenient reading differ on the same log.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import io
import json
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from scoring.harness.runner.fake_endpoint import FakeOpenAI, stand_in_reply
from tests.support import demo
from tests.support.hub_server import HubServer

REPO = "ddehun/k-viscuit"


class QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def hub_reply(messages: list[dict]) -> str:
    """The toy's letter for Inspect's ``multiple_choice`` prompt (options as ``A) ...``); else stand_in_reply."""
    content = messages[-1]["content"]
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    prompt = " ".join(p.get("text", "") for p in parts if p.get("type") == "text")
    if "\nA) " not in prompt:
        return stand_in_reply(messages)
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).digest()
    letter = "ABCD"[digest[0] % 4]
    return letter if digest[1] % 2 == 0 else f"The answer is {letter}."


def gold_rows(limit: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        gold = demo.write_files("kviscuit", Path(tmp)).gold
        rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit]


def parquet(rows: list[dict], image_root: str) -> bytes:
    table = pa.Table.from_pylist([{**r, "image_url": f"{image_root}/{r['image_path']}"} for r in rows])
    out = io.BytesIO()
    pq.write_table(table, out)
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_yaml", type=Path)
    parser.add_argument("images", type=Path)
    parser.add_argument("--limit", type=int, default=40)
    args = parser.parse_args()
    images = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=str(args.images)))
    threading.Thread(target=images.serve_forever, daemon=True).start()
    image_root = f"http://127.0.0.1:{images.server_address[1]}"
    hub = HubServer().start()
    data = parquet(gold_rows(args.limit), image_root)
    files = {"eval.yaml": args.eval_yaml.read_bytes(), "data/test-00000-of-00001.parquet": data}
    hub.commit_files(REPO, files, message="the authors' release, as a stand-in")
    with FakeOpenAI(reply=hub_reply) as toy:
        print(f"HF_ENDPOINT={hub.url}\nHF_TOKEN={hub.token}\nTOY_BASE_URL={toy.base_url}", flush=True)
        sys.stdin.read()  # serve until the caller closes our stdin
    hub.stop()
    images.shutdown()


if __name__ == "__main__":
    main()
