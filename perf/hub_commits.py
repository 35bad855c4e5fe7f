"""Commits and Hub API requests per submission, per burst, per rescore and per refresh, on the
fake Hub of tests/support (the real Hub's limits: ~128 commits an hour, 1,000 API requests per
5 minutes for a free user).

    python perf/hub_commits.py                    # 10 sequential, a burst of 10, rescore 1,000
    python perf/hub_commits.py --rescore 200 --burst 20

Every figure is counted by the fake Hub (commits in its history, requests in its log), so it
does not depend on the machine's speed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.service import Leaderboard  # noqa: E402
from store.hub import HubStore, RetryPolicy  # noqa: E402
from submissions.records import Identity  # noqa: E402
from submissions.request import SubmitRequest  # noqa: E402
from tests.leaderboard.test_hub_durability import stored_submissions  # noqa: E402
from tests.support import demo  # noqa: E402
from tests.support.hub_server import TOKEN, HubServer  # noqa: E402
from tests.support.submissions import board, form, small_gold, write_gold, write_submission  # noqa: E402


class Meter:
    """Commits (all three repos) and requests (by kind) since the last ``take``."""

    def __init__(self, hub: HubServer, ids: dict[str, str]) -> None:
        self.hub, self.ids = hub, ids
        self.commits, self.requests = self._now()

    def _now(self) -> tuple[int, int]:
        return sum(len(self.hub.commits(r)) for r in self.ids.values() if self._exists(r)), len(self.hub.log)

    def _exists(self, repo_id: str) -> bool:
        return ("dataset", repo_id) in self.hub.repos

    def take(self) -> tuple[int, int, Counter]:
        commits, requests = self._now()
        kinds = Counter(_kind(line) for line in self.hub.log[self.requests : requests])
        out = commits - self.commits, requests - self.requests, kinds
        self.commits, self.requests = commits, requests
        return out


def _kind(line: str) -> str:
    for word in ("commit", "preupload", "paths-info", "tree", "resolve", "whoami", "create", "lfs"):
        if f"/{word}" in line:
            return word
    return "repo_info" if line.startswith("GET /api/datasets/") else line.split()[0]


def replica(hub: HubServer, ids: dict[str, str], folder: Path) -> Leaderboard:
    store = HubStore(folder / "cache", ids, TOKEN, endpoint=hub.url, retry=RetryPolicy(timeout=10, deadline=60))
    lb = board(folder, store=store)
    lb.refresh()
    return lb


def report(label: str, per: int, meter: Meter) -> None:
    commits, requests, kinds = meter.take()
    detail = ", ".join(f"{k} {v}" for k, v in kinds.most_common())
    each = f"{commits:>5} commits ({commits / per:.2f} each)  {requests:>6} requests ({requests / per:.1f} each)"
    print(f"{label:<44} {each}")
    print(f"{'':<44} {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequential", type=int, default=10)
    parser.add_argument("--burst", type=int, default=10)
    parser.add_argument("--rescore", type=int, default=1000)
    args = parser.parse_args()
    hub = HubServer(page_size=1000).start()
    ids = {r: f"leaderboard/{r}-perf" for r in ("gold", "submissions", "results")}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        meter = Meter(hub, ids)
        lb = replica(hub, ids, root / "app")
        lb.corrections.add_gold("scb", write_gold(root / "gold.jsonl"), "maintainer")
        lb.flush()
        report("start-up (empty Hub) + gold add", 1, meter)
        for i in range(args.sequential):
            lb.submissions.submit(
                SubmitRequest(
                    "scb", write_submission(root / f"s{i}.jsonl", seed=i), form(f"s{i}", f"t{i}"), Identity(f"u{i}")
                )
            )
        lb.flush()
        report(f"{args.sequential} sequential submissions + one push", args.sequential, meter)
        paths = [write_submission(root / f"b{i}.jsonl", seed=100 + i) for i in range(args.burst)]
        barrier = threading.Barrier(args.burst)

        def one(i: int) -> None:
            barrier.wait()
            lb.submissions.submit(SubmitRequest("scb", paths[i], form(f"b{i}", f"bt{i}"), Identity(f"bu{i}")))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(args.burst)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        lb.flush()
        report(f"burst of {args.burst} concurrent submissions + one push", args.burst, meter)
        lb.refresh()
        report("refresh, nothing changed", 1, meter)
        stored_submissions(hub, ids, args.rescore)
        meter.take()
        lb.refresh()
        report(f"refresh after {args.rescore} uploads from another writer", args.rescore, meter)
        gold = small_gold(seed=1)
        lb.corrections.add_gold("scb", demo.write_jsonl(root / "gold2.jsonl", gold), "maintainer")
        meter.take()
        total = len(lb.catalog.all("scb"))
        lb.corrections.rescore("scb")
        lb.flush()
        report(f"rescore of {total} submissions on a new gold + push", total, meter)
        replica(hub, ids, root / "cold")
        report(f"cold start of a replica ({total} submissions)", total, meter)
    hub.stop()


if __name__ == "__main__":
    main()
