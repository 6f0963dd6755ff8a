#!/usr/bin/env bash
# Conformance with Triton's own test suite and tutorials (docs/CONFORMANCE.md).
#
#   TRITON_SRC=/path/to/triton scripts/conformance.sh [options]
#
# Runs Triton's python/test/unit/language files (and tutorials) against tilec through the
# drop-in switch (TILEC_AS_TRITON=1) and, for the baseline, against the real Triton installed
# in the same Python, then prints per-file counts and the top failure reasons and writes a
# JSON under benchmarks/results/. Triton's files are read from TRITON_SRC (a checkout of
# v3.6.0, 7c56a5e4...; never copied into this repository).
#
# Options:
#   --target tilec|triton|both   which `triton` to run (default both; the summary compares)
#   --mode gpu|interpreter|cpu   gpu: --device cuda; interpreter: TRITON_INTERPRET=1,
#                                -m interpreter, --device cpu; cpu: every test with CPU
#                                tensors and no interpreter flag, which tilec runs on its
#                                tile interpreter (TILEC_SIMT=1: on the SIMT simulator) while
#                                the tests take their non-CUDA branches; no Triton baseline
#                                can run so (default gpu)
#   --files "a.py b.py"          test files (default: the twelve of the conformance issue)
#   --tutorials "01 02 ..."      tutorials to run as scripts (default: none)
#   -n N                         pytest-xdist workers (default: number of cores, at most 16)
#   --cap SECONDS                time cap of each target's pytest run (results are written
#                                as tests finish, so a capped run keeps what it did)
#   --test-timeout SECONDS       one test's limit (default 300)
#   --out DIR                    where runs are written (default /tmp/conformance)
#   --json FILE                  summary JSON (default benchmarks/results/conformance-<mode>.json)
#   -k EXPR                      pytest -k selection
#   --baseline FILE              Triton's results to compare with when Triton is not run
#                                (default for gpu: benchmarks/results/conformance-gpu-triton.jsonl.gz,
#                                Triton 3.6 on an H100, 2026-11-27)
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
TARGET=both MODE=gpu CAP=0 OUT=/tmp/conformance KEXPR="" TUTORIALS="" JSON="" BASELINE=""
TEST_TIMEOUT=300
FILES="test_core.py test_standard.py test_random.py test_matmul.py test_tuple.py
test_libdevice.py test_block_pointer.py test_tensor_descriptor.py test_conversions.py
test_compile_errors.py test_annotations.py test_decorator.py"
NPROC=$(nproc 2>/dev/null || echo 2)
N=$(( NPROC < 16 ? NPROC : 16 ))
while [ $# -gt 0 ]; do
  case "$1" in
    --target) TARGET=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    --files) FILES=$2; shift 2 ;;
    --tutorials) TUTORIALS=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --cap) CAP=$2; shift 2 ;;
    --test-timeout) TEST_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    -k) KEXPR=$2; shift 2 ;;
    --baseline) BASELINE=$2; shift 2 ;;
    *) echo "conformance.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ -z "${TRITON_SRC:-}" ] || [ ! -d "$TRITON_SRC/python/test/unit/language" ]; then
  echo "conformance.sh: set TRITON_SRC to a Triton source checkout (v3.6.0)" >&2
  exit 2
fi
TRITON_SRC=$(cd "$TRITON_SRC" && pwd)
export TRITON_SRC
JSON=${JSON:-$ROOT/benchmarks/results/conformance-$MODE.json}
LANG_DIR=$TRITON_SRC/python/test/unit/language
case "$TARGET" in both) TARGETS="triton tilec" ;; tilec|triton) TARGETS=$TARGET ;;
  *) echo "conformance.sh: --target tilec|triton|both" >&2; exit 2 ;; esac

