"""The launch options enable_fp_fusion and maxnreg on the GPU compile path (no GPU needed):
the PTX of tilec.compile, ptxas accepting it, and the errors."""
import re

import pytest

import tilec
import tilec.language as tl
from tilec import _C

import seed_kernels as sk


@tilec.jit
def axpb(X, Y, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    y = tl.load(Y + offs, mask=m)
    tl.store(Z + offs, x * y + x - y, mask=m)


@tilec.jit
def exp_times(X, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Z + offs, tl.exp(x) * x, mask=m)


@tilec.jit
def axpb_half(X, Z, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m)
    tl.store(Z + offs, x * x + x, mask=m)


def ops(ptx, ty="f32"):
    """Counter-like dict: 'mul.rn' / 'mul' ... -> count, for add/sub/mul of `ty`."""
    out = {}
    for m in re.finditer(r"^\s*(add|sub|mul)(\.rn)?\." + ty + r"\b", ptx, re.M):
        k = m.group(1) + (m.group(2) or "")
        out[k] = out.get(k, 0) + 1
    return out


def ptx_of(kernel, sig, cx, **kw):
    return tilec.compile(kernel, sig, cx, target="sm_90a", **kw).asm["ptx"]


def test_user_ops_lose_rn_with_fusion():
    # x * y + x - y: the product and its one add contract to fma.rn (contract-fma, as LLVM
    # does for Triton); the sub keeps no modifier, so ptxas may still contract it
    sig = "*fp32:16,*fp32:16,*fp32:16,i32"
    text = ptx_of(axpb, sig, {"BLOCK": 256})
    off = ops(ptx_of(axpb, sig, {"BLOCK": 256}, enable_fp_fusion=False))
    assert ops(text) == {"sub": 2} and text.count("fma.rn.f32") == 2, text
    assert off == {"mul.rn": 2, "add.rn": 2, "sub.rn": 2}, off


def test_default_is_fusion_on():
    sig = "*fp32:16,*fp32:16,*fp32:16,i32"
    assert ptx_of(axpb, sig, {"BLOCK": 256}) == \
        ptx_of(axpb, sig, {"BLOCK": 256}, enable_fp_fusion=True)


def test_f64_follows_the_option():
    sig = "*fp64:16,*fp64:16,*fp64:16,i32"
    text = ptx_of(axpb, sig, {"BLOCK": 128})
    assert ops(text, "f64") == {"sub": 1} and text.count("fma.rn.f64") == 1
    assert ops(ptx_of(axpb, sig, {"BLOCK": 128}, enable_fp_fusion=False), "f64") == \
        {"mul.rn": 1, "add.rn": 1, "sub.rn": 1}


def test_math_function_internals_keep_rn():
    sig = "*fp32:16,*fp32:16,i32"
    on = ops(ptx_of(exp_times, sig, {"BLOCK": 256}))
    off = ops(ptx_of(exp_times, sig, {"BLOCK": 256}, enable_fp_fusion=False))
    # exp's scaling by log2(e) keeps .rn; only the user's `* x` loses it
    assert on == {"mul.rn": 2, "mul": 2}, on
    assert off == {"mul.rn": 4}, off


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_half_precision_unchanged(dtype):
    sig = f"*{dtype}:16,*{dtype}:16,i32"
    assert ptx_of(axpb_half, sig, {"BLOCK": 256}) == \
        ptx_of(axpb_half, sig, {"BLOCK": 256}, enable_fp_fusion=False)


def test_maxnreg_directive():
    sig = "*fp32:16,*fp32:16,*fp32:16,i32"
    ptx = ptx_of(axpb, sig, {"BLOCK": 256}, maxnreg=128)
    assert re.search(r"^\.reqntid 128, 1, 1\n\.maxnreg 128$", ptx, re.M), ptx[:600]
    assert ".maxnreg" not in ptx_of(axpb, sig, {"BLOCK": 256})


@pytest.mark.parametrize("n", [8, 256])
def test_maxnreg_out_of_range(n):
    with pytest.raises(Exception, match="maxnreg"):
        ptx_of(axpb, "*fp32:16,*fp32:16,*fp32:16,i32", {"BLOCK": 256}, maxnreg=n)


@pytest.mark.skipif(not _C.gpu_find_ptxas(), reason="needs ptxas")
@pytest.mark.parametrize("fusion", [True, False])
def test_ptxas_accepts_seed_layernorm(fusion):
    sig = "*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32"
    k = tilec.compile(sk.layernorm_kernel, sig, {"BLOCK_SIZE": 8192}, num_warps=8,
                      target="sm_90a", enable_fp_fusion=fusion, maxnreg=128)
    assert k.asm.get("cubin"), "ptxas produced no cubin"
    assert ".maxnreg 128" in k.asm["ptx"]


@tilec.jit
def mul_add(X, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N)
    tl.store(X + offs, x * 1.5 + 1.0, mask=offs < N)


def test_a_product_and_its_add_are_one_fma_as_in_triton():
    # Triton's test_enable_fp_fusion reads its PTX for (mad|fma).rn.f32
    on = ptx_of(mul_add, "*fp32:16,i32", {"BLOCK": 128})
    off = ptx_of(mul_add, "*fp32:16,i32", {"BLOCK": 128}, enable_fp_fusion=False)
    assert re.search(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32", on)
    assert not re.search(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32", off)


@pytest.mark.parametrize("fusion", [True, False])
def test_the_simulator_rounds_the_fma_once(monkeypatch, fusion):
    # rounded once (fma) or twice (mul.rn, add.rn): the two differ on some inputs
    np = pytest.importorskip("numpy")
    monkeypatch.setenv("TILEC_SIMT", "1")
    x = np.random.default_rng(0).standard_normal(128).astype(np.float32)
    once = (x.astype(np.float64) * 1.5 + 1.0).astype(np.float32)  # exact, then rounded
    twice = (x * np.float32(1.5)) + np.float32(1.0)
    assert (once != twice).any()
    y = x.copy()
    tilec.jit(mul_add.fn)[(1,)](y, 128, BLOCK=128, enable_fp_fusion=fusion)
    np.testing.assert_array_equal(y, once if fusion else twice)

