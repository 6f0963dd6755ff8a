"""The user's kernels (seed_kernels.py) on a CUDA GPU: the seeds' own host wrappers with
torch CUDA tensors, checked against torch references, and a few kernels checked against
the CPU tile interpreter on the same inputs (numpy copies). The matmul and attention
seeds (tl.dot) are in test_gpu_dot.py.

Every test is marked `gpu` and skipped without torch, a CUDA device or a driver;
scripts/gpu_check.sh runs them (`pytest -m gpu`) on a GPU machine."""

import ctypes
import os
import re
import subprocess
import sys
import textwrap
from collections import Counter

import numpy as np
import pytest

import tilec as triton
from tilec import _C

import seed_kernels as sk

from gpu_util import HAVE_GPU, torch

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = [sys.executable] + (["-S"] if sys.flags.no_site else [])


pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU, its driver and torch")]


def rand(shape, seed, dtype=None, lo=None, hi=None):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dtype = dtype or torch.float32
    if lo is None:
        return torch.randn(shape, device="cuda", generator=g, dtype=torch.float32).to(dtype)
    return (torch.rand(shape, device="cuda", generator=g) * (hi - lo) + lo).to(dtype)


def host(t):
    """A numpy copy of a CUDA tensor (for the CPU interpreter)."""
    return t.detach().cpu().numpy().copy()


def strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def on_gpu(compiled):
    assert compiled is not None and compiled.metadata.target.startswith("cuda"), compiled
    return compiled


def flush_c_stdout():
    """GPU printf output goes through the C library's stdout, which is block-buffered when
    pytest redirects fd 1 to a file: flush it so capfd sees the lines."""
    torch.cuda.synchronize()
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def pid_lines(text):
    return [ln for ln in text.splitlines() if ln.startswith("pid (")]


# --- vector add ------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 1000, 98432, 2**20 + 3])
def test_vector_add(n):
    x, y = rand(n, 1), rand(n, 2)
    out = sk.add(x, y)
    torch.cuda.synchronize()
    assert out.is_cuda
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_vector_add_runs_on_the_gpu_and_matches_the_interpreter():
    n = 98432 + 5
    x, y = rand(n, 3), rand(n, 4)
    out = torch.full_like(x, float("nan"))
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    k = on_gpu(sk.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024))
    assert ".entry add_kernel" in k.asm["ptx"] and k.asm["cubin"][:4] == b"\x7fELF"
    hx, hy, hout = host(x), host(y), np.full(n, np.nan, np.float32)
    sk.add_kernel[grid](hx, hy, hout, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(host(out), hout)


# --- GELU ------------------------------------------------------------------------------------

def gelu_ref(x):
    x = x.double()
    return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


@pytest.mark.parametrize("n", [1, 1000, 1024, 2**20 + 3])
def test_gelu(n):
    # |x| <= 4: the seed builds tanh from exp, which overflows to inf/inf = nan for large x
    x = rand(n, 5, lo=-4, hi=4)
    y = sk.gelu(x)
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), gelu_ref(x), rtol=1e-4, atol=1e-6)


def test_gelu_matches_the_interpreter():
    n = 5000
    x = rand(n, 6, lo=-4, hi=4)
    y = torch.empty_like(x)
    sk.triton_gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK_SIZE=1024)
    hx, hy = host(x), np.empty(n, np.float32)
    sk.triton_gelu_kernel[(triton.cdiv(n, 1024),)](hx, hy, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    # the GPU's exp is the fast ex2.approx path: a few ulp from the interpreter's
    np.testing.assert_allclose(host(y), hy, rtol=1e-5, atol=1e-6)


# --- softmax ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 1), (7, 100), (64, 1000), (3, 1024), (5, 1500),
                                   (33, 3000), (16384, 1024), (4096, 4096), (1024, 16384)])
def test_softmax(shape):
    x = rand(shape, 7)
    y = sk.softmax(x)
    torch.cuda.synchronize()
    ref = torch.softmax(x.double(), dim=1)
    torch.testing.assert_close(y.double(), ref, rtol=1e-5, atol=1e-6)


def test_softmax_strided_rows():
    base = rand((10, 300), 8)
    x = base[:, :200]  # input_row_stride != n_cols
    y = sk.softmax(x)
    torch.cuda.synchronize()
    torch.testing.assert_close(y.double(), torch.softmax(x.double(), dim=1), rtol=1e-5,
                               atol=1e-6)


def test_softmax_matches_the_interpreter():
    rows, cols = 37, 1000
    x = rand((rows, cols), 9) * 3
    y = torch.empty_like(x)
    sk.softmax_kernel[(rows,)](x, y, x.stride(0), y.stride(0), cols, BLOCK_SIZE=1024,
                               num_warps=4)
    hx, hy = host(x), np.zeros((rows, cols), np.float32)
    sk.softmax_kernel[(rows,)](hx, hy, strides(hx)[0], strides(hy)[0], cols, BLOCK_SIZE=1024,
                               num_warps=4)
    torch.cuda.synchronize()
    np.testing.assert_allclose(host(y), hy, rtol=1e-5, atol=1e-7)


# --- LayerNorm -------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 8), (16, 100), (9, 1024), (4, 3000), (512, 1024),
                                   (4096, 8192)])
def test_layernorm_fp16(shape):
    M, N = shape
    x = rand(shape, 10, torch.float16)
    w = rand(N, 11, torch.float16)
    b = rand(N, 12, torch.float16)
    y = sk.layernorm(x, w, b)
    torch.cuda.synchronize()
    assert y.dtype == torch.float16
    ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
    torch.testing.assert_close(y.float(), ref, rtol=2e-3, atol=2e-3)


