#!/usr/bin/env bash
# The GPU check, run on a machine with an NVIDIA GPU (CI has none):
#   1. the environment (GPU, driver, ptxas, Python packages);
#   2. pip install --no-build-isolation --no-deps -e .  (builds the extension);
#   3. the C++ runtime tests, GPU ones included (skipped when GoogleTest is missing);
#   3b. the C++ API test (test_api) and examples/cpp built with `tilec compile` and run;
#   4. pytest -m gpu  (tests/python, GPU-marked tests);
#   5. benchmarks/gpu_*.py, each writing JSON;
# then one short table, last. Logs and JSON go to $OUT when set (else
# /tmp/tilec-gpu-check). Every step has a time limit; the whole run stays under 8 minutes.
# GPU_CHECK_STEPS="env install pytest_gpu" runs only the steps named (default: all), to
# split the check over two device calls that each stay under the per-call limit.
# Exit status: 0 when every step passed (benchmarks only need to run).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG=${OUT:-/tmp/tilec-gpu-check}
mkdir -p "$LOG"
PY=${PYTHON:-python3}
JOBS=${TILEC_JOBS:-$(nproc)}
export CMAKE_BUILD_PARALLEL_LEVEL=$JOBS
START=$(date +%s)
SUMMARY="$LOG/steps.tsv"
: > "$SUMMARY"

# run_step NAME LIMIT_SECONDS COMMAND...: output to $LOG/NAME.log, one row in steps.tsv.
run_step() {
  local name=$1 limit=$2
  shift 2
  if [ -n "${GPU_CHECK_STEPS:-}" ] && [[ " $GPU_CHECK_STEPS " != *" $name "* ]]; then
    return 0
  fi
  local t0 t1 rc status
  t0=$(date +%s.%N)
  echo "== $name: $*" | tee -a "$LOG/all.log"
  timeout --kill-after=10 "$limit" "$@" > "$LOG/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  case $rc in
    0) status=ok ;;
    124|137) status="TIMEOUT(${limit}s)" ;;
    *) status="FAILED($rc)" ;;
  esac
  tail -n 25 "$LOG/$name.log" >> "$LOG/all.log"
  awk -v n="$name" -v s="$status" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%s\t%s\t%.0f\n", n, s, b - a }' >> "$SUMMARY"
  return $rc
}

env_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  echo "ptxas: $(command -v ptxas || echo none) ${TILEC_PTXAS:+(TILEC_PTXAS=$TILEC_PTXAS)}"
  [ -x /usr/local/cuda/bin/ptxas ] && /usr/local/cuda/bin/ptxas --version | tail -n 2
  echo "cmake: $(command -v cmake || echo none); ninja: $(command -v ninja || echo none)"
  "$PY" - <<'EOF'
import importlib, platform
print("python", platform.python_version())
for m in ("torch", "triton", "numpy", "nanobind", "scikit_build_core", "pytest"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "missing:", type(e).__name__)
import torch
print("torch cuda", torch.version.cuda, "devices", torch.cuda.device_count())
EOF
  return 0
}

have_gtest() {
  for d in /usr/include /usr/local/include; do
    [ -e "$d/gtest/gtest.h" ] && return 0
  done
  return 1
}

cpp_tests() {
  if ! have_gtest; then
    echo "GoogleTest not installed: C++ tests skipped"
    return 0
  fi
  local gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B build-gpu-check "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTILEC_BUILD_TESTS=ON \
    -DTILEC_BUILD_PYTHON=OFF >/dev/null &&
    cmake --build build-gpu-check --target test_runtime test_codegen -j "$JOBS" &&
    ./build-gpu-check/test_runtime &&
    ./build-gpu-check/test_codegen --gtest_filter='Gpu.*' # hand-built PTX incl. cp.async/wgmma
}

