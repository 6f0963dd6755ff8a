"""PTX of the seed kernels (all but matmul and attention, which need tl.dot) from
tilec._C.compile_ptx: the launch metadata, the instructions the performance targets rest
on (16-byte vector accesses, warp shuffles) and ptxas acceptance for sm_90a and sm_80."""

import re
import subprocess

import pytest

from tilec import _C, _sources
import seed_kernels as sk
from ptxas_util import find_ptxas


def ptr(dtype="fp32", aligned=True):
    return ("pointer", (dtype, aligned))


def i32(div16=False):
    return ("int", ("i32", div16, False))


def cx(v):
    return ("constexpr", v)


# (kernel, specs, num_warps, features the sm_90a PTX must have)
CASES = {
    "add": (sk.add_kernel, [ptr(), ptr(), ptr(), i32(True), cx(1024)], 4,
            ["ld.global.v4.b32", "st.global.v4.b32", ".reqntid 128, 1, 1"]),
    "add_unaligned_n": (sk.add_kernel, [ptr(), ptr(), ptr(), i32(), cx(1024)], 4,
                        ["ld.global.b32"]),
    "gelu": (sk.triton_gelu_kernel, [ptr(), ptr(), i32(True), cx(1024)], 4,
             ["ld.global.v4.b32", "ex2.approx.f32", "div.full.f32"]),
    "softmax": (sk.softmax_kernel, [ptr(), ptr(), i32(True), i32(True), i32(True), cx(1024)],
                4, ["shfl.sync.bfly.b32", "ld.global.v4.b32", "bar.sync"]),
    "softmax_16_warps": (sk.softmax_kernel,
                         [ptr(), ptr(), i32(True), i32(True), i32(True), cx(16384)], 16,
                         ["shfl.sync.bfly.b32", ".reqntid 512, 1, 1"]),
    "layernorm": (sk.layernorm_kernel,
                  [ptr("fp16"), ptr("fp16"), ptr("fp16"), ptr("fp16"), ptr(), ptr(), i32(True),
                   i32(True), ("float", "fp32"), cx(1024)], 4,
                  ["ld.global.v4.b32", "shfl.sync.bfly.b32", "sqrt.approx.ftz.f32"]),
    "simple": (sk.simple_kernel, [ptr(), cx(1024)], 4, ["ld.global.v4.b32"]),
    "debug": (sk.debug_kernel, [ptr(), cx(64)], 4, ["vprintf"]),
    "add_debug": (sk.add_kernel_debug, [ptr(), ptr(), ptr(), i32(), cx(128)], 4, ["vprintf"]),
    "heuristic": (sk.add_kernel_heuristic.fn if hasattr(sk.add_kernel_heuristic, "fn")
                  else sk.add_kernel_heuristic, [ptr(), ptr(), ptr(), i32(True), cx(512)], 4,
                  ["ld.global.v4.b32"]),
}


def jit_fn(k):
    while not hasattr(k, "arg_names") or not hasattr(k, "src"):
        k = k.fn
    return k


