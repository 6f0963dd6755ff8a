"""sink-past-loops (src/transforms/SinkPastLoops.h): index math that CSE shares between a K
loop's loads and the epilogue after it is recomputed after the loop in the epilogue's own
layout, not held in registers through the loop. A grouped GEMM whose programs walk their
tiles as tutorial 08's do: without the stage ptxas spilled in the K loop (556 bytes at 128 x
128 x 64, 4 warps, 3 stages) and the kernel ran 1.7 x slower than Triton's. PTX through
ptxas when there is one; results (marked) on the GPU: the tables of pointers need device
addresses."""
import re

import pytest

import tilec as triton
import tilec.language as tl
from ptxas_util import ptxas_report


@triton.jit
def walk_tiles(ptrs, sizes, lds, n_groups, PROGRAMS: tl.constexpr, BM: tl.constexpr,
               BN: tl.constexpr, BK: tl.constexpr):
    tile = tl.program_id(0)
    first = 0
    for g in range(n_groups):
        M = tl.load(sizes + g * 3)
        N = tl.load(sizes + g * 3 + 1)
        K = tl.load(sizes + g * 3 + 2)
        tiles_n = tl.cdiv(N, BN)
        count = tl.cdiv(M, BM) * tiles_n
        while tile >= first and tile < first + count:
            a = tl.load(ptrs + g * 3).to(tl.pointer_type(tl.float16))
            b = tl.load(ptrs + g * 3 + 1).to(tl.pointer_type(tl.float16))
            c = tl.load(ptrs + g * 3 + 2).to(tl.pointer_type(tl.float16))
            lda = tl.load(lds + g * 3)
            ldb = tl.load(lds + g * 3 + 1)
            ldc = tl.load(lds + g * 3 + 2)
            rows = (tile - first) // tiles_n * BM + tl.arange(0, BM)
            cols = (tile - first) % tiles_n * BN + tl.arange(0, BN)
            a_ptrs = a + rows[:, None] * lda + tl.arange(0, BK)[None, :]
            b_ptrs = b + tl.arange(0, BK)[:, None] * ldb + cols[None, :]
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for _ in range(0, tl.cdiv(K, BK)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
                a_ptrs += BK
                b_ptrs += BK * ldb
            # the same rows and cols as the loads': CSE makes them one value
            tl.store(c + rows[:, None] * ldc + cols[None, :], acc.to(tl.float16))
            tile += PROGRAMS
        first += count


SIG = "*i64:16,*i32:16,*i32:16,i32"


def ptx(bm=128, bn=128, bk=64):
    return triton.compile(walk_tiles, SIG, {"PROGRAMS": 4, "BM": bm, "BN": bn, "BK": bk},
                          num_warps=4, num_stages=3, target="cuda:90").asm["ptx"]


def test_epilogue_index_math_is_not_held_through_the_loop():
    text = ptx()
    assert "wgmma.mma_async" in text and "cp.async.cg.shared.global" in text
    report = ptxas_report(text)
    spills = re.search(r"(\d+) bytes spill stores", report)
    assert spills and spills.group(1) == "0", report


@pytest.mark.gpu
def test_results_on_the_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    g = torch.Generator(device="cuda").manual_seed(5)
    shapes = [(256, 128, 192), (128, 256, 64), (384, 128, 128)]  # (M, N, K), 2-6 tiles each
    a = [torch.randint(-3, 4, (m, k), device="cuda", generator=g).half() for m, n, k in shapes]
    b = [torch.randint(-3, 4, (k, n), device="cuda", generator=g).half() for m, n, k in shapes]
    c = [torch.full((m, n), float("nan"), device="cuda").half() for m, n, k in shapes]
    ptrs = torch.tensor([t.data_ptr() for trio in zip(a, b, c) for t in trio], device="cuda")
    sizes = torch.tensor([v for s in shapes for v in s], dtype=torch.int32, device="cuda")
    lds = torch.tensor([v for m, n, k in shapes for v in (k, n, n)], dtype=torch.int32,
                       device="cuda")
    walk_tiles[(4,)](ptrs, sizes, lds, len(shapes), PROGRAMS=4, BM=128, BN=128, BK=64,
                     num_warps=4, num_stages=3)
    for x, y, z in zip(a, b, c):
        torch.testing.assert_close(z.float(), x.float() @ y.float(), atol=0, rtol=0)
