#!/bin/bash
# Fixtures written by the real lmms-eval 0.7.3 (issue 28): install it in its own environment, run the
# project's lmms_eval_tasks/ (kviscuit, scb_stage1 then scb_stage2) with --predict_only --log_samples
# against the toy endpoint (python -m scoring.harness.runner.fake_endpoint) on the embedded default's demo questions,
# and copy what it wrote into tests/fixtures/harness/lmms-eval-0.7.3/ (samples gzipped). Run from a checkout:
#   make harness-fixtures            (or: bash scripts/harness-fixtures/lmms_eval.sh)
# Variables: PY (the app's python, default .venv/bin/python), LMMS_VENV (lmms-eval's environment,
# default .harness/lmms-eval-0.7.3), WORK (scratch, default .harness/lmms-work), PORT (default:
# the first free port from 18001), LIMIT (lmms-eval --limit: the first N questions of each task;
# default all), OUT (where the files go, default the fixtures folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
CHECKOUT=$PWD
PY=${PY:-$CHECKOUT/.venv/bin/python}
LMMS_VENV=${LMMS_VENV:-$CHECKOUT/.harness/lmms-eval-0.7.3}
WORK=${WORK:-$CHECKOUT/.harness/lmms-work}
OUT=${OUT:-$CHECKOUT/tests/fixtures/harness/lmms-eval-0.7.3}
HERE=$CHECKOUT/scripts/harness-fixtures

# 1. lmms-eval without its 60-odd dependencies, plus what its chat-API path imports. torch: lmms-eval
#    imports it at start; 2.13.0 is a CPU wheel on the project's machines (elsewhere add
#    --index-url https://download.pytorch.org/whl/cpu). filelock<4: its evaluator imports filelock._api.
#    ./scoring[lmms-eval]: the tasks read the benchmarks' prompts and stage-1 answers with it.
if [ ! -x "$LMMS_VENV/bin/lmms-eval" ]; then
  python3 -m venv "$LMMS_VENV"
  "$LMMS_VENV/bin/pip" install -q --no-deps lmms-eval==0.7.3
  "$LMMS_VENV/bin/pip" install -q torch==2.13.0
  "$LMMS_VENV/bin/pip" install -q datasets evaluate httpx jsonlines aiohttp numexpr numpy pytablewriter sacrebleu \
    openai pillow pyyaml loguru tenacity tiktoken pydantic packaging python-dotenv tqdm-multiprocess accelerate \
    transformers zstandard "filelock<4"
fi
"$LMMS_VENV/bin/pip" install -q "$CHECKOUT/scoring[lmms-eval]" && rm -rf "$CHECKOUT/scoring/build"
export LEADERBOARD_PLUGINS=scoring.benchmarks.toy  # the example third benchmark, on its public list

# 2. the inputs as the site publishes them, and K-Viscuit as the Hub dataset's local stand-in
rm -rf "$WORK" && mkdir -p "$WORK"
PYTHONPATH=$CHECKOUT "$PY" "$HERE/demo_inputs.py" "$WORK"
"$LMMS_VENV/bin/python" "$HERE/kviscuit_dataset.py" "$WORK/kviscuit_gold.jsonl" "$WORK/images/kviscuit" "$WORK/kv_dataset"
export SCB_IMAGES=$WORK/images/scb TOY_IMAGES=$WORK/images/toy  # `images` of every harness: where they are

# 3. the tasks as a team writes them from the declarations; the one change: K-Viscuit's rows come from
#    the local stand-in of its Hub dataset (by a path relative to $WORK, lmms-eval's working folder, so
#    the results file it writes names no machine's folder)
(cd "$WORK" && "$LMMS_VENV/bin/python" -m scoring.harness.lmms_eval tasks tasks)
sed -i "s|^dataset_path: ddehun/k-viscuit\$|dataset_path: kv_dataset\ndataset_kwargs:\n  load_from_disk: true|" \
  "$WORK/tasks/kviscuit/kviscuit.yaml"
grep -q "load_from_disk" "$WORK/tasks/kviscuit/kviscuit.yaml"

# 4. the toy endpoint on a free loopback port, stopped by its pid at exit
PORT=${PORT:-$("$PY" -c 'import socket
for p in range(18001, 18100):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()')}
PYTHONPATH=$CHECKOUT "$PY" -m scoring.harness.runner.fake_endpoint --port "$PORT" > "$WORK/endpoint.log" 2>&1 &
ENDPOINT=$!
trap 'kill $ENDPOINT 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q serving "$WORK/endpoint.log" && break; sleep 0.2; done

# 5. lmms-eval, as a team runs it (tasks README): stage 1 and K-Viscuit, then stage 2 on stage 1's answers
cd "$WORK"
export OPENAI_API_KEY=sk-local HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
ARGS=(--model openai --model_args "model_version=toy,base_url=http://127.0.0.1:$PORT/v1,num_concurrent=4"
      --include_path tasks --predict_only --log_samples --output_path logs/)
[ -n "${LIMIT:-}" ] && ARGS+=(--limit "$LIMIT")
"$LMMS_VENV/bin/lmms-eval" eval "${ARGS[@]}" --tasks kviscuit,scb_stage1
"$LMMS_VENV/bin/lmms-eval" eval "${ARGS[@]}" --tasks toy
SCB_STAGE1_SAMPLES=$(ls "$WORK"/logs/*/*_samples_scb_stage1.jsonl) \
  "$LMMS_VENV/bin/lmms-eval" eval "${ARGS[@]}" --tasks scb_stage2

# 6. the files as written, under their own names, and what made them
rm -rf "$OUT" && mkdir -p "$OUT"
cp "$WORK"/logs/*/*_samples_*.jsonl "$WORK"/logs/*/*_results.json "$OUT/"
gzip -9n "$OUT"/*_samples_*.jsonl   # the same bytes, a tenth of the size in git (tests read them with gzip)
# what wrote them: the stand-in's answers hash the requests, whose image bytes depend on these versions (Pillow)
"$LMMS_VENV/bin/pip" freeze --exclude cultural-vlm-scoring > "$OUT/environment.txt"
PYTHONPATH=$CHECKOUT "$PY" - "$OUT" "$WORK" "${LIMIT:-}" <<'PY'
import json, sys
from pathlib import Path

import scoring
from scoring.benchmarks import load_environment_plugins

load_environment_plugins()

out, work, limit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
manifest = {
    "tool": "lmms-eval", "version": "0.7.3",
    "model": "--model openai against python -m scoring.harness.runner.fake_endpoint (the toy model)",
    "tasks": ["kviscuit", "scb_stage1", "scb_stage2", "toy"], "limit": int(limit) if limit else None,
    "questions": "the embedded default's demo (python -m scoring demo), published order",
    "script": "scripts/harness-fixtures/lmms_eval.sh",
    "gold_versions": {b: scoring.load_gold(b, work / f"{b}_gold.jsonl").version for b in ("scb", "kviscuit", "toy")},
    "files": sorted(p.name for p in out.iterdir()),
}
(out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n")
PY
ls -la "$OUT"
