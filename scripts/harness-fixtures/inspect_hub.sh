#!/usr/bin/env bash
# The benchmarks' eval.yaml (`python -m leaderboard export --benchmark B --eval-yaml`) checked by the
# real inspect-ai's Hub loader, the code behind `inspect eval hf/OWNER/DATASET/TASK`.
#
# Installs inspect-ai (INSPECT_VERSION) with huggingface_hub and datasets (what its hf/ tasks need)
# into its own venv ($INSPECT_VENV), prints both files and checks them with inspect_eval_yaml.py
# (inspect-ai's HFTask model, solvers and scorers built as its loader builds them). The files and
# the loader's findings go to tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/eval-yaml/
# (scb.eval.yaml, kviscuit.eval.yaml, validation.json); tests/leaderboard/test_hub_results.py
# checks that --eval-yaml still prints the files the loader accepted.
#
# Then it runs K-Viscuit from its eval.yaml as the Hub would: hub_kviscuit.py serves the test Hub-API
# server with the dataset repo ddehun/k-viscuit (that eval.yaml and the demo gold's $LIMIT rows as
# Parquet, image_url on a local file server, images as the app serves them: app_inputs.py) and the
# toy endpoint; `inspect eval hf/ddehun/k-viscuit/kviscuit_accuracy` runs against both
# (HF_ENDPOINT). The log goes to hub/kviscuit_accuracy.eval beside the same responses as our JSON
# Lines (hub/kviscuit_accuracy.jsonl: inspect_hub_jsonl.py, each sample's question found by what it
# asked); tests/scoring/test_inspect_logs.py scores both.
#
#   make harness-fixtures        (every script in scripts/harness-fixtures/)
#   bash scripts/harness-fixtures/inspect_hub.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
APP_PY=${APP_PY:-$ROOT/.venv/bin/python}
INSPECT_VERSION=${INSPECT_VERSION:-0.3.285}
INSPECT_VENV=${INSPECT_VENV:-$ROOT/.harness/inspect-ai-$INSPECT_VERSION}
LIMIT=${LIMIT:-657}
OUT=$ROOT/tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/eval-yaml
HUB_OUT=$ROOT/tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/hub
WORK=$(mktemp -d)
trap 'exec 8>&- || true; rm -rf "$WORK"' EXIT

if ! "$INSPECT_VENV/bin/python" -c "import inspect_ai, sys; sys.exit(inspect_ai.__version__ != '$INSPECT_VERSION')" 2>/dev/null; then
  python3 -m venv "$INSPECT_VENV"
  "$INSPECT_VENV/bin/pip" install --quiet "inspect-ai==$INSPECT_VERSION" openai
fi
"$INSPECT_VENV/bin/pip" install --quiet "huggingface_hub>=1.0" datasets  # inspect-ai's hf/ tasks need both

mkdir -p "$OUT" "$WORK/data"
for bench in scb kviscuit; do
  LEADERBOARD_DATA_DIR=$WORK/data PYTHONPATH=$ROOT "$APP_PY" -m leaderboard export --benchmark "$bench" --eval-yaml \
    > "$OUT/$bench.eval.yaml"
done
"$INSPECT_VENV/bin/python" scripts/harness-fixtures/inspect_eval_yaml.py "$OUT/validation.json" \
  "$OUT/scb.eval.yaml" "$OUT/kviscuit.eval.yaml"
ls -l "$OUT"

LEADERBOARD_DATA_DIR=$WORK/app PYTHONPATH=$ROOT "$APP_PY" scripts/harness-fixtures/app_inputs.py "$WORK/inputs" --limit "$LIMIT"
exec 8> >(PYTHONPATH=$ROOT "$APP_PY" scripts/harness-fixtures/hub_kviscuit.py "$OUT/kviscuit.eval.yaml" \
  "$WORK/inputs/images/kviscuit" --limit "$LIMIT" > "$WORK/servers.env")  # serves until fd 8 closes
for _ in $(seq 100); do grep -q TOY_BASE_URL "$WORK/servers.env" 2>/dev/null && break; sleep 0.2; done
set -a; . "$WORK/servers.env"; set +a
export TOY_API_KEY=toy-key HF_HUB_DISABLE_XET=1 HF_HOME=$WORK/hf-home
(cd "$WORK" && "$INSPECT_VENV/bin/inspect" eval hf/ddehun/k-viscuit/kviscuit_accuracy --model openai-api/toy/toy-vlm \
  --log-dir "$WORK/logs" --log-format eval --display plain --no-log-images)
exec 8>&-
log=$(ls "$WORK/logs"/*.eval | head -1)
mkdir -p "$HUB_OUT"
cp "$log" "$HUB_OUT/kviscuit_accuracy.eval"
"$INSPECT_VENV/bin/python" scripts/harness-fixtures/inspect_hub_jsonl.py "$log" "$WORK/inputs/kviscuit-questions.jsonl" \
  "$HUB_OUT/kviscuit_accuracy.jsonl"
ls -l "$HUB_OUT"
