"""The language suites and the seed kernels on the SIMT simulator: with TILEC_SIMT=1 every
kernel is lowered to Thread IR (the GPU path) and run by the simulator, and the tests'
numpy references — which the tile interpreter meets — must still hold. Then ptxas (when
found) must accept the PTX of every kernel they compiled, for sm_90a and sm_80.

tl.dot runs on the simulator (mma.sync / ldmatrix fragments, FMA), the seed matmul
(autotuned) and fused attention included.
The fault tests (test_lang_faults.py) check the interpreter's own error messages and are
not run here."""

import concurrent.futures
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ptxas_util import find_ptxas

HERE = Path(__file__).resolve().parent
SUITES = ["test_lang_binary.py", "test_lang_cast.py", "test_lang_control.py",
          "test_lang_math.py", "test_lang_memory.py", "test_lang_reduce.py",
          "test_lang_shape.py", "test_lang_atomic.py", "test_lang_debug.py",
          "test_lang_edges.py", "test_lang_random.py", "test_lang_blockptr.py",
          "test_lang_asm.py", "test_lang_sort.py",
          "test_lang_libdevice.py",
          "test_lang_gather.py", "test_lang_cuda.py", "test_lang_tensordesc.py",
          "test_lang_tensordesc_host.py",
          "test_seed_kernels.py", "test_lang_dot.py", "test_lang_dot_attention.py",
          "test_lang_dot_scaled.py"]
DESELECT: dict = {  # suite -> a pytest -k expression of tests not to run here
    # an out-of-range gather index is an interpreter fault; the GPU path wraps it
    "test_lang_gather.py": "not test_gather_index_out_of_range_is_a_fault",
}


def ptxas_errors(ptxas, files):
    def check(path):
        arch = "sm_90a" if path.name.endswith("_sm_90a.ptx") else "sm_80"
        r = subprocess.run([ptxas, f"-arch={arch}", str(path), "-o", os.devnull],
                           capture_output=True, text=True)
        return None if r.returncode == 0 else f"{path.name}: {r.stderr.strip()[:2000]}"
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        return [e for e in ex.map(check, files) if e]


@pytest.mark.parametrize("suite", SUITES)
def test_suite_on_simt_simulator(suite, tmp_path):
    env = dict(os.environ)
    env["TILEC_SIMT"] = "1"
    env["TILEC_SIMT_PTX_DIR"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "simt_ptx_plugin",
                        "-p", "no:cacheprovider", "-k", DESELECT.get(suite, ""),
                        str(HERE / suite)],
                       capture_output=True, text=True, env=env, cwd=HERE)
    assert r.returncode in (0, 5), f"{suite} on the SIMT simulator:\n{r.stdout[-6000:]}\n{r.stderr[-2000:]}"
    files = sorted(tmp_path.glob("*.ptx"))
    assert files, "no kernel was compiled down the GPU path"
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas not found: the PTX was not assembled")
    errors = ptxas_errors(ptxas, files)
    assert not errors, f"ptxas rejects {len(errors)} of {len(files)} kernels:\n" + "\n".join(errors[:5])
