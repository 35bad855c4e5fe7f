"""Nothing the running app sends out holds the gold: pages, config, API description, every
response a browser receives while clicking through the whole app, the downloads, the answers
of ``/submit`` (valid, broken, duplicate, probing), error pages and the app's own log.

The app runs as a child process (``python app.py``) on the demo data (``seed_demo``: the SCB
and K-Viscuit golds of the shipped folders' demos, ``scoring/benchmarks/<id>/demo.py``, with seed 0).
A fetch hook injected into the
page copies every ``/gradio_api/`` response body as the page reads it (the queue's SSE stream
included), since a streaming body cannot be read back from Playwright's network events.
Gradio's own static assets are checked byte for byte against the installed package's files
(which cannot hold our gold) instead of being scanned.
"""

from __future__ import annotations

import html
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from scoring import BENCHMARKS
from tests.hardening.secrets import GoldSecrets
from tests.support import demo
from tests.support.app_server import ADMIN_TOKEN, AppServer
from tests.support.file_field import choose_file
from ui import display

gradio_client = pytest.importorskip("gradio_client")

TIMEOUT = 30_000
GRADIO_FRONTEND = Path(__import__("gradio").__file__).parent / "templates" / "frontend"
CAPTURE_JS = """
(() => {
  window.__captured = [];
  const original = window.fetch;
  window.fetch = async function (...args) {
    const response = await original.apply(this, args);
    try {
      const url = String((args[0] && args[0].url) || args[0]);
      if (url.includes("/gradio_api/") && response.body) {
        const entry = { url, text: "", done: false };
        window.__captured.push(entry);
        const reader = response.clone().body.getReader();
        const decoder = new TextDecoder();
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) { entry.done = true; break; }
            entry.text += decoder.decode(value, { stream: true });
          }
        })().catch(() => { entry.done = true; });
      }
    } catch (e) {}
    return response;
  };
})();
"""


# --------------------------------------------------------------------------- finders


def eight_grams(text: str) -> set[str]:
    return {text[i : i + 8] for i in range(len(text) - 7)}


class Needles:
    """Substring search for thousands of needles of 8+ characters at once: a needle can only
    be in a text whose 8-grams hold its first 8 characters, so only those are searched.
    Exactly ``[n for n in needles if n in text]`` (``test_fast_finder_equals_the_reference``)."""

    def __init__(self, needles: tuple[str, ...]) -> None:
        assert all(len(n) >= 8 for n in needles)
        self.needles = needles
        self.by_prefix: dict[str, list[str]] = {}
        for needle in needles:
            self.by_prefix.setdefault(needle[:8], []).append(needle)

    def find(self, text: str, grams: set[str] | None = None) -> list[str]:
        grams = eight_grams(text) if grams is None else grams
        wanted = grams & self.by_prefix.keys()
        if not wanted:
            return []
        hits: set[str] = set()
        if len(wanted) < 64:  # a few candidates: C-speed substring search for each
            hits = {n for prefix in wanted for n in self.by_prefix[prefix] if n in text}
        else:  # many: one pass over the text, checking needles where their prefix occurs
            for i in range(len(text) - 7):
                prefix = text[i : i + 8]
                if prefix in wanted:
                    hits.update(n for n in self.by_prefix[prefix] if text.startswith(n, i))
        return [n for n in self.needles if n in hits]


class FastScb:
    """:meth:`GoldSecrets.leaks`, the same answer, fast on megabytes of text."""

    def __init__(self, secrets: GoldSecrets) -> None:
        self.secrets = secrets
        self.needles = Needles(secrets.needles)
        self.checks = GoldSecrets(())  # the reference's key and regex checks, without needles

    def leaks(self, text: str, grams: set[str] | None = None) -> list[str]:
        return self.needles.find(text, grams) + self.checks.leaks(text)


