"""@autotune as Triton users know it, on the CPU interpreter: configs compiled up front
(in parallel), failing configs scored inf and reported, TILEC_PRINT_AUTOTUNING, the disk
cache reused by a second process, hooks, do_bench and prune_configs_by."""

import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tilec
import tilec as triton
import tilec.language as tl
from gpu_util import HAVE_GPU

HERE = os.path.dirname(os.path.abspath(__file__))


def _fixed_bench(times):
    """A do_bench (Triton's signature: fn, quantiles) returning times[BLOCK] per config."""
    seen = []

    def bench(fn, quantiles):
        fn()
        return [times[seen[-1]]] * len(quantiles)

    return seen, bench


def _double_kernel(configs, **kw):
    @triton.autotune(configs=configs, key=["n"], **kw)
    @triton.jit
    def double(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n) * 2, mask=offs < n)

    return double


def _grid(n):
    return lambda meta: (triton.cdiv(n, meta["BLOCK"]),)


def test_print_autotuning_lists_each_config_and_the_winner(monkeypatch, capsys):
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")
    k = _double_kernel([triton.Config({"BLOCK": b}) for b in (16, 32, 64)], warmup=1, rep=2)
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    k[_grid(100)](x, y, 100)
    np.testing.assert_array_equal(y, 2 * x)
    out = capsys.readouterr().out
    for b in (16, 32, 64):
        assert f"BLOCK: {b}," in out and " ms" in out
    assert "best config: " + str(k.best_config) in out
    assert set(k.configs_timings) == set(k.configs)
    assert all(t > 0 for t in k.configs_timings.values())
    assert k.bench_time > 0


def test_no_print_without_the_variable(monkeypatch, capsys):
    monkeypatch.delenv("TILEC_PRINT_AUTOTUNING", raising=False)
    k = _double_kernel([triton.Config({"BLOCK": b}) for b in (16, 32)], warmup=1, rep=1)
    x = np.ones(40, np.float32)
    k[_grid(40)](x, np.zeros_like(x), 40)
    assert "autotuning" not in capsys.readouterr().out


def test_a_config_that_fails_to_compile_is_inf_and_reported(monkeypatch, capsys):
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 48})],
                     key=[], warmup=1, rep=1, restore_value=["X"])
    @triton.jit
    def k(X, BLOCK: tl.constexpr):  # BLOCK=48 is not a power of two: tl.arange rejects it
        offs = tl.arange(0, BLOCK)
        tl.store(X + offs, tl.load(X + offs) + 1)

    x = np.zeros(64, np.float32)
    k[(1,)](x)
    bad = triton.Config({"BLOCK": 48})
    assert k.best_config.kwargs == {"BLOCK": 16}
    assert k.configs_timings[bad] == float("inf")
    assert "CompilationError" in k.configs_failures[bad]
    out = capsys.readouterr().out
    assert "inf (failed: CompilationError" in out
    np.testing.assert_array_equal(x[:16], 1)  # restore_value undid the timed runs


def test_compile_failure_warns_without_print(monkeypatch):
    monkeypatch.delenv("TILEC_PRINT_AUTOTUNING", raising=False)

    @triton.autotune(configs=[triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 48})],
                     key=[], warmup=1, rep=1)
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    with pytest.warns(UserWarning, match="failed to compile"):
        k[(1,)](np.zeros(64, np.float32))


def test_every_config_failing_raises_with_the_reasons():
    @triton.autotune(configs=[triton.Config({"BLOCK": 24}), triton.Config({"BLOCK": 48})],
                     key=[], warmup=1, rep=1)
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    with pytest.warns(UserWarning):
        with pytest.raises(tilec.OutOfResources, match="BLOCK: 24"):
            k[(1,)](np.zeros(64, np.float32))


def test_configs_compile_in_parallel_threads(monkeypatch):
    """Every config is compiled (warmup) before any is timed, from worker threads."""
    configs = [triton.Config({"BLOCK": b}) for b in (16, 32, 64, 128)]
    k = _double_kernel(configs, warmup=1, rep=1)
    jit = k.fn
    events = []
    real_run = type(jit).run

    def spy(self, *args, grid, warmup=False, **kw):
        events.append(("compile" if warmup else "launch", kw["BLOCK"],
                       threading.current_thread() is threading.main_thread()))
        return real_run(self, *args, grid=grid, warmup=warmup, **kw)

    monkeypatch.setattr(type(jit), "run", spy)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    x = np.ones(256, np.float32)
    k[_grid(256)](x, np.zeros_like(x), 256)
    compiles = [e for e in events if e[0] == "compile"]
    assert sorted(e[1] for e in compiles) == [16, 32, 64, 128]
    assert not any(e[2] for e in compiles)  # on worker threads
    first_launch = next(i for i, e in enumerate(events) if e[0] == "launch")
    assert first_launch == len(compiles)  # all compiled before timing starts
    assert len(jit.cache) == 4


