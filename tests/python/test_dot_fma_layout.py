"""An FMA dot's result layout (fp32 "ieee" on any GPU; shapes and types the tensor cores do
not take): lanes and warps split between M and N so each thread's block of the result
reads the fewest operand values a K step. The default blocked layout gave a 128 x 128
result one column of 128 rows a thread (129 values a step, 8192 A values a thread): ptxas
ran for minutes on Triton's test_dot kernels, and kernels of 64 x 64 spilled 16 KB. The
lowering also runs the fmas K step outermost, so a thread holds its accumulators and one
step's operands."""
import re
import shutil
import subprocess

import pytest

import tilec as triton
import tilec.language as tl
from tilec import _C, _sources


@triton.jit
def fma_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m = tl.arange(0, M)
    n = tl.arange(0, N)
    kk = tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + kk[None, :])
    b = tl.load(b_ptr + kk[:, None] * N + n[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + m[:, None] * N + n[None, :], c)


def compiled(M, N, K, warps):
    """The kernel down the GPU path for sm_90a, without ptxas: its stages' IR and PTX."""
    specs = [("pointer", ("fp32", True))] * 3 + [("constexpr", v) for v in (M, N, K)]
    return _C.compile_simt(_sources.function_source(fma_dot), specs, warps, 3, False, "sm_90a")


def dot_layout(k):
    line = next(l for l in k.ir("remove-conversions").splitlines() if " = dot " in l)
    return re.search(r"-> tile<[^,]*, (#blocked<[^>]*>)>", line).group(1)


@pytest.mark.parametrize("M, N, K, warps, layout", [
    # 16 rows x 8 columns a thread (the store's own layout: no conversion after the dot)
    (128, 128, 64, 4, "#blocked<spt=[1,4], tpw=[2,16], wpc=[4,1], order=[1,0]>"),
    (64, 128, 32, 4, "#blocked<spt=[1,4], tpw=[2,16], wpc=[4,1], order=[1,0]>"),
    (128, 64, 32, 8, "#blocked<spt=[1,4], tpw=[2,16], wpc=[8,1], order=[1,0]>"),
    # fewer elements than threads: the default layout
    (16, 16, 16, 4, "#blocked<spt=[1,1], tpw=[2,16], wpc=[4,1], order=[1,0]>"),
])
def test_fma_dot_result_layout(M, N, K, warps, layout):
    assert dot_layout(compiled(M, N, K, warps)) == layout


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas")
@pytest.mark.parametrize("M, N, K", [(64, 64, 64), (64, 128, 32), (128, 128, 64)])
def test_fma_dot_assembles_without_spilling_much(tmp_path, M, N, K):
    """ptxas -v's spill stores: 0, 252 and 0 bytes (the default layout, its operands all
    fetched before the first fma: 16,732 and 19,308 bytes, and for 128 x 128 x 64 minutes
    of ptxas). The fmas run K step by K step, each step's operand loads and shuffles right
    before them; A's loads stay before B's staging when both go through shared memory
    (64 x 128 x 32: the barrier between them)."""
    f = tmp_path / "k.ptx"
    f.write_text(_C.compile_ptx(_sources.function_source(fma_dot),
                                [("pointer", ("fp32", True))] * 3 +
                                [("constexpr", v) for v in (M, N, K)], 4, 3, False, "sm_90a")[0])
    r = subprocess.run(["ptxas", "-v", "-arch=sm_90a", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    spill = int(re.search(r"(\d+) bytes spill stores", r.stderr).group(1))
    assert spill < 1024, r.stderr
