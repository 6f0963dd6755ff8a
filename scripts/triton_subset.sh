#!/usr/bin/env bash
# Extracts what the conformance harness and benchmarks/tutorial06.py read of Triton v3.6.0
# from a git clone (or a bare mirror) of triton-lang/triton or a fork that carries the
# commit (woct0rdho/triton-windows), into DEST (default .triton, which git ignores):
#   scripts/triton_subset.sh /path/to/triton.git [DEST]
# Then: TRITON_SRC=DEST scripts/conformance.sh ...   (docs/CONFORMANCE.md)
set -euo pipefail
GIT=${1:?usage: scripts/triton_subset.sh GIT_DIR [DEST]}
DEST=${2:-$(cd "$(dirname "$0")/.." && pwd)/.triton}
COMMIT=7c56a5e40f7fd928dfd5c72902d5def0097db73a # v3.6.0
mkdir -p "$DEST"
git -C "$GIT" archive "$COMMIT" python/test/unit python/test/conftest.py python/tutorials \
  python/triton/_internal_testing.py python/triton/_filecheck.py | tar -x -C "$DEST"
echo "Triton $COMMIT test files in $DEST"
