"""`tl.multiple_of(x, ...)` (and max_contiguous / max_constancy) as a statement, its result
dropped: Triton's hint annotates the value x itself, so it still holds for x's later uses.
Tutorial 08 (grouped GEMM) hints its loop-carried pointer tiles that way; the pointers are
read from memory, so without the hint nothing is known of their alignment and the loads
are not vectorised. tilec rebinds the variable named by the hint's input to the hinted
value. PTX text here, results on the SIMT simulator and (marked) on the GPU."""
import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


@triton.jit
def hinted_mm(A, B, C, off, K, HINT: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
              BK: tl.constexpr):
    # `off` is a runtime i32 of no known divisibility: so are the pointer tiles' starts
    a_ptrs = A + off + tl.arange(0, BM)[:, None] * K + tl.arange(0, BK)[None, :]
    b_ptrs = B + off + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if HINT == 1:  # as tutorial 08 writes it
            tl.multiple_of(a_ptrs, [16, 16])
            tl.multiple_of(b_ptrs, [16, 16])
        if HINT == 2:  # the keyword form
            tl.multiple_of(input=a_ptrs, values=[16, 16])
            tl.multiple_of(input=b_ptrs, values=[16, 16])
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(C + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], acc)


SIG = "*fp16:16,*fp16:16,*fp32:16,i32,i32:16"
CONST = {"BM": 64, "BN": 64, "BK": 32}


def ptx(hint):
    return triton.compile(triton.jit(hinted_mm.fn), SIG, dict(CONST, HINT=hint),
                          num_warps=4, num_stages=2).asm["ptx"]


@pytest.mark.parametrize("hint", [1, 2])
def test_statement_hint_vectorises_the_loads(hint):
    text = ptx(hint)
    # 16-byte copies into the ring: 64 x 32 and 32 x 64 fp16 tiles, 128 threads
    copies = [line for line in text.splitlines() if "cp.async.cg.shared.global" in line]
    assert copies and all(line.rstrip(";").split(",")[2].strip() == "16" for line in copies)
    assert "wgmma.mma_async" in text
    # the loop-carried pointer tiles take the loads' layout through the hint: no pointer
    # tile goes through shared memory to change layout (64-bit shared stores)
    assert "st.shared.b64" not in text and "st.shared.v2.b64" not in text


def test_without_the_hint_the_loads_stay_narrow():
    text = ptx(0)
    assert "cp.async.cg.shared.global" not in text  # 2-byte loads: no 16-byte ring copies


def test_hint_of_an_expression_rebinds_nothing():
    @triton.jit
    def k(X, Y, off):
        p = X + off + tl.arange(0, 64)
        tl.multiple_of(p + 0, 16)  # not a name: p keeps what it was
        tl.store(Y + tl.arange(0, 64), tl.load(p))

    text = triton.compile(k, "*fp32:16,*fp32:16,i32", {}).asm["ptx"]
    assert "ld.global.v4" not in text


def _run(hint):
    M, N, K = 64, 64, 96
    rng = np.random.default_rng(4)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    triton.jit(hinted_mm.fn)[(1,)](a, b, c, 0, K, HINT=hint, num_stages=2, **CONST)
    return c, a.astype(np.float32) @ b.astype(np.float32)


@pytest.mark.parametrize("hint", [0, 1, 2])
def test_results_on_the_simulator(monkeypatch, hint):
    monkeypatch.setenv("TILEC_SIMT", "1")
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    c, ref = _run(hint)
    np.testing.assert_array_equal(c, ref)


def test_results_on_the_interpreter():
    c, ref = _run(1)
    np.testing.assert_array_equal(c, ref)


@triton.jit
def grouped_mm(group_a, group_b, group_c, sizes, n_groups, BM: tl.constexpr,
               BN: tl.constexpr, BK: tl.constexpr):
    """Tutorial 08's loop, one tile per program and group (program g: group g)."""
    g = tl.program_id(0)
    M = tl.load(sizes + g * 3)
    N = tl.load(sizes + g * 3 + 1)
    K = tl.load(sizes + g * 3 + 2)
    a_ptr = tl.load(group_a + g).to(tl.pointer_type(tl.float16))
    b_ptr = tl.load(group_b + g).to(tl.pointer_type(tl.float16))
    c_ptr = tl.load(group_c + g).to(tl.pointer_type(tl.float16))
    a_ptrs = a_ptr + tl.arange(0, BM)[:, None] * K + tl.arange(0, BK)[None, :]
    b_ptrs = b_ptr + tl.arange(0, BK)[:, None] * N + tl.arange(0, BN)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        tl.multiple_of(a_ptrs, [16, 16])
        tl.multiple_of(b_ptrs, [16, 16])
        acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
        a_ptrs += BK
        b_ptrs += BK * N
    tl.store(c_ptr + tl.arange(0, BM)[:, None] * N + tl.arange(0, BN)[None, :],
             acc.to(tl.float16))


@pytest.mark.gpu
def test_grouped_gemm_on_the_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    from gpu_util import grouped_operands
    shapes = [(64, 64, 128), (64, 64, 256), (64, 64, 64)]
    a, b, c, ptrs, sizes = grouped_operands(torch, shapes, seed=8)
    k = grouped_mm[(len(shapes),)](*ptrs, sizes, len(shapes), BM=64, BN=64, BK=32)
    for x, y, z in zip(a, b, c):
        torch.testing.assert_close(z.float(), x.float() @ y.float(), atol=0.1, rtol=1e-2)
    copies = [line for line in k.asm["ptx"].splitlines() if "cp.async.cg.shared.global" in line]
    assert copies and all(line.rstrip(";").split(",")[2].strip() == "16" for line in copies)


def test_nested_hints_as_a_statement():
    """Triton's test_vectorization_hints: max_contiguous(multiple_of(offsets, 1024), 1024)
    as a statement makes the loads of `src + offsets` 16-byte vectors."""
    @triton.jit
    def k(dst, src, off, N, BLOCK_SIZE: tl.constexpr, HINT: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        offsets = offsets + tl.load(off)
        if HINT:
            tl.max_contiguous(tl.multiple_of(offsets, 1024), 1024)
        x = tl.load(src + offsets, mask=offsets < N)
        tl.store(dst + offsets, x, mask=offsets < N)

    for hint in (True, False):
        text = triton.compile(k, "*fp32:16,*fp32:16,*i32:16,i32:16", {"BLOCK_SIZE": 1024,
                                                                  "HINT": hint}).asm["ptx"]
        assert ("ld.global.v4.b32" in text) == hint
