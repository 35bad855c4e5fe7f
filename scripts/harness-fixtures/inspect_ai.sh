#!/usr/bin/env bash
# Fixtures of Inspect AI's .eval logs, written by the real inspect-ai against the toy endpoint.
#
# Installs inspect-ai (INSPECT_VERSION) and the leaderboard's scoring package into its own venv
# ($INSPECT_VENV), seeds the embedded default's demo store in a temporary folder, writes the app's
# question lists and the images of their first $LIMIT questions (default: all; app_inputs.py, through the app's
# own routes), starts `python -m scoring.harness.runner.fake_endpoint` on 127.0.0.1:$PORT and runs
# `inspect eval` of inspect_tasks/kviscuit.py and inspect_tasks/scb.py on those questions
# (--limit $LIMIT). The logs go to tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/ as
# kviscuit.eval and scb.eval, beside the same responses as our JSON Lines (kviscuit.jsonl,
# scb.jsonl) read with inspect-ai's own reader (inspect_jsonl.py); tests/scoring/test_inspect_logs.py
# reads them.
#
#   make harness-fixtures        (every script in scripts/harness-fixtures/)
#   bash scripts/harness-fixtures/inspect_ai.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
APP_PY=${APP_PY:-$ROOT/.venv/bin/python}
INSPECT_VERSION=${INSPECT_VERSION:-0.3.285}
INSPECT_VENV=${INSPECT_VENV:-$ROOT/.harness/inspect-ai-$INSPECT_VERSION}
PORT=${PORT:-18003}
LIMIT=${LIMIT:-100000}  # more than any list holds: every question (LIMIT=40 for a quick run)
OUT=$ROOT/tests/fixtures/harness/inspect_ai-$INSPECT_VERSION
WORK=$(mktemp -d)
ENDPOINT=""
cleanup() { if [ -n "$ENDPOINT" ]; then kill "$ENDPOINT" 2>/dev/null || true; fi; rm -rf "$WORK"; }
trap cleanup EXIT

if ! "$INSPECT_VENV/bin/python" -c "import inspect_ai, sys; sys.exit(inspect_ai.__version__ != '$INSPECT_VERSION')" 2>/dev/null; then
  python3 -m venv "$INSPECT_VENV"
  "$INSPECT_VENV/bin/pip" install --quiet "inspect-ai==$INSPECT_VERSION" openai
fi
"$INSPECT_VENV/bin/pip" install --quiet --force-reinstall --no-deps ./scoring && rm -rf scoring/build
"$INSPECT_VENV/bin/pip" install --quiet numpy pycocotools orjson zstandard  # the kit's own needs, [inspect]
export LEADERBOARD_PLUGINS=scoring.benchmarks.toy  # the example third benchmark: the app's list and its task

LEADERBOARD_DATA_DIR=$WORK/data PYTHONPATH=$ROOT "$APP_PY" scripts/harness-fixtures/app_inputs.py "$WORK/inputs" --limit "$LIMIT"
PYTHONPATH=$ROOT "$APP_PY" -m scoring.harness.runner.fake_endpoint --port "$PORT" &
ENDPOINT=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.2
done

export TOY_BASE_URL="http://127.0.0.1:$PORT/v1" TOY_API_KEY=toy-key INSPECT_LOG_DIR="$WORK/logs"
run() {  # benchmark, then extra -T arguments
  local bench=$1; shift
  (cd "$WORK" && "$INSPECT_VENV/bin/inspect" eval "scoring/$bench" --model openai-api/toy/toy-vlm \
    -T questions="$WORK/inputs/$bench-questions.jsonl" -T images="$WORK/inputs/images/$bench" "$@" \
    --limit "$LIMIT" --log-dir "$WORK/logs/$bench" --log-format eval --display plain --no-log-images)
  local log
  log=$(ls "$WORK/logs/$bench"/*.eval | head -1)
  "$INSPECT_VENV/bin/python" -c "import sys; from inspect_ai.log import read_eval_log as r; \
log = r(sys.argv[1], header_only=True); sys.exit(log.status != 'success' and f'{sys.argv[1]}: {log.status}')" "$log"
  mkdir -p "$OUT"
  cp "$log" "$OUT/$bench.eval"
  "$INSPECT_VENV/bin/python" scripts/harness-fixtures/inspect_jsonl.py "$log" "$OUT/$bench.jsonl"
}
run kviscuit
run scb -T grounding_format=qwen2_5_vl
run toy
ls -l "$OUT"