class KviscuitSecrets:
    """What would reveal the K-Viscuit gold: a question's answer next to it (by row index or
    beside its question text), a run of the answer key, per-question correctness."""

    PAIR = re.compile(r'"question_id"\s*:\s*"?(\d+)"?\s*,\s*"answer"\s*:\s*("[A-D]"|[0-3])')

    def __init__(self, gold: list[dict]) -> None:
        self.answers = [r["answer"] for r in gold]
        letters = "".join(demo.LETTERS[a] for a in self.answers)
        numbers = [str(a) for a in self.answers]
        needles: list[str] = []
        for start in range(0, len(gold) - 20, 5):  # the answer key, as letters or indices
            needles.append(letters[start : start + 20])
            needles.append(", ".join(numbers[start : start + 16]))
            needles.append(",".join(numbers[start : start + 16]))
        self.needles = Needles(tuple(needles))

    def leaks(self, text: str, grams: set[str] | None = None) -> list[str]:
        found = self.needles.find(text, grams)
        for m in self.PAIR.finditer(text):  # a row's gold answer by its index
            row, value = int(m.group(1)), m.group(2).strip('"')
            gold = self.answers[row] if row < len(self.answers) else None
            if gold is not None and value in (str(gold), demo.LETTERS[gold]):
                found.append(m.group(0))
        for key in ("per_question", "is_correct", "correct_option", "gold_answer"):
            if key in text:
                found.append(key)
        # an answer, correct flag or label inside the same object as a gold question's text
        for obj in re.finditer(r"\{[^{}]*?Demo question \d+ about[^{}]*\}", text):
            if re.search(r"answer|correct|label|gold", obj.group(0), re.IGNORECASE):
                found.append(f"answer beside a question: {obj.group(0)[:120]}")
        return found


COMPACT = re.compile(r'(?<=["\d\]}])([:,])(?=["\d\[{-])')


def variants(text: str) -> list[str]:
    """The text as sent, then with JSON-escaped quotes undone, HTML-unescaped, and compact JSON
    spaced out (``GoldSecrets`` spells its needles as ``json.dumps`` does, with spaces)."""
    out = [text]
    for variant in (text.replace('\\"', '"'), html.unescape(text)):
        if variant not in out:
            out.append(variant)
    for variant in list(out):
        spaced = COMPACT.sub(r"\1 ", variant)
        if spaced not in out:
            out.append(spaced)
    return out


def leaks(finders, text: str) -> list[str]:
    """Every leak either finder sees in any variant of the text."""
    found: list[str] = []
    for variant in variants(text):
        grams = eight_grams(variant)
        for finder in finders:
            found += [n for n in finder.leaks(variant, grams) if n not in found]
    return found


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def golds():
    return {"scb": demo.demo_of("scb").gold(0), "kviscuit": demo.kviscuit_gold(0)}  # what seed_demo loads


@pytest.fixture(scope="module")
def finders(golds):
    return FastScb(GoldSecrets.from_scb(golds["scb"])), KviscuitSecrets(golds["kviscuit"])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("secrecy-app")
    # as deployed: the data folder is ``data`` inside the app's working folder
    app = AppServer(Path("data"), cwd=root, LEADERBOARD_MAX_SCORED_PER_DAY="50", LEADERBOARD_MAX_ATTEMPTS_PER_DAY="100")
    app.start()
    yield app
    app.stop()


def http(url: str, data: bytes | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=30) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def download_text(download) -> str:
    path = Path(download.path())
    if download.suggested_filename.endswith(".parquet"):
        return pd.read_parquet(path).to_csv()
    return path.read_text(errors="replace")


def example_redacted(name: str, text: str, public: str) -> str:
    """An example submission answers every public question "A" (SCB: one fixed box): it is a
    function of the public question list. Check that, then hide the constant answer, which the
    finders would otherwise take for a mapping (a quarter of the gold answers are "A")."""
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    ids = [json.loads(line)["question_id"] for line in public.splitlines() if line.strip()]
    assert [line["question_id"] for line in lines] == ids, name
    assert {line["answer"] for line in lines} == {"A"}, name
    assert len({json.dumps(line.get("bbox")) for line in lines}) == 1, name
    assert text.encode() == display.example_submission(BENCHMARKS[name.split()[1].rstrip(":")], public.encode())
    return text.replace(', "answer": "A"', ', "constant_answer": "A"')


