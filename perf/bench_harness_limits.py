"""What a harness-shaped file far past the line limit costs to refuse, old checkout and new, in one run
(issue 30 item 3; the red team's files of attacks.md #3).

    git worktree add ../old-ebb85c5 ebb85c5
    .venv/bin/python perf/bench_harness_limits.py --old ../old-ebb85c5 [--only csv xlsx] [--csv-rows 3400000]

Files (written once to a temporary folder, read by both checkouts): a CSV of ``question_id,answer`` and
``--csv-rows`` rows (3.4 M rows: 20 MB), a TSV of the same rows, a JSON array of such records (``--json-rows``), and
a workbook of ``index, prediction`` rows (scripts/red/mk_xlsx.py's shape: inline strings; 2.5 M rows:
about 27 MB). Each is validated against the demo K-Viscuit gold (657 questions: a line limit of
2,314) in a child process per checkout, one at a time, stopped after ``--limit`` seconds. Reported:
the child's peak RSS (``ru_maxrss``, imports included), its CPU and wall-clock seconds for the
validation, and the first issue's message.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

NEW = Path(__file__).resolve().parents[1]
QUESTIONS = 657
CHILD = """
import json, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import scoring
from tests.support import demo
gold = scoring.load_gold("kviscuit", demo.write_jsonl(Path(sys.argv[3]) / "gold.jsonl", demo.kviscuit_gold()))
start, cpu = time.perf_counter(), time.process_time()
try:
    scoring.validate_file("kviscuit", gold, sys.argv[2])
    said = "valid"
except scoring.SubmissionError as e:
    said = f"{e.total:,} issue(s); first: {e.issues[0].message}"
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "said": said}))
"""


def write_table(path: Path, rows: int, delimiter: str) -> Path:
    with path.open("w") as f:
        f.write(f"question_id{delimiter}answer\n")
        for start in range(0, rows, 100_000):
            f.write("".join(f"{k % QUESTIONS}{delimiter}A\n" for k in range(start, min(rows, start + 100_000))))
    return path


def write_array(path: Path, rows: int) -> Path:
    with path.open("w") as f:
        f.write("[")
        for start in range(0, rows, 100_000):
            chunk = range(start, min(rows, start + 100_000))
            f.write(("," if start else "") + ",".join(f'{{"question_id":{k % QUESTIONS},"answer":"A"}}' for k in chunk))
        f.write("]")
    return path


_XLSX_PARTS = {
    "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.'
    'openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
    'openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
    'PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.'
    'main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.spreadsheetml.worksheet+xml"/></Types>',
    "_rels/.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.'
    'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
    'org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.'
    'openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="'
    'http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
}


def write_xlsx(path: Path, rows: int) -> Path:
    """scripts/red/mk_xlsx.py's workbook: a header, then ``rows`` rows of (index, "A") as inline strings."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in _XLSX_PARTS.items():
            z.writestr(name, text)
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as f:
            f.write(
                b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.'
                b'openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>'
                b'index</t></is></c><c r="B1" t="inlineStr"><is><t>prediction</t></is></c></row>'
            )
            for start in range(0, rows, 10_000):
                f.write(
                    "".join(
                        f'<row r="{i + 2}"><c r="A{i + 2}"><v>{i}</v></c><c r="B{i + 2}" t="inlineStr"><is><t>A</t>'
                        "</is></c></row>"
                        for i in range(start, min(rows, start + 10_000))
                    ).encode()
                )
            f.write(b"</sheetData></worksheet>")
    return path


def run(checkout: Path, path: Path, tmp: Path, limit: float) -> str:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(checkout), str(path), str(tmp)],
            capture_output=True, text=True, timeout=limit, check=True,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"stopped after {limit:.0f} s | | "
    except subprocess.CalledProcessError as e:
        return f"error: {e.stderr.strip().splitlines()[-1][:80]} | | "
    out = json.loads(done.stdout.strip().splitlines()[-1])
    said = out["said"].replace("|", "/")
    return f"{out['peak_mb']:,.0f} MB | {out['cpu']:.1f} s ({out['wall']:.1f} s) | {said[:150]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="a checkout of the old commit (git worktree add)")
    parser.add_argument("--csv-rows", type=int, default=3_400_000)
    parser.add_argument("--json-rows", type=int, default=1_400_000, help="1.4 M records: 46 MB, under the 50 MB limit")
    parser.add_argument("--xlsx-rows", type=int, default=2_500_000)
    parser.add_argument("--limit", type=float, default=900.0, help="seconds before a child is stopped")
    parser.add_argument("--only", nargs="*", help="file kinds to run (csv tsv json xlsx); all by default")
    args = parser.parse_args()
    checkouts = {"old": args.old.resolve(), "new": NEW}
    print("| file | checkout | peak RSS | CPU (wall) | answer |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        makers = {
            "csv": lambda: write_table(tmp / "big.csv", args.csv_rows, ","),
            "tsv": lambda: write_table(tmp / "big.tsv", args.csv_rows, "\t"),
            "json": lambda: write_array(tmp / "big.json", args.json_rows),
            "xlsx": lambda: write_xlsx(tmp / "big.xlsx", args.xlsx_rows),
        }
        for kind, make in makers.items():
            if args.only and kind not in args.only:
                continue
            path = make()
            what = f"{kind.upper()}, {path.stat().st_size / 1e6:.1f} MB"
            for name, checkout in checkouts.items():
                print(f"| {what} | {name} ({_commit(checkout)}) | {run(checkout, path, tmp, args.limit)} |", flush=True)
            path.unlink()


def _commit(checkout: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    main()
