"""enable_fp_fusion on a real GPU: the seed LayerNorm with fusion on (the default, mul+add
contracted into fma by ptxas) and off, both against torch within the seed tests' tolerance.
Prints the SASS FFMA/FADD/FMUL counts of each variant when cuobjdump is found."""
import re

import pytest

import seed_kernels as sk
from gpu_util import HAVE_GPU, torch

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU, its driver and torch")]


def sass_counts(kernel):
    sass = kernel.asm.get("sass")
    if not sass:
        return None
    return {op: len(re.findall(r"\b" + op + r"\b", sass)) for op in ("FFMA", "FADD", "FMUL")}


def test_seed_layernorm_with_and_without_fusion():
    M, N = 64, 8192
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn((M, N), device="cuda", generator=g).to(torch.float16)
    w = torch.randn(N, device="cuda", generator=g).to(torch.float16)
    b = torch.randn(N, device="cuda", generator=g).to(torch.float16)
    ref = torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-5)
    counts = {}
    for fusion in (True, False):
        y = torch.empty_like(x)
        mean = torch.empty(M, device="cuda")
        rstd = torch.empty(M, device="cuda")
        k = sk.layernorm_kernel[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5,
                                      BLOCK_SIZE=8192, num_warps=8, enable_fp_fusion=fusion)
        torch.cuda.synchronize()
        torch.testing.assert_close(y.float(), ref, rtol=2e-3, atol=2e-3)
        counts[fusion] = sass_counts(k)
        print(f"\nlayernorm {M}x{N} enable_fp_fusion={fusion}: SASS {counts[fusion]}")
    variants = [v for v in sk.layernorm_kernel.compiled_variants() if v.target != "cpu"]
    assert {v.options["enable_fp_fusion"] for v in variants} >= {True, False}
    if counts[True] is not None and counts[False] is not None:
        # ptxas contracts the kernel's own mul+add only when fusion is on
        assert counts[True]["FFMA"] > counts[False]["FFMA"], counts
