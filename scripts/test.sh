#!/usr/bin/env bash
# The whole test suite, set up from scratch if needed (README's second command; CI runs it):
#   1. C++ unit tests, built with -Wall -Wextra -Werror (Release) and run by ctest;
#   2. with CI=true or TILEC_SANITIZE_TESTS=1: the same tests again under ASan + UBSan;
#   3. the Python package installed in editable mode, then pytest (tests/python).
# Exits non-zero on the first failure. TILEC_JOBS sets build parallelism (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${TILEC_JOBS:-2}
PY=${PYTHON:-python3}
say() { printf '\n== [%4ss] %s\n' "$SECONDS" "$*"; }

# --- tools: compiler, CMake, Ninja, GoogleTest (Debian packages when missing) ------------
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
[ -e /usr/include/gtest/gtest.h ] || [ -e /usr/local/include/gtest/gtest.h ] || missing+=(libgtest-dev)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  else
    echo "scripts/test.sh: please install ${missing[*]}" >&2
    exit 1
  fi
fi

# --- Python build and test dependencies --------------------------------------------------
# One build folder serves the C++ tests and the extension, so nothing is compiled twice;
# the package is then installed from it without build isolation.
if ! "$PY" -c "import scikit_build_core, nanobind, numpy, pytest" 2>/dev/null; then
  say "installing Python build and test dependencies"
  "$PY" -m pip install -q "scikit-build-core>=0.10" "nanobind>=2.0" numpy pytest
fi
PYEXE=$("$PY" -c 'import sys; print(sys.executable)')

# --- C++ unit tests ------------------------------------------------------------------------
say "C++ unit tests and the extension (Release, -Werror)"
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEC_WERROR=ON \
  -DTILEC_BUILD_TESTS=ON -DTILEC_BUILD_PYTHON=ON -DPython_EXECUTABLE="$PYEXE" >/dev/null
ninja -C build-test -j"$JOBS"
ctest --test-dir build-test --output-on-failure -j"$JOBS"

if [ "${CI:-}" = true ] || [ "${TILEC_SANITIZE_TESTS:-0}" = 1 ]; then
  say "C++ unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer"
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DTILEC_SANITIZE=ON \
    -DTILEC_BUILD_TESTS=ON -DTILEC_BUILD_PYTHON=OFF >/dev/null
  ninja -C build-asan -j"$JOBS"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir build-asan --output-on-failure -j"$JOBS"
fi

# --- Python package and pytest ------------------------------------------------------------
say "Python package (pip install -e ., from build-test)"
"$PY" -m pip install -q --no-build-isolation -e . --config-settings=build-dir=build-test \
  --config-settings=cmake.define.TILEC_BUILD_TESTS=ON \
  --config-settings=cmake.define.TILEC_WERROR=ON

say "pytest"
set +e
"$PY" -m pytest tests/python -q -p no:cacheprovider
rc=$?
set -e
say "done (pytest exit code $rc)"
if [ $rc -eq 5 ]; then
  echo "scripts/test.sh: pytest collected no tests" >&2
  exit 1
fi
exit $rc
