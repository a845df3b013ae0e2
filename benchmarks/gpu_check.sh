#!/bin/bash
# The GPU check in one go, from the project's root on a CUDA machine (not a test):
# bench_all.py on SmolLM2-1.7B's and Llama-3-8B's shapes in bfloat16 (sized to fit 8 minutes on
# one H200), then every readout command once on the 1.7B shape. OUT (default runs/gpu) receives
# bench_all.json, every_command/every_command.json and both logs. SHAPES, DEVICE, DTYPE and SIZE
# change what runs (SHAPES=135m DEVICE=cpu DTYPE=float32 SIZE=quick: the same script on a CPU).
# With no package index there: carry the wheels as .whl/ (docs/performance.md says which) and
# the embedded model's config and tokenizer (bench_all.py --write-source DIR here; SOURCE=DIR).
set -u
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-runs/gpu}
PY=${PY:-python3}
MODELS=${MODELS:-$(mktemp -d)}
SHAPES=${SHAPES:-1.7b,8b}
DEVICE=${DEVICE:-cuda}
DTYPE=${DTYPE:-bfloat16}
SIZE=${SIZE:-auto}
FIRST=${SHAPES%%,*}
mkdir -p "$OUT"
if [ -d .whl ] && [ -z "${SKIP_WHEELS:-}" ]; then
  "$PY" -m pip install -q --no-index --no-deps --target /tmp/readout-site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/readout-site${PYTHONPATH:+:$PYTHONPATH}
fi
source_args=()
[ -n "${SOURCE:-}" ] && source_args=(--source "$SOURCE")
timeout "${BENCH_LIMIT:-480}" "$PY" benchmarks/bench_all.py --shape "$SHAPES" --device "$DEVICE" \
  --dtype "$DTYPE" --size "$SIZE" "${source_args[@]}" --keep-models "$MODELS" \
  --json "$OUT/bench_all.json" 2>&1 |
  tee "$OUT/bench_all.log"
bench=${PIPESTATUS[0]}
timeout "${COMMANDS_LIMIT:-300}" "$PY" benchmarks/every_command.py --model "hf:$MODELS/$FIRST" \
  --sft-model "hf:$MODELS/$FIRST" --device "$DEVICE" --dtype "$DTYPE" --limit "${LIMIT:-60}" \
  --out "$OUT/every_command" 2>&1 | tee "$OUT/every_command.log"
commands=${PIPESTATUS[0]}
echo "bench_all exit $bench, every_command exit $commands"
[ "$bench" = 0 ] && [ "$commands" = 0 ]