AGGREGATE_COUNTS = re.compile(r'(\\?)"counts(\\?)":\s*\{')
DOCUMENTED_RLE = '"counts": ...}'


def strip_documentation(text: str) -> str:
    """Remove three things the reference finder's generic checks flag but that are public by
    construction: the About tab's fixed example lines (source text in ``scoring/benchmarks``,
    spelling ``"answer": "C"``); its description of the RLE format (``"counts": ...``); and the
    aggregate ``"counts": {"questions": ...}`` of a result (an RLE's counts is a string or a
    list, never an object, so an RLE stays flagged)."""
    for bench in BENCHMARKS.values():
        for line in bench.example_lines:
            for form in (line, json.dumps(line)[1:-1], html.escape(line, quote=False), html.escape(line)):
                text = text.replace(form, "<documented example>")
    for form in (DOCUMENTED_RLE, json.dumps(DOCUMENTED_RLE)[1:-1], html.escape(DOCUMENTED_RLE)):
        text = text.replace(form, "<documented RLE format>")
    return AGGREGATE_COUNTS.sub(r'\1"aggregate_counts\2": {', text)


# --------------------------------------------------------------------------- collecting


def collect_browser(browser, server: AppServer, golds, tmp_path: Path) -> dict[str, str]:
    texts: dict[str, str] = {}
    static: list[tuple[str, bytes]] = []
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    context.add_init_script(CAPTURE_JS)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    responses = []
    page.on("response", lambda r: responses.append(r))

    def settle(ms: int = 600) -> None:
        page.wait_for_timeout(ms)
        page.wait_for_function(
            "() => !document.querySelector('.progress-text, .eta-bar, .generating')", timeout=TIMEOUT
        )

    def snapshot(name: str, full: bool = False) -> None:
        """What the page shows (its whole HTML at a few points: the data of the rest
        came through the queue stream, which is captured whole)."""
        texts[f"dom: {name}"] = page.content() if full else page.evaluate("() => document.body.innerText")

    def tab(name: str) -> None:
        page.get_by_role("tab", name=name, exact=True).click()
        settle(300)

    def download(locator, name: str) -> str:
        with page.expect_download() as info:
            locator.click()
        text = download_text(info.value)
        texts[f"download: {name}"] = text
        return text

    page.goto(server.url)  # the board page: its data, every view of every board, the model pages
    page.wait_for_selector("#board-table .tabulator-row >> text=reported in paper")
    snapshot("first load", full=True)
    for bench in BENCHMARKS.values():
        page.locator("#bench-tabs a", has_text=bench.name).click()
        settle(300)
        for label in page.locator("#view-choice label").all_inner_texts():
            page.locator("#view-choice label", has_text=label.strip()).first.click()
            settle(300)
            snapshot(f"{bench.id} view {label.strip()}")
            download(page.locator("#download-csv"), f"{bench.id} {label.strip()} csv")
        page.locator("#view-choice label").first.click()
        page.locator("#source-choice label", has_text="reported in paper").click()
        page.fill("#query", "demo")
        settle()
        for plot in page.locator(f"[id^={bench.id}-scatter], [id^={bench.id}-heat-]").all():
            plot.scroll_into_view_if_needed()
        settle()
        page.locator(
            "#board-table .tabulator-row .tabulator-cell[tabulator-field='model']"
        ).first.click()  # a model page
        page.wait_for_selector("#model-page:not([hidden]) h2")
        snapshot(f"{bench.id} filtered, plots, a model page", full=True)
        page.goto(server.url + "/")
        page.wait_for_selector("#board-table .tabulator-row")
    page.goto(server.url + "/app?tab=about")  # the Gradio page
    page.get_by_role("tab", name="About", selected=True).wait_for()
    settle(300)
    about_texts = {}
    for bench in BENCHMARKS.values():
        for what in ("example submission", "public question list"):
            name = f"{bench.id}: {what}"
            about_texts[name] = download(page.get_by_role("button", name=name), name)
    snapshot("about")
    tab("My submissions")
    page.wait_for_selector("#mine-table")
    snapshot("my submissions")
    tab("Submit")
    valid = demo.write_jsonl(tmp_path / "ui-valid.jsonl", demo.scb_submission(golds["scb"], 0.8, "polygon", seed=31))
    broken = tmp_path / "ui-broken.jsonl"
    broken.write_text(
        '{"question_id": "scb-00000", "answer": "A", "mask": {"size": [1, 1], "counts": "01"}}\n'
        "not json\n"
        '{"question_id": "scb-00001", "answer": "E", "bbox": [0, 0, 99999, 99999]}\n'
    )
    for path in (valid, broken):
        choose_file(page, "#sub-file", path)
        page.fill("#sub-model textarea, #sub-model input", f"Secrecy {path.stem}")
        page.fill("#sub-team textarea, #sub-team input", "Secrecy team")
        page.locator("#sub-btn").click()
        page.wait_for_selector("#sub-result >> text=Submission id", timeout=120_000)
        if path is broken:
            page.locator("#sub-errors").wait_for(state="visible", timeout=60_000)
        settle()
        snapshot(f"submit {path.stem}")
    tab("My submissions")
    page.wait_for_selector("#mine-table >> text=Secrecy ui-valid")
    snapshot("my submissions after submit")
    tab("Maintainers")
    page.fill("#admin-token input, #admin-token textarea", "wrong")
    page.locator("#admin-unlock").click()
    page.wait_for_selector("#admin-msg >> text=Wrong token")
    page.fill("#admin-token input, #admin-token textarea", ADMIN_TOKEN)
    page.locator("#admin-unlock").click()
    page.wait_for_selector("#gold-info >> text=Current gold")
    settle()
    snapshot("maintainers", full=True)
    page.wait_for_timeout(500)

    captured = page.evaluate("() => window.__captured.map(e => [e.url, e.text, e.done])")
    for i, (url, text, _done) in enumerate(captured):
        texts[f"fetch {i}: {url}"] = text
    for i, response in enumerate(responses):
        url = response.url
        if "/queue/data" in url or "/heartbeat/" in url:
            continue  # streams: copied by the fetch hook above
        try:
            body = response.body()
        except Exception:  # a redirect or an aborted request has no body
            continue
        path = urllib.parse.urlparse(url).path
        if path.startswith(("/assets/", "/static/")):
            static.append((path, body))
        else:
            texts[f"response {i}: {response.request.method} {url}"] = body.decode("utf-8", "replace")
    context.close()
    assert any("/queue/data" in name for name in texts), "the fetch hook saw no queue stream"
    assert len([n for n in texts if n.startswith("download:")]) >= 8
    for path, body in static:  # Gradio's bundle as shipped: identical to the installed files
        shipped = GRADIO_FRONTEND / path.lstrip("/")
        assert shipped.is_file() and shipped.read_bytes() == body, f"{path} is not Gradio's shipped asset"
    public = {b: about_texts[f"{b}: public question list"] for b in BENCHMARKS}
    for bench in BENCHMARKS:
        name = f"download: {bench}: example submission"
        texts[name] = example_redacted(name, texts[name], public[bench])
    return texts