def test_do_bench_with_triton_signature_decides():
    seen, bench = _fixed_bench({16: 3.0, 32: 1.0, 64: 2.0})

    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (16, 32, 64)], key=["n"],
                     do_bench=bench)
    @triton.jit
    def k(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)

    orig = k._bench

    def record(args, kwargs, nargs, config, grid):
        seen.append(config.kwargs["BLOCK"])
        return orig(args, kwargs, nargs, config, grid)

    k._bench = record
    x = np.ones(64, np.float32)
    k[_grid(64)](x, np.zeros_like(x), 64)
    assert k.best_config.kwargs == {"BLOCK": 32}
    assert k.configs_timings[triton.Config({"BLOCK": 16})] == 3.0


def test_key_includes_dtypes():
    k = _double_kernel([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                       warmup=1, rep=1)
    for dt in (np.float32, np.float16, np.float32):
        x = np.ones(32, dt)
        k[_grid(32)](x, np.zeros_like(x), 32)
    assert len(k.cache) == 2
    assert any("float16" in str(key) for key in k.cache)


def test_pre_and_post_hooks_and_config_pre_hook():
    calls = []
    cfg_hook = lambda nargs: calls.append(("config", nargs["BLOCK"]))
    k = _double_kernel([triton.Config({"BLOCK": 16}, pre_hook=cfg_hook),
                        triton.Config({"BLOCK": 32})], warmup=1, rep=1,
                       pre_hook=lambda nargs: calls.append(("pre", nargs["BLOCK"])),
                       post_hook=lambda nargs, exception: calls.append(("post", exception)))
    x = np.ones(32, np.float32)
    k[_grid(32)](x, np.zeros_like(x), 32)
    assert ("pre", 16) in calls and ("pre", 32) in calls and ("config", 16) in calls
    assert ("post", None) in calls


def test_warmup_compiles_the_chosen_config_without_writing():
    k = _double_kernel([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})],
                       warmup=1, rep=1)
    x = np.ones(32, np.float32)
    y = np.zeros_like(x)
    compiled = k.warmup(x, y, 32, grid=_grid(32))
    assert isinstance(compiled, tilec.CompiledKernel)
    # tuning itself runs the kernel; the returned kernel is a compiled variant of the jit fn
    assert compiled in k.fn.cache.values()


# -- the disk cache ------------------------------------------------------------------------

def test_cache_results_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_CACHE_AUTOTUNING", raising=False)
    configs = [triton.Config({"BLOCK": b}) for b in (16, 32)]
    seen, bench = _fixed_bench({16: 2.0, 32: 1.0})
    k1 = _double_kernel(configs, do_bench=bench, cache_results=True)
    orig = k1._bench
    k1._bench = lambda a, kw, n, c, g: (seen.append(c.kwargs["BLOCK"]), orig(a, kw, n, c, g))[1]
    x = np.ones(32, np.float32)
    k1[_grid(32)](x, np.zeros_like(x), 32)
    assert seen == [16, 32]
    files = list((tmp_path / "autotune").glob("*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["best_config"] == str(configs[1])
    assert not list((tmp_path / "autotune").glob(".tmp-*"))
    # a fresh autotuner (as in a new process) over the same kernel reads it back
    k2 = _double_kernel(configs, do_bench=lambda fn, quantiles: pytest.fail("re-tuned"),
                        cache_results=True)
    y = np.zeros_like(x)
    k2[_grid(32)](x, y, 32)
    assert k2.from_disk_cache and k2.best_config == configs[1]
    assert k2.configs_timings[configs[0]] == 2.0
    np.testing.assert_array_equal(y, 2)


def test_disk_cache_keyed_by_key_values_and_configs(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEC_CACHE_AUTOTUNING", "1")
    k = _double_kernel([triton.Config({"BLOCK": b}) for b in (16, 32)], warmup=1, rep=1)
    for n in (32, 33):
        x = np.ones(n, np.float32)
        k[_grid(n)](x, np.zeros_like(x), n)
    k3 = _double_kernel([triton.Config({"BLOCK": b}) for b in (16, 64)], warmup=1, rep=1)
    x = np.ones(32, np.float32)
    k3[_grid(32)](x, np.zeros_like(x), 32)
    assert not k3.from_disk_cache
    assert len(list((tmp_path / "autotune").glob("*.json"))) == 3


def test_disk_cache_off_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_CACHE_AUTOTUNING", raising=False)
    k = _double_kernel([triton.Config({"BLOCK": b}) for b in (16, 32)], warmup=1, rep=1)
    x = np.ones(32, np.float32)
    k[_grid(32)](x, np.zeros_like(x), 32)
    assert not (tmp_path / "autotune").exists()


SEED_MATMUL = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {here!r})
    import tilec as triton
    import seed_kernels as sk
    M = N = K = 16
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    grid = lambda META: (triton.cdiv(M, META['BLOCK_SIZE_M']) *
                         triton.cdiv(N, META['BLOCK_SIZE_N']),)
    sk.matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, GROUP_SIZE_M=8)
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), ref.astype(np.float32), atol=1e-2, rtol=1e-2)
    print("RESULT OK", sk.matmul_kernel.from_disk_cache)
