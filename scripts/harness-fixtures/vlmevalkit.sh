#!/bin/bash
# Fixtures written by VLMEvalKit's own code (issue 28): install ms-vlmeval (VLMEvalKit's code on the
# package index) in its own environment, serve the embedded default's public files as the site does,
# run VLMEvalKit's inference (infer_data_job, its OpenAIWrapper) with the leaderboard's dataset classes
# (vlmevalkit/) against the toy endpoint (python -m scoring.harness.runner.fake_endpoint, 127.0.0.1:18002), and copy
# the prediction files it wrote into tests/fixtures/harness/vlmevalkit-<version>/. Run from a checkout:
#   make harness-fixtures            (or: bash scripts/harness-fixtures/vlmevalkit.sh)
# Variables: PY (the app's python, default .venv/bin/python), VLMEVAL_VENV (VLMEvalKit's environment,
# default .harness/vlmevalkit), WORK (scratch, default .harness/vlmevalkit-work), PORT (the toy
# endpoint, default 18002), SITE_PORT (the file server, default a free one), SCB_LIMIT (SCB: only the
# first N questions, for a trial; default 0 = all 3,178, about 15 minutes on 2 busy cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
CHECKOUT=$PWD
PY=${PY:-$CHECKOUT/.venv/bin/python}
VLMEVAL_VENV=${VLMEVAL_VENV:-$CHECKOUT/.harness/vlmevalkit}
WORK=${WORK:-$CHECKOUT/.harness/vlmevalkit-work}
PORT=${PORT:-18002}
SITE_PORT=${SITE_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
SCB_LIMIT=${SCB_LIMIT:-0}
VERSION=0.0.20

# 1. VLMEvalKit without its 70-odd dependencies (torch models, judges), plus what its dataset, API and
#    inference modules import, and the leaderboard's scoring package (the protocol, the answer reader).
if [ ! -x "$VLMEVAL_VENV/bin/python" ]; then python3 -m venv "$VLMEVAL_VENV"; fi
VPY=$VLMEVAL_VENV/bin/python
$VPY -m pip install --quiet --no-deps "ms-vlmeval==$VERSION"
$VPY -m pip install --quiet pandas numpy pillow openpyxl xlsxwriter requests tqdm tabulate termcolor validators \
  sty timeout-decorator python-dotenv portalocker rich openai huggingface_hub datasets levenshtein joblib decord \
  torchvision jieba nltk rouge math_verify pylatexenc opencv-python-headless imageio scipy json_repair num2words \
  scikit-learn transformers qwen_vl_utils accelerate  # accelerate: vlmeval.vlm imports it at start (0.0.20)
$VPY -m pip install --quiet "$CHECKOUT/scoring[vlmevalkit]" && rm -rf "$CHECKOUT/scoring/build"
export LEADERBOARD_PLUGINS=scoring.benchmarks.toy  # the example third benchmark: its TSV and its dataset

# 2. The public files as the site serves them, on a plain file server; the toy endpoint.
rm -rf "$WORK" && mkdir -p "$WORK/site" "$WORK/LMUData" "$WORK/out"
PYTHONPATH=$CHECKOUT $PY scripts/harness-fixtures/vlmevalkit_site.py "$WORK/site"
$PY -m http.server "$SITE_PORT" --bind 127.0.0.1 --directory "$WORK/site" >"$WORK/site.log" 2>&1 &
SITE_PID=$!
PYTHONPATH=$CHECKOUT $PY -m scoring.harness.runner.fake_endpoint --port "$PORT" >"$WORK/endpoint.log" 2>&1 &
ENDPOINT_PID=$!
trap 'kill $SITE_PID $ENDPOINT_PID 2>/dev/null || true' EXIT
sleep 2

# 3. VLMEvalKit's inference through the leaderboard's datasets (run from a folder that is not the
#    checkout, so the kit comes from the installed package).
SITE=http://127.0.0.1:$SITE_PORT/questions
API=http://127.0.0.1:$PORT/v1/chat/completions
export LMUData=$WORK/LMUData
run() { (cd "$WORK" && $VPY -m scoring.harness.vlmevalkit.run "$@" --model toy --api-base "$API" --work-dir out); }
run kviscuit --tsv "$SITE/kviscuit.tsv"
run toy --tsv "$SITE/toy.tsv"
for format in tsv json; do (export PRED_FORMAT=$format; run kviscuit --tsv "$SITE/kviscuit.tsv"); done  # its other formats
if [ "$SCB_LIMIT" = 0 ]; then run scb --tsv "$SITE/scb.tsv" --grounding-format plain
else run scb --tsv "$SITE/scb.tsv" --grounding-format plain --limit "$SCB_LIMIT"; fi
(cd "$WORK" && $VPY "$CHECKOUT/scripts/harness-fixtures/vlmevalkit_prompts.py" \
  "$SITE/scb.tsv" "$SITE/kviscuit.tsv" out/toy_SCB_LB.xlsx > out/prompts.json)

# 4. The files as VLMEvalKit wrote them.
OUT=$CHECKOUT/tests/fixtures/harness/vlmevalkit-$VERSION
mkdir -p "$OUT"
cp "$WORK"/out/toy_KViscuit_LB.{xlsx,tsv,json} "$WORK/out/toy_SCB_LB.xlsx" "$WORK/out/toy_SCB_LB_STAGE2.xlsx" \
  "$WORK/out/toy_toy_LB.xlsx" \
  "$WORK/out/prompts.json" "$OUT/"
$VPY -m pip freeze --exclude cultural-vlm-scoring > "$OUT/environment.txt"  # no machine path: the kit is this checkout
ls -l "$OUT"