@pytest.fixture(scope="module")
def scb_probes(golds) -> list[str]:
    """Lines sent to ``/submit`` that each reach a check; the last two reach the checks a gold
    image size once shaped (attacks.md finding 1: the outline limit was 100 x (w + h))."""
    scb = golds["scb"]
    lines = [
        {"question_id": scb[0]["question_id"], "answer": "A", "mask": {"size": [7, 9], "counts": "3"}},
        {"question_id": scb[1]["question_id"], "answer": "B", "polygon": [[1, 2]]},
        {"question_id": scb[2]["question_id"], "answer": "C", "bbox": [5, 5, 1, 1]},
        {"question_id": scb[2]["question_id"], "answer": "C"},
        {"question_id": "scb-99999", "answer": "D"},
        {"question_id": scb[3]["question_id"], "answer": "Q", "bbox_ref_size": [0, 0]},
        {"question_id": scb[4]["question_id"], "answer": scb[4]["answer"], "polygon": [[0, 0, 1000, 0, 1000, 0.001]],
         "bbox_ref_size": [1, 100_000]},
        {"question_id": scb[5]["question_id"], "answer": "A", "bbox": [0, 0, 1e7, 1], "bbox_ref_size": [1, 1]},
    ]  # fmt: skip
    return [json.dumps(line) for line in lines]


