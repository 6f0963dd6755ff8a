"""PTX of the seed kernels (all but matmul and attention, which need tl.dot) from
tilec._C.compile_ptx: the launch metadata, the instructions the performance targets rest
on (16-byte vector accesses, warp shuffles) and ptxas acceptance for sm_90a and sm_80."""

import os
import shutil
import subprocess

import pytest

from tilec import _C, _sources
import seed_kernels as sk


def ptr(dtype="fp32", aligned=True):
    return ("pointer", (dtype, aligned))


def i32(div16=False):
    return ("int", ("i32", div16, False))


def cx(v):
    return ("constexpr", v)


# (kernel, specs, num_warps, features the sm_90a PTX must have)
CASES = {
    "add": (sk.add_kernel, [ptr(), ptr(), ptr(), i32(True), cx(1024)], 4,
            ["ld.global.v4.b32", "st.global.v4.b32", ".maxntid 128, 1, 1"]),
    "add_unaligned_n": (sk.add_kernel, [ptr(), ptr(), ptr(), i32(), cx(1024)], 4,
                        ["ld.global.b32"]),
    "gelu": (sk.triton_gelu_kernel, [ptr(), ptr(), i32(True), cx(1024)], 4,
             ["ld.global.v4.b32", "ex2.approx.f32", "div.full.f32"]),
    "softmax": (sk.softmax_kernel, [ptr(), ptr(), i32(True), i32(True), i32(True), cx(1024)],
                4, ["shfl.sync.bfly.b32", "ld.global.v4.b32", "bar.sync"]),
    "softmax_16_warps": (sk.softmax_kernel,
                         [ptr(), ptr(), i32(True), i32(True), i32(True), cx(16384)], 16,
                         ["shfl.sync.bfly.b32", ".maxntid 512, 1, 1"]),
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


def find_ptxas():
    for cand in [os.environ.get("TILEC_PTXAS"), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"]:
        if cand and os.path.exists(cand):
            return cand
    return None


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