def compile_case(name, arch):
    kernel, specs, warps, _ = CASES[name]
    fs = _sources.function_source(jit_fn(kernel))
    return _C.compile_ptx(fs, specs, warps, 3, False, arch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_seed_ptx_features(name):
    ptx, meta = compile_case(name, "sm_90a")
    assert ".target sm_90a" in ptx
    assert f".entry {meta['name']}(" in ptx
    for feature in CASES[name][3]:
        assert feature in ptx, f"{name}: no {feature!r} in the PTX"
    assert meta["num_warps"] == CASES[name][2]
    kinds = [k for _, k in meta["params"]]
    assert kinds[0] in ("ptr",)


def test_add_metadata():
    ptx, meta = compile_case("add", "sm_80")
    assert ".target sm_80" in ptx
    assert meta["name"] == "add_kernel"
    assert meta["arch"] == "sm_80"
    assert meta["params"] == [("x_ptr", "ptr"), ("y_ptr", "ptr"), ("output_ptr", "ptr"),
                              ("n_elements", "i32")]
    assert meta["shared"] == 0


def test_softmax_uses_shared_memory_across_warps():
    _, meta = compile_case("softmax", "sm_90a")
    assert meta["shared"] > 0


def test_layernorm_mask_compared_once_per_run_of_columns():
    # cols < N with N a multiple of 16 is constant over each thread's 8 contiguous columns
    # (axis info's constancy): one compare serves the thread's loads, where and stores
    ptx, _ = compile_case("layernorm", "sm_90a")
    assert ptx.count("setp.lt.s32") == 1, ptx
    assert ptx.count("selp.f32") == 8, ptx
    # N not known to be a multiple of 16: a compare per element
    kernel, specs, warps, _ = CASES["layernorm"]
    specs = list(specs)
    specs[7] = i32(False)
    ptx, _ = _C.compile_ptx(_sources.function_source(jit_fn(kernel)), specs, warps, 3, False,
                            "sm_90a")
    assert ptx.count("setp.lt.s32") == 8, ptx


def test_thread_columns_from_the_thread_index_in_one_shift():
    # 8 fp16 columns a thread over 4 warps: column = tid * 8 (lane and warp bits run on),
    # and the column's address widens unsigned (columns are never negative)
    import re

    ptx, _ = compile_case("layernorm", "sm_90a")
    tid = re.search(r"mov\.u32 (%r\d+), %tid\.x;", ptx).group(1)
    prologue = ptx[ptx.index("%tid.x"):ptx.index("$L__body:")]
    col = re.search(r"shl\.b32 (%r\d+), " + tid + r", 3;", prologue)
    assert col and "xor.b32" not in prologue, prologue
    assert re.search(r"mad\.wide\.u32 %rd\d+, " + col.group(1) + ", 2,", ptx), ptx


def test_layernorm_sum_of_squares_in_running_chains():
    # 32 columns a thread (8192 over 8 warps): xmean * xmean is summed by 4 running chains of
    # 8, each add taking one product and the chain's partial sum (the first two products),
    # so each is one fma.rn (contract-fma; ptxas made the same of the mul + add pairs before;
    # a halving tree would add 16 pairs of products), and 3 adds join the chains
    kernel, specs, _, _ = CASES["layernorm"]
    specs = list(specs)
    specs[-1] = cx(8192)
    ptx, _ = _C.compile_ptx(_sources.function_source(jit_fn(kernel)), specs, 8, 3, False,
                            "sm_90a")
    start = ptx.index("selp.f32")
    body = ptx[start:ptx.index("shfl.sync.bfly", start)].splitlines()
    ops = [l.replace(",", " ").replace(";", " ").split() for l in body if l.strip()]
    products = {o[1] for o in ops if o[0] == "mul.f32"}
    fmas = [o for o in ops if o[0] == "fma.rn.f32"]
    adds = [o for o in ops if o[0] == "add.f32"]
    # each chain's first fma takes its second product as the addend
    firsts = sum(1 for f in fmas if f[4] in products)
    assert len(products) == 4 and len(fmas) == 28 and len(adds) == 3, body
    assert firsts == 4 and all(f[2] == f[3] for f in fmas), body


def test_softmax_row_max_is_one_chain_in_load_order():
    # 32 columns a thread (16384 over 16 warps): the max over them is one chain in element
    # order, fed first by the first load, as Triton's is; ptxas then issues the loads in
    # address order (four chains let it start with the second one, 0.25 % slower)
    ptx, _ = compile_case("softmax_16_warps", "sm_90a")
    loads = re.findall(r"ld\.global\.v4\.b32 \{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}", ptx)
    assert len(loads) == 8, ptx
    body = ptx[ptx.index(loads[-1][0]):ptx.index("shfl.sync.bfly")]
    maxes = [l.replace(",", " ").replace(";", " ").split()
             for l in body.splitlines() if l.strip().startswith("max.f32")]
    assert len(maxes) == 31, body
    assert {maxes[0][2], maxes[0][3]} == {loads[0][0], loads[0][1]}, body
    elements = [r for vec in loads for r in vec]
    for prev, m in zip(maxes, maxes[1:]):
        assert m[2] == prev[1] or m[3] == prev[1], (prev, m)
    assert [m[3] if m[2] == p[1] else m[2] for p, m in zip(maxes, maxes[1:])] == elements[2:]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_seed_ptx_assembles(name, arch, tmp_path):
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas not found")
    ptx, _ = compile_case(name, arch)
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run([ptxas, f"-arch={arch}", str(f), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_matmul_compiles_to_mma():
    fs = _sources.function_source(jit_fn(sk.matmul_kernel))
    specs = [ptr("fp16"), ptr("fp16"), ptr("fp16")] + [i32(True)] * 9 + [cx(64), cx(64), cx(32),
                                                                        cx(8)]
    ptx, _ = _C.compile_ptx(fs, specs, 4, 3, False, "sm_80")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx
    # sm_90a: a 64-row tile on 4 warps is one warpgroup's wgmma
    ptx, _ = _C.compile_ptx(fs, specs, 4, 3, False, "sm_90a")
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16" in ptx


def attention_ptx(arch="sm_90a"):
    fs = _sources.function_source(jit_fn(sk.fused_attention_kernel))
    one = ("int", ("i32", False, True))  # the unit strides, specialised as Triton does
    specs = ([ptr("fp16")] * 4 + [i32(True), i32(True), i32(True), one] * 4 +
             [i32(), i32(), i32(True), cx(128), cx(64), cx(64)])
    ptx, _ = _C.compile_ptx(fs, specs, 4, 2, False, arch)
    return ptx


def loop_body(ptx):
    return ptx[ptx.index("$L__body_1:"):ptx.index("$L__endloop:")]


def test_attention_ring_copies_follow_the_first_dot():
    """With 2 stages the copies for iteration i+1 are issued right after q k^T (its wait
    retires every earlier reader of the stage they overwrite), so they overlap the softmax
    and p v rather than nothing."""
    body = loop_body(attention_ptx())
    first_wait = body.index("wgmma.wait_group.sync.aligned 0;")
    copies = body.index("cp.async.cg.shared.global")
    second_dot = body.index("wgmma.mma_async", copies)
    assert first_wait < copies < body.index("ex2.approx") < second_dot
    assert body.count("cp.async.cg.shared.global") == 8  # k and v, 4 x 16 bytes a thread each


def test_attention_dots_interleaved_by_tiles_when_asked(monkeypatch, tmp_path):
    """TILEC_WGMMA_OVERLAP=1: one wgmma group per 64-row tile; the first tile's softmax runs
    while the second tile's q k^T does (wait_group 1), and ptxas keeps the wgmmas async."""
    monkeypatch.setenv("TILEC_WGMMA_OVERLAP", "1")
    monkeypatch.setenv("TILEC_EXP_TILE", "0")  # the pass reorders one-block loop bodies
    body = loop_body(attention_ptx())
    assert body.count("wgmma.commit_group") == 4
    first_softmax = body.index("ex2.approx")
    assert body.index("wgmma.wait_group.sync.aligned 1;") < first_softmax
    # the second tile's p v is issued after the first's, with softmax work between them
    pv0 = body.index("wgmma.fence", first_softmax)
    pv1 = body.index("wgmma.fence", pv0 + 1)
    assert "ex2.approx" in body[pv0:pv1]
    monkeypatch.delenv("TILEC_WGMMA_OVERLAP")
    assert loop_body(attention_ptx()).count("wgmma.commit_group") == 2
    ptxas = find_ptxas()
    if ptxas is None:
        return
    monkeypatch.setenv("TILEC_WGMMA_OVERLAP", "1")
    f = tmp_path / "a.ptx"
    f.write_text(attention_ptx())
    r = subprocess.run([ptxas, "-arch=sm_90a", str(f), "-o", str(tmp_path / "a.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "serialized" not in r.stderr, r.stderr


def test_attention_p_v_runs_on_across_the_back_edge(monkeypatch):
    """p v (the body's last wgmma group) is committed and left in flight: the next
    iteration's q k^T wait retires it (its bar.sync then guards the ring stage p v read),
    and the loop's exit waits for it. With TILEC_WGMMA_DEFER=1 only: by default ("auto")
    a body of two groups keeps p v's wait (it ran slower deferred on an H200)."""
    monkeypatch.setenv("TILEC_WGMMA_DEFER", "1")
    monkeypatch.setenv("TILEC_EXP_TILE", "0")  # the pass reorders one-block loop bodies
    ptx = attention_ptx()
    body = loop_body(ptx)
    assert body.count("wgmma.commit_group") == 2 and body.count("wgmma.wait_group") == 1
    assert body.rstrip().endswith("bra.uni $L__loop;")
    tail = body[body.rindex("wgmma.commit_group"):]
    assert "wait_group" not in tail and "bar.sync" not in tail
    first_wait = body.index("wgmma.wait_group.sync.aligned 0;")
    assert body[first_wait:].split("\n")[1].strip() == "bar.sync 0;"
    after = ptx[ptx.index("$L__endloop:"):].split("\n")
    assert after[1].strip() == "wgmma.wait_group.sync.aligned 0;"
    # p v, the block's second ring reader, has no barrier of its own to move: q k^T's
    # barrier comes before the copies that overwrite p v's stage
    assert after[2].strip() != "bar.sync 0;"
    monkeypatch.delenv("TILEC_WGMMA_DEFER")
    body = loop_body(attention_ptx())
    assert body.count("wgmma.wait_group.sync.aligned 0;") == 2