""")


def test_seed_matmul_prints_tuning_and_a_second_process_skips_it(tmp_path):
    """The user's documents' matmul (8 configs) with TILEC_PRINT_AUTOTUNING=1: the first
    process times every config and names the winner; the second, with the disk cache on,
    reads the result and times nothing."""
    script = tmp_path / "mm.py"
    script.write_text(SEED_MATMUL.format(here=os.path.join(HERE, "..", "data")))
    env = dict(os.environ, TILEC_PRINT_AUTOTUNING="1", TILEC_CACHE_AUTOTUNING="1",
               TILEC_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("TILEC_SIMT", None)
    first = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "RESULT OK False" in out
    timed = [line for line in out.splitlines() if line.startswith("  BLOCK_SIZE_M:")]
    assert len(timed) == 8 and all(line.endswith(" ms") for line in timed), out
    assert "best config: BLOCK_SIZE_M:" in out and "finished after" in out
    second = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                            text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "RESULT OK True" in second.stdout
    assert "read from the disk cache" in second.stdout
    assert "finished after" not in second.stdout and " ms" not in second.stdout


# -- on the GPU ----------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_autotune_times_with_events_and_caches(tmp_path, monkeypatch, capsys):
    import torch

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TILEC_PRINT_AUTOTUNING", "1")
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((256, 2), (1024, 4),
                                                                      (4096, 8))]
    k = _double_kernel(configs, cache_results=True)
    n = 1 << 22
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    k[_grid(n)](x, y, n)
    torch.cuda.synchronize()
    assert torch.equal(y, 2 * x)
    out = capsys.readouterr().out
    print(out)
    assert all(0 < t < float("inf") for t in k.configs_timings.values()), k.configs_timings
    assert "best config: " + str(k.best_config) in out
    k2 = _double_kernel(configs, cache_results=True)
    y.zero_()
    k2[_grid(n)](x, y, n)
    torch.cuda.synchronize()
    assert k2.from_disk_cache and k2.best_config == k.best_config
    assert torch.equal(y, 2 * x)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_do_bench_uses_cuda_events():
    import torch

    x = torch.randn(1 << 24, device="cuda")
    ms = triton.testing.do_bench(lambda: x * 2, warmup=5, rep=20)
    # 128 MB read + written: well under 10 ms on any recent GPU, and not 0
    assert 0.005 < ms < 10, ms
    g = triton.testing.do_bench_cudagraph(lambda: x.mul_(1.0), rep=20)
    assert 0.005 < g < 10, g
    print(f"do_bench x*2 over 64 MB: {ms:.4f} ms; cudagraph x.mul_: {g:.4f} ms")


def _rounds_kernel(first, second, **kw):
    """A kernel whose _bench returns first[BLOCK] in the quick round and second[BLOCK] when
    timed again; records (BLOCK, timing) per call."""
    k = _double_kernel([triton.Config({"BLOCK": b}) for b in first], **kw)
    calls = []
    orig = k._bench

    def bench(args, kwargs, nargs, config, grid, *timing):
        orig(args, kwargs, nargs, config, grid, *((1, 1) if timing else ()))  # runs it once
        b = config.kwargs["BLOCK"]
        calls.append((b, timing))
        return (second if timing == k.FINAL else first)[b]

    k._bench = bench
    return k, calls


def test_default_timing_retimes_only_the_close_configs():
    # 16 and 32 are within 10% of the best (64); 128 is not and is timed once, briefly
    first = {16: 1.05, 32: 1.08, 64: 1.0, 128: 3.0}
    second = {16: 0.9, 32: 1.2, 64: 1.0, 128: 99.0}
    k, calls = _rounds_kernel(first, second)
    x = np.ones(256, np.float32)
    y = np.zeros_like(x)
    k[_grid(256)](x, y, 256)
    np.testing.assert_array_equal(y, 2 * x)
    assert [c for c in calls if c[1] == k.QUICK] == [(b, k.QUICK) for b in first]
    assert sorted(b for b, t in calls if t == k.FINAL) == [16, 32, 64]
    assert k.best_config.kwargs == {"BLOCK": 16}  # the second round decides
    assert k.configs_timings[triton.Config({"BLOCK": 128})] == 3.0


def test_explicit_timing_is_one_round_as_asked():
    first = {16: 1.05, 32: 1.0}
    k, calls = _rounds_kernel(first, {16: 0.5, 32: 2.0}, warmup=3, rep=7)
    x = np.ones(64, np.float32)
    k[_grid(64)](x, np.zeros_like(x), 64)
    assert calls == [(16, ()), (32, ())]  # the tuner's own warmup=3, rep=7
    assert k.num_warmups == 3 and k.num_reps == 7
    assert k.best_config.kwargs == {"BLOCK": 32}


def test_key_naming_no_parameter_is_ignored_and_base_fn():
    # Triton's tutorial 08 passes such a key; Triton ignores it
    @triton.autotune(configs=[triton.Config({"B": 16})], key=["n", "not_a_parameter"])
    @triton.jit
    def _k(X, n, B: tl.constexpr):
        tl.store(X + tl.arange(0, B), tl.full((B,), n, tl.float32))

    x = np.zeros(16, np.float32)
    _k[(1,)](x, 3)
    assert (x == 3).all()
    assert _k.base_fn.__name__ == "_k"



@triton.jit
def _desc_add_one(src, dst, C, BM: tl.constexpr, BN: tl.constexpr):
    p, q = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([p, q], src.load([p, q]) + 1)


def test_configs_whose_hooks_set_descriptor_blocks_compile_up_front():
    # tutorial 06's configs each carry a pre_hook setting the descriptors' block_shape: each
    # hook runs once before the compiles, which then go on together (on snapshots of the
    # descriptors as their hook left them), not one by one as each config is first timed
    from tilec.tools.tensor_descriptor import TensorDescriptor

    def set_blocks(nargs):
        nargs["C"][0] += 1  # restore_value: put back after the up-front runs, as after timing
        for name in ("src", "dst"):
            nargs[name].block_shape = [nargs["BM"], nargs["BN"]]

    shapes = [(16, 32), (32, 16), (16, 16)]
    configs = [triton.Config({"BM": bm, "BN": bn}, pre_hook=set_blocks) for bm, bn in shapes]
    jit = triton.jit(_desc_add_one.fn)
    calls = []  # (warmup, src's block shape, whether a timed call came before)
    run = jit.run

    def recording_run(*args, warmup=False, **kw):
        calls.append((warmup, tuple(args[0].block_shape), any(not c[0] for c in calls)))
        return run(*args, warmup=warmup, **kw)

    jit.run = recording_run
    tuned = triton.autotune(configs=configs, key=[], warmup=1, rep=1, restore_value=["C"])(jit)
    x = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    y = np.zeros((32, 32), np.float32)
    c = np.zeros(4, np.float32)
    src = TensorDescriptor.from_tensor(x, [1, 1])
    dst = TensorDescriptor.from_tensor(y, [1, 1])
    grid = lambda meta: (triton.cdiv(32, meta["BM"]), triton.cdiv(32, meta["BN"]))  # noqa: E731
    tuned[grid](src, dst, c)
    np.testing.assert_array_equal(y, x + 1)
    up_front = [(shape, late) for warmup, shape, late in calls if warmup]
    assert sorted(up_front) == sorted((s, False) for s in shapes), calls
    assert len(tuned.compiled_variants()) == 3  # the timed runs found them compiled
    assert c[0] == 1  # only the final launch's hook run stays


def test_pruning_every_config_is_triton_s_autotuner_error():
    tuned = _double_kernel([triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})],
                           prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: []})
    x = np.ones(64, np.float32)
    with pytest.raises(triton.TritonError) as e:
        tuned[lambda meta: (triton.cdiv(64, meta["BLOCK"]),)](x, np.empty_like(x), 64)
    assert str(e.value) == ("Autotuner error: No valid autotuner configs after pruning. "
                            "`early_config_prune` should return at least one config.")