run_target() {  # $1: tilec | triton
  local t=$1 dir=$OUT/$MODE/$1
  rm -rf "$dir"; mkdir -p "$dir/cache"
  local -a env_=(CONFORMANCE_OUT="$dir" CONFORMANCE_TEST_TIMEOUT="$TEST_TIMEOUT"
                 PYTHONPATH="$ROOT/tests/conformance${PYTHONPATH:+:$PYTHONPATH}"
                 TRITON_CACHE_DIR="$dir/cache/triton" TILEC_CACHE_DIR="$dir/cache/tilec"
                 PYTHONUNBUFFERED=1)
  if [ "$t" = tilec ]; then env_+=(TILEC_AS_TRITON=1); else env_+=(TILEC_AS_TRITON=); fi
  local -a args=(-p conformance_plugin -p no:cacheprovider -q -rN --tb=line -n "$N")
  if [ "$MODE" = interpreter ]; then
    env_+=(TRITON_INTERPRET=1); args+=(-m interpreter --device cpu)
  elif [ "$MODE" = cpu ]; then
    env_+=(TRITON_INTERPRET=); args+=(--device cpu)
  else
    env_+=(TRITON_INTERPRET=); args+=(--device cuda)
  fi
  [ -n "$KEXPR" ] && args+=(-k "$KEXPR")
  local -a files=()
  for f in $FILES; do files+=("$LANG_DIR/$f"); done
  echo "== $t ($MODE): pytest ${#files[@]} files, -n $N${CAP:+, cap ${CAP}s}"
  local start=$SECONDS
  ( cd "$LANG_DIR" && if [ "$CAP" -gt 0 ]; then
      env "${env_[@]}" timeout -s INT -k 30 "$CAP" "$PY" -m pytest "${args[@]}" "${files[@]}"
    else
      env "${env_[@]}" "$PY" -m pytest "${args[@]}" "${files[@]}"
    fi ) > "$dir/pytest.log" 2>&1
  echo "   pytest exit $? after $((SECONDS - start)) s; log $dir/pytest.log"
  for tut in $TUTORIALS; do
    local path
    path=$(ls "$TRITON_SRC"/python/tutorials/"$tut"-*.py 2>/dev/null | head -1)
    [ -z "$path" ] && { echo "   no tutorial $tut"; continue; }
    local name log rc t0=$SECONDS
    name=$(basename "$path")
    log=$dir/tutorial-${name%.py}.log
    ( cd "$dir" && env "${env_[@]}" timeout -k 10 600 "$PY" "$path" ) > "$log" 2>&1
    rc=$?
    "$PY" - "$dir/results.jsonl" "tutorials/$name" "$rc" "$log" $((SECONDS - t0)) <<'EOF'
import json, sys, time
out, test, rc, log, secs = sys.argv[1:]
lines = open(log, errors="replace").read().splitlines()
msg = "" if rc == "0" else (lines[-1] if lines else f"exit {rc}")
with open(out, "a") as f:
    f.write(json.dumps({"test": test, "outcome": "passed" if rc == "0" else "failed",
                        "message": msg, "duration": float(secs), "time": time.time()}) + "\n")
EOF
    echo "   tutorial $name: exit $rc ($((SECONDS - t0)) s)"
  done
}

for t in $TARGETS; do run_target "$t"; done
sum_args=(--tilec "$OUT/$MODE/tilec" --triton-src "$TRITON_SRC" --json "$JSON" --label "$MODE")
BASELINE=${BASELINE:-$ROOT/benchmarks/results/conformance-$MODE-triton.jsonl.gz}
if [ -f "$OUT/$MODE/triton/results.jsonl" ]; then sum_args+=(--triton "$OUT/$MODE/triton")
elif [ -f "$BASELINE" ]; then sum_args+=(--triton "$BASELINE"); fi
if [ -f "$OUT/$MODE/tilec/results.jsonl" ]; then
  "$PY" "$ROOT/tests/conformance/summarize.py" "${sum_args[@]}"
else
  "$PY" "$ROOT/tests/conformance/summarize.py" --tilec "$OUT/$MODE/triton" \
    --triton-src "$TRITON_SRC" --label "$MODE-triton-only"
fi