def test_layernorm_matches_the_interpreter():
    M, N = 13, 1500
    x = rand((M, N), 13, torch.float16)
    w, b = rand(N, 14, torch.float16), rand(N, 15, torch.float16)
    y = torch.empty_like(x)
    mean = torch.empty(M, device="cuda")
    rstd = torch.empty(M, device="cuda")
    sk.layernorm_kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5, BLOCK_SIZE=2048,
                              num_warps=8)
    hx, hw, hb = host(x), host(w), host(b)
    hy = np.zeros((M, N), np.float16)
    hmean, hrstd = np.zeros(M, np.float32), np.zeros(M, np.float32)
    sk.layernorm_kernel[(M,)](hx, hy, hw, hb, hmean, hrstd, N, N, 1e-5, BLOCK_SIZE=2048,
                              num_warps=8)
    torch.cuda.synchronize()
    np.testing.assert_allclose(host(mean), hmean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(rstd), hrstd, rtol=1e-5)
    # fp16 outputs: at most one rounding step apart
    np.testing.assert_allclose(host(y).astype(np.float32), hy.astype(np.float32), rtol=1e-3,
                               atol=1e-3)


# --- in-place scale --------------------------------------------------------------------------

@pytest.mark.parametrize("n,block", [(128, 128), (1024, 256), (1 << 20, 1024)])
def test_simple_kernel_scales_in_place(n, block):
    x = torch.arange(n, device="cuda", dtype=torch.float32)
    k = on_gpu(sk.simple_kernel[(n // block,)](x, BLOCK_SIZE=block))
    torch.cuda.synchronize()
    torch.testing.assert_close(x, torch.arange(n, device="cuda", dtype=torch.float32) * 2,
                               rtol=0, atol=0)
    # the user inspects the compiled forms
    ptx = k.asm["ptx"]
    assert ".entry simple_kernel" in ptx and "ld.global" in ptx and "st.global" in ptx
    assert k.n_regs > 0


# --- printing from the device ----------------------------------------------------------------

def test_debug_kernel_prints(capfd):
    x = torch.arange(4 * 16, device="cuda", dtype=torch.float32) + 5
    capfd.readouterr()
    sk.debug_kernel[(4,)](x, BLOCK_SIZE=16)
    flush_c_stdout()
    gpu = pid_lines(capfd.readouterr().out)
    sk.debug_kernel[(4,)](host(x), BLOCK_SIZE=16)
    cpu = pid_lines(capfd.readouterr().out)
    assert cpu == ["pid (0, 0, 0) idx () Program ID: 0",
                   "pid (0, 0, 0) idx () First element: 5.000000"]
    assert Counter(gpu) == Counter(cpu), gpu


def test_add_kernel_debug_prints(capfd, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))  # compiled here: static_print runs
    n, block = 200, 32
    x = torch.ones(n, device="cuda")
    y = torch.full((n,), 2.0, device="cuda")
    out = torch.zeros(n, device="cuda")
    capfd.readouterr()
    sk.add_kernel_debug[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    flush_c_stdout()
    text = capfd.readouterr().out
    torch.testing.assert_close(out, torch.full_like(out, 3.0), rtol=0, atol=0)
    assert "BLOCK_SIZE:32" in text  # static_print, at compile time
    assert pid_lines(text) == ["pid (1, 0, 0) idx () pid: 1"], text
    # a second launch reuses the compiled kernel: no static_print, the same device print
    sk.add_kernel_debug[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    flush_c_stdout()
    text = capfd.readouterr().out
    assert "BLOCK_SIZE:32" not in text
    assert pid_lines(text) == ["pid (1, 0, 0) idx () pid: 1"], text
    # the interpreter prints the same line
    hout = np.zeros(n, np.float32)
    sk.add_kernel_debug[(triton.cdiv(n, block),)](host(x), host(y), hout, n, BLOCK_SIZE=block)
    assert pid_lines(capfd.readouterr().out) == ["pid (1, 0, 0) idx () pid: 1"]


def test_debug_kernel_prints_in_a_fresh_process(tmp_path):
    """The seed's debug kernel as a user runs it: a script whose output is read at exit."""
    code = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {os.path.join(HERE, "..", "data")!r})
        import seed_kernels as sk
        x = torch.arange(64, device="cuda", dtype=torch.float32) + 0.5
        sk.debug_kernel[(4,)](x, BLOCK_SIZE=16)
        torch.cuda.synchronize()
    """)
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path))
    r = subprocess.run(PYTHON + ["-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert Counter(pid_lines(r.stdout)) == Counter([
        "pid (0, 0, 0) idx () Program ID: 0",
        "pid (0, 0, 0) idx () First element: 0.500000"]), r.stdout


# --- heuristics ------------------------------------------------------------------------------

@pytest.mark.parametrize("n,block", [(100, 128), (5000, 256), (70000, 512), (300000, 1024)])
def test_heuristic_add(n, block):
    x, y = rand(n, 16), rand(n, 17)
    out = torch.zeros_like(x)
    seen = []

    def grid(meta):
        seen.append(meta["BLOCK_SIZE"])
        return (triton.cdiv(n, meta["BLOCK_SIZE"]),)

    k = on_gpu(sk.add_kernel_heuristic[grid](x, y, out, n))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert seen == [block]
    assert re.search(r"\.entry add_kernel_heuristic", k.asm["ptx"])
