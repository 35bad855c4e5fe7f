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
#   make harness-fixtures        (every script in scripts/harness-fixtures/)
#   bash scripts/harness-fixtures/inspect_hub.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
APP_PY=${APP_PY:-$ROOT/.venv/bin/python}
INSPECT_VERSION=${INSPECT_VERSION:-0.3.285}
INSPECT_VENV=${INSPECT_VENV:-/work/venvs/inspect}
OUT=$ROOT/tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/eval-yaml
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

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
