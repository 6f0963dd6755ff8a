"""Every case of the language suites (test_lang_*.py) and the seed-kernel tests on a CUDA
GPU: each suite runs in its own process with gpu_lang_plugin (TILEC_TEST_ON_GPU=1), so
every kernel those tests launch on numpy arrays runs on the GPU and must meet the same
numpy references the tile interpreter meets. Suites run side by side (one process each).

Not run here, with the reason: test_lang_faults.py checks the interpreter's own
out-of-bounds messages (the GPU reports faults through the driver, tested in
test_gpu_runtime.py). DESELECT lists the few cases that check interpreter-only behaviour."""

import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_util import HAVE_GPU

HERE = Path(__file__).resolve().parent
SUITES = ["test_lang_binary.py", "test_lang_cast.py", "test_lang_control.py",
          "test_lang_math.py", "test_lang_memory.py", "test_lang_reduce.py",
          "test_lang_shape.py", "test_lang_atomic.py", "test_lang_debug.py",
          "test_lang_edges.py", "test_lang_random.py", "test_lang_blockptr.py",
          "test_lang_asm.py", "test_lang_sort.py", "test_lang_libdevice.py",
          "test_lang_gather.py", "test_lang_cuda.py", "test_lang_tensordesc.py",
          "test_lang_tensordesc_host.py",
          "test_lang_dot.py", "test_lang_dot_attention.py", "test_lang_dot_scaled.py",
          "test_seed_kernels.py"]
# suite -> a pytest -k expression of cases not to run on the GPU (interpreter-only checks)
# A failed device assert leaves the CUDA context unusable (its GPU variant runs in a process of
# its own in test_introspection.py). A strided numpy view is a host-array feature (the
# interpreter bounds-checks against the view's base); device arrays are passed whole.
# GPU printf writes to the process's stdout (fd 1), which `capsys` does not capture: those
# seed tests run with `capfd` in test_gpu_seed_kernels.py. The interpreter's bounds checks
# (an unchecked block pointer reading past its array) are not the GPU's.
DESELECT: dict = {
    "test_lang_debug.py": "not test_device_assert_fails_with_debug and not "
                          "test_device_assert_fails_with_triton_debug and not "
                          "test_python_assert_in_kernel",
    "test_lang_memory.py": "not test_strided_numpy_view",
    "test_lang_blockptr.py": "not test_missing_boundary_check_is_a_bounds_error",
    "test_lang_gather.py": "not test_gather_index_out_of_range_is_a_fault",
    "test_seed_kernels.py": "not test_debug_kernel_prints and not test_add_kernel_debug_prints",
}

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU, its driver and torch")]


def run_suite(suite):
    env = dict(os.environ)
    env["TILEC_TEST_ON_GPU"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in [env.get("PYTHONPATH")] if p])
    args = [sys.executable, "-m", "pytest", "-q", "-p", "gpu_lang_plugin", "-p",
            "no:cacheprovider", "-m", "not gpu"]
    if DESELECT.get(suite):
        args += ["-k", DESELECT[suite]]
    r = subprocess.run(args + [str(HERE / suite)], capture_output=True, text=True, env=env,
                       cwd=HERE)
    return r


_results = {}


def _all_results():
    if not _results:
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(SUITES),
                                                                   os.cpu_count() or 4)) as ex:
            _results.update(zip(SUITES, ex.map(run_suite, SUITES)))
    return _results


@pytest.mark.parametrize("suite", SUITES)
def test_suite_on_gpu(suite):
    r = _all_results()[suite]
    summary = [line for line in r.stdout.splitlines() if " passed" in line or " failed" in line]
    print(suite, summary[-1] if summary else "(no summary)")
    failed = "\n".join(line for line in r.stdout.splitlines() if line.startswith(("FAILED", "ERROR")))
    assert r.returncode in (0, 5), \
        f"{suite} on the GPU:\n{failed}\n{r.stdout[-6000:]}\n{r.stderr[-2000:]}"