# The C++ API tests (GELU, softmax and descriptor kernels launched through include/tilec/tilec.h)
# and examples/cpp (add, softmax and a tensor-descriptor scale compiled by `tilec compile`,
# run with only libcuda).
cpp_api() {
  local gen=() tests=OFF api=skipped ex=FAIL rc=0 cc arch
  command -v ninja >/dev/null && gen=(-G Ninja)
  have_gtest && tests=ON
  cmake -S . -B build-gpu-check "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTILEC_BUILD_TESTS=$tests \
    -DTILEC_BUILD_PYTHON=OFF >/dev/null || return 1
  cmake --build build-gpu-check --target tilec -j "$JOBS" || return 1
  if [ $tests = ON ]; then
    cmake --build build-gpu-check --target test_api -j "$JOBS" &&
      ./build-gpu-check/test_api && api=passed || { api=FAILED; rc=1; }
  fi
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
  arch=sm_${cc:-90}; [ "$arch" = sm_90 ] && arch=sm_90a
  cmake -S examples/cpp -B build-gpu-check/example "${gen[@]}" -DTILEC_ARCH="$arch" \
    -DTILEC_EXECUTABLE="$PWD/build-gpu-check/tilec" >/dev/null &&
    cmake --build build-gpu-check/example -j "$JOBS" &&
    ./build-gpu-check/example/tilec_example && ex=PASS || rc=1
  echo "cpp_api: examples/cpp $ex ($arch), test_api $api"
  return $rc
}

benchmarks() {
  local rc=0
  for b in benchmarks/gpu_*.py; do
    [ -e "$b" ] || continue
    echo "-- $b"
    timeout 200 "$PY" "$b" --json "$LOG/$(basename "$b" .py).json" || rc=1
  done
  return $rc
}

export PY JOBS LOG
export -f env_info have_gtest cpp_tests cpp_api benchmarks
run_step env 60 bash -c env_info
run_step install 300 "$PY" -m pip install --no-build-isolation --no-deps -e .
run_step cpp_tests 240 bash -c cpp_tests
run_step cpp_api 240 bash -c cpp_api
run_step pytest_gpu 420 "$PY" -m pytest -m gpu -q -p no:cacheprovider -rs \
  --junitxml="$LOG/pytest_gpu.xml" tests/python
run_step benchmarks 420 bash -c benchmarks
# the user documents' perf_report vector add: $LOG/perf_report/vector-add-performance.{csv,png}
run_step perf_report 150 "$PY" tests/python/test_testing_vector_add.py "$LOG/perf_report"

# --- the table, last --------------------------------------------------------------------
"$PY" - "$LOG" "$(( $(date +%s) - START ))" <<'EOF'
import glob, json, os, re, sys
log, total = sys.argv[1], int(sys.argv[2])
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(log, "steps.tsv"))]

def tail_match(name, pattern):
    try:
        text = open(os.path.join(log, name + ".log")).read()
    except OSError:
        return ""
    found = re.findall(pattern, text, re.M)
    return found[-1] if found else ""

notes = {
    "env": tail_match("env", r"^(NVIDIA.*|.*H100.*|.*H200.*)$"),
    "cpp_tests": tail_match("cpp_tests", r"^\[  (?:PASSED|FAILED)  \].*$|^GoogleTest not.*$"),
    "pytest_gpu": tail_match("pytest_gpu", r"^=*\s*(\d+ (?:passed|failed).*?)\s*=*$"),
    "cpp_api": tail_match("cpp_api", r"^cpp_api: (.*)$"),
    "install": tail_match("install", r"^(Successfully installed.*|ERROR.*)$"),
    "perf_report": tail_match("perf_report", r"^perf_report wrote: .*/(vector-add-perf.*)$"),
}
print()
print(f"{'step':12} {'status':16} {'s':>5}  note")
for name, status, secs in rows:
    print(f"{name:12} {status:16} {secs:>5}  {notes.get(name, '')[:70]}")
for path in sorted(glob.glob(os.path.join(log, "gpu_*.json"))):
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        continue
    if "copy_gbps" in r:
        print(f"copy ceiling {r['copy_gbps']:.0f} GB/s on {r['machine']['device']}")
        for k, v in r["launch_us"].items():
            print(f"  launch {k:38} {'n/a' if v is None else f'{v:.2f} us'}")
        fc = r.get("first_call") or {}
        if fc.get("ms") is not None:
            print(f"  first call ({fc['kernel']}), empty cache: {fc['ms']:.1f} ms")
    for row in r.get("table", []):  # other benchmarks: rows of (name, value)
        print("  " + "  ".join(str(c) for c in row))
print(f"total {total} s; logs in {log}")
EOF
grep -qv $'\tok\t' "$SUMMARY" && exit 1
exit 0
