"""The runnable examples and the CPU benchmark keep working (smoke tests), and the PTX-edit
A/B tool edits what it should."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_vector_add_example_runs_and_says_where():
    env = dict(os.environ, TILEC_INTERPRET="1")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "vector_add.py")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "running on the CPU (tile interpreter)" in r.stdout
    assert "OK: the kernel's output matches numpy" in r.stdout


def test_cpu_benchmark_cases_run():
    path = os.path.join(ROOT, "benchmarks", "cpu_interpreter.py")
    spec = importlib.util.spec_from_file_location("tilec_cpu_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for fn in (bench.bench_vector_add, bench.bench_softmax, bench.bench_launch_overhead):
        median, best = fn(1)
        assert 0 < best <= median


FAKE_BENCH = r'''
import json, os
d = os.path.join(os.environ["TILEC_CACHE_DIR"], "ab", "ab" * 32)
if not os.path.exists(d):  # the first run fills the cache, as a compile would
    os.makedirs(d)
    open(os.path.join(d, "kernel.ptx"), "w").write(PTX)
    for f in ("kernel.cubin", "kernel.json"):
        open(os.path.join(d, f), "w").write("stale")
ptx = open(os.path.join(d, "kernel.ptx")).read()
cubin = open(os.path.join(d, "kernel.cubin"), "rb").read()
print(json.dumps({"subs": float(ptx.count("sub.s32")), "cubin_rebuilt": float(cubin != b"stale")}))
'''
TINY_PTX = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry tiny(.param .u64 p) {
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 7;
  st.global.u32 [%rd1], %r2;
  ret;
}
"""


def test_ptx_edit_ab_edits_the_cached_kernel_and_rebuilds_its_cubin(tmp_path):
    """benchmarks/ptx_edit_ab.py: the edited copy of the cache (B) holds the edited PTX and a
    cubin ptxas built from it; an edit that matches nothing is an error naming it."""
    if not shutil.which("ptxas") and not os.path.exists("/usr/local/cuda/bin/ptxas"):
        pytest.skip("no ptxas")
    cmd = tmp_path / "bench.py"
    cmd.write_text(f"PTX = {TINY_PTX!r}\n" + FAKE_BENCH)
    tool = [sys.executable, os.path.join(ROOT, "benchmarks", "ptx_edit_ab.py"), "--kernel", "tiny"]
    r = subprocess.run(tool + ["--edit", r"add\.s32 (%r2), (%r1), 7=>sub.s32 \1, \2, 7",
                               "--rounds", "2", "--json", str(tmp_path / "r.json"),
                               "--", sys.executable, str(cmd)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row["row"]: row for row in json.load(open(tmp_path / "r.json"))["rows"]}
    assert rows["subs"]["a_runs"] == [0.0, 0.0] and rows["subs"]["b_runs"] == [1.0, 1.0]
    assert rows["cubin_rebuilt"]["a_runs"] == [0.0, 0.0]
    assert rows["cubin_rebuilt"]["b_runs"] == [1.0, 1.0]
    r = subprocess.run(tool + ["--edit", "mul.lo=>x", "--", sys.executable, str(cmd)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "the edit 'mul.lo' matches nothing" in r.stderr


def test_tma_probe_fit_splits_time_into_fixed_and_per_step_parts():
    path = os.path.join(ROOT, "benchmarks", "tma_probe.py")
    spec = importlib.util.spec_from_file_location("tilec_tma_probe", path)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)  # defines kernels only: no GPU, no torch at import
    a, b = probe.fit_line([(1024, 12.0 + 0.04 * 1024), (2048, 12.0 + 0.04 * 2048),
                           (8192, 12.0 + 0.04 * 8192)])
    assert a == pytest.approx(12.0) and b == pytest.approx(0.04)
    # times in ms per K; the fit reports us and us per K step, and ratios to cuBLAS
    times = {("float16", "ptr"): [(1024, 0.060), (4096, 0.180)],
             ("float16", "cuBLAS"): [(1024, 0.050), (4096, 0.170)]}
    fit = probe.print_fit(times, 64)
    assert fit["float16 ptr"]["a_us"] == pytest.approx(20.0)
    assert fit["float16 cuBLAS"]["a_us"] == pytest.approx(10.0)
    assert fit["float16 ptr"]["b_us_per_step"] == pytest.approx(120 / 3072 * 64)
