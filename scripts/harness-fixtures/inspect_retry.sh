#!/usr/bin/env bash
# An Inspect AI SCB run interrupted and resumed with `inspect eval-retry`, as the real inspect-ai writes it.
#
# Runs `inspect eval scoring/scb` (inspect-ai INSPECT_VERSION, its venv $INSPECT_VENV as inspect_ai.sh
# makes it) on the first $LIMIT questions of the app's demo list against the toy endpoint, kills it
# (SIGKILL, its whole process group) once it reports $KILL_AT samples done, then runs
# `inspect eval-retry` on the killed log. A retried log holds the samples that had finished but were not
# yet written with an empty store (their stages only in their events and messages), and the killed
# run's cancelled samples beside their retried ones under the same member name; the script tries again
# (up to $TRIES times) until the retried log has at least one empty store. The log goes to
# tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/retry/scb-retried.eval, with what inspect-ai's own
# reader finds in it (retry/found.json); tests/scoring/test_inspect_logs.py reads both.
#
#   bash scripts/harness-fixtures/inspect_retry.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
APP_PY=${APP_PY:-$ROOT/.venv/bin/python}
INSPECT_VERSION=${INSPECT_VERSION:-0.3.285}
INSPECT_VENV=${INSPECT_VENV:-$ROOT/.harness/inspect-ai-$INSPECT_VERSION}
PORT=${PORT:-18004}
LIMIT=${LIMIT:-300}
KILL_AT=${KILL_AT:-150}
TRIES=${TRIES:-5}
OUT=$ROOT/tests/fixtures/harness/inspect_ai-$INSPECT_VERSION/retry
WORK=$(mktemp -d)
ENDPOINT=""
cleanup() { if [ -n "$ENDPOINT" ]; then kill "$ENDPOINT" 2>/dev/null || true; fi; rm -rf "$WORK"; }
trap cleanup EXIT

if ! "$INSPECT_VENV/bin/python" -c "import inspect_ai, sys; sys.exit(inspect_ai.__version__ != '$INSPECT_VERSION')" 2>/dev/null; then
  python3 -m venv "$INSPECT_VENV"
  "$INSPECT_VENV/bin/pip" install --quiet "inspect-ai==$INSPECT_VERSION" openai
fi
"$INSPECT_VENV/bin/pip" install --quiet --force-reinstall --no-deps ./scoring && rm -rf scoring/build
"$INSPECT_VENV/bin/pip" install --quiet numpy pycocotools orjson zstandard

LEADERBOARD_DATA_DIR=$WORK/data PYTHONPATH=$ROOT "$APP_PY" scripts/harness-fixtures/app_inputs.py "$WORK/inputs" --limit "$LIMIT"
PYTHONPATH=$ROOT "$APP_PY" -m scoring.harness.runner.fake_endpoint --port "$PORT" &
ENDPOINT=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.2
done
export TOY_BASE_URL="http://127.0.0.1:$PORT/v1" TOY_API_KEY=toy-key

for try in $(seq "$TRIES"); do
  rm -rf "$WORK/killed" "$WORK/retried"
  setsid "$INSPECT_VENV/bin/inspect" eval scoring/scb --model openai-api/toy/toy-vlm \
    -T questions="$WORK/inputs/scb-questions.jsonl" -T images="$WORK/inputs/images/scb" -T grounding_format=qwen2_5_vl \
    --limit "$LIMIT" --log-dir "$WORK/killed" --log-format eval --display plain --no-log-images > "$WORK/run.log" 2>&1 &
  RUN=$!
  while kill -0 "$RUN" 2>/dev/null; do
    done_now=$(grep -o "Samples: *[0-9]*" "$WORK/run.log" | tail -1 | grep -o "[0-9]*" || echo 0)
    if [ "${done_now:-0}" -ge "$KILL_AT" ]; then kill -9 -- "-$RUN" 2>/dev/null || true; break; fi
    sleep 0.2
  done
  wait "$RUN" 2>/dev/null || true
  killed=$(ls "$WORK/killed"/*.eval | head -1)
  "$INSPECT_VENV/bin/inspect" eval-retry "$killed" --log-dir "$WORK/retried" --display plain --no-log-images > "$WORK/retry.log" 2>&1
  retried=$(ls "$WORK/retried"/*.eval | head -1)
  if "$INSPECT_VENV/bin/python" - "$retried" "$WORK/found.json" <<'PY'
import json, sys, zipfile
from collections import Counter
from inspect_ai.log import read_eval_log
log = read_eval_log(sys.argv[1])
names = Counter(i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist() if i.filename.startswith("samples/"))
found = {
    "inspect_ai": __import__("inspect_ai").__version__,
    "status": log.status,
    "samples": len(log.samples or []),
    "empty_store": sorted(str(s.id) for s in log.samples if not s.store),
    "members_twice": sorted(n for n, k in names.items() if k > 1),
}
json.dump(found, open(sys.argv[2], "w"), indent=1)
print(json.dumps({k: (v if not isinstance(v, list) else len(v)) for k, v in found.items()}))
sys.exit(0 if log.status == "success" and found["empty_store"] else 1)
PY
  then
    mkdir -p "$OUT"
    cp "$retried" "$OUT/scb-retried.eval"
    cp "$WORK/found.json" "$OUT/found.json"
    ls -l "$OUT"
    exit 0
  fi
  echo "try $try: no sample with an empty store; again" >&2
done
echo "no retried log with an empty store in $TRIES tries" >&2
exit 1