def collect_api(server: AppServer, golds, tmp_path: Path, scb_probes: list[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for path in ("/", "/config", "/gradio_api/info", "/gradio_api/openapi.json", "/gradio_api/startup-events"):
        status, body = http(server.url + path)
        texts[f"GET {path} ({status})"] = body
    private = [p for p in server.data_dir.rglob("*") if p.is_file() and "results" not in p.parts]
    assert any(p.parts[-3] == "gold" for p in private)
    for path in private:  # the file route must serve none of the private data (gold, its cache, raw uploads)
        relative = path.relative_to(server.cwd)
        for route in ("/gradio_api/file=", "/file="):
            for spelling in (str(path), str(relative)):
                status, body = http(server.url + route + urllib.parse.quote(spelling))
                assert status >= 400, (route, spelling, status)
                texts[f"GET {route}{spelling} ({status})"] = body
    client = gradio_client.Client(server.url, verbose=False)
    texts["client view_api"] = json.dumps(client.view_api(print_info=False, return_format="dict"))

    def submit(benchmark, path, model, fmt="xyxy"):
        try:
            answer = client.predict(
                benchmark, gradio_client.handle_file(str(path)) if path else None, model, "Secrecy API", "open",
                fmt, "", "", "", api_name="/submit",
            )  # fmt: skip
        except Exception as e:  # the error message a client sees
            texts[f"/submit {benchmark} {model} (error)"] = f"{type(e).__name__}: {e}"
            return {"status": "error"}
        texts[f"/submit {benchmark} {model}"] = json.dumps(answer)
        return answer

    scb_good = demo.write_jsonl(tmp_path / "api-scb.jsonl", demo.scb_submission(golds["scb"], 0.7, "bbox_good", 41))
    kv_good = demo.write_jsonl(tmp_path / "api-kv.jsonl", demo.kviscuit_submission(golds["kviscuit"], 0.6, 42))
    assert submit("scb", scb_good, "api-scb")["status"] == "scored"
    assert submit("scb", scb_good, "api-scb")["duplicate_of"]
    assert submit("kviscuit", kv_good, "api-kv")["status"] == "scored"
    probes = tmp_path / "api-probes.jsonl"
    probes.write_text("\n".join(scb_probes) + "\n")
    assert submit("scb", probes, "api-probes")["status"] == "rejected"
    kv_probes = tmp_path / "api-kv-probes.jsonl"
    kv_probes.write_text(
        '{"question_id": 0, "answer": "A", "id_": "Wrong.1.1"}\n{"question_id": 9999, "answer": "A"}\n'
        '{"question_id": 1, "answer": "Z"}\n'
    )
    assert submit("kviscuit", kv_probes, "api-kv-probes")["status"] == "rejected"
    assert submit("nope", kv_probes, "api-unknown")["status"] == "error"  # refused by the dropdown
    assert "not in the list of choices" in texts["/submit nope api-unknown (error)"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    submit("scb", empty, "api-empty")
    assert submit("scb", None, "api-no-file")["status"] == "rejected"
    assert submit("scb", scb_good, "x" * 500)["status"] == "rejected"  # the form's own errors
    return texts


@pytest.fixture(scope="module")
def collected(browser, server, golds, tmp_path_factory, scb_probes):
    tmp = tmp_path_factory.mktemp("secrecy-files")
    texts = collect_api(server, golds, tmp, scb_probes)
    texts |= collect_browser(browser, server, golds, tmp)
    server.stop()  # flushes the log
    texts["app log (stdout+stderr)"] = server.log_text()
    return texts


# --------------------------------------------------------------------------- tests


def test_finders_are_not_vacuous(golds, finders):
    scb, kv = finders
    scb_text = demo.dumps_jsonl(golds["scb"]).decode()  # compact JSON: found once spaced out
    assert len(leaks([scb], scb_text)) > 3000
    rec = golds["scb"][5]
    assert scb.leaks(f'{{"{rec["question_id"]}": "{rec["answer"]}"}}')
    kv_text = demo.dumps_jsonl(golds["kviscuit"]).decode()
    assert len(kv.leaks(kv_text)) > 600  # every row: its answer beside its question text
    letter = demo.LETTERS[golds["kviscuit"][7]["answer"]]
    assert kv.leaks(json.dumps({"question_id": 7, "answer": letter}))
    assert kv.leaks("".join(demo.LETTERS[r["answer"]] for r in golds["kviscuit"][100:130]))
    assert kv.leaks(json.dumps([{"question_id": 3, "is_correct": True}]))
    public = "".join(
        json.dumps({"question_id": i, **{k: v for k, v in r.items() if k != "answer"}}) + "\n"
        for i, r in enumerate(golds["kviscuit"])
    )
    assert kv.leaks(public) == []  # the question list itself is public
    assert scb.leaks("Demo model, 85.15 ± 1.20, scored here") == []


def test_fast_finder_equals_the_reference(golds, finders):
    scb, _ = finders
    records = golds["scb"][:60]
    spaced = "".join(json.dumps(r) + "\n" for r in records)  # json.dumps spacing: the needles' own
    pairs = "".join(f'{{"{r["question_id"]}": "{r["answer"]}"}} {r["question_id"]},{r["answer"]}' for r in records)
    for text in (spaced, pairs, demo.dumps_jsonl(records).decode(), spaced.replace("scb-", "scb_")):
        assert scb.leaks(text) == scb.secrets.leaks(text)
    assert len(scb.leaks(spaced)) >= 60 and len(scb.leaks(pairs)) >= 120
    clean = '{"rows": [["Demo-GPT-o3", 85.15, "scb-00001 is a question"]]}' * 500
    assert scb.leaks(clean) == scb.secrets.leaks(clean) == []


def test_no_response_of_the_running_app_holds_gold(collected, finders):
    scb, kv = finders
    assert len(collected) > 60, sorted(collected)
    problems = {}
    for name, text in collected.items():
        found = leaks((scb, kv), strip_documentation(text))
        if found:
            problems[name] = found[:5]
    assert problems == {}


def test_no_error_message_holds_a_number_made_of_the_gold(collected, golds, scb_probes):
    """Sizes hide in numbers (414900 = 100 x (w + h)) that no substring needle can see: each
    error message is searched for its question's gold numbers, its own line's echo aside."""
    secrets = GoldSecrets.from_scb(golds["scb"])
    answer = json.loads(collected["/submit scb api-probes"])
    assert {e["line"] for e in answer["errors"]} == set(range(1, len(scb_probes) + 1))
    for error in answer["errors"]:
        line = scb_probes[error["line"] - 1]
        assert secrets.numbers_leaked(error["message"], json.loads(line)["question_id"], line) == [], error


def test_the_collection_covers_the_app(collected):
    names = "\n".join(collected)
    for expected in (
        "GET /config",
        "GET /gradio_api/info",
        "/queue/data",
        "download: scb Overview csv",
        "download: scb By country csv",
        "download: kviscuit By category csv",
        "dom: scb filtered, plots, a model page",
        "download: scb: public question list",
        "download: kviscuit: example submission",
        "/submit scb api-probes",
        "dom: maintainers",
        "app log",
    ):
        assert expected in names, expected
    stream = "".join(t for n, t in collected.items() if "/queue/data" in n)
    assert "process_completed" in stream
    assert "Demo-GPT-o3 (synthetic)" in collected["dom: first load"]  # the board page's data
    assert "Secrecy ui-valid" in collected["dom: my submissions after submit"]
    errors = collected["/submit scb api-probes"]
    assert '"line": 1' in errors and "scb-99999" in errors  # the probes did reach the validator
