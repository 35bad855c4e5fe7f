"""``/eval_results/{benchmark}/{row_id}.yaml``: a public row's file for anyone, nothing for a row
whose names or figures are not out (an anonymous row before its reveal), made once per board state."""

from __future__ import annotations

import yaml
from starlette.applications import Starlette
from starlette.testclient import TestClient

from submissions.records import Identity, SubmissionForm
from submissions.request import SubmitRequest
from tests.support.submissions import write_submission
from ui.eval_results_route import EvalResultsFiles


def test_a_public_rows_file_is_served_and_an_anonymous_rows_is_not(lb, tmp_path):
    ann = Identity("ann")
    named = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "a.jsonl", accuracy=0.8),
                      SubmissionForm.of(model="Named", team="Ann", visibility="public"), ann))  # fmt: skip
    hidden = lb.submissions.submit(SubmitRequest("scb", write_submission(tmp_path / "b.jsonl", accuracy=0.7, seed=2),
                       SubmissionForm.of(model="Secret", team="Ann", visibility="public", anonymous=True,
                                         reveal_date="2099-01-01"), ann))  # fmt: skip
    rows = {r.submission_id: r.row_id for r in lb.board("scb").rows}
    files = EvalResultsFiles(lb)
    client = TestClient(Starlette(routes=files.routes()))
    served = client.get(f"/eval_results/scb/{rows[named.submission_id]}.yaml")
    assert served.status_code == 200 and 'filename="scb.yaml"' in served.headers["content-disposition"]
    assert yaml.safe_load(served.text) == list(lb.visibility.eval_results("scb", named.submission_id).entries)
    refused = client.get(f"/eval_results/scb/{rows[hidden.submission_id]}.yaml")
    assert refused.status_code == 404 and "Secret" not in refused.text and hidden.submission_id not in refused.text
    assert client.get("/eval_results/nope/abc.yaml").status_code == 404
    assert client.get("/eval_results/scb/..%2Fx.yaml").status_code == 404
    calls = []
    real = lb.visibility.eval_results
    lb.visibility.eval_results = lambda *a, **k: calls.append(a) or real(*a, **k)
    for _ in range(3):
        client.get(f"/eval_results/scb/{rows[named.submission_id]}.yaml")
    assert calls == []  # made once for this board state (the first request above)


def test_source_url_is_the_requests_own_origin_when_it_is_one_of_the_apps(lb, tmp_path):
    """issue 42: where there is a request, ``source.url`` is the origin the visitor reached the app at,
    but only one of the app's own (ui.origin.PublicOrigin: its loopback names at its port, or the public
    address): a Host header naming any other host gives the app's configured root, never itself."""
    from leaderboard.config import UiSettings
    from ui.origin import PublicOrigin

    named = SubmissionForm.of(model="Named", team="Ann", visibility="public")
    path = write_submission(tmp_path / "a.jsonl", accuracy=0.8)
    answer = lb.submissions.submit(SubmitRequest("scb", path, named, Identity("ann")))
    row = next(r.row_id for r in lb.board("scb").rows if r.submission_id == answer.submission_id)
    files = EvalResultsFiles(lb, PublicOrigin.of(UiSettings(), 7900))

    def url(base: str, **headers: str) -> str:
        client = TestClient(Starlette(routes=files.routes()), base_url=base)
        served = client.get(f"/eval_results/scb/{row}.yaml", headers=headers)
        assert served.status_code == 200, served.text
        return yaml.safe_load(served.text)[0]["source"]["url"]

    assert url("http://localhost:7900") == f"http://localhost:7900/?bench=scb&model={row}"
    assert url("http://127.0.0.1:7900") == f"http://127.0.0.1:7900/?bench=scb&model={row}"
    assert url("http://evil.example") == f"http://127.0.0.1:7900/?bench=scb&model={row}"
    assert url("http://localhost:7900", host="evil.example:7900") == f"http://127.0.0.1:7900/?bench=scb&model={row}"
    pinned = EvalResultsFiles(lb, PublicOrigin.of(UiSettings(public_url="https://lab.example/board"), 7900))
    client = TestClient(Starlette(routes=pinned.routes()), base_url="http://localhost:7900")
    served = yaml.safe_load(client.get(f"/eval_results/scb/{row}.yaml").text)
    assert served[0]["source"]["url"] == f"https://lab.example/board/?bench=scb&model={row}"
